package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;

/**
 * Red team (h-red, finding 1): a page that silences the server's parse reports (SET debug_print_parse = off,
 * client_min_messages above LOG, RESET ALL, DISCARD ALL, in a hidden setup or a scenario step) hid a counter from the tree
 * gate, and the claim showing it passed as 検証済み. The reports are Kensho's session start-up options, so a reset returns to
 * them; a statement that still runs unreported makes every later claim of the page uncheckable, whatever it names.
 */
class SilencedReportsTest extends VerifierFixture {

    private static final String SETUP = "CREATE TABLE t (id int);";
    private static final String COUNTER_CLAIM = "SELECT oid::bigint > 16383 AS late FROM pg_class WHERE relname = 't';";
    private static final String LATE = " late\n------\n t\n";

    private static String unreported(String at) {
        return "this claim cannot be checked: the server did not report what a statement of the page read at run time (the "
                + "statement at " + at + " ran unreported: Kensho's session settings debug_print_parse = on, debug_pretty_print = "
                + "off and client_min_messages = log deliver the reports, and the page changed one of them; RESET it before "
                + "anything but DROP, GRANT, SET and the like runs)";
    }

    @Test
    void aClaimAfterTheReportsWereSwitchedOffCannotPass() throws Exception {
        TestPage.assertRefused(unreported("page.md:6:1"), "page.md:6:1",
                page().add("", SETUP + "\nSET debug_print_parse = off;").add("", COUNTER_CLAIM, LATE).last());
        // Whatever the later claim names: what an unreported statement stored is unknown.
        TestPage.assertRefused(unreported("page.md:6:1"), "page.md:10:1",
                page().add("", SETUP + "\nSET client_min_messages = warning;")
                        .add("", "CREATE TABLE s AS SELECT oid::bigint > 16383 AS late FROM pg_class WHERE relname = 't';")
                        .add("", "SELECT late FROM s;", LATE).last());
        // In a hidden setup too, which no mark states.
        TestPage.assertRefused(unreported("page.md:6:1"), "page.md:6:1",
                page().add("setup hidden", SETUP + "\nSET debug_print_parse = off;").add("", "SELECT 1 AS one;", " one\n-----\n   1\n").last());
    }

