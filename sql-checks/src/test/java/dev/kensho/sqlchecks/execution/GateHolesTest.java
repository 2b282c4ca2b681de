package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

/**
 * Holes the parse-tree gate left after h-gate (bench/RESULTS.md "h-gate2"): a view reached where the server reports no
 * expansion, a rule's action, a whole row of a function's result, a page's copy of a built-in's body, oidvector. Each
 * claim is true at build (the build's OIDs are at least 16384) and shows another value, or says otherwise, near the
 * reader's first OID. Each failed (passed as 検証済み) before.
 */
class GateHolesTest extends VerifierFixture {

    private static final String VIEW = "CREATE TABLE t (id int);\n"
            + "CREATE VIEW v AS SELECT oid::bigint > 16383 AS late FROM pg_class WHERE relname = 't';";

    private static final String UNREPORTED = "this claim cannot be checked: the page reads the server's other databases or sessions "
            + "(a view of the page's whose query the server did not report after rewriting (it does not for a view CREATE TABLE AS, "
            + "EXPLAIN, DECLARE or PREPARE reads, nor when the page turns Kensho's session setting debug_print_rewritten off), so "
            + "no gate judged what it reads, in the snippet at page.md:6:1" + TestPage.DATABASES_WHY;

    /** CREATE TABLE AS, DECLARE and EXPLAIN rewrite their query after the report: the view's query is never judged. */
    @Test
    void aViewReadByAUtilityIsRefused() throws Exception {
        TestPage.assertRefused(UNREPORTED, "page.md:10:1", page().add("", VIEW)
                .add("", "CREATE TABLE s AS SELECT late FROM v;")
                .add("", "SELECT late FROM s;", " late\n------\n t\n").last());
        TestPage.assertRefused(UNREPORTED, "page.md:11:1", page().add("", VIEW)
                .add("", "BEGIN;\nDECLARE c CURSOR FOR SELECT late FROM v;")
                .add("", "FETCH c;", " late\n------\n t\n").last());
        TestPage.assertRefused(UNREPORTED, "page.md:6:1", page().add("", VIEW)
                .add("", "EXPLAIN (COSTS OFF) SELECT late FROM v;",
                        "                       QUERY PLAN\n---------------------------------------------------------\n"
                        + " Index Scan using pg_class_relname_nsp_index on pg_class\n   Index Cond: (relname = 't'::name)\n").last());
        assertNotPassed(page().add("", VIEW)
                .add("", "PREPARE p AS SELECT late FROM v;")
                .add("", "EXECUTE p;", " late\n------\n t\n").last());
        // The same view read by a plain statement is judged where it is used (and the one that reads only the page's rows passes).
        assertPassed(page().add("", "CREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\nCREATE VIEW v AS SELECT id FROM t;")
                .add("", "CREATE TABLE s AS SELECT id FROM t;")
                .add("", "SELECT id FROM v JOIN s USING (id);", " id\n----\n  1\n").last());
    }

    /** A rule rewrites the page's INSERT into one that also stores an OID as a number; a later claim reads it. */
    @Test
    void aRulesActionIsJudged() throws Exception {
        TestPage.assertRefused("this claim cannot be checked: the page reads a counter the whole server shares (a result derived "
                        + "from a value of type oid as the server parsed it, in the snippet at page.md:7:1; its value moved with "
                        + "everything the build's server did before the page ran; a reader's server counts from elsewhere)", "page.md:11:1",
                page().add("", "CREATE TABLE t (id int);\nCREATE TABLE s (o bigint);\nCREATE RULE r AS ON INSERT TO t DO ALSO "
                                + "INSERT INTO s SELECT oid::bigint / 16384 FROM pg_class WHERE relname = 't';")
                        .add("", "INSERT INTO t VALUES (1);")
                        .add("", "SELECT o FROM s;", " o\n---\n 1\n").last());
        // A rule that stores the page's own values passes.
        assertPassed(page().add("", "CREATE TABLE t (id int);\nCREATE TABLE s (id int);\n"
                        + "CREATE RULE r AS ON INSERT TO t DO ALSO INSERT INTO s VALUES (new.id);")
                .add("", "INSERT INTO t VALUES (1);")
                .add("", "SELECT id FROM s;", " id\n----\n  1\n").last());
    }

    private static final String COUNTER = "this claim cannot be checked: the page reads a counter the whole server shares (";
    private static final String COUNTER_WHY = "; its value moved with everything the build's server did before the page ran; a "
            + "reader's server counts from elsewhere)";

    /**
     * A whole row of a function's result holding an OID (pg_get_object_address's objid is the table's OID): as a JSON value, a
     * row or its text it shows the number. A column of it other than the OID, and the row's fields by name, still pass.
     */
    @Test
    void aWholeRowOfAFunctionsResultCarriesItsCounter() throws Exception {
        String setup = "CREATE TABLE t (id int);";
        TestPage.assertRefused(COUNTER + "a value built from a counter (var) converted to a number or text as the server parsed "
                        + "it, in the snippet at page.md:5:1" + COUNTER_WHY, "page.md:5:1",
                page().add("", setup).add("", "SELECT (to_jsonb(a) ->> 'objid')::bigint > 16383 AS late "
                        + "FROM pg_get_object_address('table', '{t}', '{}') a;", " late\n------\n t\n").last());
        TestPage.assertRefused(COUNTER + "a value built from a counter (funcexpr) converted to a number or text as the server "
                        + "parsed it, in the snippet at page.md:5:1" + COUNTER_WHY, "page.md:5:1",
                page().add("", setup).add("", "SELECT length(pg_get_object_address('table', '{t}', '{}')::text) >= 13 AS long;",
                        " long\n------\n t\n").last());
        assertPassed(page().add("", setup).add("", "SELECT objsubid, objid::regclass AS tbl "
                + "FROM pg_get_object_address('table', '{t}', '{}') a;", " objsubid | tbl\n----------+-----\n        0 | t\n").last());
    }

