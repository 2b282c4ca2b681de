package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.ExistingServer;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A snippet that held only because autovacuum worked on the page's tables is not passed: a reader's run in the browser has
 * no autovacuum. Where autovacuum worked on them during the real run, the page runs once more with autovacuum off for its
 * tables, and what held on the real run must hold there too (AutovacuumActivity).
 */
class AutovacuumActivityTest extends VerifierFixture {

    /** 4,990 of 5,000 rows have kind 1: with statistics the planner reads the whole table; without, it guesses 25 rows. */
    private static final String LOAD = "CREATE TABLE t (id int PRIMARY KEY, kind int);"
            + " INSERT INTO t SELECT g, CASE WHEN g <= 4990 THEN 1 ELSE g END FROM generate_series(1, 5000) AS g;"
            + " CREATE INDEX t_kind ON t (kind);";
    private static final String CLAIM = "scan-in=\"Seq Scan\"";
    private static final String CLAIMED = "SELECT id FROM t WHERE kind = 1;";

    /**
     * End to end, on a server whose autovacuum wakes every second (a test server: Kensho's own keep the stock minute): the
     * page loads a table, waits while autovacuum analyzes it, and claims the sequential scan the statistics bring.
     */
    @Test
    void aClaimThatHeldOnlyAfterAutovacuumFailsAndOneThePageMadeTrueStands() throws Exception {
        RunningPostgres embedded = new EmbeddedPostgres().start();
        try {
            Properties admin = embedded.adminCredentials();
            try (Connection c = DriverManager.getConnection(embedded.jdbcUrl(), admin); Statement s = c.createStatement()) {
                s.execute("ALTER SYSTEM SET autovacuum_naptime = 1");
                s.execute("SELECT pg_reload_conf()");
            }
            String url = embedded.jdbcUrl() + (embedded.jdbcUrl().contains("?") ? "&" : "?") + "user=" + admin.getProperty("user")
                    + (admin.getProperty("password") == null ? "" : "&password=" + admin.getProperty("password"));
            try (Verifier existing = Verifier.start(new ExistingServer(url), new VerifierSettings(Duration.ofSeconds(60)))) {
                // Without statistics the claim does not hold: what a reader's browser, which has no autovacuum, shows.
                Outcome quick = TestPage.on(existing).add("", LOAD).add(CLAIM, CLAIMED).last();
                assertEquals(Outcome.Status.FAILED, quick.status());
                int reruns = existing.autovacuumReruns(); // a worker may have been about even during that page (16 on)

                // The first sleep lets the session's statistics of the INSERT reach the server (a busy backend flushes them
                // at most once a second, when it goes idle), the second lets autovacuum work.
                Outcome refused = TestPage.on(existing).add("", LOAD).add("", "SELECT pg_sleep(1.5);").add("", "SELECT pg_sleep(6);")
                        .add(CLAIM, CLAIMED).last();
                assertEquals(Outcome.Status.FAILED, refused.status(), () -> "passed (検証済み) after autovacuum analyzed t");
                assertTrue(refused.failure().message().startsWith("this snippet held on the build's run, where autovacuum vacuumed"
                        + " and analyzed public.t while the page ran; a reader's run in the browser has no autovacuum, and on a run of"
                        + " the page without autovacuum it fails: plan assertion failed: scans only with Seq Scan: the plan scans with Bitmap Index Scan"
                        + " using t_kind"), refused.failure().message());
                assertTrue(refused.failure().message().endsWith(" (on that run autovacuum's thresholds on the page's tables and catalogs are"
                        + " out of reach). Run VACUUM ANALYZE on the table in a visible snippet right after its data is in"),
                        refused.failure().message());
                assertEquals("page.md:13:1", refused.failure().location().toString());
                assertEquals(++reruns, existing.autovacuumReruns());

                // A table dropped at the end hides what autovacuum did from the statistics (red team helper-104): the page
                // is run again all the same, and refused.
                Outcome dropped = TestPage.on(existing).add("", LOAD).add("", "SELECT pg_sleep(1.5);").add("", "SELECT pg_sleep(6);")
                        .add(CLAIM, CLAIMED).add("", "DROP TABLE t;").run().outcomes().get(3);
                assertEquals(Outcome.Status.FAILED, dropped.status(), () -> "passed (検証済み) after autovacuum, the table dropped at the end");
                assertTrue(dropped.failure().message().startsWith("this snippet held on the build's run, where autovacuum may have worked"
                        + " on a table the page then dropped (the statistics no longer show it) while the page ran;"),
                        dropped.failure().message());
                assertEquals(++reruns, existing.autovacuumReruns());

                // The page's own ANALYZE after the wait, its data made in a hidden snippet: the claim holds without
                // autovacuum too (the run's threshold options are no planner input), and passes.
                List<Outcome> analyzed = TestPage.on(existing).add("hidden", LOAD).add("hidden", "SELECT pg_sleep(1.5);")
                        .add("hidden", "SELECT pg_sleep(6);").add("", "ANALYZE t;").add(CLAIM, CLAIMED).run().outcomes();
                assertNull(analyzed.get(4).failure(), () -> analyzed.get(4).failure().message());
                assertEquals(++reruns, existing.autovacuumReruns());
            }
        } finally {
            embedded.close();
        }
    }

