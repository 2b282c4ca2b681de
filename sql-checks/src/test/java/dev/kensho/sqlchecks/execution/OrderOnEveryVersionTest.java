package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Issue 34: a statement's order is read alike on every version, although 14 and 15 write most utility statements
 * as {@code :utilityStmt ?}, 14 numbers CMD_UTILITY 5 (15 put CMD_MERGE there) and calls DECLARE's node DECLARECURSOR.
 */
class OrderOnEveryVersionTest {

    private static final String TABLE = "CREATE TABLE t (id int, v int);\nINSERT INTO t VALUES (1, 10), (2, 20), (3, 30);";
    private static final String DESCENDING = " id\n----\n  3\n  2\n  1\n";
    private static final String ASCENDING = " id\n----\n  1\n  2\n  3\n";
    private static final String PREPARED = "PREPARE q (int) AS SELECT id FROM t WHERE v > $1 ORDER BY id DESC;\nEXECUTE q(0);";
    private static final String CURSOR = "BEGIN;\nDECLARE c CURSOR FOR SELECT id FROM t ORDER BY id DESC;\nFETCH ALL FROM c;";
    private static final String QUERY = "SELECT id FROM t ORDER BY id DESC;";

    @ParameterizedTest
    @ValueSource(ints = {14, 15, 18})
    void preparedCursorAndPlainQueriesAreComparedInOrderOnEveryVersion(int major) throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(major), new VerifierSettings(Duration.ofSeconds(5)), major)) {
            for (String sql : List.of(PREPARED, CURSOR, QUERY)) {
                Outcome right = TestPage.on(verifier).add("", TABLE).add("", sql, DESCENDING).last();
                System.out.println("V" + major + " right " + right.passed() + " " + right.failure() + " "
                        + right.assertions().stream().filter(a -> a.kind().equals("rows")).map(a -> a.description()).toList());
                Outcome wrong = TestPage.on(verifier).add("", TABLE).add("", sql, ASCENDING).last();
                System.out.println("V" + major + " wrong " + wrong.passed() + " " + (wrong.failure() == null ? null : wrong.failure().message() + " @ " + wrong.failure().location()));
            }
            Outcome bound = TestPage.on(verifier).add("", TABLE).add("$1:integer=0", "SELECT id FROM t WHERE v > $1 ORDER BY id DESC;", ASCENDING).last();
            System.out.println("V" + major + " bound " + bound.passed() + " " + (bound.failure() == null ? null : bound.failure().message()));
        }
    }
}
