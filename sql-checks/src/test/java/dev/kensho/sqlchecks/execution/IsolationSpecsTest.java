package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL 18's own isolation specs (src/test/isolation/specs), written as scenarios with the claims
 * their expected output (src/test/isolation/expected/*.out) shows; each passes as written and a false
 * variant fails with its exact message.
 */
class IsolationSpecsTest {

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

    /** deadlock-simple.spec; deadlock-simple.out: s1ae waits, s2ae fails at once with "deadlock detected", s1ae completes. */
    private static final String DEADLOCK_SIMPLE = """
            setup { CREATE TABLE a1 (); }
            teardown { DROP TABLE a1; }
            session s1
            setup { BEGIN; }
            step s1as { LOCK TABLE a1 IN ACCESS SHARE MODE; }
            step s1ae waits-for=s2 { LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE; }
            step s1c { COMMIT; }
            session s2
            setup { BEGIN; }
            step s2as { LOCK TABLE a1 IN ACCESS SHARE MODE; }
            step s2ae expect-error=40P01 { LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE; }
            error { ERROR:  deadlock detected }
            step s2c { COMMIT; }
            permutation s1as s2as s1ae s2ae s1c s2c
            """;

    @Test
    void deadlockSimpleAsTheTesterReportsIt() throws Exception {
        Outcome outcome = run(DEADLOCK_SIMPLE);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals("""
                starting permutation: s1as s2as s1ae s2ae s1c s2c
                step s1as: LOCK TABLE a1 IN ACCESS SHARE MODE;
                step s2as: LOCK TABLE a1 IN ACCESS SHARE MODE;
                step s1ae: LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE; <waiting ...>
                step s2ae: LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE;
                ERROR:  deadlock detected
                step s1ae: <... completed>
                step s1c: COMMIT;
                step s2c: COMMIT;

                """, outcome.transcript().toString());
    }

    @Test
    void deadlockSimpleWithAnotherMessageFails() throws Exception {
        Outcome outcome = run(DEADLOCK_SIMPLE.replace("error { ERROR:  deadlock detected }", "error { ERROR:  lock timeout }"));
        assertEquals("step s2ae failed with SQLSTATE 40P01 as stated, but with the message \"deadlock detected\", not \"lock timeout\"",
                outcome.failure().message());
        assertEquals("page.md:20:1", outcome.failure().location().toString());
    }

    @Test
    void deadlockSimpleStatedByItsMessageAloneAsTheTesterShowsIt() throws Exception {
        String messageOnly = DEADLOCK_SIMPLE.replace("step s2ae expect-error=40P01 {", "step s2ae {");
        Outcome outcome = run(messageOnly);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        Outcome other = run(messageOnly.replace("error { ERROR:  deadlock detected }", "error { ERROR:  lock timeout }"));
        assertEquals("step s2ae failed with the message \"deadlock detected\", not \"lock timeout\"", other.failure().message());
    }

    /**
     * drop-index-concurrently-1.spec; its .out: drop waits until s1 ends (here the server names s1's
     * transaction, the older, as what it waits for), and both prepared queries see the two rows.
     */
    private static final String DROP_INDEX_CONCURRENTLY_1 = """
            setup {
            CREATE TABLE test_dc(id serial primary key, data int);
            INSERT INTO test_dc(data) SELECT * FROM generate_series(1, 100);
            CREATE INDEX test_dc_data ON test_dc(data);
            }
            teardown { DROP TABLE test_dc; }
            session s1
            step noseq { SET enable_seqscan = false; }
            step prepi { PREPARE getrow_idx AS SELECT * FROM test_dc WHERE data=34 ORDER BY id,data; }
            step preps { PREPARE getrow_seq AS SELECT * FROM test_dc WHERE data::text=34::text ORDER BY id,data; }
            step begin { BEGIN; }
            step explaini { EXPLAIN (COSTS OFF) EXECUTE getrow_idx; }
            step explains { EXPLAIN (COSTS OFF) EXECUTE getrow_seq; }
            step selecti { EXECUTE getrow_idx; }
            rows {
             id  | data
            -----+------
              34 |   34
             134 |   34
            (2 rows)
            }
            step selects { EXECUTE getrow_seq; }
            step end { COMMIT; }
            session s2
            setup { BEGIN; }
            step select2 { SELECT * FROM test_dc WHERE data=34 ORDER BY id,data; }
            step insert2 { INSERT INTO test_dc(data) SELECT * FROM generate_series(1, 100); }
            step end2 { COMMIT; }
            session s3
            step drop waits-for=s1 { DROP INDEX CONCURRENTLY test_dc_data; }
            permutation noseq prepi preps begin explaini explains select2 drop insert2 end2 selecti selects end
            """;

    @Test
    void dropIndexConcurrentlyWaitsForEachSessionInTurn() throws Exception {
        Outcome outcome = run(DROP_INDEX_CONCURRENTLY_1);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.transcript());
        String transcript = outcome.transcript().toString();
        assertTrue(transcript.endsWith("step end: COMMIT;\nstep drop: <... completed>\n\n"), transcript);
        // The tester records no names at all: waits-for=* claims just that.
        Outcome any = run(DROP_INDEX_CONCURRENTLY_1.replace("waits-for=s1", "waits-for=*"));
        assertTrue(any.passed(), () -> String.valueOf(any.failure()));
    }

    @Test
    void dropIndexConcurrentlyFalseVariantsFail() throws Exception {
        Outcome noWait = run(DROP_INDEX_CONCURRENTLY_1.replace("step drop waits-for=s1 ", "step drop "));
        assertEquals("step drop waits for s1, but the scenario does not say so; add waits-for=s1 (or waits-for=*) if that is "
                + "the point", noWait.failure().message());
        Outcome other = run(DROP_INDEX_CONCURRENTLY_1.replace("waits-for=s1", "waits-for=s1,s2"));
        assertEquals("step drop waited for s1, never for s2", other.failure().message());
        Outcome oneRow = run(DROP_INDEX_CONCURRENTLY_1.replace(" 134 |   34\n(2 rows)", "(1 row)"));
        // Statements ran between PREPARE and EXECUTE (BEGIN, EXPLAIN …), so Kensho no longer vouches for which query
        // getrow_idx is: the rows compare as the server returned them, and the wrong claim still fails.
        assertEquals("step selecti: rows differ (in the order the server returned them, because the order the statement promises "
                + "cannot be known: the prepared statement getrow_idx was not prepared by a statement Kensho saw parsed since (a "
                + "statement ran in between that could have prepared it anew))", oneRow.failure().message());
    }

    /**
     * A step of two statements without BEGIN is one query string, so one implicit transaction, as the
     * tester sends it: the error of the second undoes the first (split psql-style, the INSERT would stay).
     */
    private static final String MULTI_STATEMENT_STEP = """
            setup { CREATE TABLE t (id int); }
            teardown { DROP TABLE t; }
            session s1
            step both expect-error=22012 { INSERT INTO t VALUES (1); SELECT 1/0; }
            error { division by zero }
            session s2
            step count { SELECT count(*) FROM t; SELECT 'after' AS note; }
            rows {
             count
            -------
                 0
            (1 row)
            }
            rows {
             note
            -------
             after
            (1 row)
            }
            permutation both count
            """;

    @Test
    void aStepOfSeveralStatementsIsOneImplicitTransaction() throws Exception {
        Outcome outcome = run(MULTI_STATEMENT_STEP);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        // As the tester prints it, every statement's result is in the transcript, not only the last.
        assertTrue(outcome.transcript().toString().endsWith("step count: SELECT count(*) FROM t; SELECT 'after' AS note;\n"
                + "count\n0\nnote\nafter\n\n"), outcome.transcript().toString());
        Outcome split = run(MULTI_STATEMENT_STEP.replace("     0\n", "     1\n"));
        assertEquals("step count (result 1 of 2): rows differ (as a multiset, because the query has no ORDER BY)",
                split.failure().message());
    }

    /**
     * A step of several statements sent as one string: each result's order is read from its own
     * statement's parse tree (the trees come one per statement, in order), so that ties of the second
     * statement's ORDER BY may be written in any order and a wrong order of it still fails.
     */
    private static final String ORDERED_RESULTS_OF_ONE_STEP = """
            setup { CREATE TABLE o (k int, s text); INSERT INTO o VALUES (1, 'a'), (1, 'b'), (2, 'c'); }
            teardown { DROP TABLE o; }
            session s1
            step both { SELECT count(*) FROM o; SELECT k, s FROM o ORDER BY k DESC; }
            rows {
             count
            -------
                 3
            (1 row)
            }
            rows {
             k | s
            ---+---
             2 | c
             1 | b
             1 | a
            (3 rows)
            }
            session s2
            step other { SELECT 1 AS one; }
            permutation both other
            """;

    @Test
    void eachResultOfAStepTakesItsOrderFromItsOwnStatement() throws Exception {
        Outcome tiesInAnyOrder = run(ORDERED_RESULTS_OF_ONE_STEP);
        assertTrue(tiesInAnyOrder.passed(), () -> String.valueOf(tiesInAnyOrder.failure()));
        Outcome tiesSwapped = run(ORDERED_RESULTS_OF_ONE_STEP.replace(" 1 | b\n 1 | a", " 1 | a\n 1 | b"));
        assertTrue(tiesSwapped.passed(), () -> String.valueOf(tiesSwapped.failure()));
        Outcome wrong = run(ORDERED_RESULTS_OF_ONE_STEP.replace(" 2 | c\n 1 | b\n 1 | a", " 1 | b\n 2 | c\n 1 | a"));
        assertEquals("step both (result 2 of 2): the same rows came back in another order, and the query has ORDER BY",
                wrong.failure().message());
    }

    /**
     * Which session of a deadlock detects it is decided by each session's deadlock_timeout, which the
     * tester's specs set (deadlock-hard, deadlock-soft); a page's role may set it too.
     */
    private static final String DEADLOCK_TIMEOUT_DECIDES = """
            setup { CREATE TABLE a1 (); CREATE TABLE a2 (); }
            teardown { DROP TABLE a1, a2; }
            session s1
            setup { BEGIN; SET deadlock_timeout = '10s'; }
            step s1a1 { LOCK TABLE a1; }
            step s1a2 waits-for=s2 { LOCK TABLE a2; }
            step s1c { COMMIT; }
            session s2
            setup { BEGIN; SET deadlock_timeout = '500ms'; }
            step s2a2 { LOCK TABLE a2; }
            step s2a1 waits-for=s1 expect-error=40P01 { LOCK TABLE a1; }
            error { deadlock detected }
            step s2c { COMMIT; }
            permutation s1a1 s2a2 s1a2 s2a1 s1c s2c
            """;

    @Test
    void aScenarioSetsDeadlockTimeoutToDecideWhoDetectsTheDeadlock() throws Exception {
        Outcome outcome = run(DEADLOCK_TIMEOUT_DECIDES);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        // The other way round, s1 (waiting first) checks for the deadlock first and is the one that fails.
        Outcome other = run(DEADLOCK_TIMEOUT_DECIDES.replace("'10s'", "'x'").replace("'500ms'", "'10s'").replace("'x'", "'500ms'"));
        assertEquals("step s1a2: deadlock detected", other.failure().message());
    }

    /** The tester prints each notice a step raises ("s1: NOTICE:  …"); a notices block states them, in order. */
    private static final String NOTICES = """
            setup { CREATE TABLE t (id int); }
            teardown { DROP TABLE t; }
            session s1
            step raise { DO $$BEGIN RAISE NOTICE 'first %', 1; RAISE WARNING 'second'; END$$; SELECT 1 AS one; }
            notices {
            s1: NOTICE:  first 1
            s1: WARNING:  second
            }
            session s2
            step quiet { SELECT 2 AS two; }
            notices { }
            permutation raise quiet
            """;

    @Test
    void noticesAreStatedAsTheTesterPrintsThem() throws Exception {
        Outcome outcome = run(NOTICES);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        Outcome other = run(NOTICES.replace("NOTICE:  first 1", "NOTICE:  first 2"));
        assertEquals("step raise raised NOTICE:  first 1 / WARNING:  second, not NOTICE:  first 2 / WARNING:  second",
                other.failure().message());
        Outcome none = run(NOTICES.replace("step quiet { SELECT 2 AS two; }", "step quiet { DO $$BEGIN RAISE NOTICE 'x'; END$$; }"));
        assertEquals("step quiet raised NOTICE:  x, not no notice", none.failure().message());
    }

    /** A failure names the first five notices and their number, not every one (a loop raising thousands). */
    @Test
    void aFailureNamesTheFirstNoticesAndHowManyThereWere() throws Exception {
        Outcome many = run(NOTICES.replace("step quiet { SELECT 2 AS two; }",
                "step quiet { DO $$BEGIN FOR i IN 1..7 LOOP RAISE NOTICE 'n%', i; END LOOP; END$$; }"));
        assertEquals("step quiet raised NOTICE:  n1 / NOTICE:  n2 / NOTICE:  n3 / NOTICE:  n4 / NOTICE:  n5 / … (7 in all), not no notice",
                many.failure().message());
    }

    /** Past the notices Kensho keeps of a step, a claim about them cannot be checked; the loop's memory stays bounded. */
    @Test
    void aClaimAboutMoreNoticesThanKenshoKeepsCannotPass() throws Exception {
        Outcome flood = run(NOTICES.replace("step quiet { SELECT 2 AS two; }",
                "step quiet { DO $$BEGIN FOR i IN 1..1001 LOOP RAISE NOTICE 'n%', i; END LOOP; END$$; }"));
        assertEquals("step quiet raised 1001 notices, more than the 1000 Kensho keeps of a step or longer than 4096 characters; "
                + "a claim about them cannot be checked: raise fewer", flood.failure().message());
        Outcome longOne = run(NOTICES.replace("step quiet { SELECT 2 AS two; }",
                "step quiet { DO $$BEGIN RAISE NOTICE '%', repeat('x', 5000); END$$; }"));
        assertEquals("step quiet raised 1 notices, more than the 1000 Kensho keeps of a step or longer than 4096 characters; "
                + "a claim about them cannot be checked: raise fewer", longOne.failure().message());
    }
}
