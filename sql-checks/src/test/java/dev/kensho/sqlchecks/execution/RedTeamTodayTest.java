package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Red team of the replays per question: each question a plan claim needs is answered on a replay of the page up to it, so
 * a page of n such claims runs its earlier snippets n(n+1)/2 times. Each replay had the page's own time limit, none had a
 * limit together: a page whose snippets took just under --page-timeout held its build for n times that.
 */
class RedTeamTodayTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)).withPageTimeout(Duration.ofSeconds(4)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    /**
     * Twelve plan claims, each after a snippet that sleeps 0.1 s: the real run takes 1.2 s and more of its 4 s, the replays would take
     * 0.1 × (1 + … + 12) = 7.8 s and more. The replays together get the page's limit: the claims whose replay would start past it
     * fail at their line, saying why; the first ones are still answered.
     */
    @Test
    void aPageOfManyPlanClaimsGetsItsReplaysWithinOnePageLimitAndFailsLoudlyPastIt() throws Exception {
        TestPage page = TestPage.on(verifier).add("", "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g; ANALYZE t;");
        for (int i = 0; i < 12; i++) {
            page.add("", "SELECT pg_sleep(0.1);").add("uses-index=t_pkey", "SELECT v FROM t WHERE id = " + (i + 1) + ";");
        }
        PageResult result = page.run();
        Outcome first = result.outcomes().get(2);
        assertNull(first.failure(), () -> String.valueOf(first.failure()));
        Outcome last = result.outcomes().get(result.outcomes().size() - 1);
        assertTrue(last.failure() != null, "the last claim passed: its replay ran past the page's limit for the replays");
        assertEquals("plan claims cannot be checked: the names and keys they rest on (uses-index=, no-seq-scan=, an index's keys, a "
                + "table's TOAST size) are read from the page's catalog on a replay of the page on a fresh database, never beside the "
                + "reader's statements, and the replay did not reach this snippet as the real run did (the page's replays, one per "
                + "question, took longer than 4 s together, its limit per page (--page-timeout)); make the snippets before it end the "
                + "same on every run", last.failure().message());
        assertEquals(last.snippet().location(), last.failure().location());
    }

    /**
     * A page that tells its replays from its real run by the server's transaction counter, moved by its own last snippet
     * (30,000 subtransactions that each take an ID): a replay up to the uses-index= claim starts past them, the real run
     * does not. Only the real run shadows docs_v; the claim must be judged against that catalog, or fail.
     */
    static PageResult countingTransactions(String age) throws Exception {
        try (Verifier fresh = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)))) {
            return TestPage.on(fresh)
                    .add("", "CREATE TABLE docs (id int PRIMARY KEY, v int); INSERT INTO docs SELECT g, g FROM generate_series(1, 1000) g;"
                            + " CREATE INDEX docs_v ON docs (v); ANALYZE docs; CREATE TABLE burn (i int);")
                    .add("", "DO $$ BEGIN IF " + age + " < 15000 THEN " + CaptureRunTest.SHADOW_DOCS_V + " END IF; END $$;")
                    .add("uses-index=docs_v", "SELECT id FROM docs WHERE v = 7;")
                    .add("", "SELECT count(*) AS shadowed FROM pg_class WHERE relname = 'docs_v';", " shadowed\n----------\n        2\n")
                    .add("", "DO $$ BEGIN FOR i IN 1..30000 LOOP BEGIN INSERT INTO burn VALUES (i); EXCEPTION WHEN others THEN NULL; END;"
                            + " END LOOP; END $$;").run();
        }
    }

    /** Held: txid_current() read by the snippet that decides fails every later claim (ServerWideReaders). */
    @Test
    void aPageThatTellsItsReplayByTxidCurrentCannotPassAPlanClaim() throws Exception {
        PageResult result = countingTransactions("txid_current() - (SELECT datfrozenxid::text::bigint FROM pg_database WHERE datname = current_database())");
        Outcome claim = result.outcomes().get(2);
        assertTrue(claim.failure() != null, () -> "passed on the replay's catalog: " + result.outcomes());
        assertEquals("this claim cannot be checked: the page reads a counter the whole server shares (txid_current, at page.md:5:4; its "
                + "value moved with everything the build's server did before the page ran; a reader's server counts from elsewhere)",
                claim.failure().message());
    }
}
