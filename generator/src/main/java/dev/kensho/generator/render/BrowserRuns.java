package dev.kensho.generator.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Binding;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.Snippet;
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
 * report; the page shows it no run control.
 */
public final class BrowserRuns {

    /** The plan a page's run controls fetch, next to the page: {@code keyset/index.html} → {@code keyset/index.run.json}. */
    public static final String PLAN_SUFFIX = ".run.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One snippet's place in the browser: runnable, or why not.
     *
     * @param reason    why not, in English (the JSON report), or null when runnable
     * @param reasonKey the same as a key the theme words in the page's language ({@code run.unavailable.KEY}): off,
     *                  unverified, siteExtensions, scenario, extension, load, conformingStrings; or after (see blockedAt)
     * @param blockedAt for "after": the line of the snippet before it that the browser cannot replay
     */
    public record Entry(int snippet, int line, String reason, String reasonKey, int blockedAt) {
        public boolean runnable() {
            return reason == null;
        }
    }

    /** Why the browser cannot run a snippet as the build ran it: the report's words and the theme's key. */
    private record Problem(String reason, String key) {
    }

    private final PageResult result;
    private final List<Integer> order;
    private final Entry[] entries;

    private BrowserRuns(PageResult result, SiteConfig site) {
        List<String> siteExtensions = site.extensions();
        this.result = result;
        List<Snippet> snippets = result.outcomes().stream().map(Outcome::snippet).toList();
        this.order = RunOrder.of(snippets);
        this.entries = new Entry[snippets.size()];
        Entry blocker = null;
        for (int index : order) {
            Outcome outcome = result.outcomes().get(index);
            Snippet snippet = outcome.snippet();
            Problem own = !site.playground() ? new Problem("site.yml turns the browser's run controls off (playground: false)", "off")
                    : !outcome.passed() ? new Problem("the build did not verify it (" + outcome.status().label() + ")", "unverified")
                    : !siteExtensions.isEmpty() ? new Problem("the site's databases hold extensions (" + String.join(", ", siteExtensions)
                            + ", site.yml) that the browser's PostgreSQL does not load", "siteExtensions")
                    : replayProblem(snippet);
            int line = snippet.location().line();
            // A snippet's own reason comes first (a second scenario is a scenario); else what an earlier one blocks.
            if (blocker != null && own == null) {
                entries[index] = new Entry(index, line, "it runs after the snippet at line " + blocker.line() + ", which the browser cannot replay: "
                        + blocker.reason(), "after", blocker.line());
            } else {
                entries[index] = own == null ? new Entry(index, line, null, null, 0) : new Entry(index, line, own.reason(), own.key(), 0);
                if (own != null && blocker == null) {
                    blocker = entries[index];
                }
            }
        }
    }

    /** The page's snippets in the browser, under the site's settings (its extensions, whether the playground is on). */
    public static BrowserRuns of(PageResult result, SiteConfig site) {
        return new BrowserRuns(result, site);
    }

    /** Every verified page's, by the same keys: decided once a build, for the pages, the engine and the report. */
    public static Map<String, BrowserRuns> ofPages(Map<String, PageResult> pages, SiteConfig site) {
        Map<String, BrowserRuns> runs = new LinkedHashMap<>();
        pages.forEach((page, result) -> runs.put(page, of(result, site)));
        return runs;
    }

    /** One entry per snippet, in document order (as {@link PageResult#outcomes()}). */
    public List<Entry> entries() {
        return Arrays.asList(entries);
    }

    public boolean anyRunnable() {
        return Arrays.stream(entries).anyMatch(Entry::runnable);
    }

    /** Why the browser cannot run this snippet as the build ran it, or null. */
    private static Problem replayProblem(Snippet snippet) {
        if (snippet.scenario() != null) {
            return new Problem("a concurrency scenario needs several sessions at once, and the browser's PostgreSQL (PGlite) has one connection",
                    "scenario");
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

    /** The run plan as JSON: every snippet in run order, with what the build recorded of the runnable ones. */
    public String planJson(String serverVersion, Map<String, String> ui) {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("server", serverVersion);
        // The run controls' words in the page's language (the theme's run.* strings), read on the first click.
        Map<String, String> words = new java.util.TreeMap<>();
        ui.forEach((key, value) -> {
            if (key.startsWith("run.")) {
                words.put(key.substring(4), value);
            }
        });
        plan.put("ui", words);
        List<Map<String, Object>> runs = new ArrayList<>();
        for (int index : order) {
            Entry entry = entries[index];
            Outcome outcome = result.outcomes().get(index);
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("snippet", index);
            run.put("line", entry.line());
            if (entry.reason() != null) {
                run.put("reason", entry.reason());
                runs.add(run);
                continue; // nothing after it is runnable: the browser never replays past it
            }
            Snippet snippet = outcome.snippet();
            run.put("sql", snippet.sql());
            List<String> statements = SqlSplitter.split(snippet.sql()).stream().map(SqlStatement::text).toList();
            run.put("statements", statements);
            if (!snippet.directives().parameters().isEmpty()) {
                Binding binding = Binding.of("kensho_p" + index, snippet.directives().parameters(), statements.get(0));
                run.put("binding", Map.of("prefix", binding.prepare().substring(0, binding.shift()),
                        "execute", binding.execute(), "deallocate", binding.deallocate(),
                        "parameters", snippet.directives().parameters().stream()
                                .map(p -> Map.of("position", p.position(), "type", p.type(), "value", p.value())).toList()));
            }
            List<Map<String, Object>> tables = new ArrayList<>();
            List<String> printed = new ArrayList<>();
            for (ResultTable table : outcome.results()) {
                Map<String, Object> shown = new LinkedHashMap<>();
                shown.put("columns", table.columns());
                shown.put("types", table.types());
                shown.put("rows", table.rows());
                shown.put("total", table.totalRows());
                // Whole: every row kept, and no value cut (a cut value is longer than Failure.MAX_TEXT, a kept one never is).
                shown.put("complete", table.complete() && table.rows().stream()
                        .allMatch(row -> row.stream().allMatch(v -> v == null || v.length() <= Failure.MAX_TEXT)));
                // Which of the snippet's statements returned it (its text as sent, or as written for the last one).
                shown.put("statement", statementIndex(statements, table.statement()));
                shown.put("explain", SqlLexer.firstWord(table.statement(), true).equals("explain"));
                tables.add(shown);
                printed.add(PsqlFormat.format(table.columns(), table.types(), table.rows(), null));
            }
            Map<String, Object> expect = expectation(outcome);
            if (expect.containsKey("error")) {
                printed.add("ERROR:  " + expect.get("message") + "\nSQLSTATE: " + expect.get("error"));
            }
            run.put("results", tables);
            // The verified result as the page prints it, in psql's aligned format (the reader's run prints alike).
            run.put("printed", String.join("\n\n", printed));
            run.put("expect", expect);
            run.put("planClaims", snippet.directives().plan() != null);
            runs.add(run);
        }
        plan.put("runs", runs);
        try {
            return JSON.writeValueAsString(plan);
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
            }
        }
        return expect;
    }
}
