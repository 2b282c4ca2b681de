package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.ScenarioSyntaxException;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The isolation tester's blocking markers in permutations ({@code s1a(*)}, {@code s1a(s2b)}) and the
 * completes-after claim, on PostgreSQL 18's own deadlock-hard spec and on small scenarios whose
 * transcripts are the tester's.
 */
class IsolationMarkersTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static Outcome run(String scenario) throws Exception {
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 10, 1), scenario).withScenario(ScenarioParser.parse(scenario));
        PageResult result = verifier.verifyPage("page.md", List.of(snippet));
        return result.outcomes().get(0);
    }

    /**
     * deadlock-hard.spec of PostgreSQL 18: s8 (deadlock_timeout 10ms) detects the deadlock; its step
     * is marked (*) because it may fail before or after being seen waiting, and s7a8(s8a1) keeps s7a8's
     * completion after s8a1's, as deadlock-hard.out shows.
     */
    private static final String DEADLOCK_HARD = """
            setup {
              CREATE TABLE a1 (); CREATE TABLE a2 (); CREATE TABLE a3 (); CREATE TABLE a4 ();
              CREATE TABLE a5 (); CREATE TABLE a6 (); CREATE TABLE a7 (); CREATE TABLE a8 ();
            }
            teardown { DROP TABLE a1, a2, a3, a4, a5, a6, a7, a8; }
            session s1
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s1a1 { LOCK TABLE a1; }
            step s1a2 waits-for=s2 completes-after=s2c { LOCK TABLE a2; }
            step s1c { COMMIT; }
            session s2
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s2a2 { LOCK TABLE a2; }
            step s2a3 waits-for=s3 { LOCK TABLE a3; }
            step s2c { COMMIT; }
            session s3
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s3a3 { LOCK TABLE a3; }
            step s3a4 waits-for=s4 { LOCK TABLE a4; }
            step s3c { COMMIT; }
            session s4
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s4a4 { LOCK TABLE a4; }
            step s4a5 waits-for=s5 { LOCK TABLE a5; }
            step s4c { COMMIT; }
            session s5
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s5a5 { LOCK TABLE a5; }
            step s5a6 waits-for=s6 { LOCK TABLE a6; }
            step s5c { COMMIT; }
            session s6
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s6a6 { LOCK TABLE a6; }
            step s6a7 waits-for=s7 completes-after=s7c { LOCK TABLE a7; }
            step s6c { COMMIT; }
            session s7
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s7a7 { LOCK TABLE a7; }
            step s7a8 waits-for=s8 completes-after=s8a1 { LOCK TABLE a8; }
            step s7c { COMMIT; }
            session s8
            setup { BEGIN; SET deadlock_timeout = '10ms'; }
            step s8a8 { LOCK TABLE a8; }
            step s8a1 { LOCK TABLE a1; }
            error { ERROR:  deadlock detected }
            step s8c { COMMIT; }
            permutation s1a1 s2a2 s3a3 s4a4 s5a5 s6a6 s7a7 s8a8 s1a2 s2a3 s3a4 s4a5 s5a6 s6a7 s7a8(s8a1) s8a1(*) s8c s7c s6c s5c s4c s3c s2c s1c
            """;

    @Test
    void deadlockHardRunsAsItsExpectedOutputShows() throws Exception {
        Outcome outcome = run(DEADLOCK_HARD);
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.transcript());
        assertEquals("""
                starting permutation: s1a1 s2a2 s3a3 s4a4 s5a5 s6a6 s7a7 s8a8 s1a2 s2a3 s3a4 s4a5 s5a6 s6a7 s7a8 s8a1 s8c s7c s6c s5c s4c s3c s2c s1c
                step s1a1: LOCK TABLE a1;
                step s2a2: LOCK TABLE a2;
                step s3a3: LOCK TABLE a3;
                step s4a4: LOCK TABLE a4;
                step s5a5: LOCK TABLE a5;
                step s6a6: LOCK TABLE a6;
                step s7a7: LOCK TABLE a7;
                step s8a8: LOCK TABLE a8;
                step s1a2: LOCK TABLE a2; <waiting ...>
                step s2a3: LOCK TABLE a3; <waiting ...>
                step s3a4: LOCK TABLE a4; <waiting ...>
                step s4a5: LOCK TABLE a5; <waiting ...>
                step s5a6: LOCK TABLE a6; <waiting ...>
                step s6a7: LOCK TABLE a7; <waiting ...>
                step s7a8: LOCK TABLE a8; <waiting ...>
                step s8a1: LOCK TABLE a1; <waiting ...>
                step s8a1: <... completed>
                ERROR:  deadlock detected
                step s7a8: <... completed>
                step s8c: COMMIT;
                step s7c: COMMIT;
                step s6a7: <... completed>
                step s6c: COMMIT;
                step s5a6: <... completed>
                step s5c: COMMIT;
                step s4a5: <... completed>
                step s4c: COMMIT;
                step s3a4: <... completed>
                step s3c: COMMIT;
                step s2a3: <... completed>
                step s2c: COMMIT;
                step s1a2: <... completed>
                step s1c: COMMIT;

                """, outcome.transcript().toString());
    }

    @Test
    void deadlockHardWithACompletionStatedElsewhereFails() throws Exception {
        Outcome outcome = run(DEADLOCK_HARD.replace("step s6a7 waits-for=s7 completes-after=s7c", "step s6a7 waits-for=s7 completes-after=s8c"));
        assertEquals("step s6a7 completed after s7c, not after s8c (its <... completed> follows s7c's line)", outcome.failure().message());
        assertEquals("page.md:43:1", outcome.failure().location().toString());
    }

    @Test
    void deadlockHardsDetectingStepCompletesRightAfterItsOwnLine() throws Exception {
        // deadlock-hard.out: "step s8a1: <... completed>" follows s8a1's own line, before s8c is issued.
        Outcome outcome = run(DEADLOCK_HARD.replace("step s8a1 {", "step s8a1 completes-after=s8a1 {"));
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.transcript());
        assertTrue(outcome.assertions().stream().anyMatch(a -> a.description().equals("s8a1 completes after s8a1")),
                outcome.assertions()::toString);
    }

    @Test
    void aWaiterClaimedToCompleteRightAfterItsOwnLineFailsWhenAnotherStepCameBetween() throws Exception {
        Outcome outcome = run(DEADLOCK_HARD.replace("step s6a7 waits-for=s7 completes-after=s7c", "step s6a7 waits-for=s7 completes-after=s6a7"));
        assertEquals("step s6a7 completed after s7c, not after s6a7 (its <... completed> follows s7c's line)", outcome.failure().message());
        assertEquals("page.md:43:1", outcome.failure().location().toString());
    }

    @Test
    void aStepMarkedStarCannotClaimWhomItWaitsFor() {
        ScenarioSyntaxException e = assertThrows(ScenarioSyntaxException.class,
                () -> ScenarioParser.parse(DEADLOCK_HARD.replace("step s8a1 {", "step s8a1 waits-for=s1 {")));
        assertEquals("step s8a1 is marked (*): it counts as waiting whether or not the server shows it waiting, so whether it "
                + "is seen waiting for s1 is left to timing; state waits-for=* or no waits-for", e.getMessage());
        assertEquals(46, e.line());
    }

    /**
     * deadlock-soft-2.spec of PostgreSQL 18: s1b's deadlock check (10ms) moves it ahead of s3a and s4a in
     * a2's queue; they then wait for s1 as well as s2, but for the very lock they waited for before, so
     * s1b released neither, and nothing is left to the scheduler.
     */
    private static final String DEADLOCK_SOFT_2 = """
            setup { CREATE TABLE a1 (); CREATE TABLE a2 (); }
            teardown { DROP TABLE a1, a2; }
            session s1
            setup { BEGIN; SET deadlock_timeout = '10ms'; }
            step s1a { LOCK TABLE a1 IN SHARE UPDATE EXCLUSIVE MODE; }
            step s1b waits-for=* { LOCK TABLE a2 IN SHARE UPDATE EXCLUSIVE MODE; }
            step s1c { COMMIT; }
            session s2
            setup { BEGIN; SET deadlock_timeout = '100s'; }
            step s2a { LOCK TABLE a2 IN ACCESS SHARE MODE; }
            step s2b waits-for=s1 completes-after=s1c { LOCK TABLE a1 IN SHARE UPDATE EXCLUSIVE MODE; }
            step s2c { COMMIT; }
            session s3
            setup { BEGIN; SET deadlock_timeout = '100s'; }
            step s3a waits-for=s2 completes-after=s2c { LOCK TABLE a2 IN ACCESS EXCLUSIVE MODE; }
            step s3c { COMMIT; }
            session s4
            setup { BEGIN; SET deadlock_timeout = '100s'; }
            step s4a waits-for=s2,s3 completes-after=s3c { LOCK TABLE a2 IN ACCESS EXCLUSIVE MODE; }
            step s4c { COMMIT; }
            permutation s1a s2a s2b s3a s4a s1b(*) s1c s2c s3c s4c
            """;

    @Test
    void deadlockSoft2RunsAsItsExpectedOutputShows() throws Exception {
        Outcome outcome = run(DEADLOCK_SOFT_2);
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.transcript());
        assertEquals("""
                starting permutation: s1a s2a s2b s3a s4a s1b s1c s2c s3c s4c
                step s1a: LOCK TABLE a1 IN SHARE UPDATE EXCLUSIVE MODE;
                step s2a: LOCK TABLE a2 IN ACCESS SHARE MODE;
                step s2b: LOCK TABLE a1 IN SHARE UPDATE EXCLUSIVE MODE; <waiting ...>
                step s3a: LOCK TABLE a2 IN ACCESS EXCLUSIVE MODE; <waiting ...>
                step s4a: LOCK TABLE a2 IN ACCESS EXCLUSIVE MODE; <waiting ...>
                step s1b: LOCK TABLE a2 IN SHARE UPDATE EXCLUSIVE MODE; <waiting ...>
                step s1b: <... completed>
                step s1c: COMMIT;
                step s2b: <... completed>
                step s2c: COMMIT;
                step s3a: <... completed>
                step s3c: COMMIT;
                step s4a: <... completed>
                step s4c: COMMIT;

                """, outcome.transcript().toString());
    }

    @Test
    void deadlockSoft2WithAWaiterClaimedToCompleteEarlierFails() throws Exception {
        Outcome outcome = run(DEADLOCK_SOFT_2.replace("step s3a waits-for=s2 completes-after=s2c", "step s3a waits-for=s2 completes-after=s1c"));
        assertEquals("step s3a completed after s2c, not after s1c (its <... completed> follows s2c's line)", outcome.failure().message());
        assertEquals("page.md:24:1", outcome.failure().location().toString());
    }

    /** Three sessions: s2 waits for s1's lock; s3's quick query is held back by the marker s3q(s2l). */
    private static final String HELD = """
            setup { CREATE TABLE t (); }
            teardown { DROP TABLE t; }
            session s1
            setup { BEGIN; }
            step s1l { LOCK TABLE t; }
            step s1c { COMMIT; }
            session s2
            setup { BEGIN; }
            step s2l waits-for=s1 { LOCK TABLE t; }
            session s3
            step s3q { SELECT 1 AS one; }
            rows {
             one
            -----
               1
            (1 row)
            }
            permutation s1l s2l s3q(s2l) s1c
            """;

    @Test
    void aStepHeldBackByAMarkerIsReportedWaitingAndCompletesAfterTheStepItWaitsOn() throws Exception {
        Outcome outcome = run(HELD.replace("step s3q {", "step s3q completes-after=s1c {"));
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.transcript());
        assertEquals("""
                starting permutation: s1l s2l s3q s1c
                step s1l: LOCK TABLE t;
                step s2l: LOCK TABLE t; <waiting ...>
                step s3q: SELECT 1 AS one; <waiting ...>
                step s1c: COMMIT;
                step s2l: <... completed>
                step s3q: <... completed>
                one
                1

                """, outcome.transcript().toString());
    }

    @Test
    void aStepMarkedStarIsReportedWaitingAndCompletesAfterTheNextStep() throws Exception {
        Outcome outcome = run(HELD.replace("step s3q {", "step s3q completes-after=s1l {")
                .replace("permutation s1l s2l s3q(s2l) s1c", "permutation s3q(*) s1l s2l s1c"));
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.transcript());
        assertEquals("""
                starting permutation: s3q s1l s2l s1c
                step s3q: SELECT 1 AS one; <waiting ...>
                step s1l: LOCK TABLE t;
                step s3q: <... completed>
                one
                1
                step s2l: LOCK TABLE t; <waiting ...>
                step s1c: COMMIT;
                step s2l: <... completed>

                """, outcome.transcript().toString());
    }

    @Test
    void aHeldStepClaimingAServerWaitFails() throws Exception {
        Outcome outcome = run(HELD.replace("step s3q {", "step s3q waits-for=s1 {"));
        assertEquals("step s3q was to wait for s1, but the server never showed it waiting (a marker of the permutation "
                + "only held back its report)", outcome.failure().message());
        assertEquals("page.md:20:1", outcome.failure().location().toString());
    }

    @Test
    void aCompletionClaimOnAStepThatDoesNotWaitFails() throws Exception {
        Outcome outcome = run(HELD.replace("step s3q {", "step s3q completes-after=s1c {")
                .replace("permutation s1l s2l s3q(s2l) s1c", "permutation s1l s2l s3q s1c"));
        assertEquals("step s3q was to complete after s1c, but it finished without waiting", outcome.failure().message());
        assertEquals("page.md:20:1", outcome.failure().location().toString());
    }

    /**
     * As in the tester, a session whose step is held back issues nothing until it is reported: here s2l
     * is never released, so the permutation ends at Kensho's limit on s2l, and s3r is never issued.
     */
    @Test
    void aSessionWhoseStepIsHeldBackIssuesNothingUntilItIsReported() throws Exception {
        Outcome outcome = run(HELD.replace("permutation s1l s2l s3q(s2l) s1c", "step s3r { SELECT 2; }\n"
                + "permutation s1l s2l s3q(s2l) s3r s1c"));
        assertEquals("step s2l: Kensho stopped the statement after 5 s while it waited for a lock another session holds (its "
                + "own limit per statement, --statement-timeout); a limit of Kensho's never satisfies a claim. To show a "
                + "timeout, set statement_timeout or lock_timeout in the snippet itself", outcome.failure().message());
        assertEquals("page.md:18:1", outcome.failure().location().toString());
        assertTrue(!outcome.transcript().toString().contains("step s3r"), outcome.transcript().toString());
    }

    /**
     * The tester's "notices N" marker, as insert-conflict-specconflict uses it: s2n raises one notice,
     * then waits for s1's lock, then raises another; s3q(s2n notices 1) counts from its own issue, so it
     * is held back until the second notice, which s2n raises only once s1c has released it.
     */
    private static final String NOTICES = """
            setup { CREATE TABLE t (); }
            teardown { DROP TABLE t; }
            session s1
            setup { BEGIN; }
            step s1l { LOCK TABLE t; }
            step s1c { COMMIT; }
            step s1e { SELECT 2; }
            session s2
            step s2n waits-for=s1 completes-after=s1c { DO $$ BEGIN RAISE NOTICE 'before'; LOCK TABLE t; RAISE NOTICE 'after'; END $$; }
            notices {
            s2: NOTICE:  before
            s2: NOTICE:  after
            }
            session s3
            step s3q completes-after=s1c { SELECT 1 AS one; }
            permutation s1l s2n s3q(s2n notices 1) s1c s1e
            """;

    @Test
    void aStepHeldBackUntilAnotherSessionRaisesNoticesCompletesOnceTheyArrive() throws Exception {
        Outcome outcome = run(NOTICES);
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + outcome.transcript());
        assertEquals("""
                starting permutation: s1l s2n s3q s1c s1e
                step s1l: LOCK TABLE t;
                step s2n: DO $$ BEGIN RAISE NOTICE 'before'; LOCK TABLE t; RAISE NOTICE 'after'; END $$; <waiting ...>
                step s3q: SELECT 1 AS one; <waiting ...>
                step s1c: COMMIT;
                step s2n: <... completed>
                step s3q: <... completed>
                one
                1
                step s1e: SELECT 2;
                ?column?
                2

                """, outcome.transcript().toString());
    }

    @Test
    void aStepHeldBackForNoticesClaimedToCompleteElsewhereFails() throws Exception {
        Outcome outcome = run(NOTICES.replace("step s3q completes-after=s1c", "step s3q completes-after=s1e"));
        assertEquals("step s3q completed after s1c, not after s1e (its <... completed> follows s1c's line)",
                outcome.failure().message());
        assertEquals("page.md:24:1", outcome.failure().location().toString());
    }

    @Test
    void aStepHeldBackForNoticesNoStepRaisesFailsAtItsLine() throws Exception {
        Outcome outcome = run(NOTICES.replace("s3q(s2n notices 1)", "s3q(s2n notices 3)"));
        assertEquals("step s3q is held back until session s2 (of s2n) has raised 3 notice(s) since it was issued, and nothing "
                + "left in the permutation can make that happen (the permutation's markers block each other, or wait for "
                + "notices no step raises)", outcome.failure().message());
        assertEquals("page.md:24:1", outcome.failure().location().toString());
    }

    /** A value typed over psql's border space ("key-cx|") is compared whole: the step's rows claim is false. */
    @Test
    void aRowValueTypedOverTheBorderSpaceFailsTheStep() throws Exception {
        String scenario = """
                session s1
                step s1q { SELECT 'key-c' AS key, 1 AS n; }
                rows {
                  key  | n
                -------+---
                 key-cx| 1
                (1 row)
                }
                session s2
                step s2q { SELECT 1; }
                permutation s1q s2q
                """;
        Outcome outcome = run(scenario);
        assertEquals("step s1q: rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        assertEquals("page.md:11:1", outcome.failure().location().toString());
        assertTrue(run(scenario.replace(" key-cx| 1", " key-c | 1")).passed());
    }

    private static String parseError(String scenario) {
        return assertThrows(ScenarioSyntaxException.class, () -> ScenarioParser.parse(scenario)).getMessage();
    }

    @Test
    void malformedMarkersAreRefusedAtTheirLine() {
        assertEquals("step s3q's marker (s3q) names a step of its own session s3, which runs one step at a time; a marker "
                + "names a step of another session", parseError(HELD.replace("s3q(s2l)", "s3q(s3q)")));
        assertEquals("step s3q's marker (s1x) names a step this permutation does not issue",
                parseError(HELD.replace("s3q(s2l)", "s3q(s1x)")));
        assertEquals("the markers of step s3q opened by '(' are never closed by ')' on this line",
                parseError(HELD.replace("s3q(s2l)", "s3q(s2l")));
        assertEquals("a marker of step s3q is * or the name of another step, separated by commas (s3q(*), s3q(s2b), "
                + "s3q(s2b notices 2)), not ''",
                parseError(HELD.replace("s3q(s2l)", "s3q()")));
        assertEquals("the marker 's2l notices 0' of step s3q waits for no notice; a notices marker counts one or more",
                parseError(HELD.replace("s3q(s2l)", "s3q(s2l notices 0)")));
        assertEquals("step s3q's marker (s3q notices 1) names a step of its own session s3, whose notices are its own; a "
                + "marker names a step of another session", parseError(HELD.replace("s3q(s2l)", "s3q(s3q notices 1)")));
        assertEquals("step s3q's marker (s1x notices 1) names a step this permutation does not issue",
                parseError(HELD.replace("s3q(s2l)", "s3q(s1x notices 1)")));
        assertEquals("step s3q has the marker * twice", parseError(HELD.replace("s3q(s2l)", "s3q(*, *)")));
        assertEquals("step s3q states completes-after=s1l, but this permutation does not issue s1l after it",
                parseError(HELD.replace("step s3q {", "step s3q completes-after=s1l {")));
        assertEquals("completes-after names a step of another session (the last step issued before this one is reported "
                + "complete) or the step itself (reported complete before any other step is issued), not 's1c'",
                parseError(HELD.replace("step s1l {", "step s1l completes-after=s1c {")));
        // Both markers together parse: the step is reported waiting at once and held until s2l completes.
        assertEquals(new dev.kensho.sqlchecks.model.Scenario.Markers(true, List.of("s2l")),
                assertDoesNotThrow(() -> ScenarioParser.parse(HELD.replace("s3q(s2l)", "s3q(s2l, *)"))).permutations().get(0).markers().get(2));
        assertEquals(17, assertThrows(ScenarioSyntaxException.class,
                () -> ScenarioParser.parse(HELD.replace("s3q(s2l)", "s3q(s2l, s9)"))).line());
    }
}
