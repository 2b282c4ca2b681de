package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

/**
 * Trees the gate must judge without ending the build. The tree gate meets functions that are not pg_catalog's (the page's own) wherever a judged tree calls them: in what
 * an INSERT stores (judged after rewriting) and in a result beside a catalog read. Found by replaying PostgreSQL's own
 * regression tests (plpgsql, triggers): the gate looked a page's function up among the built-ins' names, found none,
 * and the whole build ended in "internal error in Kensho" (a NullPointerException) instead of a verdict.
 */
class GateRobustnessTest extends VerifierFixture {

    private static final String TWICE = "CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';";

    @Test
    void aPagesFunctionInWhatAnInsertStoresIsJudgedAndPasses() throws Exception {
        assertPassed(page().add("", TWICE + "\nCREATE TABLE t (a int);\nINSERT INTO t VALUES (twice(2));")
                .add("", "SELECT a FROM t;", " a\n---\n 4\n").last());
    }

    @Test
    void aPagesFunctionBesideACatalogReadIsJudgedAndPasses() throws Exception {
        assertPassed(page().add("", TWICE + "\nCREATE TABLE t (a int);")
                .add("", "SELECT twice(relnatts) AS n FROM pg_class WHERE oid = 't'::regclass;", " n\n---\n 2\n").last());
    }

    @Test
    void aPagesFunctionGivenAnOidShowsItAndIsRefused() throws Exception {
        // A function of the page's is not one that finds an object by its OID: its body compares the number.
        TestPage.assertRefused("this claim cannot be checked: the page reads a counter the whole server shares (a value of type oid "
                        + "compared or computed with other than = to a value of its kind as the server parsed it, in the snippet at "
                        + "page.md:1:1; its value moved with everything the build's server did before the page ran; a reader's server "
                        + "counts from elsewhere)", "page.md:6:1",
                page().add("", "CREATE FUNCTION big(o oid) RETURNS boolean LANGUAGE sql AS 'SELECT $1 > 16383';\nCREATE TABLE t (a int);")
                        .add("", "SELECT big(oid) AS late FROM pg_class WHERE relname = 't';", " late\n------\n t\n").last());
    }
}
