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
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)).withPageTimeout(Duration.ofSeconds(3)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    /**
     * Twelve plan claims, each after a snippet that sleeps 0.1 s: the real run takes 1.2 s and more of its 3 s, the replays would take
     * 0.1 × (1 + … + 12) = 7.8 s and more. The replays together get the page's limit: the claims whose replay would start past it
     * fail at their line, saying why; the first ones are still answered.
     */
    @Test
    void aPageOfManyPlanClaimsGetsItsReplaysWithinOnePageLimitAndFailsLoudlyPastIt() throws Exception {
        TestPage page = TestPage.on(verifier).add("", "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t SELECT g, g FROM generate_series(1, 1000) g; ANALYZE t;");
        for (int i = 0; i < 12; i++) {
            page.add("", "SELECT pg_sleep(0.1);").add("uses-index=t_pkey", "SELECT v FROM t WHERE id = " + (i + 1) + ";");
        }
        long started = System.nanoTime();
        PageResult result = page.run();
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        Outcome first = result.outcomes().get(2);
        assertNull(first.failure(), () -> String.valueOf(first.failure()));
        Outcome last = result.outcomes().get(result.outcomes().size() - 1);
        assertTrue(last.failure() != null, "the last claim passed after " + seconds + " s");
        assertEquals("plan claims cannot be checked: the names and keys they rest on (uses-index=, no-seq-scan=, an index's keys, a "
                + "table's TOAST size) are read from the page's catalog on a replay of the page on a fresh database, never beside the "
                + "reader's statements, and the replay did not reach this snippet as the real run did (the page's replays, one per "
                + "question, took longer than 3 s together, its limit per page (--page-timeout)); make the snippets before it end the "
                + "same on every run", last.failure().message());
        assertEquals(last.snippet().location(), last.failure().location());
        assertTrue(seconds < 3 + 3 + 5, "took " + seconds + " s");
    }
}
