package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.ScenarioSyntaxException;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Multi-session scenarios against the real PostgreSQL 18.6. */
class ScenarioRunnerTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(3)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static Outcome run(String scenario) throws ScenarioSyntaxException {
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 10, 1), scenario).withScenario(ScenarioParser.parse(scenario));
        PageResult result = verifier.verifyPage("page.md", List.of(snippet));
        return result.outcomes().get(0);
    }

    /**
     * The steps of PostgreSQL's own isolation spec insert-conflict-do-nothing, written in our syntax
     * (the original marks no waits; here the waiting step says whom it waits for).
     */
    private static final String INSERT_CONFLICT_DO_NOTHING = """
            setup { CREATE TABLE ints (key int PRIMARY KEY, val text); }
            teardown { DROP TABLE ints; }

            session s1
            setup { BEGIN ISOLATION LEVEL READ COMMITTED; }
            step donothing1 { INSERT INTO ints(key, val) VALUES(1, 'donothing1') ON CONFLICT DO NOTHING; }
            step c1 { COMMIT; }
            step a1 { ABORT; }

            session s2
            setup { BEGIN ISOLATION LEVEL READ COMMITTED; }
            step donothing2 waits-for=s1 { INSERT INTO ints(key, val) VALUES(1, 'donothing2') ON CONFLICT DO NOTHING; }
            step select2 { SELECT * FROM ints; }
            step c2 { COMMIT; }

            permutation donothing1 donothing2 c1 select2 c2
            permutation donothing1 donothing2 a1 select2 c2
            """;

    @Test
    void crossCheckWithPostgresIsolationSuiteInsertConflictDoNothing() throws Exception {
        Outcome outcome = run(INSERT_CONFLICT_DO_NOTHING);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        // Same waiting and completion order as src/test/isolation/expected/insert-conflict-do-nothing.out.
        assertEquals("""
                starting permutation: donothing1 donothing2 c1 select2 c2
                step donothing1: INSERT INTO ints(key, val) VALUES(1, 'donothing1') ON CONFLICT DO NOTHING;
                step donothing2: INSERT INTO ints(key, val) VALUES(1, 'donothing2') ON CONFLICT DO NOTHING; <waiting ...>
                step c1: COMMIT;
                step donothing2: <... completed>
                step select2: SELECT * FROM ints;
                key|val
                1|donothing1
                step c2: COMMIT;

                starting permutation: donothing1 donothing2 a1 select2 c2
                step donothing1: INSERT INTO ints(key, val) VALUES(1, 'donothing1') ON CONFLICT DO NOTHING;
                step donothing2: INSERT INTO ints(key, val) VALUES(1, 'donothing2') ON CONFLICT DO NOTHING; <waiting ...>
                step a1: ABORT;
                step donothing2: <... completed>
                step select2: SELECT * FROM ints;
                key|val
                1|donothing2
                step c2: COMMIT;

                """, outcome.transcript().toString());
        assertEquals(List.of("s1"), outcome.transcript().permutations().get(0).events().get(1).waitsFor());
    }

    @Test
    void theSameScenarioGivesTheSameTranscriptAHundredTimes() throws Exception {
        String first = run(INSERT_CONFLICT_DO_NOTHING).transcript().toString();
        for (int i = 0; i < 99; i++) {
            assertEquals(first, run(INSERT_CONFLICT_DO_NOTHING).transcript().toString(), "run " + (i + 2));
        }
    }

    private static final String RESERVE = """
            setup { CREATE TABLE reservations (key text PRIMARY KEY); }
            session a
            step a_begin { BEGIN; }
            step a_reserve { INSERT INTO reservations VALUES ('K1') ON CONFLICT (key) DO NOTHING RETURNING key; }
            step a_commit { COMMIT; }
            session b
            step b_begin { BEGIN; }
            step b_reserve%s { INSERT INTO reservations VALUES ('K1') ON CONFLICT (key) DO NOTHING RETURNING key; }
            rows {
             key
            -----
            (0 rows)
            }
            step b_commit { COMMIT; }
            permutation %s
            """;

    @Test
    void aStepClaimedToWaitThatDoesNotFailsNamingTheStepAndLine() throws Exception {
        Outcome outcome = run(RESERVE.formatted(" waits-for=a", "a_begin a_reserve a_commit b_begin b_reserve b_commit"));
        assertEquals("step b_reserve was to wait for a, but it finished without waiting", outcome.failure().message());
        assertEquals(new SourceLocation("page.md", 17, 1), outcome.failure().location());
    }

    @Test
    void aStepThatWaitsWithoutSayingSoFails() throws Exception {
        Outcome outcome = run(RESERVE.formatted("", "a_begin a_reserve b_begin b_reserve a_commit b_commit"));
        assertEquals("step b_reserve waits for a, but the scenario does not say so; add waits-for=a (or waits-for=*) if that is the point",
                outcome.failure().message());
    }

    @Test
    void theWaitingLoserReturnsNoRowOnceTheWinnerCommits() throws Exception {
        Outcome outcome = run(RESERVE.formatted(" waits-for=a", "a_begin a_reserve b_begin b_reserve a_commit b_commit"));
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals(List.of("b_reserve waits for a", "b_reserve returns the 0 expected row(s)",
                "permutation a_begin a_reserve b_begin b_reserve a_commit b_commit runs as stated"),
                outcome.assertions().stream().map(a -> a.description()).toList());
    }

    @Test
    void wrongRowsAfterTheWaitFailWithBothTables() throws Exception {
        // If A rolls back, B's insert succeeds and returns K1: the claim of no row is wrong.
        Outcome outcome = run(RESERVE.formatted(" waits-for=a", "a_begin a_reserve b_begin b_reserve a_commit b_commit")
                .replace("step a_commit { COMMIT; }", "step a_commit { ROLLBACK; }"));
        assertEquals("step b_reserve: rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        assertTrue(outcome.failure().detail().endsWith("extra:   K1"), outcome.failure().detail());
    }

    @Test
    void aStepLeftWaitingAtTheEndFailsInsteadOfHanging() throws Exception {
        long t0 = System.nanoTime();
        // The second permutation runs every step; the first, which leaves b_reserve waiting, fails before it.
        Outcome outcome = run(RESERVE.formatted(" waits-for=a", "a_begin a_reserve b_begin b_reserve\n"
                + "permutation a_begin a_reserve a_commit b_begin b_reserve b_commit"));
        assertEquals("step b_reserve is still waiting for a at the end of the permutation; no later step releases it",
                outcome.failure().message());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos());
    }

    @Test
    void aSessionWaitingOnALockNobodyReleasesIsStoppedByKenshoNotByALockTimeout() throws Exception {
        long t0 = System.nanoTime();
        Outcome outcome = run(RESERVE.formatted(" waits-for=a", "a_begin a_reserve b_begin b_reserve b_commit a_commit"));
        assertEquals("step b_reserve: Kensho stopped the statement after 3 s while it waited for a lock another session holds "
                + "(its own limit per statement, --statement-timeout); a limit of Kensho's never satisfies a claim. To show a "
                + "timeout, set statement_timeout or lock_timeout in the snippet itself", outcome.failure().message());
        assertNull(outcome.failure().sqlState());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
    }

    @Test
    void aLockTimeoutTheScenarioSetsCanBeClaimed() throws Exception {
        Outcome outcome = run("""
                setup { CREATE TABLE reservations (key text PRIMARY KEY); }
                session a
                step a_begin { BEGIN; }
                step a_reserve { INSERT INTO reservations VALUES ('K1'); }
                session b
                setup { SET lock_timeout = '200ms'; }
                step b_reserve waits-for=a expect-error=55P03 { INSERT INTO reservations VALUES ('K1'); }
                permutation a_begin a_reserve b_reserve
                """);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertTrue(outcome.assertions().stream().anyMatch(a -> a.description().equals("b_reserve fails with SQLSTATE 55P03")));
    }

    @Test
    void aDeadlockIsDetectedByTheServerAndCanBeClaimed() throws Exception {
        Outcome outcome = run("""
                setup { CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2); }
                session a
                step a1 { BEGIN; UPDATE t SET id = id WHERE id = 1; }
                step a2 waits-for=b expect-error=40P01 { UPDATE t SET id = id WHERE id = 2; }
                step a3 { ROLLBACK; }
                session b
                step b1 { BEGIN; UPDATE t SET id = id WHERE id = 2; }
                step b2 waits-for=a { UPDATE t SET id = id WHERE id = 1; }
                step b3 { COMMIT; }
                permutation a1 b1 a2 b2 a3 b3
                """);
        // a2 waited first, so its deadlock check fires first (deadlock_timeout, 1 s) and it is the one aborted.
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
        assertEquals("""
                starting permutation: a1 b1 a2 b2 a3 b3
                step a1: BEGIN; UPDATE t SET id = id WHERE id = 1;
                step b1: BEGIN; UPDATE t SET id = id WHERE id = 2;
                step a2: UPDATE t SET id = id WHERE id = 2; <waiting ...>
                step b2: UPDATE t SET id = id WHERE id = 1; <waiting ...>
                step a2: <... completed>
                ERROR:  deadlock detected
                step b2: <... completed>
                step a3: ROLLBACK;
                step b3: COMMIT;

                """, outcome.transcript().toString());
    }

    /** A page whose first snippet is plain SQL, then the scenario (three lines further down). */
    private static Outcome runAfter(String sql, String scenario) throws ScenarioSyntaxException {
        Snippet first = Snippet.of(new SourceLocation("page.md", 3, 1), sql);
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 10, 1), scenario).withScenario(ScenarioParser.parse(scenario));
        PageResult result = verifier.verifyPage("page.md", List.of(first, snippet));
        assertTrue(result.outcomes().get(0).passed(), () -> String.valueOf(result.outcomes().get(0).failure()));
        return result.outcomes().get(1);
    }

    /** Two sessions insert the key a holds uncommitted: a's ROLLBACK wakes both, and one of them wins. */
    private static final String TWO_WAITERS = """
            setup { CREATE TABLE reservations (key text PRIMARY KEY); }
            session a
            step a_begin { BEGIN; }
            step a_reserve { INSERT INTO reservations VALUES ('K1'); }
            step a_rollback { ROLLBACK; }
            session b
            step b_begin { BEGIN; }
            step b_reserve waits-for=a { INSERT INTO reservations VALUES ('K1') ON CONFLICT (key) DO NOTHING RETURNING key; }
            step b_commit { COMMIT; }
            session c
            step c_begin { BEGIN; }
            step c_reserve waits-for=%s { INSERT INTO reservations VALUES ('K1') ON CONFLICT (key) DO NOTHING RETURNING key; }
            step c_commit { COMMIT; }
            permutation %s
            """;

    @Test
    void oneStepReleasingTwoWaitersFailsWhateverTheServerWakesFirst() throws Exception {
        // Which of b and c inserts K1 is up to the scheduler; the claim must fail on every run, not on some.
        for (int i = 0; i < 5; i++) {
            Outcome outcome = run(TWO_WAITERS.formatted("a",
                    "a_begin a_reserve b_begin b_reserve c_begin c_reserve a_rollback b_commit c_commit"));
            assertEquals("step a_rollback releases b_reserve and c_reserve at once (each waited for a), and one of them waits "
                    + "again, now for another: which the server "
                    + "wakes first is not determined, so what they do can differ from run to run; release them one at a "
                    + "time (for example, issue one of them only after the other has finished)", outcome.failure().message());
            assertEquals(new SourceLocation("page.md", 14, 1), outcome.failure().location());
        }
    }

    /** Two INSERTs in open transactions released by one COMMIT: the table, made by an earlier snippet, decides. */
    private static final String TWO_INSERTS = """
            session a
            step a_lock { BEGIN; LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE; }
            step a_commit { COMMIT; }
            session b
            setup { BEGIN; }
            step b_insert waits-for=a { INSERT INTO tickets (k) VALUES ('b'); }
            session c
            setup { BEGIN; }
            step c_insert waits-for=a { INSERT INTO tickets (k) VALUES ('c'); }
            permutation a_lock b_insert c_insert a_commit
            """;

    @Test
    void insertsReleasedAtOnceInOpenTransactionsPassWhenTheDatabaseHasNoSequence() throws Exception {
        Outcome outcome = runAfter("CREATE TABLE tickets (k text);", TWO_INSERTS);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
        assertTrue(outcome.assertions().stream().anyMatch(a -> a.description().equals(
                "a_commit releases b_insert and c_insert, and nothing they do depends on which wakes first")), outcome.assertions()::toString);
    }

    @Test
    void serializableTransactionsAreNotMistakenForSerialColumns() throws Exception {
        // partition-key-update-3 of PostgreSQL 18 begins its sessions with ISOLATION LEVEL SERIALIZABLE.
        Outcome outcome = runAfter("CREATE TABLE tickets (k text);",
                TWO_INSERTS.replace("setup { BEGIN; }", "setup { BEGIN ISOLATION LEVEL SERIALIZABLE; }"));
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
    }

    @Test
    void insertsReleasedAtOnceAreRefusedWhenAnEarlierSnippetMadeASequence() throws Exception {
        // The identity column is not written in the scenario: the database, asked outside the sessions, has its sequence.
        Outcome outcome = runAfter("CREATE TABLE tickets (id int GENERATED BY DEFAULT AS IDENTITY, k text);", TWO_INSERTS);
        assertEquals("step a_commit releases b_insert and c_insert at once (each waited for a), and b_insert may draw sequence "
                + "numbers (insert), which are taken in wake order: which the server wakes first is not determined, so what they "
                + "do can differ from run to run; release them one at a time (for example, issue one of them only after the "
                + "other has finished)", outcome.failure().message());
        assertEquals(new SourceLocation("page.md", 12, 1), outcome.failure().location());
    }

    @Test
    void waitersReleasedOneAtATimePass() throws Exception {
        // b is released by a alone; c then waits for b, and b's commit releases c alone.
        Outcome outcome = run(TWO_WAITERS.formatted("b",
                "a_begin a_reserve b_begin b_reserve a_rollback c_begin c_reserve b_commit c_commit"));
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
        assertEquals(List.of("b_reserve waits for a", "c_reserve waits for b",
                "permutation a_begin a_reserve b_begin b_reserve a_rollback c_begin c_reserve b_commit c_commit runs as stated"),
                outcome.assertions().stream().map(a -> a.description()).toList());
    }

    @Test
    void waitersQueuedForOneLockAreReleasedInQueueOrderAndPass() throws Exception {
        // c queues behind b for the same table lock: a's COMMIT grants b alone, as the lock queue decides; c still
        // waits for b (as it did), and b's COMMIT releases it. Nothing here is up to the scheduler.
        Outcome outcome = run("""
                setup { CREATE TABLE t (id int); }
                session a
                step a_lock { BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE; }
                step a_commit { COMMIT; }
                session b
                step b_lock waits-for=a { BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE; }
                step b_commit { COMMIT; }
                session c
                step c_lock waits-for=b { BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE; }
                step c_commit { COMMIT; }
                permutation a_lock b_lock c_lock a_commit b_commit c_commit
                """);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
        assertEquals(List.of("a", "b"), outcome.transcript().permutations().get(0).events().get(2).waitsFor());
    }

    private static final String DEFERRABLE = """
            setup { CREATE TABLE t (id int); INSERT INTO t VALUES (1); }
            session a
            step a_begin { BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT count(*) FROM t; }
            step a_commit { COMMIT; }
            session b
            step b_read%s { BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE; SELECT id FROM t; }
            rows {
             id
            ----
              1
            (1 row)
            }
            step b_commit { COMMIT; }
            permutation a_begin b_read a_commit b_commit
            """;

    @Test
    void aWaitForASafeSnapshotIsAWaitForTheSerializableSession() throws Exception {
        Outcome outcome = run(DEFERRABLE.formatted(" waits-for=a"));
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
        assertEquals(List.of("a"), outcome.transcript().permutations().get(0).events().get(1).waitsFor());
        Outcome unclaimed = run(DEFERRABLE.formatted(""));
        assertEquals("step b_read waits for a, but the scenario does not say so; add waits-for=a (or waits-for=*) if that is the point",
                unclaimed.failure().message());
    }

    /** Role and database defaults the page set, read back by a scenario session. */
    private static final String SETTINGS_SEEN = """
            session a
            step a_begin { BEGIN; }
            session b
            step b_settings { SELECT current_setting('lock_timeout') AS lock_timeout, current_setting('transaction_isolation') AS isolation, current_setting('search_path') AS search_path; }
            rows {
             lock_timeout | isolation | search_path
            --------------+-----------+-------------
             %s
            (1 row)
            }
            permutation a_begin b_settings
            """;

    private static final String PAGE_DEFAULTS = """
            ALTER ROLE CURRENT_USER SET lock_timeout = '1ms';
            ALTER ROLE CURRENT_USER SET search_path = pg_catalog;
            DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = serializable', current_database()); END $$;
            """;

    @Test
    void scenarioSessionsStartFromAStockSessionWhateverRoleOrDatabaseDefaultsThePageSet() throws Exception {
        Outcome stock = runAfter(PAGE_DEFAULTS, SETTINGS_SEEN.formatted("0            | read committed | \"$user\", public"));
        assertTrue(stock.passed(), () -> String.valueOf(stock.failure()) + "\n" + stock.transcript());
        Outcome leaked = runAfter(PAGE_DEFAULTS, SETTINGS_SEEN.formatted("1ms          | serializable | pg_catalog"));
        assertEquals("step b_settings: rows differ (as a multiset, because the query has no ORDER BY)", leaked.failure().message());
    }

    private static final String AFTER_BEGIN = """
            setup { CREATE TABLE seats (seat text PRIMARY KEY); }
            session a
            step a_begin { BEGIN; }
            session b
            step b_count { SELECT count(*) FROM seats; }
            permutation a_begin b_count
            """;

    @Test
    void aScenarioNeverRunsInsideATransactionThePageLeftOpen() throws Exception {
        Outcome inside = runAfter("BEGIN;\nSELECT 1;", AFTER_BEGIN);
        assertEquals("the scenario starts inside a transaction an earlier snippet left open on the page's connection: its "
                + "setup and teardown would run in that transaction, unseen by the scenario's sessions and holding its "
                + "locks; end it (COMMIT or ROLLBACK) before the scenario", inside.failure().message());
        assertEquals(new SourceLocation("page.md", 10, 1), inside.failure().location());
        Outcome ended = runAfter("BEGIN;\nSELECT 1;\nCOMMIT;", AFTER_BEGIN);
        assertTrue(ended.passed(), () -> String.valueOf(ended.failure()));
    }

    @Test
    void syntaxErrorsNameTheirLine() {
        ScenarioSyntaxException e = org.junit.jupiter.api.Assertions.assertThrows(ScenarioSyntaxException.class,
                () -> ScenarioParser.parse("session a\nstep a1 { SELECT 1; }\nsession b\nstep b1 wait=a { SELECT 1; }\npermutation a1 b1\n"));
        assertEquals("unknown step option 'wait'; known: waits-for=SESSION[,SESSION…] or waits-for=*, expect-error=SQLSTATE, completes-after=STEP (and 'rows { … }', 'error { … }' or 'notices { … }' blocks after the step)", e.getMessage());
        assertEquals(3, e.line());
        ScenarioSyntaxException unknown = org.junit.jupiter.api.Assertions.assertThrows(ScenarioSyntaxException.class,
                () -> ScenarioParser.parse("session a\nstep a1 { SELECT 1; }\nsession b\nstep b1 { SELECT 1; }\npermutation a1 b9\n"));
        assertEquals("the permutation names step 'b9', which no session declares", unknown.getMessage());
        assertEquals(4, unknown.line());
    }
}
