package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 31 §1: nothing runs in the reader's session that the reader's run would not. Checking a claim
 * leaves no transaction ID, no snapshot, no lock, no temporary schema, and does not change which
 * statement of a transaction is its first query. Cases from PostgreSQL 18's own regression tests
 * (transactions.sql, with.sql) where noted; each true claim passes and a false one fails with its message.
 */
class InvisibleCheckTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static TestPage page() {
        return TestPage.on(verifier);
    }

    private static void assertPassed(Outcome outcome) {
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + (outcome.failure() == null ? "" : outcome.failure().detail()));
    }

    private static void assertAllPassed(PageResult result) {
        result.outcomes().forEach(InvisibleCheckTest::assertPassed);
    }

    private static final String NUMBERS = "CREATE TABLE n (k int, s text); INSERT INTO n VALUES (1, 'a'), (1, 'b'), (2, 'c');";

    private static final String TRACES = "SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid, pg_my_temp_schema() = 0 AS no_temp_schema;";

    @Test
    void anOrderedClaimInARepeatableReadTransactionLeavesNoTransactionIdAndNoTemporarySchema() throws Exception {
        PageResult result = page().add("", NUMBERS)
                .add("", "BEGIN ISOLATION LEVEL REPEATABLE READ;")
                .add("", "SELECT k, s FROM n ORDER BY k DESC;", " k | s\n---+---\n 2 | c\n 1 | b\n 1 | a\n")
                .add("", TRACES, " no_xid | no_temp_schema\n--------+----------------\n t      | t\n")
                .add("", "SELECT relation::regclass::text AS locked FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation' "
                        + "ORDER BY 1;", " locked\n----------\n n\n pg_locks\n")
                .add("", "COMMIT;").run();
        assertAllPassed(result);
        Outcome wrong = page().add("", NUMBERS)
                .add("", "BEGIN ISOLATION LEVEL REPEATABLE READ;")
                .add("", "SELECT k, s FROM n ORDER BY k DESC;", " k | s\n---+---\n 2 | c\n 1 | b\n 1 | a\n")
                .add("", TRACES, " no_xid | no_temp_schema\n--------+----------------\n f      | f\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", wrong.failure().message());
    }

    /** Red team: what the page reads of the settings Kensho gives its session is Kensho's doing, not the reader's SQL's. */
    @Test
    void aClaimOnWhatKenshosSessionSettingsShowCannotPass() throws Exception {
        Outcome direct = page().add("", "SELECT current_setting('debug_print_parse') AS shown;", " shown\n-------\n on\n").last();
        assertEquals("this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session does "
                + "not have (debug_print_parse, at page.md:1:1; Kensho sets application_name, client_min_messages, debug_pretty_print, "
                + "debug_print_parse, session_preload_libraries and auto_explain's settings to see plans and parse trees)",
                direct.failure().message());
        // Through a function defined earlier, its body a dollar-quoted string.
        PageResult hidden = page()
                .add("", "CREATE FUNCTION level() RETURNS text LANGUAGE sql AS $$ SELECT current_setting('client_min_messages') $$;")
                .add("", "SELECT level() = 'log' AS kenshos;", " kenshos\n---------\n t\n").run();
        assertTrue(hidden.outcomes().get(1).failure().message().startsWith("this claim cannot be checked: the page reads a setting "
                + "Kensho gives its session and a reader's session does not have (client_min_messages, at page.md:1:1;"),
                hidden.outcomes().get(1).failure().message());
        // A computed name could be any of them; a list of every setting holds them all.
        assertTrue(page().add("", "SELECT current_setting('debug_' || 'print_parse') AS shown;", " shown\n-------\n on\n").last()
                .failure().message().contains("(current_setting with a computed name, at page.md:1:1;"));
        assertTrue(page().add("", "SELECT count(*) > 0 AS any FROM pg_settings WHERE setting = 'log';", " any\n-----\n t\n").last()
                .failure().message().contains("(pg_settings, at page.md:1:1;"));
        // Settings a reader's session has as the page's does are read freely, and setting Kensho's is the page's business.
        assertAllPassed(page().add("", "SET client_min_messages = warning;")
                .add("", "SELECT current_setting('TimeZone') AS zone;", " zone\n------\n UTC\n").run());
    }

    /** A plan claim naming an index resolves the name on Kensho's own connection: no catalog lock joins the reader's. */
    @Test
    void aPlanClaimNamingAnIndexTakesNoCatalogLockInTheReadersTransaction() throws Exception {
        PageResult result = page().add("", NUMBERS + " CREATE INDEX n_k ON n (k); ANALYZE n; SET enable_seqscan = off;")
                .add("", "BEGIN;")
                .add("uses-index=n_k", "SELECT s FROM n WHERE k = 2;", " s\n---\n c\n")
                .add("", "SELECT relation::regclass::text AS locked FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation' "
                        + "ORDER BY 1;", " locked\n----------\n n\n n_k\n pg_locks\n")
                .add("", "COMMIT;").run();
        assertAllPassed(result);
        // An index the open transaction itself created is seen only there: it is looked up on the page's connection.
        PageResult own = page().add("", NUMBERS + " SET enable_seqscan = off;")
                .add("", "BEGIN; CREATE INDEX n_s ON n (s);")
                .add("uses-index=n_s", "SELECT k FROM n WHERE s = 'c';", " k\n---\n 2\n")
                .add("", "ROLLBACK;").run();
        assertAllPassed(own);
    }

    @Test
    void aPlanClaimInARepeatableReadTransactionLeavesNoTransactionIdAndNoLockOfKenshos() throws Exception {
        PageResult result = page().add("", NUMBERS + " CREATE INDEX n_k ON n (k); ANALYZE n;")
                .add("", "BEGIN ISOLATION LEVEL REPEATABLE READ;")
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("", TRACES, " no_xid | no_temp_schema\n--------+----------------\n t      | t\n")
                .add("", "SELECT relation::regclass::text AS locked FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation' "
                        + "ORDER BY 1;", " locked\n----------\n n\n n_k\n pg_locks\n")
                .add("", "COMMIT;").run();
        assertAllPassed(result);
    }

    /** transactions.sql: SET TRANSACTION ISOLATION LEVEL must stay possible after statements that take no snapshot. */
    @Test
    void aClaimedShowLeavesSetTransactionTheFirstStatementItIs() throws Exception {
        // A hidden setting stands, so the build reads the session's state after every snippet: never inside the transaction.
        PageResult result = page().add("setup hidden", "CREATE TABLE writetest (a int); SET default_transaction_read_only = on;")
                .add("", "BEGIN;")
                .add("", "SHOW transaction_read_only;", " transaction_read_only\n-----------------------\n on\n")
                .add("", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE;")
                .add("", "SHOW transaction_isolation;", " transaction_isolation\n-----------------------\n serializable\n")
                .add("", "SELECT * FROM writetest;", " a\n---\n(0 rows)\n")
                .add("", "COMMIT;")
                .add("", "RESET default_transaction_read_only;").run();
        assertAllPassed(result);
    }

    @Test
    void aPlanClaimOnAStatementThatTakesNoSnapshotFailsWithoutSwitchingCaptureInTheTransaction() throws Exception {
        PageResult result = page().add("", NUMBERS)
                .add("", "BEGIN;")
                .add("max-buffers=10", "LOCK TABLE n IN SHARE MODE;")
                .add("", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;")
                .add("", "SHOW transaction_isolation;", " transaction_isolation\n-----------------------\n repeatable read\n")
                .add("", "COMMIT;").run();
        List<Outcome> outcomes = result.outcomes();
        assertEquals("plan claims cannot be checked: the statement has no plan (LOCK is run without one); claim the plan of a query "
                + "or of INSERT, UPDATE, DELETE or MERGE", outcomes.get(2).failure().message());
        for (int i : new int[] {3, 4, 5}) {
            assertPassed(outcomes.get(i));
        }
    }

    /** with.sql: a DELETE in the WITH of an INSERT that a DO INSTEAD rule makes a SELECT keeps its effect. */
    @Test
    void aRowsClaimOnADataModifyingWithKeepsItsEffectInATransaction() throws Exception {
        String rule = """
                CREATE TEMP TABLE bug6051_2 (i int); INSERT INTO bug6051_2 VALUES (1), (2), (3);
                CREATE TEMP TABLE bug6051_3 AS SELECT a FROM generate_series(11, 13) AS a;
                CREATE RULE bug6051_3_ins AS ON INSERT TO bug6051_3 DO INSTEAD SELECT i FROM bug6051_2;""";
        PageResult result = page().add("", rule)
                .add("", "BEGIN; SET LOCAL debug_parallel_query = on;")
                .add("", "WITH t1 AS ( DELETE FROM bug6051_3 RETURNING * )\n  INSERT INTO bug6051_3 SELECT * FROM t1;",
                        " i\n---\n 1\n 2\n 3\n 1\n 2\n 3\n 1\n 2\n 3\n(9 rows)\n")
                .add("", "COMMIT;")
                .add("", "SELECT * FROM bug6051_3;", " a\n---\n(0 rows)\n").run();
        assertAllPassed(result);
        Outcome wrong = page().add("", rule)
                .add("", "BEGIN;")
                .add("", "WITH t1 AS ( DELETE FROM bug6051_3 RETURNING * )\n  INSERT INTO bug6051_3 SELECT * FROM t1;",
                        " i\n---\n 1\n 2\n 3\n 1\n 2\n 3\n 1\n 2\n 3\n(9 rows)\n")
                .add("", "COMMIT;")
                .add("", "SELECT * FROM bug6051_3;", " a\n----\n 11\n 12\n 13\n(3 rows)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", wrong.failure().message());
    }

    private static final String SCENARIO_READ = """
            setup { CREATE TABLE n (k int, s text); INSERT INTO n VALUES (1, 'a'), (1, 'b'), (2, 'c'); }
            teardown { DROP TABLE n; }
            session a
            step a_begin { BEGIN ISOLATION LEVEL REPEATABLE READ; }
            step a_read { SELECT k, s FROM n ORDER BY k DESC; }
            rows {
             k | s
            ---+---
             2 | c
             1 | b
             1 | a
            }
            step a_xid { SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid; }
            rows {
             no_xid
            --------
             %s
            }
            step a_commit { COMMIT; }
            session b
            step b_read { SELECT count(*) FROM n; }
            permutation a_begin a_read b_read a_xid a_commit
            """;

    private static Outcome scenario(String text) throws Exception {
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 10, 1), text).withScenario(ScenarioParser.parse(text));
        return verifier.verifyPage("page.md", List.of(snippet)).outcomes().get(0);
    }

    @Test
    void aScenarioStepsOrderedClaimGivesItsTransactionNoId() throws Exception {
        Outcome outcome = scenario(SCENARIO_READ.formatted("t"));
        assertPassed(outcome);
        Outcome wrong = scenario(SCENARIO_READ.formatted("f"));
        assertEquals("step a_xid: rows differ (as a multiset, because the query has no ORDER BY)", wrong.failure().message());
    }
}
