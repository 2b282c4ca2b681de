package dev.kensho.sqlchecks;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A hostile page cannot fill the disk, hang on a regular expression or run past its time budget; none of these limits satisfies a claim. */
class ResourceLimitsTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(5))
                .withPageTimeout(Duration.ofSeconds(3)).withDatabaseBytes(32L << 20));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    @Test
    void aPageThatFillsTheDiskIsStopped() throws Exception {
        long t0 = System.nanoTime();
        Outcome outcome = TestPage.on(verifier).add("", """
                CREATE TABLE filler (v text);
                INSERT INTO filler SELECT repeat('x', 200) FROM generate_series(1, 2000000);""").last();
        assertTrue(outcome.failure().message().startsWith("Kensho stopped the page: its database grew past 32 MiB (its limit on disk per page)"),
                outcome.failure().message());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos());
    }

    @Test
    void temporaryFilesAreBoundedAndTheLimitSatisfiesNoClaim() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("expect-error=53400", """
                SET work_mem = '64kB';
                SELECT count(*) FROM (SELECT g FROM generate_series(1, 3000000) AS g ORDER BY g DESC) AS s;""").last();
        assertTrue(outcome.failure().message().contains("only an error the server reports for the lesson's own SQL satisfies expect-error"),
                outcome.failure().message());
        assertTrue(outcome.failure().message().startsWith("it hit the temp_file_limit Kensho sets (its limit on disk per page): "
                + "temporary file size exceeds \"temp_file_limit\" (32768kB)"), outcome.failure().message());
    }

    @Test
    void aCatastrophicErrorPatternIsStoppedWithAReason() throws Exception {
        long t0 = System.nanoTime();
        Outcome outcome = TestPage.on(verifier).add("expect-error=P0001 error-matches=\"(.*a){20}x\"",
                "DO $$ BEGIN RAISE EXCEPTION '" + "a".repeat(60) + "b'; END $$;").last();
        assertEquals("error-matches /(.*a){20}x/ took longer than 1 s on the message (catastrophic backtracking); write a simpler "
                + "pattern, such as a plain part of the message", outcome.failure().message());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(4).toNanos());
    }

    @Test
    void aPageHasATotalTimeBudget() throws Exception {
        PageResult result = TestPage.on(verifier).add("", "SELECT pg_sleep(2);").add("", "SELECT pg_sleep(2);")
                .add("", "SELECT 1;").run();
        assertEquals(Outcome.Status.FAILED, result.outcomes().get(2).status());
        assertEquals("Kensho stopped the page before this snippet: its snippets ran longer than 3 s together (its limit per page, "
                + "--page-timeout); a limit of Kensho's never satisfies a claim", result.outcomes().get(2).failure().message());
        assertEquals(new SourceLocation("page.md", 9, 1), result.outcomes().get(2).failure().location());
    }
}
