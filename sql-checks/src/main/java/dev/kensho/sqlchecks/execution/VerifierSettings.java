package dev.kensho.sqlchecks.execution;

import java.time.Duration;
import java.util.List;

/**
 * Kensho's own limits, which keep an untrusted or runaway snippet from hanging the build or filling
 * the machine. They are not server settings a lesson could lean on: the page's session runs with
 * PostgreSQL's stock {@code statement_timeout = 0} and {@code lock_timeout = 0}, and a statement
 * Kensho has to stop fails with a message saying so, never with an error a claim could expect.
 *
 * @param statementTimeout longest a single statement may run before Kensho cancels it (and, should
 *                         the statement ignore the cancel, terminates its session)
 * @param pageTimeout      longest all of a page's snippets may take together
 * @param databaseBytes    most a page's database may grow on disk
 * @param extensions       extensions Kensho creates in every page's database (pages create none themselves);
 *                         none with a procedural language
 * @param browserStates    whether a scenario's end state is read and its restore proven for the browser (the capture
 *                         run and {@link RestoreProof}, two more runs of such a page): only the version the browser
 *                         replays needs them, so a site checked on several versions asks for them on that one alone
 */
public record VerifierSettings(Duration statementTimeout, Duration pageTimeout, long databaseBytes, List<String> extensions,
                               boolean browserStates) {

    public static final VerifierSettings DEFAULTS = new VerifierSettings(Duration.ofSeconds(10));

    public VerifierSettings {
        if (statementTimeout.isNegative() || statementTimeout.isZero()) {
            throw new IllegalArgumentException("statement timeout must be positive");
        }
        if (pageTimeout.isNegative() || pageTimeout.isZero()) {
            throw new IllegalArgumentException("page timeout must be positive");
        }
        if (databaseBytes <= 0) {
            throw new IllegalArgumentException("the database limit must be positive");
        }
        extensions = List.copyOf(extensions);
        extensions.forEach(ExtensionGuard::checkName);
    }

    public VerifierSettings(Duration statementTimeout, Duration pageTimeout, long databaseBytes, List<String> extensions) {
        this(statementTimeout, pageTimeout, databaseBytes, extensions, true);
    }

    public VerifierSettings(Duration statementTimeout, Duration pageTimeout, long databaseBytes) {
        this(statementTimeout, pageTimeout, databaseBytes, List.of());
    }

    /** The given statement limit, 60 s per page and 1 GiB per page database. */
    public VerifierSettings(Duration statementTimeout) {
        this(statementTimeout, Duration.ofSeconds(60), 1L << 30);
    }

    public VerifierSettings withPageTimeout(Duration timeout) {
        return new VerifierSettings(statementTimeout, timeout, databaseBytes, extensions, browserStates);
    }

    public VerifierSettings withDatabaseBytes(long bytes) {
        return new VerifierSettings(statementTimeout, pageTimeout, bytes, extensions, browserStates);
    }

    /** The site's allowed extensions (such as pg_trgm, btree_gist, pgcrypto), created by Kensho in every page's database. */
    public VerifierSettings withExtensions(List<String> names) {
        return new VerifierSettings(statementTimeout, pageTimeout, databaseBytes, names, browserStates);
    }

    /** These settings for a version the browser does not replay: no scenario state is read or proven (see browserStates). */
    public VerifierSettings withoutBrowserStates() {
        return new VerifierSettings(statementTimeout, pageTimeout, databaseBytes, extensions, false);
    }
}
