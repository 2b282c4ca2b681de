package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;


/**
 * Red team: the text gate judged "restricted to the page's own database or session" on tokens, and a result's counter by
 * its column's type, and it let a page read Kensho's own guard in the page's catalogs. Each refused claim below passed
 * (with a 検証済み mark) before {@link ParseTreeGate} judged them on the server's parse trees.
 */
class ParseTreeGateTest extends VerifierFixture {

    private static final String UNRESTRICTED = ", not restricted to the page's own database or session as the server parsed it, in the snippet at ";
    private static final String COUNTER = "this claim cannot be checked: the page reads a counter the whole server shares (a result derived from ";
    private static final String COUNTER_WHY = "; its value moved with everything the build's server did before the page ran; a reader's "
            + "server counts from elsewhere)";
    private static final String GUARD = "this claim cannot be checked: the page reads what Kensho installs in the page's database (";
    private static final String GUARD_WHY = "; Kensho's extension guard, an event trigger and its function, is there at build and not in "
            + "a reader's database; a page cannot make an event trigger)";

    /** The restriction names another relation's column: an alias column list renamed pg_database's own datname away. */
    @Test
    void aRestrictionOnAnotherRelationsColumnIsNoRestriction() throws Exception {
        TestPage.assertRefused(TestPage.DATABASES + "pg_database" + UNRESTRICTED + "page.md:1:1" + TestPage.DATABASES_WHY, "page.md:1:1",
                page().add("", "SELECT count(*) > 1 AS several FROM pg_database AS d(o, n), (SELECT current_database() AS datname) t "
                        + "WHERE datname = current_database();", " several\n---------\n t\n").last());
    }

    /** The page's own = operator, earlier on search_path than pg_catalog's, is true for every row. */
    @Test
    void aPageDefinedEqualityIsNoRestriction() throws Exception {
        PageResult result = page()
                .add("", "CREATE FUNCTION public.always(name, name) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';\n"
                        + "CREATE OPERATOR public.= (LEFTARG = name, RIGHTARG = name, FUNCTION = public.always);\n"
                        + "SET search_path = public, pg_catalog;")
                .add("", "SELECT count(*) > 1 AS several FROM pg_database WHERE datname = current_database();", " several\n---------\n t\n")
                .run();
        TestPage.assertRefused(TestPage.DATABASES + "pg_database" + UNRESTRICTED + "page.md:7:1" + TestPage.DATABASES_WHY, "page.md:7:1",
                result.outcomes().get(1));
    }

    /** The page's own current_database(), earlier on search_path, names another database. */
    @Test
    void aPageDefinedCurrentDatabaseIsNoRestriction() throws Exception {
        PageResult result = page()
                .add("", "CREATE SCHEMA mine;\n"
                        + "CREATE FUNCTION mine.current_database() RETURNS name LANGUAGE sql AS $$ SELECT 'template0'::name $$;\n"
                        + "SET search_path = mine, pg_catalog;")
                .add("", "SELECT datname, datallowconn FROM pg_database WHERE datname = current_database();",
                        "  datname  | datallowconn\n-----------+--------------\n template0 | f\n")
                .run();
        TestPage.assertRefused(TestPage.DATABASES + "pg_database" + UNRESTRICTED + "page.md:7:1" + TestPage.DATABASES_WHY, "page.md:7:1",
                result.outcomes().get(1));
    }

    /** The restrictions a lesson writes, with pg_catalog's own operators and functions, still pass. */
    @Test
    void theBuiltInRestrictionsStillPass() throws Exception {
        PageResult result = page()
                .add("", "CREATE TABLE mine (id int);")
                .add("", "SELECT datname = current_database() AS own FROM pg_database WHERE datname = current_database();",
                        " own\n-----\n t\n")
                .add("", "SELECT count(*) AS mine FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'mine'::regclass;",
                        " mine\n------\n    0\n")
                .add("", "SELECT pg_database_size(current_database()) > 0 AS sized;", " sized\n-------\n t\n")
                .add("", "SELECT 'mine'::regclass AS shown, oid::regclass::text AS named FROM pg_class WHERE relname = 'mine';",
                        " shown | named\n-------+-------\n mine  | mine\n")
                .add("", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';")
                .add("", "SELECT proname FROM pg_proc WHERE proname = 'f';", " proname\n---------\n f\n")
                .run();
        result.outcomes().forEach(VerifierFixture::assertPassed);
    }

    /** An OID cast to another type is still the server's counter. */
    @Test
    void anOidCastToAnotherTypeIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id int);")
                .add("", "SELECT oid::bigint % 1 AS zero FROM pg_class WHERE relname = 't';", " zero\n------\n    0\n")
                .run();
        TestPage.assertRefused(COUNTER + "a value of type oid as the server parsed it, in the snippet at page.md:5:1" + COUNTER_WHY,
                "page.md:5:1", result.outcomes().get(1));
        TestPage.assertRefused(COUNTER + "a value of type oid as the server parsed it, in the snippet at page.md:1:1" + COUNTER_WHY,
                "page.md:1:1", page().add("", "SELECT length(relfilenode::int8::text) * 0 AS zero FROM pg_class WHERE relname = 'pg_class';",
                        " zero\n------\n    0\n").last());
    }

    /** Stored by one snippet as a bigint, claimed by a later one: the later claim fails at its own line. */
    @Test
    void anOidStoredAsANumberFailsALaterClaim() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id int);")
                .add("", "CREATE TABLE s AS SELECT oid::bigint AS o FROM pg_class WHERE relname = 't';")
                .add("", "SELECT o % 1 AS zero FROM s;", " zero\n------\n    0\n")
                .run();
        TestPage.assertRefused(COUNTER + "a value of type oid as the server parsed it, in the snippet at page.md:5:1" + COUNTER_WHY,
                "page.md:9:1", result.outcomes().get(2));
    }

    /** Kensho's guard function is a row of pg_proc: a count of event trigger functions differs in a reader's database. */
    @Test
    void kenshosGuardInThePagesCatalogsFailsTheClaim() throws Exception {
        TestPage.assertRefused(GUARD + "pg_proc, not restricted to objects the page names as the server parsed it, in the snippet at "
                + "page.md:1:1" + GUARD_WHY, "page.md:1:1", page().add("",
                "SELECT count(*) >= 1 AS some FROM pg_proc WHERE prorettype = 'event_trigger'::regtype;", " some\n------\n t\n").last());
        // The guard's event trigger depends on its function: a row of pg_depend a reader's database does not have.
        TestPage.assertRefused(GUARD + "pg_depend, not restricted to objects the page names as the server parsed it, in the snippet at "
                + "page.md:1:1" + GUARD_WHY, "page.md:1:1", page().add("",
                "SELECT count(*) >= 1 AS some FROM pg_depend WHERE refclassid = 1255 AND deptype = 'n';", " some\n------\n t\n").last());
    }
}
