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

    @Test
    void aLiteralOfACounterTypeIsThePagesOwn() throws Exception {
        assertPassed(page().add("", "SELECT '3'::xid8 < '12'::xid8 AS lt;", " lt\n----\n t\n").last());
    }
}