    @Test
    void aResetReturnsToTheReportsAndTheGateStillJudges() throws Exception {
        for (String reset : new String[] {"RESET ALL;", "DISCARD ALL;", "RESET debug_print_parse;", "RESET client_min_messages;"}) {
            assertNotPassed(page().add("", SETUP + "\n" + reset).add("", COUNTER_CLAIM, LATE).last());
            assertPassed(page().add("", SETUP + "\n" + reset).add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").last());
        }
    }

    /** A scenario's setup runs on the page's session: silenced there, the scenario's claims cannot pass. */
    @Test
    void aScenarioRunAfterTheReportsWereSilencedLeavesNoClaimCheckable() throws Exception {
        String scenario = """
                setup { CREATE TABLE s AS SELECT 't'::regclass::oid::int8 > 16383 AS late; }
                session s1
                step s1a { SELECT late FROM s; }
                rows {
                 late
                ------
                 t
                }
                session s2
                step s2a { SELECT 1 AS one; }
                permutation s1a s2a
                """;
        dev.kensho.sqlchecks.model.Outcome outcome = page().add("", SETUP + "\nSET client_min_messages = warning;").addScenario(scenario).last();
        TestPage.assertRefused(unreported("page.md:6:1"), "page.md:6:1", outcome);
    }

    /**
     * PostgreSQL's own tests silence the server around their clean-up (alter_table, privileges, rowsecurity, ...): statements
     * that evaluate nothing of the page's may run unreported, and the claims after the RESET pass; a query run unreported
     * does not.
     */
    @Test
    void statementsThatRunNothingMayRunSilencedAsThePostgresTestsDo() throws Exception {
        assertPassed(page().add("", SETUP)
                .add("", "SET client_min_messages TO 'warning';\nDROP TABLE IF EXISTS gone CASCADE;\nGRANT SELECT ON t TO PUBLIC;\nCOMMENT ON TABLE t IS 'kept';\n"
                        + "RESET client_min_messages;")
                .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").last());
        TestPage.assertRefused(unreported("page.md:2:1"), "page.md:7:1",
                page().add("", "SET client_min_messages TO 'warning';\nCREATE TABLE t AS SELECT 1 AS one;\nRESET client_min_messages;")
                        .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").last());
        // SET CONSTRAINTS runs the deferred triggers it makes immediate, code of the page's.
        org.junit.jupiter.api.Assertions.assertFalse(ParseCapture.runsNothing("SET CONSTRAINTS ALL IMMEDIATE"));
        org.junit.jupiter.api.Assertions.assertFalse(ParseCapture.runsNothing("COMMIT"));
        org.junit.jupiter.api.Assertions.assertTrue(ParseCapture.runsNothing("/* x */ drop table t"));
    }

    /**
     * Red team (h-red2, findings 1a and 1b): a statement counted as reported once any tree came, a function's included
     * (after its RESET ALL brought the reports back), though its own tree, the one holding the counter, never came; and a
     * function silenced its own body with set_config and a setting name built at run time.
     */
    @Test
    void aStatementIsReportedOnlyByItsOwnTreeAndAFunctionCannotSilenceItsBody() throws Exception {
        TestPage.assertRefused(unreported("page.md:10:1"), "page.md:10:1", page()
                .add("setup hidden", SETUP + "\nCREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RESET ALL; PERFORM 1; RETURN 1; END $$;")
                .add("", "SET client_min_messages = warning;")
                .add("", "SELECT 't'::regclass::oid::int8 > 16383 AS late, g() AS g;", " late | g\n------+---\n t    | 1\n").last());
        PageResult computed = page()
                .add("setup hidden", SETUP + "\nCREATE FUNCTION g2() RETURNS int8 LANGUAGE plpgsql AS $$ DECLARE x int8; BEGIN\n"
                        + "  PERFORM set_config(chr(100) || 'ebug_print_parse', 'off', true);\n  x := 't'::regclass::oid::int8;\n"
                        + "  PERFORM set_config(chr(100) || 'ebug_print_parse', 'on', true);\n  RETURN x; END $$;")
                .add("", "SELECT g2() > 16383 AS late;", " late\n------\n t\n").run();
        TestPage.assertRefused("this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session "
                + "does not have (set_config with a computed name, at page.md:2:55; Kensho sets application_name, client_min_messages, "
                + "debug_pretty_print, debug_print_parse and debug_print_rewritten to see parse trees)", "page.md:10:1",
                computed.outcomes().get(1));
        // A SET built at run time is named by the server's tree of it.
        assertNotPassed(page().add("", SETUP + "\nDO $$ BEGIN EXECUTE 'SET debug_' || 'print_parse = off'; END $$;")
                .add("", "SELECT 't'::regclass::oid::int8 > 16383 AS late;", " late\n------\n t\n").last());
    }

    /**
     * Red team (helper-83, finding 1): a function turned the reports back on by dynamic SQL and ran three statements; their
     * trees (each with a CONTEXT) counted as the statement's own and as a surplus, which hid that the statement itself ran
     * unreported, and the counter another function stored passed as 検証済み.
     */
    @Test
    void treesOfCodeTheStatementRanDoNotHideThatItRanUnreported() throws Exception {
        String functions = """
                CREATE TABLE t (v text);
                CREATE FUNCTION a() RETURNS int LANGUAGE plpgsql AS $$
                BEGIN EXECUTE format('INSERT INTO t SELECT %s()::text', 'txid' || '_current'); RETURN 1; END $$;
                CREATE FUNCTION b() RETURNS int LANGUAGE plpgsql AS $$
                BEGIN EXECUTE 'RE' || 'SET debug_print' || '_parse'; EXECUTE 'SELECT 1'; EXECUTE 'SELECT 2'; EXECUTE 'SELECT 3';
                RETURN 1; END $$;""";
        assertNotPassed(page().add("", functions).add("", "SET debug_print_parse = off;\nSELECT a() + b() AS x;")
                .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 1\n").last());
    }
}
