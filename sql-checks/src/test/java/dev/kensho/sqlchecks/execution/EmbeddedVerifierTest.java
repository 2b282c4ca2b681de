package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ResultTable;
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

/** Runs against the real PostgreSQL 18.6 binaries from Maven Central. */
class EmbeddedVerifierTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(1)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static Snippet snippet(int line, String sql) {
        return Snippet.of(new SourceLocation("content/page.md", line, 1), sql);
    }

    @Test
    void reportsTheExactServerVersion() {
        assertEquals("18.6", verifier.serverVersion());
    }

    @Test
    void aPageRunsAsAScriptOnOneConnectionAndKeepsTheRows() {
        PageResult result = verifier.verifyPage("page", List.of(
                snippet(3, "CREATE TABLE orders (id int PRIMARY KEY, note text);"),
                snippet(8, "INSERT INTO orders VALUES (1, 'a;b'), (2, NULL);\nSELECT id, note FROM orders ORDER BY id;")));
        assertTrue(result.passed(), () -> result.toString());
        ResultTable table = result.outcomes().get(1).results().get(0);
        assertEquals(List.of("id", "note"), table.columns());
        assertEquals(List.of(List.of("1", "a;b"), java.util.Arrays.asList("2", null)), table.rows());
    }

    @Test
    void eachPageGetsAFreshDatabase() {
        verifier.verifyPage("first", List.of(snippet(1, "CREATE TABLE leftover (x int)")));
        PageResult second = verifier.verifyPage("second", List.of(snippet(1, "SELECT * FROM leftover")));
        assertEquals("relation \"leftover\" does not exist", second.outcomes().get(0).failure().message());
    }

    @Test
    void aSyntaxErrorPointsAtTheServersPositionInTheAuthorsFile() {
        PageResult result = verifier.verifyPage("page", List.of(
                snippet(10, "SELECT 1;\nSELECT id\n  FORM orders;")));
        Failure failure = result.outcomes().get(0).failure();
        assertEquals("syntax error at or near \"orders\"", failure.message());
        assertEquals("42601", failure.sqlState());
        assertEquals(new SourceLocation("content/page.md", 12, 8), failure.location());
        assertEquals("  FORM orders;", failure.sourceLine());
    }

    @Test
    void aMissingTableIsReportedWithItsSqlStateAndColumn() {
        PageResult result = verifier.verifyPage("page", List.of(
                new Snippet(new SourceLocation("content/page.md", 20, 4), "SELECT *\nFROM \"order\";", 3, Directives.NONE, null, null)));
        Failure failure = result.outcomes().get(0).failure();
        assertEquals("relation \"order\" does not exist", failure.message());
        assertEquals("42P01", failure.sqlState());
        assertEquals(new SourceLocation("content/page.md", 21, 9), failure.location());
        assertEquals("   FROM \"order\";", failure.sourceLine());
    }

    @Test
    void laterSnippetsOnAFailedPageAreSkippedNotRun() {
        PageResult result = verifier.verifyPage("page", List.of(
                snippet(1, "SELECT nope"), snippet(5, "SELECT 1")));
        assertEquals(Outcome.Status.FAILED, result.outcomes().get(0).status());
        assertEquals(Outcome.Status.SKIPPED, result.outcomes().get(1).status());
        assertEquals("not run: the snippet at content/page.md:1:1 failed and this one builds on it",
                result.outcomes().get(1).failure().message());
    }

    @Test
    void aRunawayStatementIsStoppedByTheStatementTimeout() {
        long t0 = System.nanoTime();
        PageResult result = verifier.verifyPage("page", List.of(snippet(1, "SELECT pg_sleep(30)")));
        Failure failure = result.outcomes().get(0).failure();
        assertEquals("Kensho stopped the statement after 1 s (its own limit per statement, --statement-timeout); a limit of "
                + "Kensho's never satisfies a claim. To show a timeout, set statement_timeout or lock_timeout in the snippet itself",
                failure.message());
        assertNull(failure.sqlState());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos());
    }

    @Test
    void aSnippetThatSwallowsEveryCancelHasItsSessionTerminated() {
        long t0 = System.nanoTime();
        PageResult result = verifier.verifyPage("page", List.of(snippet(1, """
                DO $$ BEGIN
                  LOOP
                    BEGIN PERFORM pg_sleep(3600); EXCEPTION WHEN query_canceled THEN NULL; END;
                  END LOOP;
                END $$;"""), snippet(7, "SELECT 1")));
        Failure failure = result.outcomes().get(0).failure();
        assertEquals("Kensho stopped the statement after 1 s, and as it ignored the cancel (does it catch query_canceled?) "
                + "terminated its session 2 s later; a limit of Kensho's never satisfies a claim. To show a timeout, set "
                + "statement_timeout or lock_timeout in the snippet itself", failure.message());
        assertEquals(Outcome.Status.SKIPPED, result.outcomes().get(1).status());
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(6).toNanos(), "took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }

    @Test
    void thePageRoleCannotRunProgramsOnTheServer() {
        PageResult result = verifier.verifyPage("page", List.of(
                snippet(1, "CREATE TABLE loot (line text);\nCOPY loot FROM PROGRAM 'id';")));
        Failure failure = result.outcomes().get(0).failure();
        assertEquals("42501", failure.sqlState());
        assertEquals("permission denied to COPY to or from an external program", failure.message());
    }

    @Test
    void thePageRoleCannotReadServerFiles() {
        PageResult result = verifier.verifyPage("page", List.of(snippet(1, "SELECT pg_read_file('PG_VERSION')")));
        Failure failure = result.outcomes().get(0).failure();
        assertEquals("42501", failure.sqlState());
        assertEquals("permission denied for function pg_read_file", failure.message());
    }

    @Test
    void thePageRoleIsNotASuperuser() {
        PageResult result = verifier.verifyPage("page", List.of(
                snippet(1, "SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user")));
        assertEquals(List.of(List.of("f", "f", "f")), result.outcomes().get(0).results().get(0).rows());
        assertNull(result.outcomes().get(0).failure());
    }
}
