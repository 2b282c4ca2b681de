package dev.kensho.generator.render.playground;

import dev.kensho.generator.render.RenderMemo;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.verify.VersionCoverage;
import dev.kensho.sqlchecks.assertion.RowComparison;
import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Binding;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.RowOrder;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.StateAfter;
import dev.kensho.sqlchecks.script.PsqlFormat;
import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a page's verified snippets can do in the reader's browser, on PGlite (PostgreSQL 18.6 in
 * WebAssembly): which can be run there, and the page's run plan the browser replays. The plan holds
 * the build's run exactly: every snippet in {@link RunOrder} (hidden and setup ones included), each
 * statement as the build split it, parameters bound as the build bound them ({@link Binding}), and
 * what the build recorded (rows, SQLSTATE, how rows are ordered), so that the browser compares the
 * reader's run with the build's own result under the build's own rules.
 *
 * <p>A snippet is runnable when it passed and every snippet before it in run order can be replayed
 * in the browser: a concurrency scenario cannot (PGlite has one connection), nor can SQL that needs
 * what the browser's PostgreSQL lacks. The reason for each snippet that is not goes to the JSON
 * report; the page shows it no run control and says why.
 *
 * <p>What a page sends the browser is bounded ({@link #SNIPPET_ROWS}, {@link #SNIPPET_CHARACTERS},
 * {@link #PAGE_BYTES}): a snippet whose recorded result is over its budget is replayed (later snippets
 * need its state) but has no run control; a snippet the page's budget no longer holds has none either. The
 * plan is split so that a click fetches the page's replay file ({@code PAGE.run.json}: every snippet's
 * statements, no rows) and its own snippet's rows ({@code PAGE.run.N.json}), never the others'. Rows are
 * written once, as values: the browser prints them in psql's format itself, as the build would.
 */
public final class BrowserRuns {

    /** The plan a page's run controls fetch, next to the page: {@code keyset/index.html} → {@code keyset/index.run.json}. */
    public static final String PLAN_SUFFIX = ".run.json";

    /** Rows of all of a snippet's results together that the browser is given to compare with. */
    public static final int SNIPPET_ROWS = 1000;

    /** Characters of a snippet's results as psql prints them (the verified pane the reader sees). */
    public static final int SNIPPET_CHARACTERS = 100_000;

    /**
     * Bytes of a page's plan files together: every snippet's replay entry and rows. The theme's words for the run
     * controls and the server's version, the same few KB on every page of a language, come on top.
     */
    public static final int PAGE_BYTES = 1_000_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The reason key of an exercise's data set (a snippet with {@code case=NAME}): the browser never replays it with
     * the page; it runs it with the model answer it follows, as the build did, when it checks a reader's query.
     */
    public static final String CASE = "case";

    /**
     * One snippet's place in the browser: runnable, or why not.
     *
     * @param reason    why not, in English (the JSON report), or null when runnable
     * @param reasonKey the same as a key the theme words in the page's language ({@code run.unavailable.KEY}): off,
     *                  unverified, otherVersions, siteExtensions, scenario, extension, load, conformingStrings; resultRows,
     *                  resultCharacters, resultValue, pageBytes (over a budget); or after (see argument)
     * @param argument  the figure the theme's words put in as {0}: for "after", the index (in document order) of the
     *                  snippet before it that the browser cannot replay, which the page names as the reader sees it
     *                  ({@link #AFTER}); for a budget, the budget; else empty
     * @param replayed  its statements are in the plan (the browser replays it before the snippets after it)
     */
    public record Entry(int snippet, int line, String reason, String reasonKey, String argument, boolean replayed) {
        public boolean runnable() {
            return reason == null;
        }
    }

    /**
     * The reason key of a snippet after one the browser cannot replay. The report names that one by its source line (an
     * author's view); the page by what the reader sees of it: its title ({@code run.unavailable.after}), or, without one,
     * its number among the page's SQL examples ({@code run.unavailable.afterNumber}); see {@link #named}.
     */
    public static final String AFTER = "after";

    /**
     * The entry as the page says it: an "after" entry names the snippet it waits on by {@code title} (the fence's
     * title=, or empty) or else by its number among the page's SQL fences, counted from 1; others are unchanged.
     */
    public static Entry named(Entry entry, java.util.function.IntFunction<String> title) {
        if (!AFTER.equals(entry.reasonKey())) {
            return entry;
        }
        int blocker = Integer.parseInt(entry.argument());
        String name = title.apply(blocker);
        return name == null || name.isBlank()
                ? new Entry(entry.snippet(), entry.line(), entry.reason(), "afterNumber", Integer.toString(blocker + 1), entry.replayed())
                : new Entry(entry.snippet(), entry.line(), entry.reason(), AFTER, name.strip(), entry.replayed());
    }

    /** Why the browser cannot run a snippet as the build ran it: the report's words, the theme's key and its figure. */
    private record Problem(String reason, String key, String argument) {
        Problem(String reason, String key) {
            this(reason, key, "");
        }
    }

    private final PageResult result;
    private final List<Integer> order;
    private final Entry[] entries;

    /**
     * The reason key of a snippet whose versions= leaves out the newest version the build checked: the build's run on
     * that version, the one the page's rows come from and the browser compares with, never ran it, so the browser
     * neither offers it nor replays it (which would give the snippets after it a state the build did not check).
     */
    public static final String OTHER_VERSIONS = "otherVersions";

    /** What the plan was made from, besides {@link #result} ({@link #madeFrom}). */
    private final boolean playground;
    private final List<String> extensions;
    private final VersionCoverage coverage;

    private BrowserRuns(String page, PageResult result, SiteConfig site, VersionCoverage coverage) {
        List<String> siteExtensions = site.extensions();
        this.playground = site.playground();
        this.extensions = List.copyOf(siteExtensions);
        this.coverage = coverage;
        this.result = result;
        List<Snippet> snippets = result.outcomes().stream().map(Outcome::snippet).toList();
        this.order = RunOrder.of(snippets);
        this.entries = new Entry[snippets.size()];
        Entry blocker = null;
        // The last scenario whose end state the browser restores in its place, and how many snippets after it the build's
        // proof ran alike from that restore: the snippet after those is blocked by it (its state is not the build's).
        Entry restored = null;
        int proven = 0;
        // What the page's plan files take so far: each snippet's replay entry and rows, as they are admitted.
        long bytes = 0;
        for (int index : order) {
            Outcome outcome = result.outcomes().get(index);
            Snippet snippet = outcome.snippet();
            if (snippet.directives().caseName() != null) {
                entries[index] = new Entry(index, snippet.location().line(), "a data set of an exercise: the browser runs it only with "
                        + "the model answer before it, when it checks a reader's query", CASE, "", false);
                continue;
            }
            if (site.playground() && coverage != null && !coverage.of(page, index).isEmpty() && !coverage.ranOnNewest(page, index)) {
                String versions = dev.kensho.sqlchecks.postgres.PostgresReleases.describe(coverage.of(page, index));
                entries[index] = new Entry(index, snippet.location().line(), "it ran only on PostgreSQL " + versions
                        + " (versions=), not on PostgreSQL " + coverage.newest() + ", whose run the browser replays and compares with",
                        OTHER_VERSIONS, versions, false);
                continue;
            }
            Problem own = !site.playground() ? new Problem("site.yml turns the browser's run controls off (playground: false)", "off")
                    : !outcome.passed() ? new Problem("the build did not verify it (" + outcome.status().label() + ")", "unverified")
                    : !siteExtensions.isEmpty() ? new Problem("the site's databases hold extensions (" + String.join(", ", siteExtensions)
                            + ", site.yml) that the browser's PostgreSQL does not load", "siteExtensions")
                    : replayProblem(snippet);
            int line = snippet.location().line();
            if (blocker == null && own != null && SCENARIO.equals(own.key()) && restorable(outcome)) {
                // Not runnable itself (its sessions need several connections), but its end state is in the plan, restored.
                long restore = size(replay(index, null)) + 1;
                if (bytes + restore <= PAGE_BYTES) {
                    bytes += restore;
                    entries[index] = new Entry(index, line, own.reason(), own.key(), own.argument(), true);
                    restored = entries[index];
                    proven = outcome.transcript().after().reproduced();
                    continue;
                }
            }
            if (blocker == null && own == null && restored != null && proven-- <= 0) {
                // The build's run from the restored state ended this snippet otherwise than the real scenario's did.
                blocker = restored;
            }
            if (blocker == null && own == null) {
                // The entry as written, but for the page's file name in its rows file's name (not known yet: a few bytes),
                // and the comma before the next.
                long replay = size(replay(index, chunkName("", index))) + 1;
                if (bytes + replay > PAGE_BYTES) {
                    own = pageBudget();
                } else {
                    bytes += replay;
                    // The answer's cases come with it: over a budget, none of them can judge a reader's query, so none does.
                    Problem budget = resultBudget(outcome);
                    for (int c : casesOf(index)) {
                        budget = budget != null ? budget : resultBudget(result.outcomes().get(c));
                    }
                    long rows = budget == null ? size(chunk(index)) : 0;
                    if (budget == null && bytes + rows > PAGE_BYTES) {
                        budget = pageBudget();
                    }
                    bytes += budget == null ? rows : 0;
                    // Over a budget, it is still replayed: the snippets after it need the state it leaves.
                    entries[index] = budget == null ? new Entry(index, line, null, null, "", true)
                            : new Entry(index, line, budget.reason(), budget.key(), budget.argument(), true);
                    continue;
                }
            }
            // A snippet's own reason comes first (a second scenario is a scenario); else what an earlier one blocks.
            if (blocker != null && own == null) {
                String why = blocker == restored ? "the state the build recorded after it, restored on a fresh database, did not end the "
                        + "snippets after it as the scenario's own run did" : blocker.reason();
                entries[index] = new Entry(index, line, "it runs after the snippet at line " + blocker.line() + ", which the browser cannot replay: "
                        + why, AFTER, Integer.toString(blocker.snippet()), false);
            } else {
                entries[index] = new Entry(index, line, own.reason(), own.key(), own.argument(), false);
                if (blocker == null) {
                    blocker = entries[index];
                }
            }
        }
    }

    /** The page's snippets in the browser, under the site's settings (its extensions, whether the playground is on). */
    public static BrowserRuns of(String page, PageResult result, SiteConfig site, VersionCoverage coverage) {
        return new BrowserRuns(page, result, site, coverage);
    }

    /** Every verified page's, by the same keys: decided once a build, for the pages, the engine and the report. */
    public static Map<String, BrowserRuns> ofPages(Map<String, PageResult> pages, SiteConfig site, VersionCoverage coverage) {
        return ofPages(pages, site, coverage, null);
    }

    /**
     * As {@link #ofPages(Map, SiteConfig, VersionCoverage)}, reusing the plan an earlier build of this session made for a
     * page when everything it is made from is equal (the page's outcomes and snippets, compared as values, not the time its
     * database took to make, which a plan does not show; the site's
     * playground and extensions; the version coverage): sizing every snippet's plan as JSON was a fifth of a preview
     * edit's rebuild, made again for pages the edit did not touch.
     *
     * @param memo plans of the session's earlier builds, or null
     */
    public static Map<String, BrowserRuns> ofPages(Map<String, PageResult> pages, SiteConfig site, VersionCoverage coverage, RenderMemo memo) {
        Map<String, BrowserRuns> runs = new LinkedHashMap<>();
        int made = 0;
        for (Map.Entry<String, PageResult> page : pages.entrySet()) {
            BrowserRuns kept = memo == null ? null : memo.lastRunPlan(page.getKey());
            if (kept != null && kept.madeFrom(page.getValue(), site, coverage)) {
                runs.put(page.getKey(), kept);
            } else {
                runs.put(page.getKey(), of(page.getKey(), page.getValue(), site, coverage));
                made++;
            }
        }
        if (memo != null) {
            memo.keepRunPlans(runs, made);
        }
        return runs;
    }

    /** Whether this plan is the one {@link #of} would make of these (everything the constructor reads). */
    private boolean madeFrom(PageResult result, SiteConfig site, VersionCoverage coverage) {
        return playground == site.playground() && extensions.equals(site.extensions()) && java.util.Objects.equals(this.coverage, coverage)
                && this.result.page().equals(result.page()) && this.result.outcomes().equals(result.outcomes());
    }

    /** One entry per snippet, in document order (as {@link PageResult#outcomes()}). */
    public List<Entry> entries() {
        return Arrays.asList(entries);
    }

    public boolean anyRunnable() {
        return Arrays.stream(entries).anyMatch(Entry::runnable);
    }

    /** The reason key of a concurrency scenario: several sessions at once, which PGlite's one connection cannot run. */
    static final String SCENARIO = "scenario";

    /** Whether the build recorded what a scenario left and its restore stands in for it (see {@link StateAfter}). */
    private static boolean restorable(Outcome outcome) {
        return outcome.passed() && outcome.transcript() != null && outcome.transcript().after() != null
                && outcome.transcript().after().reproduced() >= 0;
    }

    /** Why the browser cannot run this snippet as the build ran it, or null. */
    private static Problem replayProblem(Snippet snippet) {
        if (snippet.scenario() != null) {
            return new Problem("a concurrency scenario needs several sessions at once, and the browser's PostgreSQL (PGlite) has one connection",
                    SCENARIO);
        }
        for (SqlStatement statement : SqlSplitter.split(snippet.sql())) {
            List<String> words = SqlLexer.tokens(statement.text()).stream().filter(SqlLexer.Token::significant)
                    .limit(2).map(SqlLexer.Token::word).toList();
            if (words.size() >= 2 && words.get(0).equals("create") && words.get(1).equals("extension")) {
                return new Problem("it creates an extension, which the browser's PostgreSQL does not load", "extension");
            }
            if (words.size() >= 1 && words.get(0).equals("load")) {
                return new Problem("it loads a server library, which the browser's PostgreSQL does not have", "load");
            }
        }
        if (snippet.sql().toLowerCase(Locale.ROOT).contains("standard_conforming_strings")) {
            // The build splits the rest of a snippet again when the setting changes; the plan holds one split.
            return new Problem("it changes standard_conforming_strings, which changes how the rest of the page is split into statements",
                    "conformingStrings");
        }
        return null;
    }

    /**
     * Whether the snippet's recorded result is over its budget, cheapest test first: rows, a value the build
     * did not keep whole, the values' own length (psql prints each at least as long), then the printed text,
     * which is made only for a result already known to be small.
     */
    private static Problem resultBudget(Outcome outcome) {
        long rows = 0;
        long characters = 0;
        for (ResultTable table : outcome.results()) {
            rows += table.totalRows();
            for (List<String> row : table.rows()) {
                for (String value : row) {
                    if (value != null && value.length() > Failure.MAX_TEXT) {
                        return new Problem("a value of its result is longer than the " + Failure.MAX_TEXT
                                + " characters the build keeps of one value", "resultValue", grouped(Failure.MAX_TEXT));
                    }
                    characters += value == null ? 0 : value.length();
                }
            }
        }
        Problem tooLong = new Problem("its result, as psql prints it, is longer than the " + grouped(SNIPPET_CHARACTERS)
                + " characters a snippet may bring to the browser", "resultCharacters", grouped(SNIPPET_CHARACTERS));
        if (rows > SNIPPET_ROWS) {
            return new Problem("its result has " + rows + " rows, more than the " + grouped(SNIPPET_ROWS)
                    + " a snippet may bring to the browser", "resultRows", grouped(SNIPPET_ROWS));
        }
        if (outcome.results().stream().anyMatch(table -> !table.complete())) {
            return tooLong; // rows under the row budget not all kept: the build's bound on characters cut them
        }
        if (characters > SNIPPET_CHARACTERS) {
            return tooLong;
        }
        long printed = 0;
        for (ResultTable table : outcome.results()) {
            String text = PsqlFormat.formatWithin(table.columns(), table.types(), table.rows(), SNIPPET_CHARACTERS - printed);
            if (text == null) {
                return tooLong;
            }
            printed += text.length();
        }
        return null;
    }

    private static Problem pageBudget() {
        return new Problem("the page's run plan would be larger than the " + grouped(PAGE_BYTES / 1000)
                + " KB a page may bring to the browser", "pageBytes", grouped(PAGE_BYTES / 1000));
    }

    private static String grouped(long number) {
        return String.format(Locale.ROOT, "%,d", number);
    }

    /**
     * The page's plan files (name next to the page → JSON): {@code STEM.run.json}, every snippet in run order
     * with how to replay it, and {@code STEM.run.N.json}, the rows the build recorded of runnable snippet N.
     *
     * @param stem     the page's file name without its extension ({@code index} for {@code index.html})
     * @param versions the major versions the build checked ("14–18") when several, so that the browser (PGlite, 18)
     *                 says which of them it runs; else null
     */
    public Map<String, String> planFiles(String stem, String serverVersion, String versions, Map<String, String> ui) {
        Map<String, String> files = new LinkedHashMap<>();
        List<Map<String, Object>> runs = new ArrayList<>();
        for (int index : order) {
            Entry entry = entries[index];
            if (CASE.equals(entry.reasonKey())) {
                continue; // in its answer's entry (a case is never replayed with the page)
            }
            if (OTHER_VERSIONS.equals(entry.reasonKey())) {
                continue; // the run the browser follows never ran it: the snippets after it do not wait on it
            }
            if (!entry.replayed()) {
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("snippet", index);
                run.put("line", entry.line());
                run.put("reason", entry.reason());
                runs.add(run);
                continue; // nothing after it is runnable: the browser never replays past it
            }
            Map<String, Object> run = replay(index, entry.runnable() ? chunkName(stem, index) : null);
            if (!entry.runnable()) {
                run.put("reason", entry.reason());
            } else {
                files.put(chunkName(stem, index), json(chunk(index)));
            }
            runs.add(run);
        }
        Map<String, Object> plan = header(serverVersion, ui);
        if (versions != null) {
            plan.put("versions", versions);
        }
        plan.put("runs", runs);
        Map<String, String> all = new LinkedHashMap<>();
        all.put(stem + PLAN_SUFFIX, json(plan));
        all.putAll(files);
        return all;
    }

    /** A runnable snippet's rows, next to the page's plan: {@code index.run.3.json} for snippet 3 of {@code index.html}. */
    static String chunkName(String stem, int snippet) {
        return stem + ".run." + snippet + ".json";
    }

    private static Map<String, Object> header(String serverVersion, Map<String, String> ui) {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("server", serverVersion);
        // The run controls' words in the page's language (the theme's run.* strings), read on the first click.
        Map<String, String> words = new TreeMap<>();
        ui.forEach((key, value) -> {
            if (key.startsWith("run.")) {
                words.put(key.substring(4), value);
            }
        });
        plan.put("ui", words);
        return plan;
    }

    /** How the browser replays a snippet as the build ran it, and where its rows are (null: it has no run control). */
    private Map<String, Object> replay(int index, String chunk) {
        Outcome outcome = result.outcomes().get(index);
        Snippet snippet = outcome.snippet();
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("snippet", index);
        run.put("line", snippet.location().line());
        if (snippet.scenario() != null) {
            // In the scenario's place, what it left, restored as the build's proof restored it (the same statements).
            List<String> statements = outcome.transcript().after().restoreStatements();
            run.put("sql", String.join(";\n", statements) + ";\n");
            run.put("statements", statements);
            run.put("restored", true);
            run.put("expect", Map.of());
            return run;
        }
        run.put("sql", snippet.sql());
        List<String> statements = SqlSplitter.split(snippet.sql()).stream().map(SqlStatement::text).toList();
        run.put("statements", statements);
        if (!snippet.directives().parameters().isEmpty()) {
            Binding binding = Binding.of("kensho_p" + index, snippet.directives().parameters(), statements.get(0));
            // Ordered maps: Map.of's order changes from one JVM to the next, and the plan must be the same bytes every build.
            Map<String, Object> bound = new LinkedHashMap<>();
            bound.put("prefix", binding.prepare().substring(0, binding.shift()));
            bound.put("execute", binding.execute());
            bound.put("deallocate", binding.deallocate());
            bound.put("parameters", snippet.directives().parameters().stream().map(p -> {
                Map<String, Object> parameter = new LinkedHashMap<>();
                parameter.put("position", p.position());
                parameter.put("type", p.type());
                parameter.put("value", p.value());
                return parameter;
            }).toList());
            run.put("binding", bound);
        }
        run.put("expect", expectation(outcome));
        run.put("planClaims", snippet.directives().plan() != null);
        if (snippet.directives().plan() != null) {
            run.put("planChecks", planChecks(snippet.directives().plan()));
        }
        List<Map<String, Object>> cases = new ArrayList<>();
        for (int c : casesOf(index)) {
            Snippet dataSet = result.outcomes().get(c).snippet();
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", dataSet.directives().caseName());
            one.put("line", dataSet.location().line());
            one.put("statements", SqlSplitter.split(dataSet.sql()).stream().map(SqlStatement::text).toList());
            cases.add(one);
        }
        if (!cases.isEmpty()) {
            // Each run by the browser as the build ran it (ScriptRunner): in a transaction, the data set, then the query; rolled back.
            run.put("cases", cases);
        }
        if (chunk != null) {
            run.put("rows", chunk);
        }
        return run;
    }

    /**
     * The snippet's plan claims as the browser lists them under an EXPLAIN the reader runs: each claim's directive
     * name and value, in the order the build checks them. The browser decides only what the plan it printed shows.
     */
    private static List<Map<String, Object>> planChecks(Directives.PlanExpectations plan) {
        List<Map<String, Object>> checks = new ArrayList<>();
        if (plan.usesIndex() != null) {
            checks.add(Map.of("claim", "uses-index", "value", plan.usesIndex()));
        }
        if (!plan.scanIn().isEmpty()) {
            checks.add(Map.of("claim", "scan-in", "value", String.join(",", new java.util.TreeSet<>(plan.scanIn()))));
        }
        if (plan.noSort()) {
            checks.add(Map.of("claim", "no-sort", "value", ""));
        }
        if (plan.noSeqScanOn() != null) {
            checks.add(Map.of("claim", "no-seq-scan", "value", plan.noSeqScanOn()));
        }
        if (plan.indexCondContains() != null) {
            checks.add(Map.of("claim", "index-cond-contains", "value", plan.indexCondContains()));
        }
        if (plan.maxBuffers() != null) {
            checks.add(Map.of("claim", "max-buffers", "value", Long.toString(plan.maxBuffers())));
        }
        if (plan.maxRowsRemoved() != null) {
            checks.add(Map.of("claim", "max-rows-removed", "value", Long.toString(plan.maxRowsRemoved())));
        }
        return checks;
    }

    /** The snippets written right after snippet {@code index} as its cases (its data sets), in document order. */
    private List<Integer> casesOf(int index) {
        List<Integer> cases = new ArrayList<>();
        for (int c = index + 1; c < result.outcomes().size() && result.outcomes().get(c).snippet().directives().caseName() != null; c++) {
            cases.add(c);
        }
        return cases;
    }

    /** A snippet's rows file: its own results, and its cases' (the model answer's results on each data set). */
    private Map<String, Object> chunk(int index) {
        Map<String, Object> chunk = new LinkedHashMap<>(chunk(result.outcomes().get(index)));
        List<Map<String, Object>> cases = new ArrayList<>();
        for (int c : casesOf(index)) {
            Outcome outcome = result.outcomes().get(c);
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", outcome.snippet().directives().caseName());
            // The answer's statements, not the data set's, returned these: statement indexes are the answer's.
            one.put("results", chunk(new Outcome(result.outcomes().get(index).snippet(), outcome.status(), outcome.failure(),
                    outcome.results(), outcome.assertions(), null, null, outcome.duration())).get("results"));
            one.put("expect", expectation(outcome));
            cases.add(one);
        }
        if (!cases.isEmpty()) {
            chunk.put("cases", cases);
        }
        return chunk;
    }

    /**
     * What the build recorded of a snippet within its budget: each result's columns, types and every row, once,
     * as values (the browser prints them as psql does and compares them under the build's rules).
     */
    private static Map<String, Object> chunk(Outcome outcome) {
        List<String> statements = SqlSplitter.split(outcome.snippet().sql()).stream().map(SqlStatement::text).toList();
        List<Map<String, Object>> tables = new ArrayList<>();
        for (ResultTable table : outcome.results()) {
            Map<String, Object> shown = new LinkedHashMap<>();
            shown.put("columns", table.columns());
            shown.put("types", table.types());
            shown.put("rows", table.rows());
            // Which of the snippet's statements returned it (its text as sent, or as written for the last one).
            shown.put("statement", statementIndex(statements, table.statement()));
            shown.put("explain", SqlLexer.firstWord(table.statement(), true).equals("explain"));
            // Whether the statement sorts its rows, as the server's parse of it during the build said (true only where that
            // parse was had and has a top-level ORDER BY), and the sort keys whose ties compare as a multiset: the browser
            // compares a reader's run of the statement so, and asks the reader's session nothing to find out.
            RowOrder order = table.order();
            boolean sorted = order != null && order.known() && order.ordered();
            shown.put("sorted", sorted);
            shown.put("keys", sorted && RowComparison.tiesByText(order, table.types()) ? order.keyColumns() : null);
            // How rows tie under the sort's own equality operators (TieRules): what the browser groups ties by.
            shown.put("ties", sorted ? TieRules.of(order, table.types()) : null);
            tables.add(shown);
        }
        return Map.of("results", tables);
    }

    private static long size(Map<String, Object> value) {
        try {
            return JSON.writeValueAsBytes(value).length;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the run plan cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    private static String json(Map<String, Object> value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the run plan cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    private static int statementIndex(List<String> statements, String text) {
        int at = statements.indexOf(text);
        return at >= 0 ? at : statements.size() == 1 ? 0 : -1;
    }

    /** What the build's run showed, as the browser compares it: an error's SQLSTATE, compared rows, or a clean run. */
    private static Map<String, Object> expectation(Outcome outcome) {
        Map<String, Object> expect = new LinkedHashMap<>();
        for (Assertion assertion : outcome.assertions()) {
            if (assertion.kind().equals("fails-with")) {
                expect.put("error", assertion.facts().get("sqlstate"));
                expect.put("message", assertion.facts().get("message"));
            } else if (assertion.kind().equals("rows")) {
                boolean ordered = Boolean.parseBoolean(assertion.facts().get("ordered"));
                String keys = assertion.facts().get("keys");
                expect.put("ordered", ordered);
                // Keys known: rows that tie on them compare as a multiset; unknown: the whole order counts.
                expect.put("keys", ordered && keys != null && !keys.isEmpty()
                        ? Arrays.stream(keys.split(",")).map(Integer::valueOf).toList() : null);
                expect.put("rows", true);
                // How rows tie under the sort's equality operators, on the types of the result the build compared.
                List<ResultTable> results = outcome.results();
                expect.put("ties", ordered && !results.isEmpty()
                        ? TieRules.ofFacts(assertion.facts(), results.get(results.size() - 1).types()) : null);
            }
        }
        return expect;
    }
}
