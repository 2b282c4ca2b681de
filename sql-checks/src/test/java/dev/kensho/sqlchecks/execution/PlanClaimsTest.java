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
 * Issue 31 §4: no-sort and max-buffers read from the plan's structure, on PostgreSQL's own tenk1
 * ({@link StockServerTest#TENK1}); the plan shown is the one PostgreSQL printed.
 */
class PlanClaimsTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static Outcome claim(String meta, String sql) throws Exception {
        return TestPage.on(verifier).add("", StockServerTest.TENK1).add(meta, sql).last();
    }

    private static void assertPassed(Outcome outcome) {
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
        assertPassed(claim("no-sort", "SELECT thousand FROM tenk1 GROUP BY thousand HAVING max(tenthous) > 4000;"));
    }

    @Test
    void orderByInsideAStringLiteralIsNoClause() throws Exception {
        // Rejected before: the Output text contained " ORDER BY ".
        assertPassed(claim("no-sort", "SELECT count(*), ' ORDER BY ' || max(string4) FROM tenk1 WHERE unique1 < 100;"));
    }

    @Test
    void countDistinctFedPresortedByAnIndexOnlyScanDoesNotSort() throws Exception {
        // Rejected before: the Output text contained "(DISTINCT ". PostgreSQL 16+ feeds the aggregate tenk1_unique1's order.
        assertPassed(claim("no-sort", "SELECT count(DISTINCT unique1) FROM tenk1;"));
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
        assertPassed(outcome);
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
    void aTableWithoutOutOfLineValuesKeepsItsBound() throws Exception {
        assertPassed(claim("max-buffers=10", "SELECT stringu1 FROM tenk1 WHERE unique1 = 42;"));
    }
}
