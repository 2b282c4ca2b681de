package dev.kensho.generator;

import dev.kensho.generator.verify.VerificationRun;

import java.time.Duration;
import java.util.List;

/**
 * How a build ended.
 *
 * @param diagnostics      problems in the sources, in the order found; empty when all holds
 * @param environmentError a problem of the machine, not of the sources (no PostgreSQL server could be had, a report
 *                         could not be written), or null
 * @param verification     the outcomes of every snippet that ran
 * @param pages            pages loaded
 * @param written          whether the site folder was replaced
 * @param elapsed          wall-clock time of the whole build
 */
public record BuildResult(List<Diagnostic> diagnostics, String environmentError, VerificationRun verification,
                          int pages, boolean written, Duration elapsed, List<String> ignoredSql,
                          dev.kensho.generator.output.UpToDateSite.Counts upToDate) {

    public BuildResult {
        diagnostics = List.copyOf(diagnostics);
        ignoredSql = List.copyOf(ignoredSql);
    }

    public BuildResult(List<Diagnostic> diagnostics, String environmentError, VerificationRun verification,
                       int pages, boolean written, Duration elapsed, List<String> ignoredSql) {
        this(diagnostics, environmentError, verification, pages, written, elapsed, ignoredSql, null);
    }

    /** A build skipped because the site already is what it would write ({@code upToDate}: what the build that wrote it counted). */
    static BuildResult upToDate(dev.kensho.generator.output.UpToDateSite.Counts counts, Duration elapsed) {
        return new BuildResult(List.of(), null, VerificationRun.none(), counts.pages(), false, elapsed, List.of(), counts);
    }

    public boolean succeeded() {
        return diagnostics.isEmpty() && environmentError == null;
    }
}
