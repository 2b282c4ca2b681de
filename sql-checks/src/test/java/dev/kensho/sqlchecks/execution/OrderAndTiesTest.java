package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 §3: order and ties as PostgreSQL decides them — the ORDER BY keys from the server's parse
 * tree of the statement that ran, ties by each key's equality operator — never by matching text.
 */
class OrderAndTiesTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static TestPage page() {
        return TestPage.on(verifier);
    }

    private static void assertPassed(Outcome outcome) {
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + (outcome.failure() == null ? "" : outcome.failure().detail()));
    }

    private static String description(Outcome outcome) {
        return outcome.assertions().stream().filter(a -> a.kind().equals("rows")).findFirst().orElseThrow().description();
    }

    private static final String IN_ANOTHER_ORDER = "the same rows came back in another order, and the query has ORDER BY";

    @Test
    void commasInsideAnArrayDoNotShiftTheKeyOntoAnotherColumn() throws Exception {
        String table = "CREATE TABLE m (a int, b int, c int); INSERT INTO m VALUES (1, 2, 3), (2, 1, 0), (5, 5, 9);";
        Outcome wrong = page().add("", table)
                .add("", "SELECT ARRAY[a, b] AS arr, c FROM m ORDER BY c;", "  arr  | c\n-------+---\n {1,2} | 3\n {2,1} | 0\n {5,5} | 9\n").last();
        assertEquals(IN_ANOTHER_ORDER, wrong.failure().message());
        Outcome right = page().add("", table)
                .add("", "SELECT ARRAY[a, b] AS arr, c FROM m ORDER BY c;", "  arr  | c\n-------+---\n {2,1} | 0\n {1,2} | 3\n {5,5} | 9\n").last();
        assertPassed(right);
        assertEquals("returns the 3 expected row(s) in order (rows that tie on every ORDER BY key in any order)", description(right));
    }

    @Test
    void anAliasOfAnExpressionIsTheKeyAndItsTrueTiesMayComeInAnyOrder() throws Exception {
        String table = "CREATE TABLE o (id int, price int, qty int); INSERT INTO o VALUES (1, 2, 3), (2, 3, 2), (3, 1, 1);";
        String query = "SELECT id, price * qty AS total FROM o ORDER BY total;";
        Outcome ties = page().add("", table).add("", query, " id | total\n----+-------\n  3 |     1\n  2 |     6\n  1 |     6\n").last();
        assertPassed(ties);
        Outcome otherTies = page().add("", table).add("", query, " id | total\n----+-------\n  3 |     1\n  1 |     6\n  2 |     6\n").last();
        assertPassed(otherTies);
        Outcome wrong = page().add("", table).add("", query, " id | total\n----+-------\n  1 |     6\n  3 |     1\n  2 |     6\n").last();
        assertEquals(IN_ANOTHER_ORDER, wrong.failure().message());
    }

    @Test
    void doublesThatPrintAlikeAreNotTiesWhenTheSortTellsThemApart() throws Exception {
        String query = "SET extra_float_digits = 0; SELECT id, x FROM (VALUES (1, 0.1::float8 + 0.2), (2, 0.3::float8)) AS v(id, x) ORDER BY x;";
        Outcome wrong = page().add("", query, " id |  x\n----+-----\n  1 | 0.3\n  2 | 0.3\n").last();
        assertEquals(IN_ANOTHER_ORDER, wrong.failure().message());
        Outcome right = page().add("", query, " id |  x\n----+-----\n  2 | 0.3\n  1 | 0.3\n").last();
        assertPassed(right);
    }

    @Test
    void intervalsEqualToTheSortTieHoweverTheyPrint() throws Exception {
        String query = "SELECT id, i FROM (VALUES (1, interval '24 hours'), (2, interval '1 day'), (0, interval '1 hour')) AS v(id, i) ORDER BY i;";
        Outcome one = page().add("", query, " id |    i\n----+----------\n  0 | 01:00:00\n  1 | 24:00:00\n  2 | 1 day\n").last();
        assertPassed(one);
        Outcome other = page().add("", query, " id |    i\n----+----------\n  0 | 01:00:00\n  2 | 1 day\n  1 | 24:00:00\n").last();
        assertPassed(other);
        Outcome wrong = page().add("", query, " id |    i\n----+----------\n  2 | 1 day\n  0 | 01:00:00\n  1 | 24:00:00\n").last();
        assertEquals(IN_ANOTHER_ORDER, wrong.failure().message());
    }

    @Test
    void aNumericKeyTiesByValueNotByScale() throws Exception {
        String query = "SELECT id, v FROM (VALUES (1, 1.0), (2, 1.00), (3, 0.5)) AS t(id, v) ORDER BY v;";
        Outcome other = page().add("", query, " id |  v\n----+------\n  3 |  0.5\n  2 | 1.00\n  1 |  1.0\n").last();
        assertPassed(other);
    }

    private static final String REFCURSOR = """
            CREATE TABLE n (k int, s text); INSERT INTO n VALUES (1, 'a'), (1, 'b'), (2, 'c');
            CREATE FUNCTION open_sorted(c refcursor) RETURNS refcursor LANGUAGE plpgsql AS $$
            BEGIN OPEN c FOR SELECT k, s FROM n ORDER BY k DESC, s; RETURN c; END $$;
            BEGIN;
            SELECT open_sorted('cur');""";

    @Test
    void aCursorOpenedInsideAFunctionIsComparedAsTheServerReturnedItOrRefusedAtTheLine() throws Exception {
        Outcome shuffled = page().add("", REFCURSOR).add("", "FETCH ALL FROM cur;", " k | s\n---+---\n 1 | a\n 2 | c\n 1 | b\n").last();
        assertEquals("the same rows came back in another order, and the order the statement promises cannot be known: the cursor "
                + "cur was not declared by a statement Kensho saw parsed since (a cursor opened inside a function, or a statement "
                + "ran in between that could have reopened it)", shuffled.failure().message());
        assertEquals("page.md:9:1", shuffled.failure().location().toString());
        Outcome asReturned = page().add("", REFCURSOR).add("", "FETCH ALL FROM cur;", " k | s\n---+---\n 2 | c\n 1 | a\n 1 | b\n").last();
        assertPassed(asReturned);
        assertEquals("returns the 3 expected row(s) in order (as the server returned them: the order the statement promises cannot "
                + "be known)", description(asReturned));
    }

    @Test
    void aCursorDeclaredOnThePageFetchesWithItsQuerysKeys() throws Exception {
        Outcome ties = page().add("", "CREATE TABLE n (k int, s text); INSERT INTO n VALUES (1, 'a'), (1, 'b'), (2, 'c');"
                        + " BEGIN; DECLARE c CURSOR FOR SELECT k, s FROM n ORDER BY k DESC;")
                .add("", "FETCH ALL FROM c;", " k | s\n---+---\n 2 | c\n 1 | b\n 1 | a\n").last();
        assertPassed(ties);
        assertEquals("returns the 3 expected row(s) in order (rows that tie on every ORDER BY key in any order)", description(ties));
    }
}
