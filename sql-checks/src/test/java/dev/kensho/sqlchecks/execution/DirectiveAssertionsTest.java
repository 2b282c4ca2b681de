package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.SourceLocation;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each directive on a true claim and on a false one, against the real PostgreSQL 18.6. */
class DirectiveAssertionsTest {

    private static Verifier verifier;

    private static final String ORDERS = """
            CREATE TABLE orders (order_id int PRIMARY KEY, account_id int NOT NULL, created_at timestamptz NOT NULL, note text);
            CREATE INDEX orders_account_cursor_idx ON orders (account_id, created_at DESC, order_id DESC);
            CREATE INDEX orders_note_idx ON orders (note);
            """;
    private static final String SEED = """
            INSERT INTO orders
            SELECT g, g % 100, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute', 'n' || g
            FROM generate_series(1, 20000) g;
            ANALYZE orders;
            """;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), VerifierSettings.DEFAULTS);
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static TestPage page() {
        return TestPage.on(verifier);
    }

    // --- expected errors

    @Test
    void anExpectedUniqueViolationPasses() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE k (id int PRIMARY KEY); INSERT INTO k VALUES (1);")
                .add("expect-error=23505 error-matches=\"violates unique constraint .k_pkey.\"", "INSERT INTO k VALUES (1);")
                .last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals("fails with SQLSTATE 23505 and a message matching /violates unique constraint .k_pkey./",
                outcome.assertions().get(0).description());
    }

    @Test
    void aDifferentSqlStateFailsAndSaysWhatCameInstead() throws Exception {
        Outcome outcome = page().add("expect-error=23505", "INSERT INTO missing VALUES (1);").last();
        assertEquals("expected SQLSTATE 23505, but the server reported 42P01: relation \"missing\" does not exist", outcome.failure().message());
        assertEquals(new SourceLocation("page.md", 1, 13), outcome.failure().location());
    }

    @Test
    void aSnippetThatSucceedsWhereAnErrorWasClaimedFails() throws Exception {
        Outcome outcome = page().add("expect-error=42P10", "SELECT 1;").last();
        assertEquals("expected the snippet to fail with SQLSTATE 42P10, but every statement succeeded", outcome.failure().message());
    }

    @Test
    void anErrorMessageThatDoesNotMatchThePatternFails() throws Exception {
        Outcome outcome = page().add("expect-error=42P01 error-matches=\"orders\"", "SELECT * FROM order_lines;").last();
        assertEquals("the error message \"relation \"order_lines\" does not exist\" does not match /orders/", outcome.failure().message());
    }

    @Test
    void onConflictWithoutAMatchingConstraintIs42P10() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE r (a int, b int);")
                .add("expect-error=42P10", "INSERT INTO r VALUES (1, 2) ON CONFLICT (a, b) DO NOTHING;").last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }

    // --- expected rows

    @Test
    void rowsWithoutOrderByCompareAsAMultiset() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (k text, v int); INSERT INTO t VALUES ('a', 1), ('b', 2), ('b', 2), ('c', NULL);")
                .add("", "SELECT k, v FROM t;", """
                         k |   v
                        ---+--------
                         c | (null)
                         b |      2
                         a | 1
                         b | 2
                        (4 rows)
                        """).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals("returns the 4 expected row(s) (in any order)", outcome.assertions().get(1).description());
    }

    @Test
    void aMissingRowIsNamedAndBothTablesShown() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (k text); INSERT INTO t VALUES ('a');")
                .add("", "SELECT k FROM t;", " k\n---\n a\n b\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        assertEquals("""
                expected:
                    k
                   ---
                    a
                 >  b
                   (2 rows)
                actual (as psql prints it; NULL is written (null)):
                    k
                   ---
                    a
                   (1 row)
                missing: b""", outcome.failure().detail());
    }

    @Test
    void anExtraRowIsNamed() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (k text); INSERT INTO t VALUES ('a'), ('z');")
                .add("", "SELECT k FROM t;", " k\n---\n a\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        assertTrue(outcome.failure().detail().endsWith("extra:   z"), outcome.failure().detail());
    }

    @Test
    void underOrderByTheOrderMatters() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (k text); INSERT INTO t VALUES ('a'), ('b');")
                .add("", "SELECT k FROM t ORDER BY k DESC;", " k\n---\n a\n b\n").last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
        assertEquals("""
                expected:
                    k
                   ---
                 >  a
                 >  b
                   (2 rows)
                actual (as psql prints it; NULL is written (null)):
                    k
                   ---
                 >  b
                 >  a
                   (2 rows)""", outcome.failure().detail());
    }

    @Test
    void expectedRowsNeedAStatementThatReturnsRows() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (k text);", " k\n---\n").last();
        assertEquals("expected rows are written under the snippet, but its last statement returned no rows; "
                + "only a query or a statement with RETURNING can be compared", outcome.failure().message());
    }

    // --- parameters

    @Test
    void parametersBindWithTheirTypesAndTheQueryKeepsItsPlaceholders() throws Exception {
        Outcome outcome = page().add("", ORDERS + "INSERT INTO orders VALUES (1, 7, '2026-01-01 10:00+00', 'x'), (2, 7, '2026-01-01 11:00+00', 'y');")
                .add("$1:int=7 $2:timestamptz=\"2026-01-01 11:00:00+00\" $3:int=2",
                        "SELECT order_id FROM orders WHERE account_id = $1 AND (created_at, order_id) < ($2, $3) ORDER BY created_at DESC, order_id DESC;",
                        " order_id\n----------\n        1\n(1 row)\n").last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals("SELECT order_id FROM orders WHERE account_id = $1 AND (created_at, order_id) < ($2, $3) ORDER BY created_at DESC, order_id DESC",
                outcome.results().get(0).statement());
    }

    @Test
    void anErrorInAParameterisedStatementPointsIntoTheAuthorsText() throws Exception {
        Outcome outcome = page().add("$1:int=7", "SELECT * FROM nowhere WHERE id = $1;").last();
        assertEquals("relation \"nowhere\" does not exist", outcome.failure().message());
        assertEquals(new SourceLocation("page.md", 1, 15), outcome.failure().location());
    }

    // --- plans

    private static final String KEYSET = "SELECT order_id FROM orders WHERE account_id = $1 AND (created_at, order_id) < ($2, $3) "
            + "ORDER BY created_at DESC, order_id DESC LIMIT $4;";
    private static final String KEYSET_PARAMS = "$1:int=7 $2:timestamptz=\"2026-01-10 00:00:00+00\" $3:int=0 $4:int=2 ";

    @Test
    void theKeysetQueryUsesTheCompositeIndexWithoutSorting() throws Exception {
        Outcome outcome = page().add("setup hidden", ORDERS + SEED)
                .add(KEYSET_PARAMS + "uses-index=orders_account_cursor_idx no-sort no-seq-scan=orders "
                        + "scan-in=\"Index Scan,Index Only Scan\" index-cond-contains=\"(account_id = 7)\" explain", KEYSET).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals(List.of("runs without error", "plan taken with the planner's default settings", "uses index orders_account_cursor_idx",
                "scans only with Index Only Scan, Index Scan", "no Sort node", "no Seq Scan on orders", "Index Cond contains (account_id = 7)"),
                outcome.assertions().stream().map(Assertion::description).toList());
        assertTrue(outcome.plan().contains("Index Only Scan using orders_account_cursor_idx on public.orders  (actual time="), outcome.plan());
        assertTrue(outcome.plan().contains("Buffers: shared hit="), outcome.plan());
    }

    @Test
    void aPlanUsingAnotherIndexFails() throws Exception {
        Outcome outcome = page().add("setup", ORDERS + SEED)
                .add("uses-index=orders_account_cursor_idx", "SELECT * FROM orders WHERE note = 'n5';").last();
        assertEquals("plan assertion failed: uses index orders_account_cursor_idx: the plan uses no index "
                + "public.orders_account_cursor_idx; it scans with Index Scan using orders_note_idx on orders", outcome.failure().message());
    }

    @Test
    void aPlanWithASortFails() throws Exception {
        Outcome outcome = page().add("setup", ORDERS + SEED)
                .add("no-sort", "SELECT * FROM orders WHERE account_id = 7 ORDER BY lower(note) LIMIT 5;").last();
        assertEquals("plan assertion failed: no Sort node: the plan has a Sort node (Sort Key: (lower(note)))", outcome.failure().message());
    }

    @Test
    void aPlanMadeWithSettingsAVisibleSnippetChangedPassesAndSaysSo() throws Exception {
        Outcome outcome = page().add("setup", ORDERS + SEED)
                .add("", "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;")
                .add("no-sort", "SELECT count(*) FROM orders;").last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals("plan taken with enable_seqscan = off (set by the snippet at page.md:11:1), enable_indexscan = off "
                + "(set by the snippet at page.md:11:1), enable_indexonlyscan = off (set by the snippet at page.md:11:1), enable_bitmapscan "
                + "= off (set by the snippet at page.md:11:1)", outcome.assertions().get(1).description());
    }

    @Test
    void aPlanCheckOnATinyTableSuggestsSeedingMoreRows() throws Exception {
        Outcome outcome = page().add("", ORDERS + "INSERT INTO orders VALUES (1, 7, now(), 'x'), (2, 7, now(), 'y'); ANALYZE orders;")
                .add("no-seq-scan=orders", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertEquals("plan assertion failed: no Seq Scan on orders: the plan reads public.orders with Seq Scan on orders", outcome.failure().message());
        assertEquals("hint: the Seq Scan on public.orders read 2 row(s); on a table that small the planner rightly prefers a Seq Scan. "
                + "Seed realistic data first (INSERT … SELECT … FROM generate_series(1, 10000)) and ANALYZE", outcome.failure().detail());
    }

    @Test
    void setupSnippetsRunFirstWhateverTheirPosition() throws Exception {
        PageResult result = verifier.verifyPage("page.md", page()
                .add("", "SELECT count(*) FROM seeded;", " count\n-------\n     3\n")
                .add("setup hidden", "CREATE TABLE seeded AS SELECT generate_series(1, 3) AS n;").snippets);
        assertTrue(result.passed(), () -> result.toString());
        assertNull(result.outcomes().get(0).failure());
    }
}
