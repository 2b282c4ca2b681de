package dev.kensho.generator.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.links.LinkChecker;
import dev.kensho.generator.verify.VerificationRun;
import dev.kensho.generator.render.playground.BrowserRuns;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.DatabaseLocale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The machine-readable account of a build: provider, server version, every snippet's outcome, totals. */
public final class JsonReport {

    private JsonReport() {
    }

    /**
     * What the report is made of.
     *
     * @param pages          pages the build read
     * @param browserRuns    what each verified page's snippets can do in the reader's browser, by page
     * @param shard          the share of the pages this run verified ({@code --shard}), which a merge of the reports of a
     *                       CI matrix checks for
     */
    public record Build(String kenshoVersion, VerificationRun run, List<Diagnostic> diagnostics, int pages, long elapsedMs,
                        List<LinkChecker.ExternalLink> externalLinks, List<String> unverifiedSql, List<String> ignoredSql,
                        Map<String, BrowserRuns> browserRuns, dev.kensho.generator.verify.Shard shard) {
    }

    public static void write(Path file, Build build) throws IOException {
        String kenshoVersion = build.kenshoVersion();
        VerificationRun run = build.run();
        List<Diagnostic> diagnostics = build.diagnostics();
        int pages = build.pages();
        long elapsedMs = build.elapsedMs();
        List<LinkChecker.ExternalLink> externalLinks = build.externalLinks();
        List<String> unverifiedSql = build.unverifiedSql();
        List<String> ignoredSql = build.ignoredSql();
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("kensho", kenshoVersion);
        // Which snapshot: a version such as 0.1.0-SNAPSHOT names many builds.
        report.put("kenshoCommit", dev.kensho.generator.KenshoVersion.COMMIT);
        report.put("provider", run.provider());
        report.put("providerReason", run.providerReason());
        report.put("serverVersion", run.serverVersion());
        // The major versions every page was checked on (site.yml postgres.versions, or --postgres-version).
        report.put("postgresVersions", run.coverage() == null ? null : run.coverage().checked());
        // What the site names, and which share of the pages this run had: a CI matrix of versions × shards merges its
        // reports into one (kensho merge-reports), which needs both to tell that every version and shard reported.
        report.put("postgresNamed", run.coverage() == null ? null : run.coverage().named());
        report.put("shard", build.shard().toString());
        report.put("server", run.serverDescription());
        report.put("databaseLocale", run.serverVersion() == null ? null : DatabaseLocale.PAGE.describe());
        report.put("serverStartMs", run.serverStart().toMillis());
        report.put("elapsedMs", elapsedMs);
        List<Map<String, Object>> snippets = new ArrayList<>();
        long runnable = 0;
        for (Map.Entry<String, PageResult> page : run.pages().entrySet()) {
            List<BrowserRuns.Entry> browser = build.browserRuns().get(page.getKey()).entries();
            for (int i = 0; i < page.getValue().outcomes().size(); i++) {
                Map<String, Object> entry = snippet(page.getValue().outcomes().get(i));
                entry.put("cached", run.fromCache().contains(page.getKey()));
                entry.put("versions", run.coverage() == null ? null : run.coverage().of(page.getKey(), i));
                // In the reader's browser (PGlite): "runnable", or why the page shows no run control.
                entry.put("browser", browser.get(i).runnable() ? "runnable" : browser.get(i).reason());
                runnable += browser.get(i).runnable() ? 1 : 0;
                snippets.add(entry);
            }
        }
        report.put("snippets", snippets);
        List<Map<String, Object>> pageTimes = new ArrayList<>();
        for (PageResult page : run.pages().values()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("file", page.page());
            entry.put("snippets", page.outcomes().size());
            entry.put("databaseSetupMs", page.databaseSetup().toNanos() / 1e6);
            entry.put("snippetsMs", page.outcomes().stream().mapToLong(o -> o.duration().toNanos()).sum() / 1e6);
            pageTimes.add(entry);
        }
        report.put("pages", pageTimes);
        List<Map<String, Object>> problems = new ArrayList<>();
        for (Diagnostic d : diagnostics) {
            Map<String, Object> problem = new LinkedHashMap<>();
            problem.put("file", d.file());
            problem.put("line", d.line());
            problem.put("column", d.column());
            problem.put("message", ReportText.cut(d.message()));
            problem.put("code", d.code());
            problems.add(problem);
        }
        report.put("problems", problems);
        report.put("externalLinks", externalLinks.stream().map(l -> Map.of("page", l.page(), "url", l.url())).toList());
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("pages", pages);
        totals.put("pagesWithSql", run.pages().size());
        totals.put("snippets", snippets.size());
        totals.put("passed", run.count(Outcome.Status.PASSED));
        totals.put("failed", run.count(Outcome.Status.FAILED));
        totals.put("skipped", run.count(Outcome.Status.SKIPPED));
        totals.put("runnableInBrowser", runnable);
        totals.put("assertions", run.outcomes().stream().mapToLong(o -> o.assertions().size()).sum());
        totals.put("problems", diagnostics.size());
        totals.put("pagesFromCache", run.fromCache().size());
        totals.put("unverifiedSqlFences", unverifiedSql.size());
        report.put("unverifiedSqlFences", unverifiedSql);
        totals.put("ignoredSqlFences", ignoredSql.size());
        report.put("ignoredSqlFences", ignoredSql);
        report.put("totals", totals);
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        try (java.io.OutputStream out = dev.kensho.generator.output.LinkFreePaths.create(file)) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out, report);
        }
    }

    private static Map<String, Object> snippet(Outcome outcome) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("file", outcome.snippet().location().file());
        entry.put("line", outcome.snippet().location().line());
        entry.put("column", outcome.snippet().location().column());
        entry.put("kind", outcome.snippet().scenario() == null ? "sql" : "scenario");
        entry.put("status", outcome.status().label());
        Failure failure = outcome.failure();
        entry.put("message", failure == null ? null : ReportText.cut(failure.message()));
        entry.put("sqlstate", failure == null ? null : failure.sqlState());
        if (failure != null) {
            entry.put("errorLine", failure.location().line());
            entry.put("errorColumn", failure.location().column());
            entry.put("detail", ReportText.cut(failure.detail()));
            entry.put("hint", ReportText.cut(failure.hint()));
        }
        entry.put("assertions", outcome.assertions().stream()
                .map(a -> Map.of("assertion", ReportText.cut(a.description()), "outcome", a.passed() ? "passed" : "failed")).toList());
        if (outcome.transcript() != null) {
            entry.put("transcript", ReportText.cut(outcome.transcript().toString()));
        }
        entry.put("durationMs", outcome.duration().toNanos() / 1e6);
        entry.put("statementsWithRows", outcome.results().size());
        return entry;
    }
}
