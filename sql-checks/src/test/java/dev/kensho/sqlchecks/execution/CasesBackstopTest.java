package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The backstop of {@link CaptureRun#answered} for exercise cases, which no page has reached so far (each leftover a case
 * could leave is refused by the case's own checks first): when every case passed on the replay but the model answer,
 * run again after them as a reader's browser runs it, no longer holds its claim, the last case fails saying why. Built
 * from outcomes directly, since no SQL is known that gets past the checks in front of it.
 */
class CasesBackstopTest {

    private static final Snippet ANSWER = Snippet.of(new SourceLocation("page.md", 1, 1), "SELECT id FROM orders ORDER BY id;");
    private static final Snippet TIE = Snippet.of(new SourceLocation("page.md", 5, 1), "INSERT INTO orders VALUES (2);")
            .with(new Directives(false, false, null, null, List.of(), null, false, false, "tie"), null);
    private static final Snippet EMPTY = Snippet.of(new SourceLocation("page.md", 9, 1), "DELETE FROM orders;")
            .with(new Directives(false, false, null, null, List.of(), null, false, false, "empty"), null);

    private static Outcome passed(Snippet snippet) {
        return new Outcome(snippet, Outcome.Status.PASSED, null, List.of(), List.of(), null, null, Duration.ZERO);
    }

    private static Outcome failed(Snippet snippet, String message) {
        return new Outcome(snippet, Outcome.Status.FAILED, new Failure(message, null, snippet.location(), snippet.sql(), null, null),
                List.of(), List.of(), null, null, Duration.ZERO);
    }

    private static List<Outcome> answered(Outcome answerAfterCases) {
        List<Outcome> real = List.of(passed(ANSWER), CaptureRun.caseWaiting(TIE), CaptureRun.caseWaiting(EMPTY));
        CaptureRun.Question question = new CaptureRun.Question(0, null, 0, true);
        List<Outcome> replay = new java.util.ArrayList<>(List.of(answerAfterCases, passed(TIE), passed(EMPTY)));
        RunTrace trace = new RunTrace();
        CaptureRun.Answer answer = new CaptureRun.Answer(question, replay, trace, null, false);
        return CaptureRun.answered(real, trace, real, List.of(answer));
    }

    @Test
    void theLastCaseFailsWhenTheAnswerNoLongerHoldsAfterTheCases() {
        List<Outcome> outcomes = answered(failed(ANSWER, "missing: 1 / extra: 2"));
        assertNull(outcomes.get(1).failure(), "the first case passed");
        Outcome last = outcomes.get(2);
        assertEquals(Outcome.Status.FAILED, last.status());
        assertEquals("case \"empty\": after the cases, the model answer no longer holds its claim (missing: 1 / extra: 2); a "
                + "reader's browser runs the answer after its cases, so a reader typing the model answer would be told it is "
                + "wrong: a case may leave nothing a rollback does not undo (a sequence's value, a prepared statement, a "
                + "cursor's position, the seed of random())", last.failure().message());
        assertEquals("page.md:9:1", last.failure().location().toString());
    }

    @Test
    void casesStandWhenTheAnswerStillHolds() {
        List<Outcome> outcomes = answered(passed(ANSWER));
        assertEquals(Outcome.Status.PASSED, outcomes.get(1).status());
        assertEquals(Outcome.Status.PASSED, outcomes.get(2).status());
    }
}
