package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 §4: no-sort and max-buffers read from the plan's structure, on PostgreSQL's own tenk1
 * ({@link StockServerTest#TENK1}); the plan shown is the one PostgreSQL printed.
 */
class PlanClaimsTest extends VerifierFixture {


    private static Outcome claim(String meta, String sql) throws Exception {
        return TestPage.on(verifier).add("", StockServerTest.TENK1).add(meta, sql).last();
    }

    /** Passed, with the plan shown when not. */
    private static void assertClaimHeld(Outcome outcome) {
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.plan());
    }

    @Test
    void anOrderedSetAggregateInHavingSortsEachGroup() throws Exception {
        // aggregates.sql's percentile_cont … WITHIN GROUP, here in HAVING: grouped along tenk1_thous_tenthous with no Sort
        // node, each of the 1,000 groups is sorted inside the aggregate's own functions (accepted before: only Output was read).
        Outcome outcome = claim("no-sort", "SELECT thousand FROM tenk1 GROUP BY thousand "
                + "HAVING percentile_cont(0.5) WITHIN GROUP (ORDER BY tenthous) > 4000;");
        assertEquals("plan assertion failed: no Sort node: the aggregate percentile_cont('0.5'::double precision) WITHIN GROUP "
                + "(ORDER BY ((tenthous)::double precision)) sorts its input itself (an ordered-set aggregate sorts each group's "
                + "rows in its own functions; EXPLAIN shows no Sort node for it)", outcome.failure().message());
    }

    @Test
    void anAggregateWithoutOrderingInHavingOverTheSameIndexDoesNotSort() throws Exception {
        assertClaimHeld(claim("no-sort", "SELECT thousand FROM tenk1 GROUP BY thousand HAVING max(tenthous) > 4000;"));
    }

    @Test
    void orderByInsideAStringLiteralIsNoClause() throws Exception {
        // Rejected before: the Output text contained " ORDER BY ".
        assertClaimHeld(claim("no-sort", "SELECT count(*), ' ORDER BY ' || max(string4) FROM tenk1 WHERE unique1 < 100;"));
    }

    @Test
    void countDistinctFedPresortedByAnIndexOnlyScanDoesNotSort() throws Exception {
        // Rejected before: the Output text contained "(DISTINCT ". PostgreSQL 16+ feeds the aggregate tenk1_unique1's order.
        assertClaimHeld(claim("no-sort", "SELECT count(DISTINCT unique1) FROM tenk1;"));
    }

    @Test
    void anAggregateThatSortsWithoutASortNodeFails() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("", StockServerTest.TENK1).add("", "SET enable_presorted_aggregate = off;")
                .add("no-sort", "SELECT count(DISTINCT unique1) FROM tenk1;").last();
        assertEquals("plan assertion failed: no Sort node: the aggregate count(DISTINCT unique1) sorts its input itself "
                + "(enable_presorted_aggregate = off: PostgreSQL feeds no aggregate presorted rows; EXPLAIN shows no Sort node for it)",
                outcome.failure().message());
    }

    @Test
    void countDistinctOverAColumnNoIndexOrdersSortsInASortNode() throws Exception {
        assertEquals("plan assertion failed: no Sort node: the plan has a Sort node (Sort Key: two)",
                claim("no-sort", "SELECT count(DISTINCT two) FROM tenk1;").failure().message());
    }

    @Test
    void aBackwardScanIsShownAsPostgresPrintsIt() throws Exception {
        Outcome outcome = claim("explain uses-index=tenk1_unique1", "SELECT unique1 FROM tenk1 ORDER BY unique1 DESC LIMIT 3;");
        assertClaimHeld(outcome);
        assertTrue(outcome.plan().contains("\n  ->  Index Only Scan Backward using tenk1_unique1 on public.tenk1  (actual time="),
                outcome.plan());
    }

    @Test
    void sendingOutOfLineValuesIsWorkNoPlanCounts() throws Exception {
        // 512 kB of text: its plan counts 3 buffers, sending it reads some 140 more from the TOAST table.
        Outcome outcome = TestPage.on(verifier).add("", "CREATE TABLE docs (id int PRIMARY KEY, body text);"
                        + " INSERT INTO docs SELECT 1, string_agg(md5(g::text), '') FROM generate_series(1, 16384) g; ANALYZE docs;")
                .add("max-buffers=10", "SELECT body FROM docs WHERE id = 1;").last();
        assertEquals("plan assertion failed: touches at most 10 shared buffers: the rows it returns are read from public.docs, "
                + "which holds values stored out of line (TOAST, 528 kB); PostgreSQL reads those while sending the rows, after every "
                + "plan node is done, so no plan counts those buffers and the bound cannot be checked. Claim max-buffers on a "
                + "statement over tables without out-of-line values", outcome.failure().message());
    }

    @Test
    void aValueAFunctionReadsOutOfLineIsWorkNoPlanCountsToo() throws Exception {
        // Red team: the function's own query reads the table; the value is fetched from TOAST while the row is sent.
        Outcome outcome = TestPage.on(verifier).add("", "CREATE TABLE doc (id int PRIMARY KEY, body text); ALTER TABLE doc ALTER body "
                        + "SET STORAGE EXTERNAL; INSERT INTO doc SELECT 1, string_agg(md5(i::text), '') FROM generate_series(1, 16000) AS i; "
                        + "CREATE FUNCTION body_of(k int) RETURNS text LANGUAGE sql STABLE AS 'SELECT body FROM doc WHERE id = k';")
                .add("max-buffers=12", "SELECT body_of(1) AS body;").last();
        assertTrue(outcome.failure().message().startsWith("plan assertion failed: touches at most 12 shared buffers: the rows it "
                + "returns are read from public.doc, which holds values stored out of line (TOAST, "), outcome.failure().message());
    }

    @Test
    void aTableWithoutOutOfLineValuesKeepsItsBound() throws Exception {
        assertClaimHeld(claim("max-buffers=10", "SELECT stringu1 FROM tenk1 WHERE unique1 = 42;"));
    }

    private static Outcome on(String setup, String meta, String sql) throws Exception {
        return TestPage.on(verifier).add("setup", setup).add(meta, sql).last();
    }

    private static final String T_X = "CREATE TABLE t (x int NOT NULL); INSERT INTO t SELECT i FROM generate_series(1, 20000) AS i; "
            + "CREATE INDEX t_x ON t (x); VACUUM ANALYZE t;";

    @Test
    void aGroupingSetSortedByTheAggregateItselfIsASort() throws Exception {
        // Red-team finding: GROUP BY GROUPING SETS ((a), (b)) over an index on a sorts again for (b) inside the GroupAggregate.
        Outcome outcome = on("CREATE TABLE g (a int NOT NULL, b bit(1) NOT NULL); INSERT INTO g SELECT i, (i % 2)::bit(1) FROM "
                + "generate_series(1, 20000) AS i; CREATE INDEX g_a ON g (a); CLUSTER g USING g_a; VACUUM ANALYZE g;",
                "no-sort", "SELECT a, b, count(*) FROM g GROUP BY GROUPING SETS ((a), (b));");
        assertEquals("plan assertion failed: no Sort node: the aggregate sorts its input itself for a grouping set (Sort Key: b; "
                + "EXPLAIN shows no Sort node for it)", outcome.failure().message());
    }

    @Test
    void aggregatesArePresortedOnlyByRowsInTheirOwnDirection() throws Exception {
        // Red-team finding: the direction test was inverted, and DISTINCT (which sorts ascending) was taken as any direction.
        Outcome descending = on(T_X, "no-sort", "SELECT array_agg(x ORDER BY x DESC) AS a, count(DISTINCT x) AS n FROM t WHERE x < 5000;");
        assertTrue(descending.failure().message().startsWith("plan assertion failed: no Sort node: the aggregate "), descending.failure().message());
        assertTrue(descending.failure().message().contains("sorts its input itself"), descending.failure().message());
        Outcome mixed = on(T_X, "no-sort", "SELECT count(DISTINCT x) AS n, array_agg(x ORDER BY x DESC) AS a FROM t WHERE x < 5000;");
        assertTrue(mixed.failure().message().contains("sorts its input itself"), mixed.failure().message());
        assertClaimHeld(on(T_X, "no-sort", "SELECT array_agg(x ORDER BY x) AS a, count(DISTINCT x) AS n FROM t WHERE x < 5000;"));
    }

    @Test
    void aColumnOfAnotherTableOfTheJoinIsNotOrderedByTheIndex() throws Exception {
        // Red-team finding: b.x was taken for a.x, the column the index orders.
        Outcome outcome = on("CREATE TABLE a (x int NOT NULL); INSERT INTO a SELECT i FROM generate_series(1, 20000) AS i; "
                + "CREATE INDEX a_x ON a (x); CREATE TABLE b (id int PRIMARY KEY, x int NOT NULL); INSERT INTO b SELECT i, "
                + "(i * 7919) % 20000 FROM generate_series(1, 20000) AS i; VACUUM ANALYZE a, b;",
                "no-sort", "SELECT count(DISTINCT a.x) AS n, count(DISTINCT b.x) AS bn FROM a JOIN b ON b.id = a.x WHERE a.x < 50;");
        assertTrue(outcome.failure().message().contains("sorts its input itself (it orders by "), outcome.failure().message());
    }
}
