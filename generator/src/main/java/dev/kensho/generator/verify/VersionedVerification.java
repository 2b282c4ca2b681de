package dev.kensho.generator.verify;

import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.report.Progress;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.PostgresReleases;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Every page on every PostgreSQL version the site names, each version on a server of its own (started in
 * parallel), each page on a fresh database of each; then one outcome per snippet: it holds when it held on
 * every version it was meant for (all the site names, or those its {@code versions=} names), and otherwise
 * fails at its line naming where it held and where not.
 */
public final class VersionedVerification {

    private VersionedVerification() {
    }

    /**
     * @param named   the versions the site names (site.yml postgres.versions)
     * @param checked the versions this run checks: {@code named}, or the one {@code --postgres-version} gives
     * @param jobs    pages at once in all; shared out between the versions
     */
    public static VerificationRun run(List<MarkdownDocument> documents, List<Integer> named, List<Integer> checked,
                                      String option, String image, VerifierSettings settings, VerificationCache cache, int jobs,
                                      ServerSession session, Progress progress, Consumer<String> log) throws PostgresUnavailableException {
        if (checked.size() == 1 && named.equals(checked) && documents.stream().allMatch(d -> d.sqlFences().stream()
                .allMatch(f -> f.versions() == null || f.versions().contains(checked.get(0))))) {
            int major = checked.get(0);
            VerificationRun run = SqlVerification.run(documents, SqlVerification::snippets, () -> ProviderChoice.choose(option, image, major),
                    ProviderChoice.identityOf(option, image, major), settings, cache, jobs, session, progress, log);
            return run.withCoverage(coverage(documents, named, checked, Map.of(major, run)));
        }
        int perVersion = Math.max(1, (jobs + checked.size() - 1) / checked.size());
        Map<Integer, VerificationRun> runs = new TreeMap<>();
        ExecutorService servers = Executors.newFixedThreadPool(checked.size());
        try {
            Map<Integer, Future<VerificationRun>> started = new LinkedHashMap<>();
            for (int major : checked) {
                started.put(major, servers.submit(() -> SqlVerification.run(documents, d -> snippetsOn(d, major),
                        () -> ProviderChoice.choose(option, image, major), ProviderChoice.identityOf(option, image, major),
                        // The browser replays the newest version's run: only that one reads and proves scenario states.
                        major == checked.get(checked.size() - 1) ? settings : settings.withoutBrowserStates(),
                        cache, perVersion, session, progress, line -> log.accept(line.replaceFirst("^Kensho: ", "Kensho: [" + major + "] ")))));
            }
            PostgresUnavailableException unavailable = null;
            for (Map.Entry<Integer, Future<VerificationRun>> entry : started.entrySet()) {
                try {
                    runs.put(entry.getKey(), entry.getValue().get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof PostgresUnavailableException pu) {
                        if (unavailable == null) {
                            unavailable = new PostgresUnavailableException("PostgreSQL " + entry.getKey() + ": " + pu.getMessage(), pu);
                        }
                    } else if (e.getCause() instanceof RuntimeException runtime) {
                        throw runtime;
                    } else {
                        throw new IllegalStateException(e.getCause());
                    }
                }
            }
            if (unavailable != null) {
                throw unavailable;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PostgresUnavailableException("interrupted while verifying", e);
        } finally {
            servers.shutdownNow();
        }
        return merge(documents, named, checked, runs);
    }

    /** The snippets of a page that run on {@code major}. */
    static List<Snippet> snippetsOn(MarkdownDocument document, int major) {
        return document.sqlFences().stream().filter(f -> f.versions() == null || f.versions().contains(major))
                .map(MarkdownDocument.SqlFence::snippet).toList();
    }

    private static VersionCoverage coverage(List<MarkdownDocument> documents, List<Integer> named, List<Integer> checked,
                                            Map<Integer, VerificationRun> runs) {
        Map<Integer, String> exact = new TreeMap<>();
        runs.forEach((major, run) -> {
            if (run.serverVersion() != null) {
                exact.put(major, run.serverVersion());
            }
        });
        Map<String, List<List<Integer>>> perPage = new LinkedHashMap<>();
        Map<String, List<Map<Integer, String>>> plans = new LinkedHashMap<>();
        Map<String, List<Map<Integer, List<dev.kensho.sqlchecks.model.Assertion>>>> claims = new LinkedHashMap<>();
        for (MarkdownDocument document : documents) {
            String page = document.page().relativePath();
            List<List<Integer>> perSnippet = new ArrayList<>();
            List<Map<Integer, String>> planPerSnippet = new ArrayList<>();
            List<Map<Integer, List<dev.kensho.sqlchecks.model.Assertion>>> claimsPerSnippet = new ArrayList<>();
            for (MarkdownDocument.SqlFence fence : document.sqlFences()) {
                perSnippet.add(checked.stream().filter(v -> fence.versions() == null || fence.versions().contains(v)).toList());
                planPerSnippet.add(perVersion(fence, page, runs, o -> o.plan() == null || o.plan().isEmpty() ? null : o.plan()));
                claimsPerSnippet.add(perVersion(fence, page, runs, Outcome::assertions));
            }
            perPage.put(page, perSnippet);
            plans.put(page, planPerSnippet);
            claims.put(page, claimsPerSnippet);
        }
        return new VersionCoverage(checked, named, exact, perPage, plans, claims);
    }

    /**
     * What each version's run of the fence showed of one kind of evidence (its plan, its claims), where it held there:
     * evidence that changed between versions is evidence of each version, and the page shows every one of them, not the
     * newest's as if it were all. A version whose run has none of it (null) is left out.
     */
    private static <T> Map<Integer, T> perVersion(MarkdownDocument.SqlFence fence, String page, Map<Integer, VerificationRun> runs,
                                                  java.util.function.Function<Outcome, T> evidence) {
        Map<Integer, T> byVersion = new TreeMap<>();
        runs.forEach((major, run) -> {
            PageResult result = run.pages().get(page);
            if (result != null) {
                result.outcomes().stream().filter(o -> o.snippet().location().equals(fence.snippet().location()) && o.passed())
                        .findFirst().map(evidence).ifPresent(value -> byVersion.put(major, value));
            }
        });
        return byVersion;
    }

    private static VerificationRun merge(List<MarkdownDocument> documents, List<Integer> named, List<Integer> checked,
                                         Map<Integer, VerificationRun> runs) {
        Map<String, PageResult> pages = new LinkedHashMap<>();
        Set<String> fromCache = new HashSet<>();
        for (MarkdownDocument document : documents) {
            String page = document.page().relativePath();
            if (runs.values().stream().noneMatch(r -> r.pages().containsKey(page))) {
                if (document.sqlFences().isEmpty() || !document.verifiable()) {
                    continue;
                }
            }
            if (runs.values().stream().allMatch(r -> !r.pages().containsKey(page) || r.fromCache().contains(page))) {
                fromCache.add(page);
            }
            List<Outcome> merged = new ArrayList<>();
            Duration setup = Duration.ZERO;
            for (PageResult result : runs.values().stream().map(r -> r.pages().get(page)).filter(java.util.Objects::nonNull).toList()) {
                setup = setup.compareTo(result.databaseSetup()) < 0 ? result.databaseSetup() : setup;
            }
            for (MarkdownDocument.SqlFence fence : document.sqlFences()) {
                Map<Integer, Outcome> perVersion = new TreeMap<>();
                for (Map.Entry<Integer, VerificationRun> run : runs.entrySet()) {
                    PageResult result = run.getValue().pages().get(page);
                    if (result == null) {
                        continue;
                    }
                    result.outcomes().stream().filter(o -> o.snippet().location().equals(fence.snippet().location())).findFirst()
                            .ifPresent(o -> perVersion.put(run.getKey(), o));
                }
                merged.add(combine(fence, named, checked, perVersion));
            }
            pages.put(page, new PageResult(document.page().displayPath(), merged, setup));
        }
        VerificationRun newest = runs.get(checked.get(checked.size() - 1));
        VerificationRun any = newest != null ? newest : runs.values().iterator().next();
        List<String> exacts = runs.values().stream().map(VerificationRun::serverVersion).filter(java.util.Objects::nonNull).toList();
        VersionCoverage coverage = coverage(documents, named, checked, runs);
        return new VerificationRun(any.provider(), any.providerReason(), exacts.isEmpty() ? null : String.join(", ", exacts),
                any.serverDescription(), runs.values().stream().map(VerificationRun::serverStart).max(Duration::compareTo).orElse(Duration.ZERO),
                pages, fromCache, checkedAtEarliest(runs)).withCoverage(coverage);
    }

    /** A clock-reading page checked on several versions holds from its earliest check. */
    private static Map<String, VerificationRun.CheckedAt> checkedAtEarliest(Map<Integer, VerificationRun> runs) {
        Map<String, VerificationRun.CheckedAt> earliest = new java.util.HashMap<>();
        for (VerificationRun run : runs.values()) {
            run.checkedAt().forEach((page, reading) -> earliest.merge(page, reading,
                    (a, b) -> a.verifiedAt().isAfter(b.verifiedAt()) ? b : a));
        }
        return earliest;
    }

    /**
     * One outcome for a snippet from its outcome on each version: the newest version's when it held everywhere it
     * was meant to; else a failure at the first failing version's location, naming where it held and where not.
     */
    static Outcome combine(MarkdownDocument.SqlFence fence, List<Integer> named, List<Integer> checked, Map<Integer, Outcome> perVersion) {
        Snippet snippet = fence.snippet();
        List<Integer> meant = checked.stream().filter(v -> fence.versions() == null || fence.versions().contains(v)).toList();
        if (fence.versions() != null && named.stream().noneMatch(fence.versions()::contains)) {
            return failed(snippet, Outcome.Status.FAILED, "versions=\"" + fence.info().meta().get(FenceVersions.KEY)
                    + "\" names none of the versions this site checks (PostgreSQL " + PostgresReleases.describe(named)
                    + ", site.yml postgres.versions)");
        }
        if (meant.isEmpty()) {
            return failed(snippet, Outcome.Status.SKIPPED, "not run: versions=\"" + fence.info().meta().get(FenceVersions.KEY)
                    + "\" does not name PostgreSQL " + PostgresReleases.describe(checked) + ", the only version(s) this run checks");
        }
        List<Integer> held = new ArrayList<>();
        Map<String, List<Integer>> failedBy = new LinkedHashMap<>();
        Outcome firstFailure = null;
        Outcome firstSkip = null;
        for (int version : meant) {
            Outcome outcome = perVersion.get(version);
            if (outcome == null) {
                continue; // the page did not run on it (its server never started): reported as the build's error
            }
            switch (outcome.status()) {
                case PASSED -> held.add(version);
                case FAILED -> {
                    failedBy.computeIfAbsent(outcome.failure().message(), m -> new ArrayList<>()).add(version);
                    firstFailure = firstFailure == null ? outcome : firstFailure;
                }
                case SKIPPED -> firstSkip = firstSkip == null ? outcome : firstSkip;
            }
        }
        if (firstFailure == null && firstSkip == null) {
            return perVersion.get(meant.get(meant.size() - 1));
        }
        if (firstFailure == null) {
            return firstSkip;
        }
        if (meant.size() == 1) {
            return firstFailure;
        }
        Failure failure = firstFailure.failure();
        return new Outcome(firstFailure.snippet(), Outcome.Status.FAILED,
                new Failure(VersionVerdict.failure(held, failedBy), failure.sqlState(), failure.location(), failure.sourceLine(), failure.detail(), failure.hint()),
                firstFailure.results(), firstFailure.assertions(), firstFailure.plan(), firstFailure.transcript(), firstFailure.duration());
    }

    private static Outcome failed(Snippet snippet, Outcome.Status status, String message) {
        SourceLocation at = snippet.location();
        return new Outcome(snippet, status, new Failure(message, null, at, snippet.lineAt(0), null, null),
                List.of(), List.of(), null, null, Duration.ZERO);
    }
}
