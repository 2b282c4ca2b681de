package dev.kensho.generator.render.page;

import dev.kensho.generator.render.playground.BrowserRuns;
import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.render.theme.UiStrings;
import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.html.HtmlWriter;
import com.vladsch.flexmark.html.renderer.NodeRenderer;
import com.vladsch.flexmark.html.renderer.NodeRendererContext;
import com.vladsch.flexmark.html.renderer.NodeRenderingHandler;
import dev.kensho.generator.markdown.CodeDisplay;
import dev.kensho.generator.markdown.FenceInfo;
import dev.kensho.generator.markdown.TextMarks;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.generator.verify.VersionCoverage;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.postgres.DatabaseLocale;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Locale;

/**
 * Renders every fenced code block through the theme's {@code code.ftlh}; a verified ```sql fence also
 * gets its evidence (which server, how long, the rows when the author asked for them) from what the
 * verify stage recorded, never from anything else.
 */
public final class SnippetNodeRenderer implements NodeRenderer {

    private final Theme theme;
    private final HighlightCache highlights;
    /** The page's share of highlighting. */
    private final SyntaxHighlighter.PageBudget highlighting;
    private final Map<FencedCodeBlock, Outcome> outcomes;
    private final Map<FencedCodeBlock, Outcome> expectedRows;
    private final String serverVersion;
    /** What each verified fence's mark says of the PostgreSQL versions it held on, when the run checked several. */
    private final Map<FencedCodeBlock, VersionCoverage.Mark> marks;
    /**
     * Per snippet, when the run checked several versions: the exact version whose rows its evidence shows (the newest
     * it ran on, which is not the run's newest for a snippet whose versions= leaves that one out), and its plans by version.
     */
    private final Map<FencedCodeBlock, VersionCoverage.Evidence> evidenceFrom;
    /** The theme's words in the page's language. */
    private final UiStrings ui;
    /** Text markers found when the page was parsed, by fence. */
    private final Map<FencedCodeBlock, String[]> textMarks;
    /** Every verified fence's place in the reader's browser: runnable (with its index), or why not. */
    private final Map<FencedCodeBlock, BrowserRuns.Entry> runnable;
    /** The run plan's URL relative to the page. */
    private final String planUrl;

    /**
     * @param outcomes     each ```sql fence's outcome
     * @param expectedRows each ```rows fence's snippet outcome (the rows were compared in that run)
     */
    public SnippetNodeRenderer(Theme theme, Map<FencedCodeBlock, Outcome> outcomes, Map<FencedCodeBlock, Outcome> expectedRows,
                        String serverVersion, UiStrings ui,
                        Map<FencedCodeBlock, String[]> textMarks, Map<FencedCodeBlock, BrowserRuns.Entry> runnable, String planUrl) {
        this(theme, outcomes, expectedRows, serverVersion, ui, textMarks, runnable, planUrl, Map.of(), null, null,
                SyntaxHighlighter.PageBudget.unnamed());
    }

