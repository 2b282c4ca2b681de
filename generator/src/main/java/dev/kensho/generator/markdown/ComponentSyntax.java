package dev.kensho.generator.markdown;

import dev.kensho.generator.Diagnostic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds MDX-style component tags in a page ({@code <Aside type="tip">}, {@code </Aside>},
 * {@code <Badge text="New" />}) outside code fences, checks them against the theme's catalogue,
 * and replaces each by an HTML comment marker. The comment keeps the page's line numbers, and
 * because an HTML comment is a block of its own in CommonMark, the Markdown between an opening and
 * a closing tag is parsed as Markdown, as MDX does.
 */
public final class ComponentSyntax {

    // Possessive quantifiers and no two quantifiers over the same characters: every pattern runs in
    // time linear in the line, whatever a hostile page puts after "<Aside".
    private static final Pattern CLOSE_LINE = Pattern.compile("^\\s*+</([A-Z][A-Za-z0-9]*+)\\s*+>\\s*+$");
    /** Where a component tag starts: its name, then a space, "/" or ">". */
    private static final Pattern TAG_START = Pattern.compile("<([A-Z][A-Za-z0-9]*+)(?=[\\s/>]|$)");
    /** Deeper nesting is refused: no lesson needs it, and it would only cost memory and stack. */
    static final int MAX_NESTING = 32;
    private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,})");
    /**
     * Starlight's asides in directive syntax: {@code :::note}, {@code :::tip[タイトル]}, {@code :::tip{icon="heart"}},
     * closed by {@code :::}.
     */
    private static final Pattern ASIDE_OPEN = Pattern.compile("^\\s*:::(note|tip|caution|danger)(?:\\[(.*?)\\])?(?:\\{(.*)\\})?\\s*$");
    /**
     * One attribute of a directive (remark-directive's syntax): {@code name="v"}, {@code name='v'}, {@code name=v},
     * {@code name}, {@code #id}, {@code .class}.
     */
    private static final Pattern DIRECTIVE_ATTRIBUTE = Pattern.compile(
            "\\s*(?:([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s\"'=<>`{}]+))|(?=\\s|$))|#[^\\s#.{}\"']+|\\.[^\\s#.{}\"']+)\\s*");
    /** The directive attributes an aside honours (Starlight's): its icon, drawn by the theme's icon set; others are ignored. */
    private static final Set<String> ASIDE_ATTRIBUTES = Set.of("icon");
    private static final Pattern ASIDE_CLOSE = Pattern.compile("^\\s*:::\\s*$");
    /** Lines an opening tag may span. */
    private static final int MAX_TAG_LINES = 50;

    private ComponentSyntax() {
    }

    /**
     * Reads an aside's {@code {…}} attributes into {@code attributes}: those it honours as the component attribute of
     * the same name (which then passes the same checks and escaping as {@code <Aside icon="…">}), the rest (ids,
     * classes, event handlers, styles) are read and dropped, so that nothing of them reaches the page. Null, or what
     * is malformed.
     */
    private static String directiveAttributes(String text, Map<String, Object> attributes) {
        Matcher attribute = DIRECTIVE_ATTRIBUTE.matcher(text);
        int at = 0;
        while (at < text.length()) {
            if (!attribute.region(at, text.length()).lookingAt() || attribute.end() == at) {
                return "aside attributes {" + text + "}: cannot read '" + text.substring(at).strip()
                        + "'; write name=\"value\" pairs, as :::tip{icon=\"heart\"}";
            }
            String name = attribute.group(1);
            if (name != null && ASIDE_ATTRIBUTES.contains(name)) {
                String value = attribute.group(2) != null ? attribute.group(2) : attribute.group(3) != null ? attribute.group(3) : attribute.group(4);
                attributes.put(name, value == null ? "" : value);
            }
            at = attribute.end();
        }
        return null;
    }

    /** The page body with markers in place of tags, and the tags in order. */
    public record Result(String body, List<ComponentTag> tags) {
        public Result {
            tags = List.copyOf(tags);
        }
    }

    /**
     * @param rawFiles reads the files that {@code import x from './file?raw'} names
     */
    public static Result extract(String body, String file, ComponentCatalog catalog, MdxModule.RawFiles rawFiles, List<Diagnostic> diagnostics) {
        String[] lines = body.split("\n", -1);
        List<ComponentTag> tags = new ArrayList<>();
        Deque<ComponentTag> open = new ArrayDeque<>();
        boolean[] inCode = codeFenceLines(lines);
        // Imports and exports are read first and blanked: components come from the theme, and values
        // that attributes name come from the page's own 'export const' lines.
        MdxModule module = MdxModule.read(lines, inCode, file, rawFiles, diagnostics);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int number = i + 1;
            if (inCode[i] || line.indexOf('<') < 0 && line.indexOf(':') < 0 && line.indexOf('{') < 0) {
                continue; // code, or prose with nothing that could start a tag, an aside or a comment
            }
            if (line.strip().startsWith("{/*")) {
                int end = i;
                while (end < lines.length - 1 && !lines[end].contains("*/}") && end - i < MAX_TAG_LINES) {
                    end++;
                }
                for (int k = i; k <= end; k++) {
                    lines[k] = ""; // a JSX comment, on one line or several
                }
                i = end;
                continue;
            }
            Matcher asideOpen = ASIDE_OPEN.matcher(line);
            if (asideOpen.matches()) {
                Map<String, Object> attributes = new LinkedHashMap<>();
                attributes.put("type", asideOpen.group(1));
                if (asideOpen.group(2) != null && !asideOpen.group(2).isBlank()) {
                    attributes.put("title", asideOpen.group(2).strip());
                }
                if (asideOpen.group(3) != null) {
                    String problem = directiveAttributes(asideOpen.group(3), attributes);
                    if (problem != null) {
                        diagnostics.add(Diagnostic.at(file, number, line.indexOf('{') + 1, problem, line));
                    }
                }
                ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.OPEN, ASIDE, attributes, number, null);
                open.push(tag);
                tags.add(tag);
                lines[i] = indentation(line) + tag.marker();
                continue;
            }
            if (ASIDE_CLOSE.matcher(line).matches() && !open.isEmpty() && open.peek().name().equals(ASIDE)) {
                ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.CLOSE, ASIDE, Map.of(), number, null);
                open.pop();
                tags.add(tag);
                lines[i] = indentation(line) + tag.marker();
                continue;
            }
            int indent = indentation(line).length();
            if (TAG_START.matcher(line).region(indent, line.length()).lookingAt() && tagEnd(line, indent) < 0) {
                // An opening tag over several lines: read it as one line, and keep the line count.
                StringBuilder joined = new StringBuilder(line);
                TagEnd end = new TagEnd(indent);
                int last = i + 1;
                while (last < lines.length && last - i < MAX_TAG_LINES) {
                    joined.append(' ').append(lines[last].strip());
                    if (end.in(joined) >= 0) {
                        break;
                    }
                    last++;
                }
                if (last < lines.length && end.in(joined) >= 0) {
                    for (int k = i + 1; k <= last; k++) {
                        lines[k] = "";
                    }
                    line = joined.toString();
                    lines[i] = line;
                }
            }
            Matcher closing = CLOSE_LINE.matcher(line);
            Matcher start = TAG_START.matcher(line).region(indent, line.length());
            try {
                if (closing.matches()) {
                    String name = closing.group(1);
                    if (open.isEmpty() || !open.peek().name().equals(name)) {
                        throw new SyntaxProblem(open.isEmpty() ? "</" + name + "> closes no open component"
                                : "</" + name + "> does not match <" + open.peek().name() + "> opened on line " + open.peek().line(), line.indexOf('<'));
                    }
                    open.pop();
                    ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.CLOSE, name, Map.of(), number, null);
                    tags.add(tag);
                    lines[i] = indentation(line) + tag.marker();
                } else if (start.lookingAt() && tagEnd(line, indent) >= 0 && wholeLineTag(line, indent, start.group(1))) {
                    String name = start.group(1);
                    int end = tagEnd(line, indent);
                    String inside = line.substring(start.end(), end).stripTrailing();
                    boolean selfClosing = inside.endsWith("/");
                    String attributeText = selfClosing ? inside.substring(0, inside.length() - 1) : inside;
                    String after = line.substring(end + 1).strip();
                    if (!after.isEmpty()) {
                        // <Badge>text</Badge> on one line: its content is inline Markdown.
                        ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.ONE_LINE, name,
                                attributes(attributeText, line, module), number, after.substring(0, after.length() - name.length() - 3).strip());
                        check(tag, catalog, line);
                        tags.add(tag);
                        lines[i] = indentation(line) + tag.marker();
                    } else {
                        if (!selfClosing && open.size() >= MAX_NESTING) {
                            // Reported once; the rest of the page would only add a cascade of follow-on errors.
                            diagnostics.add(Diagnostic.at(file, number, line.indexOf('<') + 1, "components nest deeper than "
                                    + MAX_NESTING + " levels here; the page's components are not read further", line));
                            return new Result(String.join("\n", lines), tags);
                        }
                        ComponentTag tag = new ComponentTag(tags.size(), selfClosing ? ComponentTag.Kind.SELF_CLOSING : ComponentTag.Kind.OPEN,
                                name, Map.of(), number, null);
                        if (!selfClosing) {
                            // Pushed before checking, so that its closing tag still pairs with it when it is faulty.
                            open.push(tag);
                        }
                        tag = new ComponentTag(tag.id(), tag.kind(), tag.name(), attributes(attributeText, line, module), number, null);
                        check(tag, catalog, line);
                        tags.add(tag);
                        lines[i] = indentation(line) + tag.marker();
                    }
                } else if (line.contains("<")) {
                    lines[i] = inlineComponents(line, number, tags, catalog, diagnostics, file, module);
                }
            } catch (SyntaxProblem problem) {
                diagnostics.add(Diagnostic.at(file, number, problem.column + 1, problem.getMessage(), line));
                lines[i] = "";
            }
        }
        for (ComponentTag unclosed : open) {
            diagnostics.add(Diagnostic.at(file, unclosed.line(), 1, "<" + unclosed.name() + "> is never closed: add </"
                    + unclosed.name() + "> on a line of its own (or write <" + unclosed.name() + " … /> )", lines[unclosed.line() - 1]));
        }
        return new Result(String.join("\n", lines), tags);
    }

    private static String inlineComponents(String line, int number, List<ComponentTag> tags, ComponentCatalog catalog,
                                           List<Diagnostic> diagnostics, String file, MdxModule module) {
        Matcher start = TAG_START.matcher(line);
        StringBuilder out = new StringBuilder();
        int last = 0;
        boolean[] inCode = inlineCode(line);
        while (start.find()) {
            int end = tagEnd(line, start.start());
            if (inCode[start.start()] || end < 0 || line.charAt(end - 1) != '/' || start.start() < last) {
                continue; // `<EditLink />` in inline code is text, not a tag; only self-closing tags sit inside text
            }
            out.append(line, last, start.start());
            try {
                ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.SELF_CLOSING, start.group(1),
                        attributes(line.substring(start.end(), end - 1), line, module), number, null);
                check(tag, catalog, line);
                tags.add(tag);
                out.append(tag.marker());
            } catch (SyntaxProblem problem) {
                diagnostics.add(Diagnostic.at(file, number, start.start() + 1, problem.getMessage(), line));
            }
            last = end + 1;
        }
        out.append(line.substring(last));
        return out.toString();
    }

    /**
     * The index of the {@code >} that ends the tag opened at {@code open}, skipping any inside quotes
     * or braces ({@code items={a => a}}), or -1 when the tag does not end on this text. Linear in the text.
     */
    static int tagEnd(CharSequence text, int open) {
        JsScanner scanner = new JsScanner(true);
        for (int i = open + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (scanner.atTop() && c == '>') {
                return i;
            }
            if (scanner.atTop() && c == '<') {
                return -1; // another tag starts before this one ends
            }
            i = scanner.read(text, i);
        }
        return -1;
    }

    /**
     * {@link #tagEnd} over a text that only grows at its end, as an opening tag over several lines is
     * joined: each character is read once. Rescanning the joined text for every added line cost the
     * square of the tag's length for each line of a page of unclosed tags (fuzzing's quadratic path).
     */
    private static final class TagEnd {
        private final JsScanner scanner = new JsScanner(true);
        private int next;
        private boolean done;
        private int end = -1;

        TagEnd(int open) {
            this.next = open + 1;
        }

        /** The index of the tag's closing {@code >} in the text so far, or -1. */
        int in(CharSequence text) {
            for (int i = next; !done && i < text.length(); i++) {
                char c = text.charAt(i);
                if (scanner.atTop() && (c == '>' || c == '<')) {
                    done = true; // closed, or another tag starts before this one ends
                    end = c == '>' ? i : -1;
                } else {
                    i = scanner.read(text, i);
                }
                next = i + 1;
            }
            return end;
        }
    }

    /** Whether the tag at {@code indent} fills its line: alone, or as {@code <Name …>content</Name>}. */
    private static boolean wholeLineTag(String line, int indent, String name) {
        int end = tagEnd(line, indent);
        String after = line.substring(end + 1).strip();
        if (after.isEmpty()) {
            return true;
        }
        String close = "</" + name + ">";
        return line.charAt(end - 1) != '/' && after.endsWith(close) && after.indexOf(close) == after.length() - close.length();
    }

    /** Which characters of a line sit inside an inline code span (between equal runs of backticks). */
    private static boolean[] inlineCode(String line) {
        boolean[] inside = new boolean[line.length() + 1];
        int i = 0;
        while (i < line.length()) {
            if (line.charAt(i) != '`') {
                i++;
                continue;
            }
            int run = i;
            while (run < line.length() && line.charAt(run) == '`') {
                run++;
            }
            String ticks = line.substring(i, run);
            int close = line.indexOf(ticks, run);
            if (close < 0) {
                break;
            }
            for (int k = i; k < close + ticks.length(); k++) {
                inside[k] = true;
            }
            i = close + ticks.length();
        }
        return inside;
    }

    private static final String ASIDE = "Aside";

    /** Which lines are inside a fenced code block, fences included: components and ESM there are code. */
    private static boolean[] codeFenceLines(String[] lines) {
        boolean[] inCode = new boolean[lines.length];
        String fence = null;
        for (int i = 0; i < lines.length; i++) {
            if (fence == null && lines[i].indexOf('`') < 0 && lines[i].indexOf('~') < 0) {
                continue;
            }
            Matcher fenceMatcher = FENCE.matcher(lines[i]);
            if (fence != null) {
                inCode[i] = true;
                if (fenceMatcher.find() && fenceMatcher.group(1).charAt(0) == fence.charAt(0) && fenceMatcher.group(1).length() >= fence.length()
                        && lines[i].strip().length() == fenceMatcher.group(1).length()) {
                    fence = null;
                }
            } else if (fenceMatcher.find()) {
                fence = fenceMatcher.group(1);
                inCode[i] = true;
            }
        }
        return inCode;
    }

    /**
     * A marker keeps its tag's indentation, so that a component written inside a list item stays in
     * that item (and a Steps list keeps counting), as in MDX.
     */
    private static String indentation(String line) {
        int i = 0;
        while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
            i++;
        }
        return line.substring(0, i);
    }

    private static void check(ComponentTag tag, ComponentCatalog catalog, String line) throws SyntaxProblem {
        int column = Math.max(0, line.indexOf("<" + tag.name()));
        var required = catalog.requiredAttributes(tag.name());
        if (required.isEmpty()) {
            throw new SyntaxProblem("unknown component <" + tag.name() + ">" + dev.kensho.generator.Suggestion.didYouMean(tag.name(), catalog.names())
                    + "; the theme has " + String.join(", ", catalog.names())
                    + " (add theme/components/" + tag.name() + ".ftlh to define it)", column);
        }
        for (String attribute : required.get()) {
            if (!tag.attributes().containsKey(attribute)) {
                throw new SyntaxProblem("<" + tag.name() + "> needs the attribute " + attribute + "=\"…\"", column);
            }
        }
        var taken = catalog.attributesTaken(tag.name());
        if (taken.isPresent()) {
            for (String attribute : tag.attributes().keySet()) {
                if (!taken.get().contains(attribute) && !catalog.attributesReadElsewhere().contains(attribute)) {
                    java.util.regex.Matcher written = java.util.regex.Pattern.compile("\\s" + java.util.regex.Pattern.quote(attribute) + "(?=[\\s=/>]|$)")
                            .matcher(line);
                    int at = written.find(column) ? written.start() + 1 : column;
                    List<String> known = taken.get().stream().sorted().toList();
                    throw new SyntaxProblem("<" + tag.name() + "> takes no attribute " + attribute
                            + dev.kensho.generator.Suggestion.didYouMean(attribute, known) + "; it reads "
                            + (known.isEmpty() ? "none" : String.join(", ", known)) + " (anything else would be dropped in silence)", at);
                }
            }
        }
        Object lang = tag.attributes().get("lang");
        if (lang != null && !(lang instanceof String name && CodeDisplay.isLanguageName(name))) {
            // A theme writes it into the code block's class: a space would add classes of the theme's own.
            throw new SyntaxProblem("<" + tag.name() + " lang=\"" + lang + "\">: lang is a language name (letters, digits and"
                    + " _ + # . -, at most 32), such as lang=\"sql\"", column);
        }
        for (Map.Entry<String, List<String>> allowed : catalog.allowedValues(tag.name()).entrySet()) {
            Object value = tag.attributes().get(allowed.getKey());
            // Any value not in the list, whatever its type: a theme writes these into class names.
            if (value != null && !(value instanceof String named && allowed.getValue().contains(named))) {
                String text = String.valueOf(value);
                throw new SyntaxProblem("<" + tag.name() + " " + allowed.getKey() + "=\"" + text + "\">: " + allowed.getKey() + " is one of "
                        + String.join(", ", allowed.getValue()) + dev.kensho.generator.Suggestion.didYouMean(text, allowed.getValue()), column);
            }
        }
    }

    /** Parses {@code a="x" b='y' c={12} d={true} e={"z"} f={{k: 1}} g={[1, 2]} h={name} i} into values. */
    static Map<String, Object> attributes(String text, String line, MdxModule module) throws SyntaxProblem {
        Map<String, Object> attributes = new LinkedHashMap<>();
        if (text == null) {
            return attributes;
        }
        int i = 0;
        int offset = Math.max(0, line.indexOf(text));
        while (i < text.length()) {
            while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i >= text.length()) {
                break;
            }
            int start = i;
            while (i < text.length() && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '-' || text.charAt(i) == '_')) {
                i++;
            }
            String name = text.substring(start, i);
            if (name.isEmpty()) {
                throw new SyntaxProblem("cannot read the attributes here: expected a name, found '" + text.charAt(i) + "'", offset + i);
            }
            if (i >= text.length() || text.charAt(i) != '=') {
                attributes.put(name, Boolean.TRUE);
                continue;
            }
            i++;
            if (i >= text.length()) {
                throw new SyntaxProblem("attribute " + name + " has no value", offset + i);
            }
            char c = text.charAt(i);
            if (c == '"' || c == '\'') {
                int end = text.indexOf(c, i + 1);
                if (end < 0) {
                    throw new SyntaxProblem("attribute " + name + ": the quote is never closed", offset + i);
                }
                attributes.put(name, text.substring(i + 1, end));
                i = end + 1;
            } else if (c == '{') {
                int end = closingBrace(text, i);
                if (end < 0) {
                    throw new SyntaxProblem("attribute " + name + ": the { is never closed", offset + i);
                }
                try {
                    attributes.put(name, module.value(text.substring(i + 1, end).strip(), "attribute " + name));
                } catch (MdxModule.ValueProblem problem) {
                    throw new SyntaxProblem(problem.getMessage(), offset + i);
                }
                i = end + 1;
            } else {
                throw new SyntaxProblem("attribute " + name + " takes \"text\" or {value}", offset + i);
            }
        }
        return attributes;
    }

    /** The index of the brace closing the one at {@code open}, skipping braces inside strings; -1 if none. */
    private static int closingBrace(String text, int open) {
        JsScanner scanner = new JsScanner(true);
        for (int i = open; i < text.length(); i++) {
            i = scanner.read(text, i);
            if (scanner.atTop()) {
                return i;
            }
        }
        return -1;
    }

    /** A tag that cannot be read, with the 0-based column of the problem. */
    static final class SyntaxProblem extends Exception {
        final int column;

        SyntaxProblem(String message, int column) {
            super(message);
            this.column = column;
        }
    }
}
