package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Red team (red-sql, after integ 335c262): claims the parse-tree gate still lets pass although a reader's fresh PGlite
 * shows otherwise, and ordinary lesson SQL it refused. Each test asserts the behaviour the non-negotiables require;
 * each failed on 335c262.
 */
class RedSqlGateTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static TestPage page() {
        return TestPage.on(verifier);
    }

    private static void assertPassed(Outcome outcome) {
        assertNull(outcome.failure(), () -> outcome.snippet().sql() + " -> " + outcome.failure());
    }

    private static void assertNotPassed(Outcome outcome) {
        assertNotNull(outcome.failure(), () -> "passed (検証済み): " + outcome.snippet().sql());
        System.out.println("REFUSED " + outcome.snippet().sql() + " -> " + outcome.failure());
        org.junit.jupiter.api.Assertions.assertTrue(outcome.failure().message().startsWith("this claim cannot be checked"),
                () -> "not refused by the gate, rows compared: " + outcome.snippet().sql() + " -> " + outcome.failure().message()
                        + "\n" + outcome.failure().detail());
    }

    /** Kensho's guard function, named by computed text: t at build, f in a reader's database. */
    @Test
    void theGuardFoundByComputedNameIsKenshos() throws Exception {
        assertNotPassed(page().add("", "SELECT to_regproc('pg_catalog.kensho_' || 'refuse_extensions') IS NOT NULL AS guarded;",
                " guarded\n---------\n t\n").last());
    }

    /** The guard's OID passes as "an object the page names" (it is >= 16384): its definition is Kensho's. */
    @Test
    void theGuardsDefinitionByRegprocConstant() throws Exception {
        assertNotPassed(page().add("", "SELECT count(*) AS n FROM pg_depend WHERE objid = E'pg_catalog.kensho\\x5frefuse_extensions'::regproc;",
                " n\n---\n 1\n").last());
    }

    /** A comparison of an OID with a constant shows how far the server's OID counter had run (reader: about 16385). */
    @Test
    void anOidComparedWithAConstantIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id int);")
                .add("", "SELECT 't'::regclass::oid::bigint > 16390 AS late;", " late\n------\n t\n")
                .run();
        assertNotPassed(result.outcomes().get(1));
    }

    /** The same counter in a WHERE clause: how many rows, not whether, rests on it. */
    @Test
    void anOidFilterIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id int);")
                .add("", "SELECT count(*) AS n FROM pg_class WHERE relname = 't' AND oid > 16390;", " n\n---\n 1\n")
                .run();
        assertNotPassed(result.outcomes().get(1));
    }

    /** A transaction ID compared in dynamic SQL: the text never spells the function, the tree's boolean hides it. */
    @Test
    void aTransactionIdComparedInDynamicSqlIsACounter() throws Exception {
        PageResult result = page()
                .add("", "CREATE FUNCTION busy() RETURNS boolean LANGUAGE plpgsql AS $$ DECLARE b boolean; BEGIN "
                        + "EXECUTE 'SELECT pg_current_' || 'xact_id()::text::bigint > 700' INTO b; RETURN b; END $$;")
                .add("", "SELECT busy() AS busy;", " busy\n------\n t\n")
                .run();
        assertNotPassed(result.outcomes().get(1));
    }

    private static final String SETUP = "CREATE TABLE t (id int);\nCOMMENT ON TABLE t IS 'orders';\n"
            + "CREATE FUNCTION my_fn(a int) RETURNS int LANGUAGE sql AS 'SELECT a';";

    private static Outcome lesson(String sql, String rows) throws Exception {
        return page().add("", SETUP).add("", sql, rows).run().outcomes().get(1);
    }

    /** A table's name through format(): regclass shows the name, not the number. */
    @Test
    void formatOfARegclassIsAName() throws Exception {
        assertPassed(lesson("SELECT format('%s', oid::regclass) AS name FROM pg_class WHERE relname = 't';", " name\n------\n t\n"));
    }

    /** Arguments of the page's own function, found by name. */
    @Test
    void argumentsOfThePagesOwnFunction() throws Exception {
        assertPassed(lesson("SELECT proname, pg_get_function_arguments(oid) AS args FROM pg_proc WHERE proname = 'my_fn';",
                " proname |   args\n---------+-----------\n my_fn   | a integer\n"));
    }

    /** Ordinary catalog claims still pass on their own. */
    @Test
    void plainCatalogClaimsPass() throws Exception {
        assertPassed(lesson("SELECT count(*) AS n FROM pg_class WHERE relnamespace = 'public'::regnamespace;", " n\n---\n 1\n"));
        assertPassed(lesson("SELECT column_name FROM information_schema.columns WHERE table_name = 't';", " column_name\n-------------\n id\n"));
        assertPassed(lesson("SELECT proname FROM pg_proc WHERE proname = 'my_fn';", " proname\n---------\n my_fn\n"));
    }

    /** RETURNING shows what the statement's target list does not: an OID as a number. */
    @Test
    void anOidReturnedByInsertIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE s (o bigint);")
                .add("", "INSERT INTO s VALUES (1) RETURNING (SELECT oid::bigint FROM pg_class WHERE relname = 's') / 16388 AS o;", " o\n---\n 1\n")
                .run();
        assertNotPassed(result.outcomes().get(1));
    }

    /** The second arm of a UNION: the top target list's Vars name only the leftmost arm. */
    @Test
    void anOidInALaterUnionArmIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE s (o bigint);")
                .add("", "SELECT 0::bigint AS o UNION ALL SELECT oid::bigint / 16388 FROM pg_class WHERE relname = 's';", " o\n---\n 0\n 1\n")
                .run();
        assertNotPassed(result.outcomes().get(1));
    }

    /** Stored by MERGE (its actions' target lists), claimed later as a bigint. */
    @Test
    void anOidStoredByMergeIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE s (o bigint);")
                .add("", "MERGE INTO s USING (SELECT oid FROM pg_class WHERE relname = 's') AS src ON false "
                        + "WHEN NOT MATCHED THEN INSERT VALUES (src.oid::bigint / 16388);")
                .add("", "SELECT o FROM s;", " o\n---\n 1\n")
                .run();
        assertNotPassed(result.outcomes().get(2));
    }

    /** Stored by ON CONFLICT DO UPDATE SET, claimed later as a bigint. */
    @Test
    void anOidStoredByOnConflictIsACounter() throws Exception {
        PageResult result = page().add("", "CREATE TABLE s (k int PRIMARY KEY, o bigint);\nINSERT INTO s VALUES (1, 0);")
                .add("", "INSERT INTO s VALUES (1, 0) ON CONFLICT (k) DO UPDATE SET o = (SELECT oid::bigint FROM pg_class WHERE relname = 's') / 16388;")
                .add("", "SELECT o FROM s;", " o\n---\n 1\n")
                .run();
        assertNotPassed(result.outcomes().get(2));
    }

    /** The guard's event trigger, as the size of its catalog found by computed name: 8192 at build, 0 in a reader's. */
    @Test
    void theGuardsEventTriggerBySizeOfItsCatalog() throws Exception {
        assertNotPassed(page().add("", "SELECT pg_relation_size(to_regclass('pg_catalog.pg_event_' || 'trigger')) > 0 AS used;",
                " used\n------\n t\n").last());
    }

    /** Concurrency lessons: the session's own locks with the relation shown by name; indexes of the page's table by name. */
    @Test
    void ownLocksAndIndexesByNamePass() throws Exception {
        assertPassed(page().add("", "CREATE TABLE t (id int PRIMARY KEY);")
                .add("", "BEGIN;\nLOCK TABLE t IN SHARE MODE;")
                .add("", "SELECT relation::regclass AS rel, mode FROM pg_locks "
                        + "WHERE pid = pg_backend_pid() AND locktype = 'relation' AND relation = 't'::regclass;",
                        " rel |   mode\n-----+-----------\n t   | ShareLock\n")
                .add("", "ROLLBACK;")
                .run().outcomes().get(2));
        assertPassed(lesson("SELECT string_agg(c.oid::regclass::text, ', ') AS tables FROM pg_class c "
                + "WHERE c.relnamespace = 'public'::regnamespace;", " tables\n--------\n t\n"));
        assertPassed(lesson("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = 'public';", " relname\n---------\n t\n"));
    }
}