    /**
     * Options of vacuuming are no planner input (red team helper-104: the run without autovacuum had every plan claim on a
     * table made in a hidden snippet refused for "storage options … made by the hidden snippet"); fillfactor and
     * autovacuum_enabled still are.
     */
    @Test
    void vacuumOptionsSetOutOfSightAreNoPlannerInputButFillfactorIs() throws Exception {
        String make = "CREATE TABLE v (id int PRIMARY KEY, note text); INSERT INTO v SELECT g, 'n' FROM generate_series(1, 2000) AS g;";
        Outcome vacuumOff = page().add("hidden", make + " ALTER TABLE v SET (" + AutovacuumActivity.OUT_OF_REACH + ","
                + " toast.autovacuum_enabled = false, vacuum_truncate = false); ANALYZE v;")
                .add("uses-index=v_pkey", "SELECT note FROM v WHERE id = 7;").last();
        assertNull(vacuumOff.failure(), () -> vacuumOff.failure().message());
        Outcome fillfactor = page().add("hidden", make + " ALTER TABLE v SET (fillfactor = 50, autovacuum_analyze_threshold = 7); ANALYZE v;")
                .add("uses-index=v_pkey", "SELECT note FROM v WHERE id = 7;").last();
        assertEquals(Outcome.Status.FAILED, fillfactor.status());
        assertTrue(fillfactor.failure().message().contains("storage options of v: fillfactor=50, made by the hidden snippet at page.md:1:1"),
                fillfactor.failure().message());
        // autovacuum_enabled = false stays a planner input: on 18 CREATE INDEX then leaves the table's counts unwritten.
        Outcome enabled = page().add("hidden", make + " ALTER TABLE v SET (autovacuum_enabled = false); ANALYZE v;")
                .add("uses-index=v_pkey", "SELECT note FROM v WHERE id = 7;").last();
        assertTrue(enabled.failure() != null && enabled.failure().message().contains("storage options of v: autovacuum_enabled=false"),
                () -> String.valueOf(enabled.failure()));
    }

