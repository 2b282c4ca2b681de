package dev.kensho.generator.verify;

import dev.kensho.generator.report.Progress;
import dev.kensho.generator.KenshoVersion;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.execution.Verifier;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;
import dev.kensho.sqlchecks.script.TimeDependentSql;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/** The verify stage: every ```sql fence of every page runs on PostgreSQL 18 before anything is written. */
public final class SqlVerification {

    private SqlVerification() {
    }

    /**
     * Runs all pages' snippets, {@code jobs} pages at a time, each in its own database; pages whose
     * key is in the cache are not run. Starts a server only when some page must run, and always
     * stops it.
     *
     * @param cache null to run every page
     * @param log   receives the provider line first, as soon as the server answers
     */
    public static VerificationRun run(List<MarkdownDocument> documents, Supplier<ProviderChoice> chooser,
                                      String serverIdentity, VerifierSettings settings, VerificationCache cache, int jobs,
                                      ServerSession session, Progress progress,
                                      Consumer<String> log) throws PostgresUnavailableException {
        return run(documents, SqlVerification::snippets, chooser, serverIdentity, settings, cache, jobs, session, progress, log);
    }

    /**
     * As above, for one PostgreSQL version of several: {@code snippetsOf} gives the snippets of a page that run on
     * it (those whose versions= names it); a page with none is not run on it.
     */
    public static VerificationRun run(List<MarkdownDocument> documents, Function<MarkdownDocument, List<Snippet>> snippetsOf,
                                      Supplier<ProviderChoice> chooser,
                                      String serverIdentity, VerifierSettings settings, VerificationCache cache, int jobs,
                                      ServerSession session, Progress progress,
                                      Consumer<String> log) throws PostgresUnavailableException {
        List<MarkdownDocument> withSql = documents.stream().filter(d -> d.verifiable() && !snippetsOf.apply(d).isEmpty()).toList();
        if (withSql.isEmpty()) {
            log.accept("Kensho: no SQL on any page checked here" + (documents.isEmpty() ? " (none of the pages is in this share)" : "") + "; no PostgreSQL server started");
            return VerificationRun.none();
        }
        Map<String, PageResult> results = new LinkedHashMap<>();
        Map<String, String> keys = new LinkedHashMap<>();
        Set<String> fromCache = new HashSet<>();
        Map<String, VerificationRun.CheckedAt> checkedAt = new HashMap<>();
        List<MarkdownDocument> toRun = new ArrayList<>();
        String cachedVersion = null;
        String cachedServer = null;
        // Page → the server version its cache entry was verified on: a run's marks name one version, so they must agree.
        Map<String, String> cachedOn = new HashMap<>();
        for (MarkdownDocument document : withSql) {
            String page = document.page().relativePath();
            results.put(page, null); // keeps document order
            String key = VerificationCache.key(document, KenshoVersion.VALUE, serverIdentity, settings);
            keys.put(page, key);
            var hit = cache == null ? Optional.<VerificationCache.Hit>empty() : cache.load(key, document.page().displayPath(), snippetsOf.apply(document));
            if (hit.isPresent()) {
                results.put(page, hit.get().result());
                fromCache.add(page);
                clock(document, hit.get().verifiedAt(), checkedAt);
                cachedVersion = hit.get().serverVersion();
                cachedServer = hit.get().serverDescription();
                cachedOn.put(page, cachedVersion);
            } else {
                toRun.add(document);
            }
        }
        String ignored = cache == null ? null : cache.ignoredEntries();
        if (ignored != null) {
            log.accept(ignored);
        }
        boolean oneVersion = new HashSet<>(cachedOn.values()).size() <= 1;
        if (toRun.isEmpty() && oneVersion) {
            log.accept("Kensho: all " + withSql.size() + " page(s) with SQL unchanged since PostgreSQL " + cachedVersion
                    + " verified them; outcomes from the cache, no PostgreSQL server started");
            return new VerificationRun("cache", "every page unchanged", cachedVersion, cachedServer, Duration.ZERO, results, fromCache,
                    checkedAt);
        }
        // Chosen only now: asking whether a Docker engine answers can take seconds, and cached pages need no server.
        ProviderChoice choice = chooser.get();
        long t0 = System.nanoTime();
        boolean starting = session.starts(choice, settings);
        Verifier verifier = session.acquire(choice, settings);
        try {
            Duration start = Duration.ofNanos(System.nanoTime() - t0);
            // An entry verified on another version of the server (an image tag or a server behind a URL that moved on) is
            // run again: the build's marks name the version that ran it.
            for (MarkdownDocument document : withSql) {
                String page = document.page().relativePath();
                String on = cachedOn.get(page);
                if (on != null && !on.equals(verifier.serverVersion())) {
                    fromCache.remove(page);
                    checkedAt.remove(page);
                    results.put(page, null);
                    toRun.add(document);
                }
            }
            log.accept("Kensho: PostgreSQL " + verifier.serverVersion() + " via " + choice.provider().name() + " ("
                    + choice.fullReason() + "): " + verifier.serverDescription()
                    + (starting ? ", ready in " + start.toMillis() + " ms" : ", kept running")
                    + (fromCache.isEmpty() ? "" : "; " + fromCache.size() + " unchanged page(s) from the cache")
                    + (cache == null ? "" : timeDependent(toRun)));
            ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, jobs));
            try {
                Map<String, Future<PageResult>> running = new LinkedHashMap<>();
                Map<String, Instant> ranAt = new java.util.concurrent.ConcurrentHashMap<>();
                for (MarkdownDocument document : toRun) {
                    running.put(document.page().relativePath(), pool.submit(() -> {
                        // A clock-reading page's claims hold for the moment its run began: the first statement's now().
                        // Whole seconds, as the cache keeps it: the page renders the same from the run and from its entry.
                        ranAt.put(document.page().relativePath(), Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
                        PageResult result = verifier.verifyPage(document.page().displayPath(), snippetsOf.apply(document),
                                settings.browserStates());
                        progress.pagesVerified.incrementAndGet();
                        progress.snippetsVerified.addAndGet(result.outcomes().size());
                        return result;
                    }));
                }
                for (MarkdownDocument document : toRun) {
                    String page = document.page().relativePath();
                    PageResult result = running.get(page).get();
                    results.put(page, result);
                    clock(document, ranAt.get(page), checkedAt);
                    if (cache != null) {
                        cache.store(keys.get(page), result, verifier.serverVersion(), verifier.serverDescription(), ranAt.get(page), log);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PostgresUnavailableException("interrupted while verifying", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
            } finally {
                pool.shutdownNow();
            }
            return new VerificationRun(choice.provider().name(), choice.fullReason(), verifier.serverVersion(),
                    verifier.serverDescription(), start, results, fromCache, checkedAt);
        } finally {
            session.release(verifier);
        }
    }

    /**
     * Notes when a page's claims were checked (so that a page from the cache does not claim this build ran it), and
     * what clock its SQL reads, if any (a page reading chance says nothing more: a recorded draw is as good as a new one).
     */
    private static void clock(MarkdownDocument document, Instant verifiedAt, Map<String, VerificationRun.CheckedAt> checkedAt) {
        TimeDependentSql.Reading reading = TimeDependentSql.read(snippets(document).stream().map(Snippet::sql).toList());
        String reads = reading != null && reading.kind() == TimeDependentSql.Kind.CLOCK ? reading.word() : null;
        checkedAt.put(document.page().relativePath(), new VerificationRun.CheckedAt(reads, verifiedAt));
    }

    static List<Snippet> snippets(MarkdownDocument document) {
        return document.sqlFences().stream().map(MarkdownDocument.SqlFence::snippet).toList();
    }

    /** One diagnostic per failed snippet, in page order. */
    public static List<Diagnostic> diagnostics(VerificationRun run) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        for (PageResult page : run.pages().values()) {
            for (Outcome outcome : page.outcomes()) {
                if (outcome.status() == Outcome.Status.FAILED) {
                    diagnostics.add(diagnostic(page, outcome));
                }
            }
        }
        return diagnostics;
    }

    /** The compiler-style report of one failed snippet of {@code page}. */
    public static Diagnostic diagnostic(PageResult page, Outcome outcome) {
        Failure failure = outcome.failure();
        List<String> notes = new ArrayList<>();
        if (failure.detail() != null) {
            notes.add("detail: " + failure.detail());
        }
        if (failure.hint() != null) {
            // A hint is one line: a server's (a RAISE's) line breaks are shown escaped, never as lines of their own.
            notes.add("hint: " + Diagnostic.printable(failure.hint()));
        }
        // A skipped snippet was either not run (it builds on a failed one) or ran and is not marked (CharacterTypeCheck: the
        // page holds a character a reader's run could treat otherwise); its reason says which.
        // Only those between this failure and the page's next one: a failure that did not stop the run (rows that differ)
        // stopped nothing, and the snippets a later error stopped are that error's (newcomer trial helper-102).
        List<Outcome> after = following(page.outcomes(), outcome);
        long unmarked = after.stream().filter(o -> o.status() == Outcome.Status.SKIPPED && notMarked(o)).count();
        long skipped = after.stream().filter(o -> o.status() == Outcome.Status.SKIPPED).count() - unmarked;
        if (skipped > 0) {
            notes.add("note: " + skipped + " later snippet(s) on this page were not run; they build on this one");
        }
        if (unmarked > 0) {
            notes.add("note: " + unmarked + " later snippet(s) on this page ran and are not marked; a reader's run of them comes after this one");
        }
        return new Diagnostic(failure.location().file(), failure.location().line(), failure.location().column(),
                failure.message(), failure.sqlState(), failure.sourceLine(), notes);
    }

    /** The outcomes after {@code failed} up to the page's next failed one. */
    private static List<Outcome> following(List<Outcome> outcomes, Outcome failed) {
        int at = -1;
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == failed) {
                at = i;
                break;
            }
        }
        List<Outcome> after = new ArrayList<>();
        for (int i = at + 1; at >= 0 && i < outcomes.size() && outcomes.get(i).status() != Outcome.Status.FAILED; i++) {
            after.add(outcomes.get(i));
        }
        return after;
    }

    /** Whether a skipped snippet ran and is only not marked, rather than not run. */
    private static boolean notMarked(Outcome outcome) {
        return outcome.failure() != null && outcome.failure().message().startsWith("not marked:");
    }

    /** Says how many of the pages that run read the clock or chance, and the first reason (why a cached site may still run some). */
    private static String timeDependent(List<MarkdownDocument> toRun) {
        List<String> reasons = toRun.stream().map(d -> TimeDependentSql.read(snippets(d).stream().map(Snippet::sql).toList()))
                .filter(java.util.Objects::nonNull).map(TimeDependentSql.Reading::word).toList();
        return reasons.isEmpty() ? "" : "; " + reasons.size() + " page(s) that run read the clock or chance (" + reasons.get(0) + ", …)";
    }
}
