package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What a snippet of plain SELECTs only shows, nothing keeps: a read no claim may rest on fails that snippet's own claim and
 * no later one, whatever it read; inside a transaction block it lasts (a statement failing for a reader would abort the
 * block). Found replaying PostgreSQL's own regression tests: one unrestricted read of pg_database in misc_functions left
 * its 25 later true claims unchecked, one EXPLAIN of a view in create_view its 35.
 */
class ShownOnlyTest extends VerifierFixture {

    private static final String DATABASES = "this claim cannot be checked: the page reads the server's other databases or sessions "
            + "(pg_database, at page.md:1:26" + TestPage.DATABASES_WHY;

    @Test
    void aPlainSelectOfTheWholeServersListFailsItsOwnClaimAndNoLaterOne() throws Exception {
        PageResult result = page().add("", "SELECT count(*) > 0 FROM pg_database;", " ?column?\n----------\n t\n")
                .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").run();
        assertEquals(DATABASES, result.outcomes().get(0).failure().message());
        assertEquals("page.md:1:26", result.outcomes().get(0).failure().location().toString());
        assertNull(result.outcomes().get(1).failure());
    }

    @Test
    void insideATransactionBlockTheReadLasts() throws Exception {
        Outcome later = page().add("", "BEGIN;")
                .add("", "SELECT count(*) > 0 FROM pg_database;", " ?column?\n----------\n t\n")
                .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").last();
        assertEquals("this claim cannot be checked: the page reads the server's other databases or sessions (pg_database, at "
                + "page.md:5:26" + TestPage.DATABASES_WHY, later.failure().message());
        assertEquals("page.md:9:1", later.failure().location().toString());
    }

    @Test
    void anExplainOfAViewFailsItsOwnClaimAndNoLaterOne() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id int);\nCREATE VIEW v AS SELECT id FROM t;")
                .add("", "EXPLAIN (COSTS OFF) SELECT id FROM v;", "  QUERY PLAN\n---------------\n Seq Scan on t\n")
                .add("", "SELECT count(*) AS n FROM v;", " n\n---\n 0\n").run();
        VerifierFixture.assertNotPassed(result.outcomes().get(1));
        assertNull(result.outcomes().get(2).failure());
        // Inside a transaction block it lasts.
        VerifierFixture.assertNotPassed(page().add("", "CREATE TABLE t (id int);\nCREATE VIEW v AS SELECT id FROM t;\nBEGIN;")
                .add("", "EXPLAIN (COSTS OFF) SELECT id FROM v;", "  QUERY PLAN\n---------------\n Seq Scan on t\n")
                .add("", "SELECT count(*) AS n FROM v;", " n\n---\n 0\n").last());
    }

    /**
     * Red team (helper-72, F1): a statement that failed at build may not fail in a reader's run, and keep what it read
     * there: its refusal lasts (a rule that made a failed statement's refusal its own was tried this round and withdrawn).
     */
    @Test
    void aStatementThatFailedAtBuildStillLasts() throws Exception {
        VerifierFixture.assertNotPassed(page().add("", "CREATE TABLE t (v int);")
                .add("expect-error=22012", "INSERT INTO t SELECT 1 / (count(*) FILTER (WHERE datname NOT IN "
                        + "('postgres', 'template0', 'template1')) = 0)::int FROM pg_database;")
                .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").last());
    }

    /**
     * A statement that failed in parse analysis (no tree of it reported) read nothing and fails for a reader too: what its
     * text names fails its own claim only (PostgreSQL's merge test lost 68 true claims to one MERGE naming xmin).
     */
    @Test
    void aStatementThatFailedInParseAnalysisReadNothing() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (a int);")
                .add("expect-error=42P10", "MERGE INTO t USING (VALUES (1)) v(a) ON t.a = v.a WHEN MATCHED AND t.xmin = t.xmax THEN DELETE;")
                .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").run();
        VerifierFixture.assertNotPassed(result.outcomes().get(1));
        assertNull(result.outcomes().get(2).failure());
    }

    /** Red team (helper-72, F5): an array of a page's domain runs the domain's CHECK through the array's input function. */
    @Test
    void aValueOfAPagesTypeMayRunThePagesCode() throws Exception {
        VerifierFixture.assertNotPassed(page().add("", "CREATE SEQUENCE s;\nCREATE FUNCTION g(x bigint) RETURNS boolean LANGUAGE sql "
                        + "AS $$ SELECT setval('s', x) > 0 $$;\nCREATE DOMAIN d AS bigint CHECK (g(VALUE));")
                .add("", "SELECT format('{%s}', count(*))::d[] AS a FROM pg_database;")
                .add("", "SELECT last_value > 0 AS set FROM s;", " set\n-----\n t\n").last());
    }

    /** Red team (helper-71, F5, F6): a show-only SELECT whose domain CHECK or function keeps what it read. */
    @Test
    void aSelectThatRunsThePagesCodeKeepsWhatItReads() throws Exception {
        VerifierFixture.assertNotPassed(page().add("", "CREATE TABLE seen (name text);\nCREATE FUNCTION keep(t text) RETURNS boolean "
                        + "LANGUAGE plpgsql AS $$ BEGIN INSERT INTO seen VALUES (t); RETURN true; END $$;\n"
                        + "CREATE DOMAIN kept AS text CHECK (keep(VALUE));")
                .add("", "SELECT count(datname::text::kept) > 0 AS any FROM pg_database;")
                .add("", "SELECT count(*) > 1 AS many FROM seen;", " many\n------\n t\n").last());
        VerifierFixture.assertNotPassed(page().add("", "CREATE TABLE t (a int);\nCREATE TABLE kept (x text);\n"
                        + "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ DECLARE v text; BEGIN "
                        + "v := (SELECT j.value FROM pg_class c, jsonb_each_text(to_jsonb(c)) j WHERE c.relname = 't' AND j.key LIKE 'relfroz%'); "
                        + "INSERT INTO kept VALUES (v); RETURN 1; END $$;")
                .add("", "SELECT f() AS one;")
                .add("", "SELECT x::bigint > 0 AS some FROM kept;", " some\n------\n t\n").last());
        VerifierFixture.assertNotPassed(page().add("", "CREATE TABLE kept (is_pg boolean);\nCREATE FUNCTION f() RETURNS int LANGUAGE plpgsql "
                        + "AS $$ DECLARE v boolean; BEGIN v := (SELECT current_user = 'postgres'); INSERT INTO kept VALUES (v); "
                        + "RETURN 1; END $$;")
                .add("", "SELECT f() AS one;")
                .add("", "SELECT is_pg FROM kept;", " is_pg\n-------\n f\n").last());
    }

    @Test
    void aLiteralOfACounterTypeIsThePagesOwn() throws Exception {
        assertPassed(page().add("", "SELECT '3'::xid8 < '12'::xid8 AS lt;", " lt\n----\n t\n").last());
    }
}
