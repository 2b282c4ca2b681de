package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A recorded verdict is never taken on its word: the snippet's claims, as written now, are judged on the record. */
class RecordedOutcomeTest {

    private static final Assertion RUNS = Assertion.held("runs", Map.of("statements", "1"), "runs without error");

    private static Snippet snippet(Map<String, String> meta, String rows) throws Exception {
        return Snippet.of(new SourceLocation("a.md", 5, 1), "SELECT v FROM t ORDER BY v;")
                .with(Directives.parse(meta), rows == null ? null : ExpectedRows.parse(rows));
    }

    private static Outcome passed(Snippet snippet, List<ResultTable> results, Assertion... assertions) {
        return new Outcome(snippet, Outcome.Status.PASSED, null, results, List.of(assertions), null, null, Duration.ZERO);
    }

    private static Assertion rowsClaim(String ordered, String keys) {
        // As ScriptRunner records it: the order's key columns and their equality operators (96: int4 =).
        return Assertion.held("rows", Map.of("count", "2", "ordered", ordered, "ties", "true", "keys", keys, "basis", "the server's parse",
                "known", "true", "sortKeys", keys, "keyEquality", keys.isEmpty() ? "" : "96"), "");
    }

    private static ResultTable table(String... values) {
        return new ResultTable("SELECT v FROM t ORDER BY v;", List.of("v"), List.of("int4"),
                List.of(values).stream().map(v -> List.of(v)).toList(), values.length);
    }

    @Test
    void expectedRowsAreComparedAgainInTheRecordedOrder() throws Exception {
        Snippet snippet = snippet(Map.of(), " v\n---\n 1\n 2\n");
        assertNull(RecordedOutcome.problem(snippet, passed(snippet, List.of(table("1", "2")), RUNS, rowsClaim("true", "0"))));
        assertEquals("the expected rows differ from the recorded ones",
                RecordedOutcome.problem(snippet, passed(snippet, List.of(table("2", "1")), RUNS, rowsClaim("true", "0"))));
        assertEquals("the expected rows differ from the recorded ones",
                RecordedOutcome.problem(snippet, passed(snippet, List.of(table("1", "3")), RUNS, rowsClaim("false", ""))));
        assertEquals("the compared rows are not recorded", RecordedOutcome.problem(snippet, passed(snippet, List.of(table("1", "2")), RUNS)));
        // A record from before the order's keys were recorded is not judged on a guess.
        assertEquals("the recorded order is not complete", RecordedOutcome.problem(snippet, passed(snippet, List.of(table("1", "2")), RUNS,
                Assertion.held("rows", Map.of("count", "2", "ordered", "true", "keys", "0", "basis", "the server's parse"), ""))));
        assertEquals("the recorded result is cut", RecordedOutcome.problem(snippet, passed(snippet,
                List.of(new ResultTable("SELECT v FROM t ORDER BY v;", List.of("v"), List.of("int4"), List.of(List.of("1"), List.of("2")), 3)),
                RUNS, rowsClaim("true", "0"))));
    }

    @Test
    void anExpectedErrorIsJudgedAgainOnTheRecordedSqlstateAndMessage() throws Exception {
        Snippet snippet = snippet(Map.of("expect-error", "23505", "error-matches", "duplicate key"), null);
        Assertion duplicate = Assertion.held("fails-with", Map.of("sqlstate", "23505", "pattern", "duplicate key",
                "message", "duplicate key value violates unique constraint \"t_pkey\""), "");
        assertNull(RecordedOutcome.problem(snippet, passed(snippet, List.of(), duplicate)));
        assertEquals("the recorded error is not SQLSTATE 23505", RecordedOutcome.problem(snippet, passed(snippet, List.of(),
                Assertion.held("fails-with", Map.of("sqlstate", "23503", "pattern", "duplicate key", "message", "duplicate key"), ""))));
        assertEquals("the recorded error message does not match the pattern", RecordedOutcome.problem(snippet, passed(snippet, List.of(),
                Assertion.held("fails-with", Map.of("sqlstate", "23505", "pattern", "duplicate key", "message", "other"), ""))));
    }

    @Test
    void aRecordThatDidNotPassOrHoldsAFailedClaimIsNeverUsed() throws Exception {
        Snippet snippet = snippet(Map.of(), null);
        assertNull(RecordedOutcome.problem(snippet, passed(snippet, List.of(), RUNS)));
        assertEquals("not every recorded claim held", RecordedOutcome.problem(snippet, passed(snippet, List.of(), RUNS,
                new Assertion("uses-index", Map.of(), "", false))));
        assertEquals("it did not pass", RecordedOutcome.problem(snippet, new Outcome(snippet, Outcome.Status.SKIPPED, null, List.of(),
                List.of(RUNS), null, null, Duration.ZERO)));
        Snippet planned = snippet(Map.of("uses-index", "t_pkey"), null);
        assertEquals("the plan claims are not recorded", RecordedOutcome.problem(planned, passed(planned, List.of(), RUNS)));
    }
}
