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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A plan claim that autovacuum may have made true is not passed: a reader's run in the browser has no autovacuum. The
 * PostgreSQL 14 buffer flake (a B-tree metapage read once more after autovacuum's VACUUM of a table that only took
 * inserts) showed autovacuum working on a page's tables during its run; its VACUUM also sets the visibility map, which
 * makes index-only scans cheap in the build's run and not in the reader's.
 */
class AutovacuumActivityTest extends VerifierFixture {

    private static final Instant T = Instant.parse("2026-12-05T02:00:00Z");
    private static final String CLAIMED_AT = "SELECT id FROM t WHERE id = 5;";

    /** One passed plan claim at index 0, run from T+10 s to T+11 s, its plan reading public.t. */
    private static List<Outcome> judged(AutovacuumActivity.TableActivity t) throws Exception {
        Outcome passed = page().add("", "SELECT 1 AS one;").last();
        assertNull(passed.failure());
        AutovacuumActivity activity = AutovacuumActivity.of(t == null ? Map.of() : Map.of("public.t", t), 0, 3);
        return activity.judged(List.of(passed), Map.of(0, new AutovacuumActivity.PlanWindow(T.plusSeconds(10), T.plusSeconds(11),
                Set.of("public.t"))));
    }

    private static Instant at(double seconds) {
        return T.plusMillis((long) (seconds * 1000));
    }

    @Test
    void anAutovacuumOfATableThePlanReadFailsTheClaimUnlessThePagesOwnRunCameAfterItAndBeforeTheClaim() throws Exception {
        // Nothing of autovacuum's on the table: the claim stands.
        assertNull(judged(null).get(0).failure());
        assertNull(judged(new AutovacuumActivity.TableActivity(0, 0, null, null, at(2), at(2))).get(0).failure());
        // Autovacuum vacuumed it before the claim, the page never did.
        Outcome vacuumed = judged(new AutovacuumActivity.TableActivity(1, 0, at(5), null, null, null)).get(0);
        assertEquals("this plan claim cannot be checked: autovacuum vacuumed public.t while the page ran (last at 02:00:05.000 UTC, "
                + "the claimed statement ran 02:00:10.000 UTC to 02:00:11.000 UTC), which the page's own VACUUM and ANALYZE did "
                + "not redo before the claim. Its VACUUM sets the visibility map and the table's page and row counts, its ANALYZE "
                + "the statistics the planner estimates with; a reader's run in the browser has no autovacuum, and another build "
                + "gets it at another moment, so the plan may differ. Run VACUUM ANALYZE public.t in a visible snippet after the "
                + "data is in and before the claim", vacuumed.failure().message());
        assertEquals(Outcome.Status.FAILED, vacuumed.status());
        // After the claim, as far as the last time says: an earlier one may have come before it, and a running vacuum's
        // work shows before it reports.
        assertTrue(judged(new AutovacuumActivity.TableActivity(2, 1, at(20), at(20), null, null)).get(0).failure().message()
                .contains("autovacuum vacuumed and analyzed public.t"));
        // The page's own VACUUM ANALYZE after autovacuum's work and before the claim decides the plan: passed.
        assertNull(judged(new AutovacuumActivity.TableActivity(1, 1, at(3), at(3), at(6), at(6))).get(0).failure());
        // Its own ANALYZE alone leaves autovacuum's visibility map: still refused.
        assertTrue(judged(new AutovacuumActivity.TableActivity(1, 1, at(3), at(3), null, at(6))).get(0).failure().message()
                .contains("autovacuum vacuumed public.t"));
        // Its own VACUUM ANALYZE last ran after the claim: whether one came before it is not kept.
        assertTrue(judged(new AutovacuumActivity.TableActivity(1, 0, at(3), null, at(10.999), at(10.999))).get(0).failure().message()
                .contains("autovacuum vacuumed public.t"));
        assertTrue(judged(new AutovacuumActivity.TableActivity(1, 0, at(3), null, at(30), at(30))).get(0).failure().message()
                .contains("autovacuum vacuumed public.t"));
    }

    @Test
    void aTableThePlanDidNotReadDoesNotCount() throws Exception {
        Outcome passed = page().add("", "SELECT 1 AS one;").last();
        AutovacuumActivity activity = AutovacuumActivity.of(Map.of("public.other", new AutovacuumActivity.TableActivity(1, 1, T, T,
                null, null)), 0, 3);
        assertNull(activity.judged(List.of(passed), Map.of(0, new AutovacuumActivity.PlanWindow(T.plusSeconds(10),
                T.plusSeconds(11), Set.of("public.t")))).get(0).failure());
    }

    /**
     * End to end, on a server whose autovacuum wakes every second (a test server: Kensho's own keep the stock minute): the
     * page loads a table, waits while autovacuum works on it, and claims an index scan. Refused at the claim's line; with
     * the page's own VACUUM ANALYZE before the claim, passed.
     */
    @Test
    void aPlanClaimAfterAutovacuumWorkedOnItsTableIsRefusedAndTheVisibleVacuumAnalyzeClearsIt() throws Exception {
        RunningPostgres embedded = new EmbeddedPostgres().start();
        try {
            Properties admin = embedded.adminCredentials();
            try (Connection c = DriverManager.getConnection(embedded.jdbcUrl(), admin); Statement s = c.createStatement()) {
                s.execute("ALTER SYSTEM SET autovacuum_naptime = 1");
                s.execute("SELECT pg_reload_conf()");
            }
            String url = embedded.jdbcUrl() + (embedded.jdbcUrl().contains("?") ? "&" : "?") + "user=" + admin.getProperty("user")
                    + (admin.getProperty("password") == null ? "" : "&password=" + admin.getProperty("password"));
            String load = "CREATE TABLE t (id int PRIMARY KEY, note text); INSERT INTO t SELECT g, 'n' || g FROM generate_series(1, 5000) AS g;";
            try (Verifier existing = Verifier.start(new ExistingServer(url), new VerifierSettings(Duration.ofSeconds(60)))) {
                // The first sleep lets the session's statistics of the INSERT reach the server (a busy backend flushes them at
                // most once a second, when it goes idle), the second lets autovacuum work.
                Outcome refused = TestPage.on(existing).add("", load).add("", "SELECT pg_sleep(1.5);").add("", "SELECT pg_sleep(6);")
                        .add("uses-index=t_pkey", CLAIMED_AT).last();
                assertEquals(Outcome.Status.FAILED, refused.status(), () -> "passed (検証済み) after autovacuum");
                assertTrue(refused.failure().message().startsWith("this plan claim cannot be checked: autovacuum vacuumed and analyzed "
                        + "public.t while the page ran (last at "), refused.failure().message());
                assertEquals("page.md:13:1", refused.failure().location().toString());
                Outcome cleared = TestPage.on(existing).add("", load).add("", "SELECT pg_sleep(1.5);").add("", "SELECT pg_sleep(6);")
                        .add("", "VACUUM ANALYZE t;")
                        .add("uses-index=t_pkey", CLAIMED_AT).last();
                assertNull(cleared.failure(), () -> cleared.failure().message());
            }
        } finally {
            embedded.close();
        }
    }
}
