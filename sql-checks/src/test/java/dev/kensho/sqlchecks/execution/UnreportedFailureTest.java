package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A statement that failed before the server reported it ran nothing, and fails for a reader too, only while the reports
 * are known to be on ({@link ParseReports}) and only where nothing it names resolves differently for a reader. A statement
 * the rewriter refused ran nothing either (PostgreSQL's updatable_views test lost 273 of 276 true claims to its first
 * {@code DELETE FROM ro_view1}, returning 68).
 */
class UnreportedFailureTest extends VerifierFixture {

    private static final String COUNT_ZERO = " n\n---\n 0\n";

    private static String unreported(String at) {
        return "this claim cannot be checked: the server did not report what a statement of the page read at run time (the "
                + "statement that failed in the snippet at " + at + " was not reported: " + ParseCapture.SILENCED + ")";
    }

    /** With the reports off a failed statement may have run, and failed on a value a reader's run reads otherwise. */
    @Test
    void aFailureWhileThePageHasTheReportsOffLasts() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);")
                .add("", "SET debug_print_parse = off;")
                .add("expect-error=22012", "INSERT INTO t SELECT 1 / (SELECT count(*) FROM t)::int;")
                .add("", "RESET debug_print_parse;\nSELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertEquals(unreported("page.md:9:1"), result.outcomes().get(2).failure().message());
        assertEquals(unreported("page.md:9:1"), result.outcomes().get(3).failure().message());
        assertEquals("page.md:13:1", result.outcomes().get(3).failure().location().toString());
    }

    @Test
    void soInTheSameSnippet() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);")
                .add("expect-error=22012", "SET client_min_messages = warning;\nINSERT INTO t SELECT 1 / (SELECT count(*) FROM t)::int;")
                .add("", "RESET client_min_messages;\nSELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertEquals(unreported("page.md:5:1"), result.outcomes().get(1).failure().message());
        assertEquals(unreported("page.md:5:1"), result.outcomes().get(2).failure().message());
    }

    /**
     * Red team (helper-74, 1): a RESET inside a transaction block the page rolls back is undone after the ROLLBACK was
     * reported; the reports are unknown until the server reports a statement again.
     */
    @Test
    void aResetTheBlocksRollbackUndidLeavesThemOff() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);")
                .add("", "SET client_min_messages = warning;")
                .add("", "BEGIN; RESET client_min_messages; ROLLBACK;")
                .add("expect-error=22012", "INSERT INTO t SELECT 1 / (SELECT count(*) FROM t)::int;")
                .add("", "RESET client_min_messages;\nSELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertEquals(unreported("page.md:13:1"), result.outcomes().get(3).failure().message());
        assertEquals(unreported("page.md:13:1"), result.outcomes().get(4).failure().message());
    }

    /** A function of the page's that turns them off may run again unseen (PL/pgSQL keeps its plans): never known on again. */
    @Test
    void aFunctionThatTurnsThemOffLeavesThemUnknownForGood() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);\nCREATE FUNCTION quiet() RETURNS void LANGUAGE plpgsql AS "
                        + "$$ BEGIN PERFORM set_config('client_min_messages', 'warning', false); END $$;")
                .add("", "SELECT quiet();\nRESET client_min_messages;\nSELECT 1 AS one;", " one\n-----\n   1\n")
                .add("expect-error=42703", "SELECT nosuch FROM t;")
                .add("", "SELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        // The text gate refuses the name in the body first (a setting of Kensho's read); ParseReports would hold the same.
        VerifierFixture.assertNotPassed(result.outcomes().get(2));
        VerifierFixture.assertNotPassed(result.outcomes().get(3));
        assertEquals("page.md:16:1", result.outcomes().get(3).failure().location().toString());
    }

    /** PostgreSQL's own tests quiet their clean-up so; the next statement the server rejects in parse analysis ran nothing. */
    @Test
    void reportsTurnedOffAndResetAtTopLevelAreOnAgain() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);\nSET client_min_messages = warning;\nDROP TABLE IF EXISTS nothing;\n"
                        + "RESET client_min_messages;")
                .add("expect-error=42703 error-matches=\"^column .nosuch. does not exist$\"", "SELECT nosuch FROM t;")
                .add("", "SELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertNull(result.outcomes().get(1).failure());
        assertNull(result.outcomes().get(2).failure());
    }

    @Test
    void aStatementTheRewriterRefusedRanNothing() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);\nCREATE VIEW v AS SELECT count(*) AS c FROM t;")
                .add("expect-error=55000 error-matches=\"^cannot delete from view .v.$\"", "DELETE FROM v;")
                .add("", "SELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertNull(result.outcomes().get(1).failure());
        assertNull(result.outcomes().get(2).failure());
    }

    /** With the rewritten reports off, a statement on a view that failed may have failed while it ran. */
    @Test
    void notWhenThePageTurnedTheRewrittenReportsOff() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (n int);\nCREATE VIEW v AS SELECT count(*) AS c FROM t;")
                .add("", "SET debug_print_rewritten = off;")
                .add("expect-error=55000", "DELETE FROM v;")
                .add("", "SELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        VerifierFixture.assertNotPassed(result.outcomes().get(2));
        assertEquals("page.md:14:1", result.outcomes().get(3).failure().location().toString());
        VerifierFixture.assertNotPassed(result.outcomes().get(3));
    }

    /**
     * The playground's role exists in a reader's server only: a literal naming it fails in parse analysis at build and
     * succeeds in the browser, keeping what it did there; a grantee built at run time is named by the server's tree.
     */
    @Test
    void thePlaygroundsRoleResolvesOnlyForAReader() throws Exception {
        String roles = "this claim cannot be checked: the page reads the server's roles ('kensho_reader', at page.md:5:22; "
                + ServerWideReaders.Shared.ROLES.why + ")";
        PageResult literal = page().add("", "CREATE TABLE t (n oid);")
                .add("expect-error=42704", "INSERT INTO t SELECT 'kensho_reader'::regrole::oid;")
                .add("", "SELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertEquals(roles, literal.outcomes().get(1).failure().message());
        assertEquals(roles, literal.outcomes().get(2).failure().message());
        // Red team (helper-74, 3): PostgreSQL joins string constants separated by a line break into one.
        PageResult continued = page().add("", "CREATE TABLE t (n oid);")
                .add("expect-error=42704", "INSERT INTO t SELECT 1 WHERE 'kensho_'\n'reader'::regrole IS NOT NULL;")
                .add("", "SELECT count(*) AS n FROM t;", COUNT_ZERO).run();
        assertEquals("this claim cannot be checked: the page reads the server's roles ('kensho_', at page.md:5:30; "
                + ServerWideReaders.Shared.ROLES.why + ")", continued.outcomes().get(2).failure().message());
        PageResult built = page().add("", "CREATE TABLE t (n int);")
                .add("expect-error=42704", "DO $$ BEGIN EXECUTE format('GRANT SELECT ON t TO %I', 'kensho_' || 'reader'); END $$;")
                .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").run();
        assertEquals("this claim cannot be checked: the page reads the server's roles (kensho_reader, read by a statement the "
                + "page built at run time, in the snippet at page.md:5:1; " + ServerWideReaders.Shared.ROLES.why + ")",
                built.outcomes().get(2).failure().message());
    }
}
