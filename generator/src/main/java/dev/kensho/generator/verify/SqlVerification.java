package dev.kensho.generator.verify;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.sqlchecks.Failure;
import dev.kensho.sqlchecks.Outcome;
import dev.kensho.sqlchecks.PageResult;
import dev.kensho.sqlchecks.Snippet;
import dev.kensho.sqlchecks.Verifier;
import dev.kensho.sqlchecks.VerifierSettings;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The verify stage: every ```sql fence of every page runs on PostgreSQL 18 before anything is written. */
public final class SqlVerification {

    private SqlVerification() {
    }

    /**
     * Runs all pages' snippets; starts a server only when some page has SQL, and always stops it.
     *
     * @param log receives the provider line first, as soon as the server answers
     */
    public static VerificationRun run(List<MarkdownDocument> documents, ProviderChoice choice, VerifierSettings settings,
                                      Consumer<String> log) throws PostgresUnavailableException {
        boolean anySql = documents.stream().anyMatch(d -> d.verifiable() && !d.sqlFences().isEmpty());
        if (!anySql) {
            log.accept("Kensho: no SQL on any page; no PostgreSQL server started");
            return new VerificationRun(null, null, null, null, Duration.ZERO, Map.of());
        }
        long t0 = System.nanoTime();
        try (Verifier verifier = Verifier.start(choice.provider(), settings)) {
            Duration start = Duration.ofNanos(System.nanoTime() - t0);
            log.accept("Kensho: PostgreSQL " + verifier.serverVersion() + " via " + choice.provider().name() + " ("
                    + choice.fullReason() + "): " + verifier.serverDescription() + ", ready in " + start.toMillis() + " ms");
            Map<String, PageResult> results = new LinkedHashMap<>();
            for (MarkdownDocument document : documents) {
                if (document.sqlFences().isEmpty() || !document.verifiable()) {
                    continue;
                }
                List<Snippet> snippets = document.sqlFences().stream().map(MarkdownDocument.SqlFence::snippet).toList();
                results.put(document.page().relativePath(), verifier.verifyPage(document.page().displayPath(), snippets));
            }
            return new VerificationRun(choice.provider().name(), choice.fullReason(), verifier.serverVersion(),
                    verifier.serverDescription(), start, results);
        }
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
            notes.add("hint: " + failure.hint());
        }
        long skipped = page.outcomes().stream().filter(o -> o.status() == Outcome.Status.SKIPPED).count();
        if (skipped > 0) {
            notes.add("note: " + skipped + " later snippet(s) on this page were not run; they build on this one");
        }
        return new Diagnostic(failure.location().file(), failure.location().line(), failure.location().column(),
                failure.message(), failure.sqlState(), failure.sourceLine(), notes);
    }
}
