package dev.kensho.generator.verify;

import dev.kensho.generator.Diagnostic;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The CLI's notes under a failed snippet say whether the later ones were not run or ran and are not marked. */
class SkippedNotesTest {

    private static Outcome outcome(int line, Outcome.Status status, String message) {
        Snippet snippet = Snippet.of(new SourceLocation("content/p.md", line, 1), "SELECT 1;");
        Failure failure = message == null ? null : new Failure(message, null, snippet.location(), snippet.sql(), null, null);
        return new Outcome(snippet, status, failure, List.of(), List.of(), null, null, Duration.ZERO);
    }

    @Test
    void snippetsThatRanAfterACharacterTheBrowserTreatsOtherwiseRanAndAreNotMarked() {
        Outcome failed = outcome(3, Outcome.Status.FAILED, "the character U+1F972 '🥲' is [[:punct:]] on this build's server");
        PageResult page = new PageResult("content/p.md", List.of(failed,
                outcome(7, Outcome.Status.SKIPPED, "not marked: it ran after the snippet at content/p.md:3:9, whose character …"),
                outcome(11, Outcome.Status.SKIPPED, "not marked: it ran after the snippet at content/p.md:3:9, whose character …")), Duration.ZERO);
        Diagnostic diagnostic = SqlVerification.diagnostic(page, failed);
        assertEquals(List.of("note: 2 later snippet(s) on this page ran and are not marked; a reader's run of them comes after this one"),
                diagnostic.notes());
    }

    @Test
    void snippetsAfterAFailureAreNotRun() {
        Outcome failed = outcome(3, Outcome.Status.FAILED, "relation \"t\" does not exist");
        PageResult page = new PageResult("content/p.md", List.of(failed,
                outcome(7, Outcome.Status.SKIPPED, "not run: the snippet at content/p.md:3:1 failed and this one builds on it")), Duration.ZERO);
        assertEquals(List.of("note: 1 later snippet(s) on this page were not run; they build on this one"),
                SqlVerification.diagnostic(page, failed).notes());
    }

    /**
     * Newcomer trial helper-102: rows that differ at 37 stop nothing (53 ran and failed on its own), yet both errors said
     * "1 later snippet(s) on this page were not run". Each failure counts only the snippets between it and the next one.
     */
    @Test
    void onlyTheFailureThatStoppedASnippetSaysItWasNotRun() {
        Outcome rows = outcome(37, Outcome.Status.FAILED, "rows differ (in order, because the query has ORDER BY)");
        Outcome error = outcome(53, Outcome.Status.FAILED, "relation \"acounts\" does not exist");
        PageResult page = new PageResult("content/p.md", List.of(outcome(20, Outcome.Status.PASSED, null), rows,
                outcome(45, Outcome.Status.PASSED, null), error,
                outcome(60, Outcome.Status.SKIPPED, "not run: the snippet at content/p.md:53:21 failed and this one builds on it")), Duration.ZERO);
        assertEquals(List.of(), SqlVerification.diagnostic(page, rows).notes());
        assertEquals(List.of("note: 1 later snippet(s) on this page were not run; they build on this one"),
                SqlVerification.diagnostic(page, error).notes());
    }
}