    /**
     * A page's DROP hides what autovacuum did to what it dropped, so a page that drops anything runs again without
     * autovacuum, but only when a worker was at work on the server while it ran (pg_stat_io, from 16 on): on a server
     * whose autovacuum is off nothing runs again; with workers about, a DROP TABLE, a DROP in dynamic SQL, a DROP TYPE …
     * CASCADE that takes a typed table along (red team helper-105) and a DROP INDEX each run the page again.
     */
    @Test
    void aPageThatDropsRunsAgainOnlyWhileAutovacuumWorkersWorked() throws Exception {
        String make = "CREATE TABLE w (id int PRIMARY KEY, k int); INSERT INTO w SELECT g, g FROM generate_series(1, 5000) AS g;"
                + " CREATE INDEX w_k ON w (k); ANALYZE w; CREATE TYPE reading AS (id int, v text); CREATE TABLE readings OF reading;";
        String claim = "uses-index=w_pkey";
        String query = "SELECT k FROM w WHERE id = 7;";
        withAutovacuumEverySecond(false, verifier -> {
            Outcome quiet = TestPage.on(verifier).add("", make).add(claim, query).add("", "SELECT pg_sleep(2.5);").add("", "DROP TABLE readings;")
                    .run().outcomes().get(1);
            assertNull(quiet.failure(), () -> quiet.failure().message());
            assertEquals(0, verifier.autovacuumReruns(), "no worker ran: the dropped table hid nothing");
        });
        withAutovacuumEverySecond(true, verifier -> {
            int runs = 0;
            for (String drop : List.of("DROP TABLE readings;", "DO $$ BEGIN EXECUTE 'DR' || 'OP TABLE readings'; END $$;",
                    "DROP TYPE reading CASCADE;", "DROP INDEX w_k;")) {
                List<Outcome> outcomes = TestPage.on(verifier).add("", make).add(claim, query).add("", "SELECT pg_sleep(2.5);").add("", drop)
                        .run().outcomes();
                assertNull(outcomes.get(1).failure(), () -> drop + ": " + outcomes.get(1).failure().message());
                assertNull(outcomes.get(3).failure(), () -> drop + ": " + outcomes.get(3).failure().message());
                assertEquals(++runs, verifier.autovacuumReruns(), drop);
            }
        });
    }