    /**
     * @param marks           per fence, the versions its mark names (empty when the run checked one version)
     * @param evidenceFrom per snippet, the exact version its evidence's rows come from and its plans by version, when
     *                     several were checked
     * @param highlights   the highlight cache between builds, or null
     * @param highlighting the page's share of highlighting, and where a block shown without it is said
     */
    public SnippetNodeRenderer(Theme theme, Map<FencedCodeBlock, Outcome> outcomes, Map<FencedCodeBlock, Outcome> expectedRows,
                        String serverVersion, UiStrings ui,
                        Map<FencedCodeBlock, String[]> textMarks, Map<FencedCodeBlock, BrowserRuns.Entry> runnable, String planUrl,
                        Map<FencedCodeBlock, VersionCoverage.Mark> marks, Map<FencedCodeBlock, VersionCoverage.Evidence> evidenceFrom,
                        HighlightCache highlights, SyntaxHighlighter.PageBudget highlighting) {
        this.highlights = highlights;
        this.highlighting = highlighting;
        this.marks = marks;
        this.evidenceFrom = evidenceFrom;
        this.runnable = runnable;
        this.planUrl = planUrl;
        this.ui = ui;
        this.textMarks = textMarks;
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
        Map<String, Object> model = new HashMap<>();
        // Hidden SQL ran and shapes what the page shows, so readers may open it, as mdBook's hidden lines.
        model.put("hidden", outcome != null && outcome.snippet().directives().hidden());
        model.put("setupRunsFirst", outcome != null && runsBeforeEarlierSnippets(outcome));
        if (outcome != null && outcome.snippet().directives().caseName() != null) {
            // A data set of an exercise: the Exercise component tells it from the model answer by this mark.
            model.put("caseName", outcome.snippet().directives().caseName());
        }
        CodeDisplay display = CodeDisplay.of(info, node.getContentChars().toString());
        String text = display.text();
        String language = display.language();
        String title = display.title();
        Map<Integer, String> lineClasses = display.lineClasses();
        model.put("code", text);
        model.put("language", language);
        String highlighted = SyntaxHighlighter.highlight(text, language, highlights, highlighting,
                node.getStartLineNumber() + 1);
        String[] marks = textMarks.get(node);
        if (marks != null && marks.length == text.length()) {
            highlighted = TextMarks.apply(highlighted, marks);
        }
        Set<Integer> collapsed = info.meta().containsKey("collapse") ? CodeDisplay.ranges(info.meta().get("collapse")) : Set.of();
        model.put("highlighted", CodeLines.split(highlighted, lineClasses, collapsed, count -> ui.format("code.collapsed", count)));
        model.put("title", title);
        String frame = info.meta().get("frame"); // one of CodeDisplay.FRAMES (checked when the page was read)
        model.put("frame", frame != null && !frame.equals("auto") ? frame
                : language.matches("bash|sh|shell|console|zsh|powershell") ? "terminal" : "code");
        model.put("lineNumbers", "true".equals(info.meta().get("showLineNumbers")));
        model.put("wrap", "true".equals(info.meta().get("wrap")));
        model.put("verified", outcome != null && outcome.passed());
        // Shown as SQL (```sql ignore, ```postgresql, diff lang="sql", …) and not run by the build: labelled so.
        model.put("notVerified", outcome == null && CodeDisplay.readsAsSql(language));
        Outcome compared = expectedRows.get(node);
        // Labelled as matching only when this build compared the table and the comparison held.
        model.put("expectedRowsVerified", compared != null && compared.passed()
                && compared.assertions().stream().anyMatch(a -> a.kind().equals("rows") && a.passed()));
        VersionCoverage.Mark mark = this.marks.get(node);
        String versions = mark != null ? mark.versions() : serverVersion;
        model.put("serverVersion", versions == null ? "" : versions);
        model.put("ui", ui.strings());
        BrowserRuns.Entry browser = runnable.get(node);
        if (browser != null && browser.runnable()) {
            // The browser's run control: contributor HTML can carry no data- attribute, so only the build makes one.
            model.put("run", Map.of("snippet", Integer.toString(browser.snippet()), "plan", planUrl));
        } else if (browser != null && outcome != null && outcome.passed() && !browser.reasonKey().equals("off")
                && !browser.reasonKey().equals(BrowserRuns.CASE)) {
            // A verified snippet without one says why, so that a reader does not take it for an oversight.
            model.put("runUnavailable", Map.of("key", browser.reasonKey(), "argument", browser.argument()));
        }
        // Evidence, and its ✓, only for a snippet that held: a build publishes a snippet it did not run when
        // --postgres-version checked a version its versions= leaves out (skipped), and that one says so instead (a
        // failed one is rendered only in memory, for the link check, by a build that then fails).
        if (outcome != null && !outcome.passed()) {
            model.put("notRunKey", outcome.status() == Outcome.Status.SKIPPED ? "code.notRun" : "code.failed");
        }
        if (outcome != null && outcome.passed()) {
            Map<String, Object> evidence = evidence(outcome, info);
            evidence.put("serverVersion", versions);
            boolean only = mark != null && mark.only();
            // "PostgreSQL 18 のみで検証済み": a versions= fence held where it said, and was not run elsewhere.
            evidence.put("markKey", only ? "code.verifiedOnly" : "code.verified");
            evidence.put("sessionsKey", only ? "code.verifiedSessionsOnly" : "code.verifiedSessions");
            VersionCoverage.Evidence versioned = evidenceFrom.get(node);
            if (mark != null && versioned != null) {
                evidence.put("evidenceFrom", versioned.from());
                planByVersion(evidence, versioned);
            }
            model.put("evidence", evidence);
            if (outcome.transcript() != null && outcome.snippet().scenario() != null) {
                List<Map<String, Object>> sequences = new ArrayList<>();
                var runs = outcome.transcript().permutations();
                for (int i = 0; i < runs.size(); i++) {
                    sequences.add(Map.of("order", String.join(" ", runs.get(i).order()),
                            "diagram", SequenceDiagram.draw(runs.get(i), outcome.snippet().scenario().sessions(), ui)));
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

    private Map<String, Object> evidence(Outcome outcome, FenceInfo info) {
        Map<String, Object> evidence = new HashMap<>();
        evidence.put("status", outcome.status().label());
        evidence.put("serverVersion", serverVersion);
        // Every provider creates page databases with this locale, and a page whose database has another fails.
        evidence.put("databaseLocale", DatabaseLocale.PAGE.describe());
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

    /**
     * The plan of a snippet checked on several versions: where the versions' plans differ (beyond timings), each
     * version's, under the versions it stands for, so that no version's plan passes for all; where they are the same,
     * the one plan once, naming the versions it is the plan of.
     */
    private static void planByVersion(Map<String, Object> evidence, VersionCoverage.Evidence versioned) {
        if (!versioned.claims().isEmpty()) {
            // What was checked differed between versions: each version's claims, as for its plan.
            evidence.put("assertionVersions", versioned.claims().stream().map(group -> Map.of("versions", group.described(),
                    "assertions", group.assertions().stream().map(a -> Map.of("kind", a.kind(), "facts", a.facts(),
                            "description", a.description())).toList())).toList());
        }
        if (versioned.plans().isEmpty()) {
            return;
        }
        if (versioned.plansDiffer()) {
            evidence.put("planVersions", versioned.plans().stream().map(group -> Map.of("versions", group.described(),
                    "plan", group.plan(), "timingsOf", group.timingsOf())).toList());
        } else {
            evidence.put("planSameOn", versioned.plans().get(0).described());
            evidence.put("planTimingsOf", versioned.plans().get(0).timingsOf());
        }
    }

    /** A setup snippet that stands after snippets it runs before: the page says so where it stands. */
    private boolean runsBeforeEarlierSnippets(Outcome outcome) {
        if (!outcome.snippet().directives().setup()) {
            return false;
        }
        int line = outcome.snippet().location().line();
        return outcomes.values().stream().anyMatch(other -> !other.snippet().directives().setup()
                && other.snippet().location().file().equals(outcome.snippet().location().file())
                && other.snippet().location().line() < line);
    }

    /** Carries a theme error out of flexmark's rendering callbacks, which cannot throw checked ones. */
    public static final class RenderFailure extends RuntimeException {
        public final Theme.ThemeException cause;

        RenderFailure(Theme.ThemeException cause) {
            super(cause);
            this.cause = cause;
        }
    }
}
