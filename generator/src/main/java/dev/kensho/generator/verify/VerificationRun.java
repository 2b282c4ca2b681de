package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Set;

/**
 * Everything the verify stage learnt, keyed by the page's path below content/.
 *
 * @param provider          provider name, or null when no page had SQL and no server was started
 * @param providerReason    why that provider
 * @param serverVersion     exact version such as "18.6", or null
 * @param serverDescription where the server ran
 * @param serverStart       time to get the server accepting connections
 * @param pages             outcomes per page
 * @param fromCache         pages (paths below content/) whose outcomes came from the cache
 * @param checkedAt         when each page's claims were checked (a page read from the cache: by the run that stored it),
 *                          and, for a page whose SQL reads the clock, what it reads
 * @param coverage          the PostgreSQL versions checked and each snippet's, or null before they are known
 */
public record VerificationRun(String provider, String providerReason, String serverVersion, String serverDescription,
                              Duration serverStart, Map<String, PageResult> pages, Set<String> fromCache,
                              Map<String, CheckedAt> checkedAt, VersionCoverage coverage) {

    /**
     * A page's claims were checked at {@code verifiedAt}; {@code reads} names the clock its SQL reads (then they hold for
     * that moment), or is null.
     */
    public record CheckedAt(String reads, Instant verifiedAt) {
    }

    public VerificationRun {
        pages = Collections.unmodifiableMap(new LinkedHashMap<>(pages));
        fromCache = Set.copyOf(fromCache);
        checkedAt = Map.copyOf(checkedAt);
    }

    /** A run that verified nothing. */
    public static VerificationRun none() {
        return new VerificationRun(null, null, null, null, Duration.ZERO, Map.of(), Set.of(), Map.of(), null);
    }

    public VerificationRun(String provider, String providerReason, String serverVersion, String serverDescription,
                           Duration serverStart, Map<String, PageResult> pages, Set<String> fromCache,
                           Map<String, CheckedAt> checkedAt) {
        this(provider, providerReason, serverVersion, serverDescription, serverStart, pages, fromCache, checkedAt, null);
    }

    public VerificationRun withCoverage(VersionCoverage versions) {
        return new VerificationRun(provider, providerReason, serverVersion, serverDescription, serverStart, pages, fromCache, checkedAt,
                versions);
    }

    public long count(Outcome.Status status) {
        return outcomes().stream().filter(o -> o.status() == status).count();
    }

    public Collection<Outcome> outcomes() {
        return pages.values().stream().flatMap(p -> p.outcomes().stream()).toList();
    }
}