    /**
     * Red team helper-105's false marks, end to end with autovacuum waking every second: extended statistics (pg_stats_ext,
     * which no word of the old list named), a TOAST table vacuumed alone, a page's own autovacuum_vacuum_max_threshold (18
     * caps the threshold with it) on a page that drops its table at the end, and a typed table dropped with its type. Each
     * held on the build's run only because autovacuum worked, and is refused; on the run without autovacuum a listing of
     * the database's schemas shows none of Kensho's, and passes.
     */
    @Test
    void whatOnlyAutovacuumMadeTrueIsRefusedHoweverThePageReadsOrDropsIt() throws Exception {
        String wait = "SELECT pg_sleep(1.5);";
        String work = "SELECT pg_sleep(6);";
        withAutovacuumEverySecond(true, verifier -> {
            List<Outcome> stats = TestPage.on(verifier)
                    .add("", "CREATE TABLE addresses (city text, zip text); CREATE STATISTICS addr_deps (dependencies) ON city, zip FROM addresses;"
                            + " INSERT INTO addresses SELECT 'c' || (g % 100), 'z' || (g % 100) FROM generate_series(1, 5000) AS g;")
                    .add("", wait).add("", work)
                    .add("", "SELECT count(*) AS built FROM pg_stats_ext WHERE statistics_name = 'addr_deps' AND dependencies IS NOT NULL;",
                            " built\n-------\n     1\n(1 row)")
                    .add("", "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' ORDER BY nspname;",
                            "      nspname\n--------------------\n information_schema\n public\n(2 rows)")
                    .run().outcomes();
            assertRefused(stats.get(3), "public.addresses", "rows differ");
            assertNull(stats.get(4).failure(), () -> stats.get(4).failure().message());

            List<Outcome> toast = TestPage.on(verifier)
                    .add("", "CREATE TABLE docs (id int PRIMARY KEY, body text) WITH (autovacuum_vacuum_threshold = 1000000,"
                            + " autovacuum_vacuum_insert_threshold = -1, autovacuum_analyze_threshold = 1000000,"
                            // A TOAST table without options of its own takes its table's: these are its own, the stock ones.
                            + " toast.autovacuum_vacuum_threshold = 50);"
                            + " INSERT INTO docs SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) AS i)"
                            + " FROM generate_series(1, 100) AS g; DELETE FROM docs;")
                    .add("", wait).add("", work)
                    .add("", "SELECT pg_relation_size(reltoastrelid) AS toast_bytes FROM pg_class WHERE relname = 'docs';",
                            " toast_bytes\n-------------\n           0\n(1 row)")
                    .run().outcomes();
            assertRefused(toast.get(3), "vacuumed the TOAST table of public.docs", "rows differ");

            String counts = "SELECT relpages, reltuples FROM pg_class WHERE relname = '%s';";
            String counted = " relpages | reltuples\n----------+-----------\n        7 |      1500\n(1 row)";
            List<Outcome> capped = TestPage.on(verifier)
                    .add("", "CREATE TABLE t (id int, v text); ALTER TABLE t SET (autovacuum_vacuum_max_threshold = 50);"
                            + " INSERT INTO t SELECT g, 'v' FROM generate_series(1, 3000) AS g; DELETE FROM t WHERE id > 1500;")
                    .add("", wait).add("", work).add("", counts.formatted("t"), counted).add("", "DROP TABLE t;")
                    .run().outcomes();
            // Dropped at the end: whatever the statistics said is gone, and the run without autovacuum decides; there the
            // page's own cap is set back, and the counts are not written.
            assertRefused(capped.get(3), "may have worked on a table the page then dropped", "rows differ");

            List<Outcome> typed = TestPage.on(verifier)
                    .add("", "CREATE TYPE reading AS (id int, v text); CREATE TABLE readings OF reading;"
                            + " INSERT INTO readings SELECT g, 'v' FROM generate_series(1, 3000) AS g; DELETE FROM readings WHERE id > 1500;")
                    .add("", wait).add("", work).add("", counts.formatted("readings"), counted).add("", "DROP TYPE reading CASCADE;")
                    .run().outcomes();
            assertRefused(typed.get(3), "may have worked on a table the page then dropped", "rows differ");

            // A BRIN index's ranges summarized by a worker (autosummarize): no table's count moves (red team helper-106).
            // A worker was about, so the page runs again, where the index does not ask for it.
            List<Outcome> brin = TestPage.on(verifier)
                    .add("", "CREATE TABLE b (id int, pad char(700)) WITH (fillfactor = 10);"
                            + " CREATE INDEX b_brin ON b USING brin (id) WITH (pages_per_range = 1, autosummarize = on);"
                            + " INSERT INTO b SELECT g, 'x' FROM generate_series(1, 40) AS g;")
                    .add("", wait).add("", work)
                    .add("", "SELECT brin_summarize_new_values('b_brin') < 5 AS mostly_summarized;",
                            " mostly_summarized\n-------------------\n t\n(1 row)")
                    .run().outcomes();
            assertRefused(brin.get(3), "had a worker at work on the server, which may have worked on the page's tables in ways no"
                    + " statistic shows,", "rows differ");
        });
    }

    private static void assertRefused(Outcome outcome, String worked, String failsWith) {
        assertEquals(Outcome.Status.FAILED, outcome.status(), () -> "passed (検証済み) though only autovacuum made it true");
        String message = outcome.failure().message();
        assertTrue(message.startsWith("this snippet held on the build's run, where autovacuum ") && message.contains(worked)
                && message.contains("a reader's run in the browser has no autovacuum, and on a run of the page without autovacuum it fails: "
                + failsWith), message);
    }

    private interface WithVerifier {
        void run(Verifier verifier) throws Exception;
    }

