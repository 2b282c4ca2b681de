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

    /** One passed plan claim at index 0, run from T+10 s to T+11 s, its plan reading public.t (OID 2 when known). */
    private static List<Outcome> judged(AutovacuumActivity.TableActivity t, Set<Long> oids) throws Exception {
        Outcome passed = page().add("", "SELECT 1 AS one;").last();
        assertNull(passed.failure());
        Map<String, AutovacuumActivity.TableActivity> tables = new java.util.HashMap<>();
        tables.put("public.a", new AutovacuumActivity.TableActivity(0, 0, null, null));
        tables.put("public.t", t);
        AutovacuumActivity activity = AutovacuumActivity.of(tables, Set.of(1L, 2L));
        return activity.judged(List.of(passed), Map.of(0, new AutovacuumActivity.PlanWindow(T.plusSeconds(10), T.plusSeconds(11),
                Set.of("public.t"), oids)));
    }

    private static String refusal(AutovacuumActivity.TableActivity t, Set<Long> oids) throws Exception {
        Outcome o = judged(t, oids).get(0);
        return o.failure() == null ? null : o.failure().message();
    }

    private static Instant at(double seconds) {
        return T.plusMillis((long) (seconds * 1000));
    }

    @Test
    void anAutovacuumOfATableThePlanReadFailsTheClaimWhenever() throws Exception {
        // Nothing of autovacuum's on the table: the claim stands.
        assertNull(refusal(new AutovacuumActivity.TableActivity(0, 0, null, null), Set.of(2L)));
        // Autovacuum vacuumed it before the claim.
        assertEquals("this plan claim cannot be checked: autovacuum vacuumed public.t while the page ran (last at 02:00:05.000 UTC; "
                + "the claimed statement ran 02:00:10.000 UTC to 02:00:11.000 UTC). Its VACUUM sets the visibility map and the "
                + "table's page and row counts, its ANALYZE the statistics the planner estimates with; a reader's run in the "
                + "browser has no autovacuum, and another build gets it at another moment, so the plan may differ. Run VACUUM "
                + "ANALYZE public.t in a visible snippet right after its data is in, and keep the page's run short before the claim",
                refusal(new AutovacuumActivity.TableActivity(1, 0, at(5), null), Set.of(2L)));
        // After the claim, as far as the last time says: an earlier one may have come before it, and a running vacuum's
        // work shows before it reports.
        assertTrue(refusal(new AutovacuumActivity.TableActivity(2, 1, at(20), at(20)), Set.of(2L)).contains("autovacuum vacuumed and "
                + "analyzed public.t"));
        assertTrue(refusal(new AutovacuumActivity.TableActivity(0, 1, null, at(3)), Set.of(2L)).contains("autovacuum analyzed public.t "));
        // The table of the claimed statement is gone (dropped, or dropped and made again: another OID).
        assertEquals("this plan claim cannot be checked: a relation its statement read (OID 7) is gone by the end of the page, so "
                + "Kensho cannot tell whether autovacuum worked on it while the page ran (a reader's run in the browser has no "
                + "autovacuum)", refusal(new AutovacuumActivity.TableActivity(0, 0, null, null), Set.of(7L)));
        // Read through a view or a function (its OID not in the statement's tree): the name may be another table's by now.
        assertTrue(refusal(new AutovacuumActivity.TableActivity(0, 0, null, null), Set.of(1L)).contains("the plan reads public.t "
                + "through a view or a function"));
        // Trees not kept: which relations it read is not known.
        assertTrue(refusal(new AutovacuumActivity.TableActivity(0, 0, null, null), null).startsWith("this plan claim cannot be "
                + "checked: Kensho could not read which relations the claimed statement read"));
        // Autovacuum's work not reported: a run in progress, or one cancelled that left all-visible pages.
        assertEquals("this plan claim cannot be checked: autovacuum was working on it when Kensho looked (public.t); a reader's run "
                + "in the browser has no autovacuum, so the plan may differ", refusal(new AutovacuumActivity.TableActivity(0, 0, null,
                null, "was working on it when Kensho looked"), Set.of(2L)));
    }

    @Test
    void aTableThePlanDidNotReadDoesNotCountAndOneRenamedFails() throws Exception {
        Outcome passed = page().add("", "SELECT 1 AS one;").last();
        AutovacuumActivity activity = AutovacuumActivity.of(Map.of("public.other", new AutovacuumActivity.TableActivity(1, 1, T, T),
                "public.t", new AutovacuumActivity.TableActivity(0, 0, null, null)), Set.of(1L, 2L));
        assertNull(activity.judged(List.of(passed), Map.of(0, new AutovacuumActivity.PlanWindow(T.plusSeconds(10),
                T.plusSeconds(11), Set.of("public.t"), Set.of(2L)))).get(0).failure());
        Outcome renamed = activity.judged(List.of(passed), Map.of(0, new AutovacuumActivity.PlanWindow(T.plusSeconds(10),
                T.plusSeconds(11), Set.of("public.gone"), Set.of()))).get(0);
        assertEquals("this plan claim cannot be checked: the plan reads public.gone, which is not a table of the page's database by "
                + "the end of the page (renamed or dropped), so Kensho cannot tell whether autovacuum worked on it while the page "
                + "ran (a reader's run in the browser has no autovacuum)",
                renamed.failure().message());
    }

    /**
     * A table dropped after the claim and made again under its name is another table: its history is gone with it, so
     * the claim is asked again on a replay of the page up to it, read right after it; there autovacuum did nothing, and
     * the claim holds.
     */
    @Test
    void aTableDroppedAndMadeAgainAfterTheClaimIsAskedAgainOnAReplay() throws Exception {
        String load = "CREATE TABLE t (id int PRIMARY KEY, note text); INSERT INTO t SELECT g, 'n' FROM generate_series(1, 5000) g; VACUUM ANALYZE t;";
        int before = verifier.autovacuumReplays();
        Outcome outcome = page().add("", load).add("uses-index=t_pkey", CLAIMED_AT)
                .add("", "DROP TABLE t; CREATE TABLE t (id int PRIMARY KEY, note text);").run().outcomes().get(1);
        assertNull(outcome.failure(), () -> outcome.failure().message());
        assertEquals(before + 1, verifier.autovacuumReplays(), "asked again");
        // An EXPLAIN written as rows is a plan claim too: asked again alike.
        Outcome explained = page().add("", load).add("", "EXPLAIN (COSTS OFF) SELECT id FROM t WHERE id = 5;", """
                                 QUERY PLAN
                        ----------------------------
                         Index Only Scan using t_pkey on t
                           Index Cond: (id = 5)
                        (2 rows)
                        """).add("", "DROP TABLE t; CREATE TABLE t (id int PRIMARY KEY, note text);").run().outcomes().get(1);
        assertNull(explained.failure(), () -> explained.failure().message());
        assertEquals(before + 2, verifier.autovacuumReplays(), "asked again");
        before += 1;
        // Kept, the same claim passes without a replay.
        assertNull(page().add("", load).add("uses-index=t_pkey", CLAIMED_AT).last().failure());
        assertEquals(before + 1, verifier.autovacuumReplays());
    }

    /** What the replays decide: an affected claim fails unless its replay cleared it. */
    @Test
    void anAffectedClaimStandsOnlyWhereItsReplayClearedIt() throws Exception {
        List<Outcome> two = page().add("", "SELECT 1 AS one;").add("", "SELECT 2 AS two;").run().outcomes();
        List<Outcome> judged = AutovacuumActivity.judged(two, Map.of(0, "autovacuum vacuumed public.t while the page ran", 1,
                "autovacuum analyzed public.u while the page ran"), Set.of(1));
        assertEquals("this plan claim cannot be checked: autovacuum vacuumed public.t while the page ran", judged.get(0).failure().message());
        assertNull(judged.get(1).failure());
    }

    /**
     * End to end, on a server whose autovacuum wakes every second (a test server: Kensho's own keep the stock minute): the
     * page loads a table, waits while autovacuum works on it, and claims an index scan. Refused at the claim's line, also
     * after the page's own VACUUM and ANALYZE of one column (the replay that asks again waits as long, and autovacuum
     * works there too); without the wait, passed.
     */
    @Test
    void aPlanClaimAfterAutovacuumWorkedOnItsTableIsRefusedOnBothRuns() throws Exception {
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
                // The page's own ANALYZE of one column after autovacuum's work leaves autoanalyze's statistics of the
                // others (red team helper-99): still refused.
                Outcome partial = TestPage.on(existing).add("", load).add("", "SELECT pg_sleep(1.5);").add("", "SELECT pg_sleep(6);")
                        .add("", "VACUUM t;").add("", "ANALYZE t (id);").add("uses-index=t_pkey", CLAIMED_AT).last();
                assertEquals(Outcome.Status.FAILED, partial.status(), () -> "passed (検証済み) after autoanalyze");
                assertTrue(partial.failure().message().startsWith("this plan claim cannot be checked: autovacuum "), partial.failure().message());
                // Without the wait, autovacuum does not reach the table before the claim (and where it does on the real run,
                // the replay asks again): passed.
                Outcome quick = TestPage.on(existing).add("", load + " VACUUM ANALYZE t;").add("uses-index=t_pkey", CLAIMED_AT).last();
                assertNull(quick.failure(), () -> quick.failure().message());
            }
        } finally {
            embedded.close();
        }
    }
}
