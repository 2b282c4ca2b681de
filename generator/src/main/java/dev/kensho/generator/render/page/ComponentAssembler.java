package dev.kensho.generator.render.page;

import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.render.theme.UiStrings;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.markdown.CodeDisplay;
import dev.kensho.generator.markdown.ComponentTag;
import dev.kensho.generator.markdown.MarkdownDocument;
import freemarker.template.TemplateMethodModelEx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the component markers in a page's rendered Markdown back into components, innermost first:
 * each component's template receives its attributes, the HTML between its tags as {@code content},
 * and its child components as {@code children} (so Tabs can label its TabItems). A child with a {@code slot}
 * attribute (Astro's named slots, as in {@code <Fragment slot="icon">}) goes to its parent's {@code slots.NAME}
 * instead of its content, when the parent's template reads {@code slots}; otherwise it stays where it is written.
 */
public final class ComponentAssembler {

    /** A marker alone in its paragraph takes the paragraph with it; one inside a line of text leaves the text's paragraph whole. */
    private static final Pattern MARKER = Pattern.compile(
            "<p><!--kensho:" + ComponentTag.MARKER_KEY + ":(\\d+)--></p>\\n?|<!--kensho:" + ComponentTag.MARKER_KEY + ":(\\d+)-->\\n?");

    /** A snippet the build ran and verified, as code.ftlh marks it (its figure's class ends in " verified"). */
    private static final Pattern VERIFIED_SNIPPET = Pattern.compile("<figure class=\"(?:code-block|scenario)\\b[^\"]*\\bverified\"");

    /** A verified ```sql fence and a ```rows fence the build compared with it, as code.ftlh marks them. */
    private static final Pattern VERIFIED_SQL = Pattern.compile("<figure class=\"code-block\\b[^\"]*\\bverified\" data-language=\"sql\"");
    /** A verified data set of the answer (```sql case=NAME), which code.ftlh marks: not a second answer. */
    private static final Pattern VERIFIED_CASE = Pattern.compile("<figure class=\"code-block\\b[^\"]*\\bverified\" data-language=\"sql\" data-kensho-case=");
    private static final Pattern COMPARED_ROWS = Pattern.compile("<figure class=\"code-block expected-rows verified\"");
    private static final Pattern ANY_ROWS = Pattern.compile("<figure class=\"code-block expected-rows[ \"]");

    private final Theme theme;
    private final Function<String, String> inlineMarkdown;
    private final HighlightCache highlights;
    private final SyntaxHighlighter.PageBudget highlighting;

    /**
     * @param inlineMarkdown renders the content of a one-line component (Markdown → HTML without a paragraph)
     * @param highlights     the highlight cache between builds, or null
     * @param highlighting   the page's share of highlighting (shared with its fences)
     */
    public ComponentAssembler(Theme theme, Function<String, String> inlineMarkdown, HighlightCache highlights,
                       SyntaxHighlighter.PageBudget highlighting) {
        this.theme = theme;
        this.inlineMarkdown = inlineMarkdown;
        this.highlights = highlights;
        this.highlighting = highlighting;
    }

    private static final class Node {
        final ComponentTag tag;
        final StringBuilder content = new StringBuilder();
        final List<Map<String, Object>> children = new ArrayList<>();
        final Map<String, String> slots = new HashMap<>();

        Node(ComponentTag tag) {
            this.tag = tag;
        }
    }

    public String assemble(String html, MarkdownDocument document, String root, UiStrings ui) throws Theme.ThemeException {
        List<ComponentTag> tags = document.components();
        if (tags.isEmpty()) {
            return html;
        }
        List<Node> stack = new ArrayList<>();
        stack.add(new Node(null));
        Matcher matcher = MARKER.matcher(html);
        int last = 0;
        while (matcher.find()) {
            stack.get(stack.size() - 1).content.append(html, last, matcher.start());
            last = matcher.end();
            ComponentTag tag = tags.get(Integer.parseInt(matcher.group(1) != null ? matcher.group(1) : matcher.group(2)));
            switch (tag.kind()) {
                case OPEN -> stack.add(new Node(tag));
                case CLOSE -> {
                    Node node = stack.remove(stack.size() - 1);
                    emit(stack.get(stack.size() - 1), node.tag, node.content.toString(), node.children, node.slots, document, root, ui);
                }
                case SELF_CLOSING -> emit(stack.get(stack.size() - 1), tag, "", List.of(), Map.of(), document, root, ui);
                case ONE_LINE -> emit(stack.get(stack.size() - 1), tag, inlineMarkdown.apply(tag.inlineMarkdown()), List.of(), Map.of(), document, root, ui);
            }
        }
        stack.get(stack.size() - 1).content.append(html.substring(last));
        return stack.get(0).content.toString();
    }

    /**
     * An exercise checks the reader against its model answer's verified result, so the answer must be one
     * verified snippet whose rows the build compared: anything else fails at the exercise's line.
     */
    private static void exerciseProblem(ComponentTag tag, Map<String, String> slots, MarkdownDocument document) throws Theme.ThemeException {
        String answer = slots.getOrDefault("answer", "");
        long snippets = VERIFIED_SQL.matcher(answer).results().count() - VERIFIED_CASE.matcher(answer).results().count();
        String problem = !slots.containsKey("answer") ? "has no model answer: put it in <Fragment slot=\"answer\">, as a ```sql fence "
                + "followed by the ```rows it returns"
                : snippets != 1 ? "needs exactly one verified ```sql fence in its answer slot, and it has " + snippets
                : !ANY_ROWS.matcher(answer).find() ? "needs the model answer's rows: write a ```rows fence right after its ```sql fence, "
                + "so that the build compares them and the reader is checked against the build's result"
                // Written, but the answer or one of its cases failed, which is reported at its own line: every rows fence of the
                // answer slot (the answer's, each case's) must be verified, since the reader is judged on each.
                : COMPARED_ROWS.matcher(answer).results().count() < ANY_ROWS.matcher(answer).results().count() ? "cannot check a reader: its model answer's rows were not verified (the error "
                + "at the answer or its case says why)"
                : null;
        if (problem != null) {
            throw new Theme.ThemeException(Diagnostic.at(document.page().displayPath(), tag.line(), 1, "<Exercise> " + problem, null));
        }
    }

    private void emit(Node parent, ComponentTag tag, String content, List<Map<String, Object>> children, Map<String, String> slots,
                      MarkdownDocument document, String root, UiStrings ui) throws Theme.ThemeException {
        if (tag.name().equals("Exercise")) {
            exerciseProblem(tag, slots, document);
        }
        Map<String, Object> model = new HashMap<>();
        model.put("attrs", tag.attributes());
        model.put("content", content);
        model.put("children", children);
        // Tabs of alternatives are not run from one state each: a page's snippets run in document order on
        // one database, so a template must be able to say so when two or more tabs hold verified SQL.
        model.put("verifiedChildren", children.stream()
                .filter(child -> VERIFIED_SNIPPET.matcher(String.valueOf(child.get("content"))).find()).count());
        model.put("slots", Map.copyOf(slots));
        model.put("id", "k" + tag.id());
        model.put("root", root);
        model.put("ui", ui.strings());
        // Code shown as SQL that no fence ran (<Code code="…" lang="sql">) is labelled as not verified, as a fence is.
        model.put("readsAsSql", (TemplateMethodModelEx) arguments -> arguments.size() == 1
                && CodeDisplay.readsAsSql(String.valueOf(arguments.get(0))));
        // Components that show code (Starlight's <Code code=… lang=…>) colour it as fences are: highlight(code, lang).
        model.put("highlight", (TemplateMethodModelEx) arguments -> SyntaxHighlighter.highlight(
                String.valueOf(arguments.get(0)), arguments.size() > 1 ? String.valueOf(arguments.get(1)) : "text", highlights, highlighting, 0));
        String svg = document.diagrams().get(tag.id());
        if (svg != null) {
            model.put("svg", svg);
        }
        String rendered = theme.render("components/" + tag.name() + ".ftlh", model);
        Object slot = tag.attributes().get("slot");
        if (slot instanceof String name && parent.tag != null && theme.readsSlots(parent.tag.name())) {
            parent.slots.merge(name, rendered, String::concat);
        } else {
            parent.content.append(rendered);
        }
        parent.children.add(Map.of("name", tag.name(), "attrs", tag.attributes(), "content", content, "id", "k" + tag.id()));
    }
}
