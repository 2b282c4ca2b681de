package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 34: a statement's order is read alike on every version, although the parse reports differ: 14 and 15 write
 * most utility statements as {@code :utilityStmt ?} (read from the text instead, {@link UtilityText}), 14 numbers
 * CMD_UTILITY 5 (15 put CMD_MERGE there) and calls DECLARE's node DECLARECURSOR. What 14 cannot report (the parse of
 * a PREPAREd statement's query) is said at the line, and the rows are compared as the server returned them.
 */
class OrderOnEveryVersionTest {

    private static final String TABLE = "CREATE TABLE t (id int, v int);\nINSERT INTO t VALUES (1, 10), (2, 20), (3, 30);";
    private static final String DESCENDING = " id\n----\n  3\n  2\n  1\n";
    private static final String ASCENDING = " id\n----\n  1\n  2\n  3\n";
    private static final String PREPARED = "PREPARE q (int) AS SELECT id FROM t WHERE v > $1 ORDER BY id DESC;\nEXECUTE q(0);";
    private static final String CURSOR = "BEGIN;\nDECLARE \"Cur\" CURSOR FOR SELECT id FROM t ORDER BY id DESC;\nFETCH ALL IN \"Cur\";";
    private static final String QUERY = "SELECT id FROM t ORDER BY id DESC;";
    private static final String IN_ORDER = "returns the 3 expected row(s) in order (rows that tie on every ORDER BY key in any order)";
    private static final String IN_ANOTHER_ORDER = "the same rows came back in another order, and the query has ORDER BY";

    @ParameterizedTest
    @ValueSource(ints = {14, 15, 18})
    void preparedCursorAndPlainQueriesAreComparedInOrderOnEveryVersion(int major) throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(major), new VerifierSettings(Duration.ofSeconds(5)), major)) {
            // 14 alone does not report the prepared query's parse: the claim says so, and compares as the server returned.
            boolean preparedKnown = major >= 15;
            for (String sql : List.of(PREPARED, CURSOR, QUERY)) {
                boolean known = sql != PREPARED || preparedKnown;
                Outcome right = TestPage.on(verifier).add("", TABLE).add("", sql, DESCENDING).last();
                assertTrue(right.passed(), () -> major + ": " + right.failure());
                assertEquals(known ? IN_ORDER : "returns the 3 expected row(s) in order (as the server returned them: the order the "
                        + "statement promises cannot be known)", rowsClaim(right), major + ": " + sql);
                Outcome wrong = TestPage.on(verifier).add("", TABLE).add("", sql, ASCENDING).last();
                assertEquals(known ? IN_ANOTHER_ORDER : "the same rows came back in another order, and the order the statement promises "
                        + "cannot be known: the server did not report its parse of the prepared statement q's query (PostgreSQL 14 "
                        + "reports a PREPARE's own parse only)", wrong.failure().message(), major + ": " + sql);
                assertEquals("page.md:6:1", wrong.failure().location().toString());
            }
        }
    }

    private static String rowsClaim(Outcome outcome) {
        return outcome.assertions().stream().filter(a -> a.kind().equals("rows")).findFirst().orElseThrow().description();
    }
}