    /** A private server (Kensho's own keep the stock minute) whose autovacuum wakes every second, or is off, and a verifier on it. */
    private static void withAutovacuumEverySecond(boolean on, WithVerifier test) throws Exception {
        RunningPostgres embedded = new EmbeddedPostgres().start();
        try {
            Properties admin = embedded.adminCredentials();
            try (Connection c = DriverManager.getConnection(embedded.jdbcUrl(), admin); Statement s = c.createStatement()) {
                s.execute("ALTER SYSTEM SET autovacuum_naptime = 1");
                s.execute("ALTER SYSTEM SET autovacuum = " + (on ? "on" : "off"));
                s.execute("SELECT pg_reload_conf()");
            }
            String url = embedded.jdbcUrl() + (embedded.jdbcUrl().contains("?") ? "&" : "?") + "user=" + admin.getProperty("user")
                    + (admin.getProperty("password") == null ? "" : "&password=" + admin.getProperty("password"));
            try (Verifier verifier = Verifier.start(new ExistingServer(url), new VerifierSettings(Duration.ofSeconds(60)))) {
                test.run(verifier);
            }
        } finally {
            embedded.close();
        }
    }

    /**
     * On a run without autovacuum every table the page makes, or sets back, and the database's own catalogs get thresholds
     * no page reaches; temporary and partitioned tables are left alone. Not autovacuum_enabled = false: on 18 that also
     * stops CREATE INDEX from writing the table's page and row counts (the isolation suite's drop-index-concurrently-1
     * planned otherwise on the rerun), which they keep here as on the real run.
     */
    @Test
    void onARunWithoutAutovacuumThePagesTablesAreOutOfItsReachAndKeepTheirCounts() throws Exception {
        String make = "CREATE TABLE a (x int); CREATE TABLE b AS SELECT 1 AS y; CREATE MATERIALIZED VIEW m AS SELECT 1 AS z;"
                + " CREATE TABLE p (k int) PARTITION BY RANGE (k); CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10);"
                + " CREATE TEMP TABLE tmp (q int); ALTER TABLE a SET (autovacuum_vacuum_threshold = 5);"
                + " CREATE TABLE test_dc (id serial PRIMARY KEY, data int); INSERT INTO test_dc (data) SELECT * FROM generate_series(1, 100);"
                + " CREATE INDEX test_dc_data ON test_dc (data);";
        String read = "SELECT relname, reloptions, relpages, reltuples FROM pg_class WHERE relname IN ('a', 'b', 'm', 'p', 'p1', 'tmp',"
                + " 'pg_class', 'pg_database', 'test_dc') ORDER BY relname;";
        List<Outcome> off = verifier.autovacuumOffRun(page().add("", make).add("", read).snippets);
        assertNull(off.get(0).failure(), () -> off.get(0).failure().message());
        String reach = "{autovacuum_vacuum_threshold=2147483647,autovacuum_vacuum_insert_threshold=-1,autovacuum_analyze_threshold=2147483647,"
                + "autovacuum_vacuum_max_threshold=-1,autovacuum_freeze_max_age=2000000000,autovacuum_multixact_freeze_max_age=2000000000}";
        List<String> rows = off.get(1).results().get(0).rows().stream().map(r -> r.get(0) + " " + r.get(1)
                + (r.get(0).equals("test_dc") ? " " + r.get(2) + " " + r.get(3) : "")).toList();
        assertEquals(List.of("a " + reach, "b " + reach, "m " + reach, "p null", "p1 " + reach, "pg_class " + reach, "pg_database null",
                "test_dc " + reach + " 1 100", "tmp null"), rows);
        // The real run's database has no trigger: the page's tables are as it made them, with the same counts.
        List<Outcome> real = page().add("", make).add("", read).run().outcomes();
        List<String> realRows = real.get(1).results().get(0).rows().stream().map(r -> r.get(0) + " " + r.get(1)
                + (r.get(0).equals("test_dc") ? " " + r.get(2) + " " + r.get(3) : "")).toList();
        assertEquals(List.of("a {autovacuum_vacuum_threshold=5}", "b null", "m null", "p null", "p1 null", "pg_class null", "pg_database null",
                "test_dc null 1 100", "tmp null"), realRows);
    }
}
