package dev.kensho.generator.render;

import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.html.HtmlWriter;
import com.vladsch.flexmark.html.renderer.NodeRenderer;
import com.vladsch.flexmark.html.renderer.NodeRendererContext;
import com.vladsch.flexmark.html.renderer.NodeRenderingHandler;
import dev.kensho.generator.markdown.FenceInfo;
import dev.kensho.generator.markdown.TextMarks;
import dev.kensho.sqlchecks.Outcome;
import dev.kensho.sqlchecks.ResultTable;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Locale;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders every fenced code block through the theme's {@code code.ftlh}; a verified ```sql fence also
 * gets its evidence (which server, how long, the rows when the author asked for them) from what the
 * verify stage recorded, never from anything else.
 */
final class SnippetNodeRenderer implements NodeRenderer {

    private final Theme theme;
    private final Map<FencedCodeBlock, Outcome> outcomes;
    private final Map<FencedCodeBlock, Outcome> expectedRows;
    private final String serverVersion;
    /** The theme's words in the page's language. */
    private final UiStrings ui;

    /**
     * @param outcomes     each ```sql fence's outcome
     * @param expectedRows each ```rows fence's snippet outcome (the rows were compared in that run)
     */
    SnippetNodeRenderer(Theme theme, Map<FencedCodeBlock, Outcome> outcomes, Map<FencedCodeBlock, Outcome> expectedRows,
                        String serverVersion, UiStrings ui) {
        this.ui = ui;
        this.theme = theme;
        this.outcomes = outcomes;
        this.expectedRows = expectedRows;
        this.serverVersion = serverVersion;
    }

    @Override
    public Set<NodeRenderingHandler<?>> getNodeRenderingHandlers() {
        return Set.of(new NodeRenderingHandler<>(FencedCodeBlock.class, this::render));
    }

    private void render(FencedCodeBlock node, NodeRendererContext context, HtmlWriter html) {
        FenceInfo info = FenceInfo.parse(node.getInfo().toString());
        Outcome outcome = outcomes.get(node);
        if (outcome != null && outcome.snippet().directives().hidden()) {
            return;
        }
        String code = node.getContentChars().toString();
        Map<String, Object> model = new HashMap<>();
        String text = code.endsWith("\n") ? code.substring(0, code.length() - 1) : code;
        String language = info.language().isEmpty() ? "text" : info.language();
        String title = info.meta().getOrDefault("title", "");
        // Expressive Code takes a first-line comment naming a file as the block's title (display only).
        Matcher fileComment = FILE_COMMENT.matcher(text);
        if (title.isEmpty() && outcome == null && fileComment.lookingAt()) {
            title = fileComment.group(1);
            text = text.substring(Math.min(text.length(), fileComment.end() + 1));
        }
        Map<Integer, String> lineClasses = lineClasses(info);
        if (language.equals("diff") && info.meta().containsKey("lang")) {
            // Expressive Code's diff lang="js": +/- lines become inserted/deleted lines of highlighted js.
            StringBuilder stripped = new StringBuilder();
            String[] lines = text.split("\n", -1);
            for (int n = 0; n < lines.length; n++) {
                char first = lines[n].isEmpty() ? ' ' : lines[n].charAt(0);
                if (first == '+' || first == '-') {
                    lineClasses.putIfAbsent(n + 1, first == '+' ? "ins" : "del");
                }
                stripped.append(first == '+' || first == '-' || first == ' ' ? lines[n].substring(Math.min(1, lines[n].length())) : lines[n]);
                stripped.append(n < lines.length - 1 ? "\n" : "");
            }
            text = stripped.toString();
            language = info.meta().get("lang").toLowerCase(Locale.ROOT);
        }
        model.put("code", text);
        model.put("language", language);
        String highlighted = SyntaxHighlighter.get().highlight(text, language);
        if (!info.markers().isEmpty()) {
            try {
                highlighted = TextMarks.apply(highlighted, TextMarks.kinds(text, info.markers()));
            } catch (TextMarks.Problem unreachable) {
                // Checked when the page was parsed: such a page is not rendered.
            }
        }
        Set<Integer> collapsed = info.meta().containsKey("collapse") ? CodeLines.ranges(info.meta().get("collapse")) : Set.of();
        model.put("highlighted", CodeLines.split(highlighted, lineClasses, collapsed, count -> ui.format("code.collapsed", count)));
        model.put("title", title);
        model.put("frame", info.meta().getOrDefault("frame", language.matches("bash|sh|shell|console|zsh|powershell") ? "terminal" : "code"));
        model.put("lineNumbers", "true".equals(info.meta().get("showLineNumbers")));
        model.put("wrap", "true".equals(info.meta().get("wrap")));
        model.put("verified", outcome != null && outcome.passed());
        Outcome compared = expectedRows.get(node);
        // Labelled as matching only when this build compared the table and the comparison held.
        model.put("expectedRowsVerified", compared != null && compared.passed()
                && compared.assertions().stream().anyMatch(a -> a.kind().equals("rows") && a.passed()));
        model.put("serverVersion", serverVersion == null ? "" : serverVersion);
        model.put("ui", ui.strings());
        if (outcome != null) {
            model.put("evidence", evidence(outcome, info));
            if (outcome.transcript() != null && outcome.snippet().scenario() != null) {
                List<Map<String, Object>> sequences = new ArrayList<>();
                var runs = outcome.transcript().permutations();
                for (int i = 0; i < runs.size(); i++) {
                    sequences.add(Map.of("order", String.join(" ", runs.get(i).order()),
                            "svg", SequenceDiagram.draw(runs.get(i), outcome.snippet().scenario().sessions(),
                                    "seq" + node.getStartLineNumber() + "-" + i + "-", ui)));
                }
                model.put("sequences", sequences);
            }
        }
        try {
            html.line().rawPre(theme.render("code.ftlh", model)).line();
        } catch (Theme.ThemeException e) {
            throw new RenderFailure(e);
        }
    }

