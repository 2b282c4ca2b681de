package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 §2: the embedded server is a stock server. Its one setting initdb did not write (fsync = off)
 * leaves what VACUUM makes, and so the plans, as a stock server has them; a server whose configuration
 * differs from initdb's is stated, setting by setting.
 */
class StockServerTest extends VerifierFixture {


    /** PostgreSQL's regression table tenk1 (test_setup.sql), its indexes (create_index.sql) and its VACUUM ANALYZE. */
    static final String TENK1 = """
            CREATE TABLE tenk1 (unique1 int4, unique2 int4, two int4, four int4, ten int4, twenty int4, hundred int4,
                thousand int4, twothousand int4, fivethous int4, tenthous int4, odd int4, even int4,
                stringu1 name, stringu2 name, string4 name);
            INSERT INTO tenk1 SELECT u1, u2, u1 % 2, u1 % 4, u1 % 10, u1 % 20, u1 % 100, u1 % 1000, u1 % 2000, u1 % 5000,
                u1 % 10000, (u1 % 100) * 2, (u1 % 100) * 2 + 1, 'A' || u1, 'B' || u2, (ARRAY['AAAAxx', 'HHHHxx', 'OOOOxx', 'VVVVxx'])[u1 % 4 + 1]
              FROM (SELECT g AS u1, (g * 7919) % 10000 AS u2 FROM generate_series(0, 9999) AS g) AS s;
            CREATE INDEX tenk1_unique1 ON tenk1 USING btree (unique1 int4_ops);
            CREATE INDEX tenk1_hundred ON tenk1 USING btree (hundred int4_ops);
            CREATE INDEX tenk1_thous_tenthous ON tenk1 (thousand, tenthous);
            VACUUM ANALYZE tenk1;
            """;

    @Test
    void vacuumMarksEveryPageOfFreshlyLoadedDataAllVisible() throws Exception {
        // Under synchronous_commit = off the loading transaction's commit was not yet flushed when VACUUM ran:
        // it could set no hint bit, and relallvisible stayed 0 of 345.
        Outcome outcome = TestPage.on(verifier).add("", TENK1)
                .add("", "SELECT relpages, relallvisible = relpages AS all_visible FROM pg_class WHERE relname = 'tenk1';",
                        " relpages | all_visible\n----------+-------------\n      345 | t\n").last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }

    @Test
    void theIndexOnlyScanOfPostgresRegressionTestsHolds() throws Exception {
        // create_index.sql: "Index Only Scan using tenk1_thous_tenthous on tenk1" (without all-visible pages: a Bitmap Heap Scan and a Sort).
        PageResult result = TestPage.on(verifier).add("", TENK1)
                .add("explain uses-index=tenk1_thous_tenthous scan-in=\"Index Only Scan\" no-sort",
                        "SELECT thousand, tenthous FROM tenk1 WHERE thousand < 2 AND tenthous IN (1001, 3000) ORDER BY thousand;",
                        " thousand | tenthous\n----------+----------\n        0 |     3000\n        1 |     1001\n")
                .add("explain uses-index=tenk1_hundred scan-in=\"Index Only Scan\"", "SELECT count(*) FROM tenk1;",
                        " count\n-------\n 10000\n").run();
        assertTrue(result.passed(), () -> result.outcomes().toString());
        assertTrue(result.outcomes().get(1).plan().startsWith("Index Only Scan using tenk1_thous_tenthous on public.tenk1"),
                result.outcomes().get(1).plan());
        assertTrue(result.outcomes().get(1).plan().contains("Heap Fetches: 0"), result.outcomes().get(1).plan());
    }

    @Test
    void aFalseIndexOnlyScanClaimStillFails() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("", TENK1)
                .add("scan-in=\"Seq Scan\"", "SELECT count(*) FROM tenk1;").last();
        assertEquals("plan assertion failed: scans only with Seq Scan: the plan scans with Index Only Scan using tenk1_hundred on tenk1",
                outcome.failure().message());
    }

    @Test
    void theEmbeddedServersOnlyChangeFromInitdbIsStated() {
        assertEquals(List.of("fsync = off (command line)"), verifier.serverConfiguration());
        assertTrue(verifier.serverDescription().endsWith("; its configuration differs from initdb's: fsync = off (command line)"),
                verifier.serverDescription());
    }

    @Test
    void aServerConfiguredOtherwiseIsStatedSettingBySetting() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin();
             Statement statement = admin.createStatement()) {
            statement.execute("ALTER SYSTEM SET synchronous_commit = off");
            statement.execute("ALTER SYSTEM SET enable_seqscan = off"); // reset in every page session: not stated
            statement.execute("SELECT pg_reload_conf()");
            Thread.sleep(500);
            assertEquals(List.of("fsync = off (command line)", "synchronous_commit = off (configuration file)"),
                    ServerConfiguration.changes(admin));
        }
    }
}