    /**
     * A function of the page's named and written as pg_catalog's obj_description(oid): its body is reported under the same
     * name as the built-in's, whose body alone is judged at its call. Called by a column's default (no parse tree shows the
     * call) with an OID number, it stores the comment of whatever object has that OID: at build Kensho's guard (none), in a
     * reader's database the page's table ('orders'). The body is refused where the server first reports it: CREATE TABLE
     * inlines the default's call.
     */
    @Test
    void aPagesCopyOfABuiltInsBodyIsJudged() throws Exception {
        TestPage.assertRefused("this claim cannot be checked: the page reads what Kensho installs in the page's database "
                        + "(pg_description, not restricted to objects the page names as the server parsed it, in the snippet at "
                        + "page.md:1:1; Kensho's extension guard, an event trigger and its function, is there at build and not in "
                        + "a reader's database; a page cannot make an event trigger)", "page.md:13:1",
                page().add("", "CREATE TABLE t (id int);\nCOMMENT ON TABLE t IS 'orders';\n"
                                + "CREATE FUNCTION public.obj_description(oid) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE STRICT\n"
                                + "BEGIN ATOMIC SELECT pg_description.description FROM pg_description "
                                + "WHERE ((pg_description.objoid = $1) AND (pg_description.objsubid = 0)); END;\n"
                                + "CREATE TABLE log (c text DEFAULT public.obj_description(16384));")
                        .add("", "INSERT INTO log DEFAULT VALUES;")
                        .add("", "SELECT c IS NULL AS none FROM log;", " none\n------\n t\n").last());
        // pg_catalog's own obj_description of the page's table still passes.
        assertPassed(page().add("", "CREATE TABLE t (id int);\nCOMMENT ON TABLE t IS 'orders';")
                .add("", "SELECT obj_description('t'::regclass, 'pg_class') AS comment;", " comment\n---------\n orders\n").last());
    }

    /** oidvector is OIDs: a function's argument types, one of them the page's own type, shown as text. */
    @Test
    void anOidvectorIsACounter() throws Exception {
        TestPage.assertRefused(COUNTER + "a value of type oidvector converted to a number or text as the server parsed it, in the "
                        + "snippet at page.md:6:1" + COUNTER_WHY, "page.md:6:1",
                page().add("", "CREATE TYPE mood AS ENUM ('ok');\nCREATE FUNCTION f(m mood) RETURNS int LANGUAGE sql AS 'SELECT 1';")
                        .add("", "SELECT proargtypes::text::bigint > 16383 AS late FROM pg_proc WHERE proname = 'f';",
                                " late\n------\n t\n").last());
    }

    /**
     * What the text gate finds a plain SELECT only shows (xmin, a transaction's counter) fails that snippet's claim and no
     * later one, as the tree gate's finding does; one that stores it still fails the later claim that reads it.
     */
    @Test
    void aCounterTheTextGateFindsShownOnlyFailsOnlyItsOwnClaim() throws Exception {
        String setup = "CREATE TABLE t (id int);\nINSERT INTO t VALUES (1);";
        assertPassed(page().add("", setup)
                .add("", "SELECT xmin, id FROM t;")
                .add("", "SELECT id FROM t;", " id\n----\n  1\n").last());
        TestPage.assertRefused(COUNTER + "xmin, at page.md:6:8" + COUNTER_WHY, "page.md:6:8", page().add("", setup)
                .add("", "SELECT xmin::text <> '' AS seen, id FROM t;", " seen | id\n------+----\n t    |  1\n").last());
        assertNotPassed(page().add("", setup)
                .add("", "CREATE TABLE s AS SELECT xmin::text AS x FROM t;")
                .add("", "SELECT x <> '' AS seen FROM s;", " seen\n------\n t\n").last());
    }

    /** A column's default is added to an INSERT by rewriting: no parse tree shows it, and it stores an OID as a number. */
    @Test
    void aColumnsDefaultIsJudgedWhereItIsStored() throws Exception {
        TestPage.assertRefused(COUNTER + "a result derived from a value of type oid as the server parsed it, in the snippet at "
                        + "page.md:6:1" + COUNTER_WHY, "page.md:10:1",
                page().add("", "CREATE TABLE t (id int);\nCREATE TABLE s (o bigint DEFAULT 't'::regclass::oid::bigint / 16384, k int);")
                        .add("", "INSERT INTO s (k) VALUES (1);")
                        .add("", "SELECT o FROM s;", " o\n---\n 1\n").last());
        // A serial column's default (nextval of its sequence, found by regclass) stores no OID.
        assertPassed(page().add("", "CREATE TABLE s (id serial, k int);")
                .add("", "INSERT INTO s (k) VALUES (1);")
                .add("", "SELECT id, k FROM s;", " id | k\n----+---\n  1 | 1\n").last());
    }
}