    private static final Pattern FILE_COMMENT =
            Pattern.compile("^(?://|#|--|<!--)\\s*([\\w./-]+\\.[A-Za-z0-9]+)\\s*(?:-->)?[ \\t]*$", Pattern.MULTILINE);

    /** Line classes as Expressive Code names them: {@code {2,4-5}}/{@code mark=} marked, {@code ins=} inserted, {@code del=} deleted. */
    private static Map<Integer, String> lineClasses(FenceInfo info) {
        Map<Integer, String> classes = new TreeMap<>();
        info.meta().forEach((key, value) -> {
            if (key.startsWith("{")) {
                CodeLines.ranges(key).forEach(line -> classes.put(line, "marked"));
            } else if (key.equals("mark") || key.equals("ins") || key.equals("del")) {
                String kind = key.equals("mark") ? "marked" : key;
                CodeLines.ranges(value).forEach(line -> classes.put(line, kind));
            }
        });
        return classes;
    }

    private Map<String, Object> evidence(Outcome outcome, FenceInfo info) {
        Map<String, Object> evidence = new HashMap<>();
        evidence.put("status", outcome.status().label());
        evidence.put("serverVersion", serverVersion);
        evidence.put("durationMs", String.format(Locale.ROOT, "%.1f", outcome.duration().toNanos() / 1e6));
        evidence.put("location", outcome.snippet().location().toString());
        List<Map<String, Object>> tables = new ArrayList<>();
        if (info.meta().containsKey("result")) {
            for (ResultTable table : outcome.results()) {
                tables.add(ResultView.of(table));
            }
        }
        evidence.put("results", tables);
        evidence.put("rowsCompared", outcome.assertions().stream().anyMatch(a -> a.kind().equals("rows") && a.passed()));
        evidence.put("assertions", outcome.assertions().stream().map(a -> Map.of("kind", a.kind(), "facts", a.facts(),
                "description", a.description())).toList());
        List<SqlStatement> statements = SqlSplitter.split(outcome.snippet().sql());
        evidence.put("statements", statements.size());
        evidence.put("claimsOnLast", outcome.assertions().stream().anyMatch(a -> !a.kind().equals("runs") && !a.kind().equals("fails-with")));
        evidence.put("lastStatementLine", statements.isEmpty() ? outcome.snippet().location().line()
                : outcome.snippet().locate(statements.get(statements.size() - 1).offset()).line());
        evidence.put("parameters", outcome.snippet().directives().parameters().stream()
                .map(p -> Map.of("name", "$" + p.position(), "type", p.type(), "value", p.value())).toList());
        evidence.put("plan", outcome.plan() == null ? "" : outcome.plan());
        return evidence;
    }

    /** Carries a theme error out of flexmark's rendering callbacks, which cannot throw checked ones. */
    static final class RenderFailure extends RuntimeException {
        final Theme.ThemeException cause;

        RenderFailure(Theme.ThemeException cause) {
            super(cause);
            this.cause = cause;
        }
    }
}
