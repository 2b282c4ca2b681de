package dev.kensho.sqlchecks;

import java.time.Duration;

/**
 * Kensho's own limits, which keep an untrusted or runaway snippet from hanging the build. They are
 * not server settings a lesson could lean on: the page's session runs with PostgreSQL's stock
 * {@code statement_timeout = 0} and {@code lock_timeout = 0}, and a statement Kensho has to stop
 * fails with a message saying so, never with an error a claim could expect.
 *
 * @param statementTimeout longest a single statement may run before Kensho cancels it (and, should
 *                         the statement ignore the cancel, terminates its session)
 */
public record VerifierSettings(Duration statementTimeout) {

    public static final VerifierSettings DEFAULTS = new VerifierSettings(Duration.ofSeconds(10));

    public VerifierSettings {
        if (statementTimeout.isNegative() || statementTimeout.isZero()) {
            throw new IllegalArgumentException("statement timeout must be positive");
        }
    }
}
