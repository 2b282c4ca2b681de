package dev.kensho.sqlchecks;

import java.time.Duration;

/**
 * Limits that keep an untrusted or runaway snippet from hanging the build.
 *
 * @param statementTimeout longest a single statement may run ({@code statement_timeout})
 * @param lockTimeout      longest a statement may wait for a lock ({@code lock_timeout})
 */
public record VerifierSettings(Duration statementTimeout, Duration lockTimeout) {

    public static final VerifierSettings DEFAULTS = new VerifierSettings(Duration.ofSeconds(10), Duration.ofSeconds(3));

    public VerifierSettings {
        if (statementTimeout.isNegative() || statementTimeout.isZero()) {
            throw new IllegalArgumentException("statement timeout must be positive");
        }
        if (lockTimeout.isNegative() || lockTimeout.isZero()) {
            throw new IllegalArgumentException("lock timeout must be positive");
        }
    }
}
