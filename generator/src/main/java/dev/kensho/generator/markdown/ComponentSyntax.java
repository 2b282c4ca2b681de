package dev.kensho.generator.markdown;

import dev.kensho.generator.Diagnostic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    private static final Pattern OPEN_LINE = Pattern.compile("^\\s*+<([A-Z][A-Za-z0-9]*+)((?:[\\s/][^>]*+)?)>\\s*+$");
    private static final Pattern CLOSE_LINE = Pattern.compile("^\\s*+</([A-Z][A-Za-z0-9]*+)\\s*+>\\s*+$");
    private static final Pattern ONE_LINE = Pattern.compile("^\\s*+<([A-Z][A-Za-z0-9]*+)((?:\\s[^>]*+)?)>(.*)</\\1>\\s*+$");
    private static final Pattern INLINE_SELF_CLOSING = Pattern.compile("<([A-Z][A-Za-z0-9]*+)((?:\\s[^<>/]*+(?:/(?!>)[^<>/]*+)*+)?)/>");
    /** Deeper nesting is refused: no lesson needs it, and it would only cost memory and stack. */
    static final int MAX_NESTING = 32;
    private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,})");
    /** MDX's ESM lines, accepted anywhere outside code, as MDX does. */
    private static final Pattern ESM = Pattern.compile("^(import|export)\\s");
    /** Starlight's asides in directive syntax: {@code :::note}, {@code :::tip[タイトル]}, closed by {@code :::}. */
    private static final Pattern ASIDE_OPEN = Pattern.compile("^\\s*:::(note|tip|caution|danger)(?:\\[(.*)\\])?\\s*$");
    private static final Pattern ASIDE_CLOSE = Pattern.compile("^\\s*:::\\s*$");
    /** An opening tag whose attributes continue on the next lines. */
    private static final Pattern OPEN_START = Pattern.compile("^\\s*+<[A-Z][A-Za-z0-9]*+(?:\\s[^>]*+)?$");
    /** Lines an opening tag may span. */
    private static final int MAX_TAG_LINES = 50;

    private ComponentSyntax() {
    }

    /** The page body with markers in place of tags, and the tags in order. */
    public record Result(String body, List<ComponentTag> tags) {
        public Result {
            tags = List.copyOf(tags);
        }
    }

    public static Result extract(String body, String file, ComponentCatalog catalog, List<Diagnostic> diagnostics) {
        String[] lines = body.split("\n", -1);
        List<ComponentTag> tags = new ArrayList<>();
        Deque<ComponentTag> open = new ArrayDeque<>();
        String fence = null;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int number = i + 1;
            Matcher fenceMatcher = FENCE.matcher(line);
            if (fence != null) {
                if (fenceMatcher.find() && fenceMatcher.group(1).charAt(0) == fence.charAt(0) && fenceMatcher.group(1).length() >= fence.length()
                        && line.strip().length() == fenceMatcher.group(1).length()) {
                    fence = null;
                }
                continue;
            }
            if (fenceMatcher.find()) {
                fence = fenceMatcher.group(1);
                continue;
            }
            if (ESM.matcher(line).lookingAt()) {
                lines[i] = ""; // MDX imports and exports: components come from the theme, values from the attributes
                continue;
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
                ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.OPEN, ASIDE, attributes, number, null);
                open.push(tag);
                tags.add(tag);
                lines[i] = tag.marker();
                continue;
            }
            if (ASIDE_CLOSE.matcher(line).matches() && !open.isEmpty() && open.peek().name().equals(ASIDE)) {
                ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.CLOSE, ASIDE, Map.of(), number, null);
                open.pop();
                tags.add(tag);
                lines[i] = tag.marker();
                continue;
            }
            if (OPEN_START.matcher(line).matches()) {
                // An opening tag over several lines: read it as one line, and keep the line count.
                int end = i + 1;
                while (end < lines.length && end - i < MAX_TAG_LINES && !lines[end].contains(">")) {
                    end++;
                }
                if (end < lines.length && lines[end].contains(">")) {
                    StringBuilder joined = new StringBuilder(line);
                    for (int k = i + 1; k <= end; k++) {
                        joined.append(' ').append(lines[k].strip());
                        lines[k] = "";
                    }
                    line = joined.toString();
                    lines[i] = line;
                }
            }
            Matcher closing = CLOSE_LINE.matcher(line);
            Matcher oneLine = ONE_LINE.matcher(line);
            Matcher opening = OPEN_LINE.matcher(line);
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
                    lines[i] = tag.marker();
                } else if (oneLine.matches()) {
                    ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.ONE_LINE, oneLine.group(1),
                            attributes(oneLine.group(2), line), number, oneLine.group(3).strip());
                    check(tag, catalog, line);
                    tags.add(tag);
                    lines[i] = tag.marker();
                } else if (opening.matches()) {
                    String inside = opening.group(2).stripTrailing();
                    boolean selfClosing = inside.endsWith("/");
                    String attributeText = selfClosing ? inside.substring(0, inside.length() - 1) : inside;
                    if (!selfClosing && open.size() >= MAX_NESTING) {
                        // Reported once; the rest of the page would only add a cascade of follow-on errors.
                        diagnostics.add(Diagnostic.at(file, number, line.indexOf('<') + 1, "components nest deeper than "
                                + MAX_NESTING + " levels here; the page's components are not read further", line));
                        return new Result(String.join("\n", lines), tags);
                    }
                    ComponentTag tag = new ComponentTag(tags.size(), selfClosing ? ComponentTag.Kind.SELF_CLOSING : ComponentTag.Kind.OPEN,
                            opening.group(1), Map.of(), number, null);
                    if (!selfClosing) {
                        // Pushed before checking, so that its closing tag still pairs with it when it is faulty.
                        open.push(tag);
                    }
                    tag = new ComponentTag(tag.id(), tag.kind(), tag.name(), attributes(attributeText, line), number, null);
                    check(tag, catalog, line);
                    tags.add(tag);
                    lines[i] = tag.marker();
                } else if (line.contains("<")) {
                    lines[i] = inlineComponents(line, number, tags, catalog, diagnostics, file);
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
                                           List<Diagnostic> diagnostics, String file) {
        Matcher matcher = INLINE_SELF_CLOSING.matcher(line);
        StringBuilder out = new StringBuilder();
        int last = 0;
        boolean[] inCode = inlineCode(line);
        while (matcher.find()) {
            if (inCode[matcher.start()]) {
                continue; // `<EditLink />` in inline code is text, not a tag
            }
            out.append(line, last, matcher.start());
            try {
                ComponentTag tag = new ComponentTag(tags.size(), ComponentTag.Kind.SELF_CLOSING, matcher.group(1),
                        attributes(matcher.group(2), line), number, null);
                check(tag, catalog, line);
                tags.add(tag);
                out.append(tag.marker());
            } catch (SyntaxProblem problem) {
                diagnostics.add(Diagnostic.at(file, number, matcher.start() + 1, problem.getMessage(), line));
            }
            last = matcher.end();
        }
        out.append(line.substring(last));
        return out.toString();
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

    private static void check(ComponentTag tag, ComponentCatalog catalog, String line) throws SyntaxProblem {
        int column = Math.max(0, line.indexOf("<" + tag.name()));
        var required = catalog.requiredAttributes(tag.name());
        if (required.isEmpty()) {
            throw new SyntaxProblem("unknown component <" + tag.name() + ">; the theme has " + String.join(", ", catalog.names())
                    + " (add site/components/" + tag.name() + ".ftlh to define it)", column);
        }
        for (String attribute : required.get()) {
            if (!tag.attributes().containsKey(attribute)) {
                throw new SyntaxProblem("<" + tag.name() + "> needs the attribute " + attribute + "=\"…\"", column);
            }
        }
    }

    /** Parses {@code a="x" b='y' c={12} d={true} e={"z"} f} into values. */
    static Map<String, Object> attributes(String text, String line) throws SyntaxProblem {
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
                int end = text.indexOf('}', i + 1);
                if (end < 0) {
                    throw new SyntaxProblem("attribute " + name + ": the { is never closed", offset + i);
                }
                attributes.put(name, literal(name, text.substring(i + 1, end).strip(), offset + i));
                i = end + 1;
            } else {
                throw new SyntaxProblem("attribute " + name + " takes \"text\" or {literal}", offset + i);
            }
        }
        return attributes;
    }

    private static Object literal(String name, String text, int column) throws SyntaxProblem {
        if (text.equals("true") || text.equals("false")) {
            return Boolean.valueOf(text);
        }
        if (text.matches("-?\\d+")) {
            return Long.valueOf(text);
        }
        if (text.matches("-?\\d+\\.\\d+")) {
            return Double.valueOf(text);
        }
        if (text.length() >= 2 && (text.charAt(0) == '"' || text.charAt(0) == '\'' || text.charAt(0) == '`')
                && text.charAt(text.length() - 1) == text.charAt(0)) {
            return text.substring(1, text.length() - 1);
        }
        throw new SyntaxProblem("attribute " + name + "={" + text + "}: only numbers, true/false and quoted strings are supported", column);
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
