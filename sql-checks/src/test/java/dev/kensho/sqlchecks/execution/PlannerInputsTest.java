package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 §5 and §6: plan claims fail only on real planner inputs a reader cannot see, judged by how
 * they were made; display settings hidden setup changed are stated under the mark.
 */
class PlannerInputsTest extends VerifierFixture {


    private static String description(Outcome outcome, String kind) {
        return outcome.assertions().stream().filter(a -> a.kind().equals(kind)).findFirst().orElseThrow().description();
    }

    // --- §6: pg_regress's own session settings (IntervalStyle, TimeZone, timezone_abbreviations, DateStyle)

    private static final String DISPLAY = "CREATE TABLE t (id int PRIMARY KEY, at timestamptz, span interval);"
            + " SET IntervalStyle = 'postgres_verbose'; SET TimeZone = 'PST8PDT'; SET timezone_abbreviations = 'India';"
            + " SET DateStyle = 'ISO, DMY';";
    private static final String QUERY = "EXPLAIN (COSTS OFF) SELECT id FROM t WHERE span > interval '1 day' AND at > '2024-01-01 00:00:00+00';";

    @Test
    void anExplainAsRowsUnderHiddenDisplaySettingsHoldsAndTheyAreStated() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("setup hidden", DISPLAY).add("", QUERY, """
                                                     QUERY PLAN
                        -----------------------------------------------------------------------------------------------------
                         Seq Scan on t
                           Filter: ((span > '@ 1 day'::interval) AND (at > '2023-12-31 16:00:00-08'::timestamp with time zone))
                        """).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals("runs under conditions a stock session does not have: DateStyle = ISO, DMY, made by the setup snippet at "
                + "page.md:1:1; IntervalStyle = postgres_verbose, made by the setup snippet at page.md:1:1; TimeZone = PST8PDT, made by "
                + "the setup snippet at page.md:1:1; timezone_abbreviations = India, made by the setup snippet at page.md:1:1",
                description(outcome, "conditions"));
    }

    @Test
    void anExplainAsRowsUnderHiddenDisplaySettingsStillComparesItsRows() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("setup hidden", DISPLAY).add("", QUERY, """
                                                        QUERY PLAN
                        ------------------------------------------------------------------------------------------
                         Seq Scan on t
                           Filter: ((span > '1 day'::interval) AND (at > '2024-01-01 00:00:00+00'::timestamp with time zone))
                        """).last();
        assertEquals("rows differ (in order, because the query has ORDER BY)", outcome.failure().message());
    }

    /**
     * Red team helper-84: the build's stock server plans with parallel workers, the browser's PGlite starts none, so an
     * EXPLAIN shown as rows with a Gather holds only on the build's server. With the parallel plan turned off in a visible
     * snippet, the plan is a reader's.
     */
    @Test
    void anExplainAsRowsWithAParallelPlanFailsAndOneWithoutPasses() throws Exception {
        String big = "CREATE TABLE big AS SELECT g AS id FROM generate_series(1, 2000000) g;\nANALYZE big;";
        String plan = """
                                 QUERY PLAN
                --------------------------------------------
                 Finalize Aggregate
                   ->  Gather
                         Workers Planned: 2
                         ->  Partial Aggregate
                               ->  Parallel Seq Scan on big
                """;
        Outcome parallel = TestPage.on(verifier).add("", big).add("", "EXPLAIN (COSTS OFF) SELECT count(*) FROM big;", plan).last();
        assertEquals("the rows are an EXPLAIN, a plan claim, and a reader's run cannot give it: the plan has Gather, and the "
                + "browser's PostgreSQL (PGlite) starts no worker processes, so its plans have none. Claim the plan a reader gets: "
                + "SET max_parallel_workers_per_gather = 0 in a visible snippet before it", parallel.failure().message());
        Outcome serial = TestPage.on(verifier).add("", big + "\nSET max_parallel_workers_per_gather = 0;")
                .add("", "EXPLAIN (COSTS OFF) SELECT count(*) FROM big;", """
                          QUERY PLAN
                        ---------------------
                         Aggregate
                           ->  Seq Scan on big
                        """).last();
        assertEquals(null, serial.failure(), () -> serial.failure().message());
    }

    @Test
    void aHiddenPlannerSettingBesideDisplaySettingsStillFailsAnExplainAsRows() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("setup hidden", DISPLAY + " SET enable_seqscan = off;").add("", QUERY, """
                                                     QUERY PLAN
                        -----------------------------------------------------------------------------------------------------
                         Seq Scan on t
                           Filter: ((span > '@ 1 day'::interval) AND (at > '2023-12-31 16:00:00-08'::timestamp with time zone))
                        """).last();
        assertEquals("the rows are an EXPLAIN, a plan claim, and it cannot be checked: the plan was made with enable_seqscan = off, "
                + "made by the setup snippet at page.md:1:1; a plan forced by planner inputs the reader cannot see says nothing about "
                + "what PostgreSQL chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet",
                outcome.failure().message());
    }

    // --- §5: statistics by how they were made

    private static final String ORDERS = """
            CREATE TABLE orders (id int PRIMARY KEY, account_id int, region int, pad text);
            INSERT INTO orders SELECT g, g % 500, g % 500 / 50, repeat('x', 100) FROM generate_series(1, 20000) AS g;
            CREATE INDEX orders_account_idx ON orders (account_id);
            """;
    private static final String ADVICE = "; a plan forced by planner inputs the reader cannot see says nothing about what PostgreSQL "
            + "chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet";

    private static Outcome planClaimAfter(String hiddenSetup, String visible) throws Exception {
        TestPage page = TestPage.on(verifier).add("setup hidden", ORDERS + hiddenSetup);
        if (visible != null) {
            page.add("", visible);
        }
        return page.add("uses-index=orders_account_idx", "SELECT * FROM orders WHERE account_id = 7;").last();
    }

    @Test
    void statisticsAnalyzeAtTargetZeroMadeFailPlanClaimsThoughTheTargetIsBackToDefault() throws Exception {
        Outcome outcome = planClaimAfter("ALTER TABLE orders ALTER COLUMN account_id SET STATISTICS 0; ANALYZE orders;"
                + " ALTER TABLE orders ALTER COLUMN account_id SET STATISTICS DEFAULT;", null);
        assertEquals("plan claims cannot be checked: the plan was made with statistics of orders that ANALYZE at the default "
                + "target does not make (no statistics for account_id), made by the setup snippet at page.md:1:1" + ADVICE,
                outcome.failure().message());
    }

    @Test
    void statisticsAPlainHiddenAnalyzeMadeHoldPlanClaims() throws Exception {
        Outcome outcome = planClaimAfter("ANALYZE orders;", null);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }

    @Test
    void aVisibleAnalyzeRemakesWhatHiddenSetupMade() throws Exception {
        Outcome outcome = planClaimAfter("ALTER TABLE orders ALTER COLUMN account_id SET STATISTICS 0; ANALYZE orders;"
                + " ALTER TABLE orders ALTER COLUMN account_id SET STATISTICS DEFAULT;", "ANALYZE orders;");
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }

    @Test
    void statisticsRestoredByPgRestoreAttributeStatsFailPlanClaims() throws Exception {
        Outcome outcome = planClaimAfter("ANALYZE orders; DO $$ BEGIN PERFORM pg_restore_attribute_stats('schemaname', 'public',"
                + " 'relname', 'orders', 'attname', 'account_id', 'inherited', false, 'null_frac', 0::real, 'avg_width', 4,"
                + " 'n_distinct', 2::real, 'most_common_vals', '{7,8}'::text, 'most_common_freqs', '{0.9,0.1}'::real[]); END $$;", null);
        assertEquals("plan claims cannot be checked: the plan was made with statistics written by pg_restore_attribute_stats in the "
                + "setup snippet at page.md:1:1 (they look like ANALYZE's, but no ANALYZE of the reader's made them)" + ADVICE,
                outcome.failure().message());
    }

    @Test
    void hiddenExtendedStatisticsFailPlanClaims() throws Exception {
        Outcome outcome = planClaimAfter("CREATE STATISTICS orders_account_region (dependencies, ndistinct) ON account_id, region FROM orders;"
                + " ANALYZE orders;", null);
        assertEquals("plan claims cannot be checked: the plan was made with extended statistics orders.orders_account_region (d, f), "
                + "made by the setup snippet at page.md:1:1" + ADVICE, outcome.failure().message());
    }
}
