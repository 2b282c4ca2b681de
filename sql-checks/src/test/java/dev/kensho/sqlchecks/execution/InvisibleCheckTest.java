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
import static org.junit.jupiter.api.Assertions.assertFalse;

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
                + "not have (debug_print_parse, at page.md:1:24; Kensho sets application_name, client_min_messages, debug_pretty_print, "
                + "debug_print_parse and debug_print_rewritten to see parse trees)", direct.failure().message());
        assertEquals("page.md:1:24", direct.failure().location().toString());
        // On a page that claims a plan, auto_explain's settings are Kensho's too.
        Outcome capturing = page().add("", "SELECT current_setting('auto_explain.log_analyze') AS shown;", " shown\n-------\n on\n")
                .add("max-buffers=100", "SELECT 1 AS one;", " one\n-----\n   1\n").run().outcomes().get(0);
        assertEquals("this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session does "
                + "not have (auto_explain's settings, at page.md:1:24; Kensho sets application_name, client_min_messages, "
                + "debug_pretty_print, debug_print_parse, debug_print_rewritten, session_preload_libraries and auto_explain's settings to see plans and parse "
                + "trees)", capturing.failure().message());
        // Through a function defined earlier, its body a dollar-quoted string: the later claim fails at its own line.
        PageResult hidden = page()
                .add("", "CREATE FUNCTION level() RETURNS text LANGUAGE sql AS $$ SELECT current_setting('client_min_messages') $$;")
                .add("", "SELECT level() = 'log' AS kenshos;", " kenshos\n---------\n t\n").run();
        assertEquals("this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session does "
                + "not have (client_min_messages, at page.md:1:54; Kensho sets application_name, client_min_messages, "
                + "debug_pretty_print, debug_print_parse and debug_print_rewritten to see parse trees)", hidden.outcomes().get(1).failure().message());
        assertEquals("page.md:5:1", hidden.outcomes().get(1).failure().location().toString());
        // A computed name could be any of them; a list of every setting holds them all.
        assertTrue(page().add("", "SELECT current_setting('debug_' || 'print_parse') AS shown;", " shown\n-------\n on\n").last()
                .failure().message().contains("(current_setting with a computed name, at page.md:1:8;"));
        assertTrue(page().add("", "SELECT count(*) > 0 AS any FROM pg_settings WHERE setting = 'log';", " any\n-----\n t\n").last()
                .failure().message().contains("(pg_settings, at page.md:1:33;"));
        // The list of sessions shows Kensho's own (and the last statement Kensho sent on the page's connection): refused.
        Outcome sessions = page().add("max-buffers=100", "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = pg_backend_pid();",
                " n\n---\n 1\n").last();
        assertEquals("this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session does "
                + "not have (pg_stat_activity, at page.md:1:27; Kensho sets application_name, client_min_messages, debug_pretty_print, "
                + "debug_print_parse, debug_print_rewritten, session_preload_libraries and auto_explain's settings to see plans and "
                + "parse trees)", sessions.failure().message());
        // The role settings Kensho gives the page's role are Kensho's too.
        assertTrue(page().add("", "SELECT rolconfig IS NULL AS none FROM pg_roles WHERE rolname = current_user;", " none\n------\n f\n")
                .last().failure().message().contains("(rolconfig, at page.md:1:8;"));
        // Settings a reader's session has as the page's does are read freely; setting Kensho's is the page's business, but a
        // statement the server then runs unreported leaves no later claim checkable (SilencedReportsTest), and a RESET ends it.
        assertAllPassed(page().add("", "SET client_min_messages = warning;\nRESET client_min_messages;")
                .add("", "SELECT current_setting('TimeZone') AS zone;", " zone\n------\n UTC\n").run());
        assertTrue(page().add("", "SET client_min_messages = warning;")
                .add("", "SELECT current_setting('TimeZone') AS zone;", " zone\n------\n UTC\n").last()
                .failure().message().contains("(the statement at page.md:5:1 ran unreported: "));
    }

    /** pg_settings read for settings Kensho does not touch is what a reader's session shows; one Kensho sets fails at its line. */
    @Test
    void aListOfSettingsReadOnlyForSettingsKenshoDoesNotTouchIsTheReaders() throws Exception {
        assertAllPassed(page().add("", "SELECT setting FROM pg_settings WHERE name = 'work_mem';", " setting\n---------\n 4096\n")
                .add("", "SELECT name FROM pg_settings s WHERE s.name IN ('enable_seqscan', 'enable_sort') ORDER BY 1;",
                        "      name\n----------------\n enable_seqscan\n enable_sort\n")
                .add("", "SELECT count(*) AS n FROM pg_settings WHERE name LIKE 'enable\\_seq%';", " n\n---\n 1\n")
                .add("max-buffers=100", "SELECT setting FROM pg_settings WHERE name = 'enable_hashjoin';", " setting\n---------\n on\n")
                .run());
        for (String[] read : new String[][] {{"SELECT setting FROM pg_settings WHERE name = 'client_min_messages';", " log\n"},
                {"SELECT setting FROM pg_settings WHERE name = 'work_mem' OR name = 'client_min_messages';", " 4096\n log\n"},
                {"SELECT setting FROM pg_settings WHERE name LIKE 'client%';", " 0\n UTF8\n log\n"},
                {"SELECT setting FROM pg_settings WHERE name IN ('work_mem', 'debug_print_parse');", " on\n 4096\n"}}) {
            Outcome outcome = page().add("", read[0], " setting\n---------\n" + read[1]).last();
            assertEquals("this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session does "
                    + "not have (pg_settings, at page.md:1:21; Kensho sets application_name, client_min_messages, debug_pretty_print, "
                    + "debug_print_parse and debug_print_rewritten to see parse trees)", outcome.failure().message(), read[0]);
            assertEquals("page.md:1:21", outcome.failure().location().toString(), read[0]);
        }
        // On a page that claims a plan, a LIKE that matches auto_explain's settings reads Kensho's.
        Outcome auto = page().add("", "SELECT count(*) > 0 AS some FROM pg_settings WHERE name LIKE 'auto\\_e%';", " some\n------\n t\n")
                .add("max-buffers=100", "SELECT 1 AS one;", " one\n-----\n   1\n").run().outcomes().get(0);
        assertTrue(auto.failure().message().contains("(pg_settings, at page.md:1:34;"), auto.failure().message());
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
        // An index the open transaction itself created is seen only there: it is looked up on the page's connection, in a
        // savepoint of Kensho's rolled back at once, so the catalog locks of the look-up (pg_inherits among them) are gone.
        for (String count : new String[] {"0", "1"}) {
            PageResult own = page().add("", NUMBERS + " SET enable_seqscan = off;")
                    .add("", "BEGIN; CREATE INDEX n_s ON n (s);")
                    .add("uses-index=n_s", "SELECT k FROM n WHERE s = 'c';", " k\n---\n 2\n")
                    .add("", "SELECT count(*) AS kenshos FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'pg_inherits'::regclass;",
                            " kenshos\n---------\n       " + count + "\n")
                    .add("", "SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS own_xid;", " own_xid\n---------\n t\n")
                    .add("", "ROLLBACK;").run();
            if (count.equals("0")) {
                assertAllPassed(own);
            } else {
                assertEquals(DIFFER, own.outcomes().get(3).failure().message());
            }
        }
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

    // Issue 31 §1, one property at a time, on pages that claim a plan (their sessions report plans from the start and
    // Kensho sends nothing on the page's connection around the claimed statement): each true claim passes, a false one fails.

    private static final String INDEXED = NUMBERS + " CREATE INDEX n_k ON n (k); ANALYZE n; CREATE SEQUENCE s;";

    /** BEGIN, a statement with plan, work and rows claims as the transaction's first query, then {@code probe} with {@code rows}. */
    private static PageResult afterClaimInTransaction(String probe, String rows) throws Exception {
        return page().add("", INDEXED)
                .add("", "BEGIN ISOLATION LEVEL REPEATABLE READ;")
                .add("max-buffers=100 no-sort", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("", probe, rows)
                .add("", "COMMIT;").run();
    }

    private static final String DIFFER = "rows differ (as a multiset, because the query has no ORDER BY)";

    private static void assertTrueAndFalseClaims(String probe, String trueRows, String falseRows) throws Exception {
        assertAllPassed(afterClaimInTransaction(probe, trueRows));
        assertEquals(DIFFER, afterClaimInTransaction(probe, falseRows).outcomes().get(3).failure().message(), probe);
    }

    @Test
    void aClaimedStatementLeavesItsTransactionNoTransactionId() throws Exception {
        assertTrueAndFalseClaims("SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;",
                " no_xid\n--------\n t\n", " no_xid\n--------\n f\n");
    }

    @Test
    void aClaimedStatementGivesTheSessionNoTemporarySchema() throws Exception {
        assertTrueAndFalseClaims("SELECT pg_my_temp_schema() = 0 AS no_temp_schema;",
                " no_temp_schema\n----------------\n t\n", " no_temp_schema\n----------------\n f\n");
    }

    /**
     * A catalog write takes a row-exclusive lock on the catalog until the transaction ends (and an XID, above): the
     * transaction holds none. (pg_stat_xact_sys_tables would also count the earlier, not yet flushed transactions.)
     */
    @Test
    void aClaimedStatementWritesNoCatalog() throws Exception {
        assertTrueAndFalseClaims("SELECT count(*) AS writes FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation' "
                + "AND mode <> 'AccessShareLock';", " writes\n--------\n      0\n", " writes\n--------\n      1\n");
    }

    /** The transaction's own statistics count only the reader's statements: one scan of p (made by CREATE TABLE AS, never scanned). */
    @Test
    void aClaimedStatementLeavesTheTransactionsCountersTheReaders() throws Exception {
        for (String count : new String[] {"1", "2"}) {
            PageResult result = page().add("", "CREATE TABLE p AS SELECT 1 AS x;")
                    .add("", "BEGIN;")
                    .add("max-buffers=100", "SELECT count(*) FROM p;", " count\n-------\n     1\n")
                    .add("", "SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'p';",
                            " seq_scan | idx_scan\n----------+----------\n        " + count + " | (null)\n")
                    .add("", "COMMIT;").run();
            if (count.equals("1")) {
                assertAllPassed(result);
            } else {
                assertEquals(DIFFER, result.outcomes().get(3).failure().message());
            }
        }
    }

    @Test
    void aClaimedStatementLeavesTheTransactionItsIsolationLevelAndState() throws Exception {
        assertTrueAndFalseClaims("SELECT current_setting('transaction_isolation') AS level, current_setting('transaction_read_only') AS ro;",
                " level           | ro\n-----------------+-----\n repeatable read | off\n",
                " level           | ro\n-----------------+-----\n read committed  | off\n");
    }

    /** lastval() and currval() answer for the reader's last nextval, the claimed one. */
    @Test
    void aClaimedStatementLeavesLastvalTheReaders() throws Exception {
        PageResult result = page().add("", INDEXED)
                .add("max-buffers=100", "SELECT nextval('s') AS v;", " v\n---\n 1\n")
                .add("", "SELECT lastval() AS last, currval('s') AS cur;", " last | cur\n------+-----\n    1 |   1\n").run();
        assertAllPassed(result);
        Outcome wrong = page().add("", INDEXED)
                .add("max-buffers=100", "SELECT nextval('s') AS v;", " v\n---\n 1\n")
                .add("", "SELECT lastval() AS last, currval('s') AS cur;", " last | cur\n------+-----\n    2 |   2\n").last();
        assertEquals(DIFFER, wrong.failure().message());
    }

    /** Outside a transaction block the claimed statement is the first (and only) statement of its own transaction. */
    @Test
    void aClaimedStatementIsTheFirstStatementOfItsTransaction() throws Exception {
        assertPassed(page().add("max-buffers=10", "SELECT statement_timestamp() = now() AS first;", " first\n-------\n t\n").last());
        assertEquals(DIFFER, page().add("max-buffers=10", "SELECT statement_timestamp() = now() AS first;", " first\n-------\n f\n")
                .last().failure().message());
    }

    /** transactions.sql: SET TRANSACTION right after BEGIN is the first statement, with plan claims around it. */
    @Test
    void setTransactionAfterBeginStaysTheFirstStatementOnAPageThatClaimsPlans() throws Exception {
        PageResult result = page().add("", INDEXED)
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("", "BEGIN;")
                .add("", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE;")
                .add("max-buffers=100", "SELECT current_setting('transaction_isolation') AS level FROM n WHERE k = 2;",
                        " level\n--------------\n serializable\n")
                .add("", "COMMIT;").run();
        assertAllPassed(result);
    }

    /**
     * A claimed statement right after BEGIN is the transaction's first query, as in the reader's run: a SET TRANSACTION
     * after it fails with 25001 there and here; claiming it succeeds fails.
     */
    @Test
    void aClaimedFirstQueryMakesALaterSetTransactionFailAsForTheReader() throws Exception {
        PageResult result = page().add("", INDEXED)
                .add("", "BEGIN;")
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("expect-error=25001", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;")
                .add("", "ROLLBACK;").run();
        assertAllPassed(result);
        Outcome wrong = page().add("", INDEXED)
                .add("", "BEGIN;")
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;").last();
        assertEquals("SET TRANSACTION ISOLATION LEVEL must be called before any query", wrong.failure().message());
    }

    /** A failed claimed statement leaves the transaction aborted, as the reader's is: Kensho rolls nothing back. */
    @Test
    void aFailedStatementLeavesTheTransactionAbortedOnAPageThatClaimsPlans() throws Exception {
        PageResult result = page().add("", INDEXED)
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("", "BEGIN;")
                .add("expect-error=22012", "SELECT 1 / 0;")
                .add("expect-error=25P02", "SELECT count(*) FROM n;")
                .add("", "ROLLBACK;").run();
        assertAllPassed(result);
        Outcome wrong = page().add("", INDEXED)
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n")
                .add("", "BEGIN;")
                .add("expect-error=22012", "SELECT 1 / 0;")
                .add("", "SELECT count(*) FROM n;", " count\n-------\n     3\n").last();
        assertEquals("current transaction is aborted, commands ignored until end of transaction block", wrong.failure().message());
    }

    /** Plans reach Kensho as notices: a page that silences them makes the claim fail, told from what the server sent. */
    @Test
    void aPageThatSilencesTheServersMessagesFailsPlanClaimsWithoutKenshoAskingItsSession() throws Exception {
        Outcome silenced = page().add("", INDEXED + " SET client_min_messages = warning;")
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n").last();
        assertEquals("plan claims cannot be checked: the server reported no plan for this execution of the statement (the server "
                + "sent not even the statement's parse tree, which Kensho's session asks for at log level: the page raised "
                + "client_min_messages above notice or turned debug_print_parse off, and plans reach Kensho as notices; leave both "
                + "as Kensho sets them (log, on))", silenced.failure().message());
        // At notice plans still come, but parse trees do not: what the statement read is unknown, and the claim cannot pass.
        assertTrue(page().add("", INDEXED + " SET client_min_messages = notice;")
                .add("max-buffers=100", "SELECT count(*) FROM n;", " count\n-------\n     3\n").last()
                .failure().message().contains("(the statement at page.md:5:1 ran unreported: "));
    }

    private static final String SCENARIO_SNAPSHOT = """
            setup { CREATE TABLE m (k int); INSERT INTO m VALUES (1), (2), (3); }
            teardown { DROP TABLE m; }
            session a
            step a_begin { BEGIN ISOLATION LEVEL REPEATABLE READ; }
            step a_first { SELECT count(*) AS seen FROM m; }
            rows {
             seen
            ------
                3
            }
            step a_again { SELECT count(*) AS seen FROM m; }
            rows {
             seen
            ------
                %s
            }
            step a_commit { COMMIT; }
            session b
            step b_insert { INSERT INTO m VALUES (4); }
            step b_locks { SELECT relation::regclass::text AS locked, mode FROM pg_locks WHERE pid <> pg_backend_pid() AND locktype = 'relation' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY 1; }
            rows {
             locked |      mode
            --------+-----------------
             m      | %s
            }
            permutation a_begin a_first b_insert b_locks a_again a_commit
            """;

    /** A page that claims a plan: its scenario sessions report plans too, and Kensho keeps them out of the steps. */
    private static Outcome scenarioOnACapturingPage(String text) throws Exception {
        TestPage page = page().add("max-buffers=100", "SELECT 1 AS one;", " one\n-----\n   1\n");
        List<Snippet> snippets = new java.util.ArrayList<>(page.snippets);
        snippets.add(Snippet.of(new SourceLocation("page.md", 10, 1), text).withScenario(ScenarioParser.parse(text)));
        PageResult result = verifier.verifyPage("page.md", snippets);
        assertPassed(result.outcomes().get(0));
        return result.outcomes().get(1);
    }

    /** The repeatable-read snapshot is the reader's first query's; another session sees only the reader's lock. */
    @Test
    void aScenarioOnACapturingPageKeepsTheSnapshotAndLocksTheReadersOwn() throws Exception {
        assertPassed(scenarioOnACapturingPage(SCENARIO_SNAPSHOT.formatted("3", "AccessShareLock")));
        assertEquals("step a_again: " + DIFFER, scenarioOnACapturingPage(SCENARIO_SNAPSHOT.formatted("4", "AccessShareLock"))
                .failure().message());
        assertEquals("step b_locks: rows differ (in order, because the query has ORDER BY)", scenarioOnACapturingPage(SCENARIO_SNAPSHOT.formatted("3", "RowExclusiveLock"))
                .failure().message());
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

    /**
     * Red team: Kensho's settings read through other spellings are found as their plain ones: a quoted identifier (which
     * overflowed the stack: the reader recursed on the same text), a U&amp; identifier with or without UESCAPE, and an E''
     * string in a function body. Each showed "kensho" (the application_name Kensho gives the page's session) under a
     * passing claim.
     */
    @Test
    void kenshosSettingsReadThroughEscapedOrQuotedNamesCannotPass() throws Exception {
        String refused = "this claim cannot be checked: the page reads a setting Kensho gives its session and a reader's session does "
                + "not have (";
        String[][] reads = {
                {"SELECT application_name AS app FROM \"pg_stat_activity\" WHERE pid = pg_backend_pid();", "application_name, at page.md:1:8;"},
                {"SELECT count(*)::text AS app FROM \"pg_stat_activity\" WHERE pid = pg_backend_pid();", "\"pg_stat_activity\", at page.md:1:35;"},
                {"SELECT count(*)::text AS app FROM U&\"pg\\005fstat_activity\" WHERE pid = pg_backend_pid();",
                        "U&\"pg\\005fstat_activity\", at page.md:1:35;"},
                {"SELECT count(*)::text AS app FROM U&\"pg!005fstat_activity\" UESCAPE '!' WHERE pid = pg_backend_pid();",
                        "U&\"pg!005fstat_activity\", at page.md:1:35;"},
                {"SHOW U&\"applic\\0061tion_name\";", "application_name, at page.md:1:6;"},
        };
        for (String[] read : reads) {
            String rows = read[0].startsWith("SHOW") ? " application_name\n------------------\n kensho\n"
                    : read[0].contains("count") ? " app\n-----\n 1\n" : " app\n--------\n kensho\n";
            Outcome outcome = page().add("", read[0], rows).last();
            assertTrue(outcome.failure() != null && outcome.failure().message().startsWith(refused + read[1]), () -> read[0] + " -> " + outcome);
        }
        PageResult hidden = page()
                .add("", "CREATE FUNCTION app() RETURNS text LANGUAGE plpgsql AS $$ DECLARE v text; BEGIN EXECUTE E'SHOW applic\\141tion_name' INTO v; RETURN v; END $$;")
                .add("", "SELECT app() AS app;", " app\n--------\n kensho\n").run();
        assertTrue(hidden.outcomes().get(1).failure().message().startsWith(refused + "application_name, at page.md:1:56;"),
                () -> String.valueOf(hidden.outcomes().get(1)));
    }

    /**
     * Red team: SQL nested thousands of dollar-quoted levels deep (53 kB, a name of Kensho's innermost) overflowed the
     * stack of the reader of Kensho's settings, a crash of the build; past KenshoSettingsReaders.MAX_DEPTH levels the text
     * counts as a read, at once.
     */
    @Test
    void sqlNestedThousandsDeepIsRefusedNotOverflowed() {
        StringBuilder open = new StringBuilder("SELECT ");
        StringBuilder close = new StringBuilder();
        for (int i = 0; i < 4000; i++) {
            String tag = "$t" + Integer.toString(i, 36) + "$";
            open.append(tag).append(' ');
            close.insert(0, ' ' + tag);
        }
        KenshoSettingsReaders.Read read = KenshoSettingsReaders.find(open + "pg_settings" + close + ";", false);
        assertEquals("strings or function bodies nested more than 16 deep", read.what());
        assertEquals(7, read.offset());
    }

    @Test
    void aPreparedStatementKeepsTheQueryItWasPreparedWithAfterAHiddenSnippet() throws Exception {
        // Red team helper-94: Kensho's DISCARD PLANS after a hidden snippet made the prepared query be parsed again, and it
        // picked an overload made since; a reader's session (psql, PGlite) keeps the one it was prepared with.
        assertPassed(page().add("hidden", "CREATE FUNCTION f(bigint) RETURNS text LANGUAGE sql AS $$ SELECT 'bigint' $$;\n"
                        + "PREPARE q AS SELECT f(1) AS picked;")
                .add("", "CREATE FUNCTION f(integer) RETURNS text LANGUAGE sql AS $$ SELECT 'integer' $$;\nEXECUTE q;",
                        " picked\n--------\n bigint\n").last());
    }

    @Test
    void aPlanClaimAfterAHiddenSnippetThatChangedAndResetASettingCannotBeChecked() throws Exception {
        String table = "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 1000); ANALYZE t;";
        Outcome outcome = page().add("", table)
                .add("hidden", "SET enable_indexscan = off;\nPREPARE q AS SELECT * FROM t WHERE id = 7;\nRESET enable_indexscan;")
                .add("no-seq-scan=t", "EXECUTE q;").last();
        assertEquals("plan claims cannot be checked: the hidden snippet at page.md:5:1 may change settings, and plans it cached "
                + "under them (prepared statements, functions' queries) may serve this statement for a reason a reader cannot "
                + "see. Make the snippet visible, or DISCARD PLANS in a visible snippet before the claim", outcome.failure().message());
        // The page's own DISCARD PLANS, where a reader sees it, drops them: the claim is judged.
        assertPassed(page().add("", table)
                .add("hidden", "SET enable_indexscan = off;\nPREPARE q AS SELECT * FROM t WHERE id = 7;\nRESET enable_indexscan;")
                .add("", "DISCARD PLANS;").add("no-seq-scan=t", "EXECUTE q;").last());
        // An UPDATE's SET changes no setting.
        assertPassed(page().add("", table).add("hidden", "UPDATE t SET id = id WHERE id = 1;")
                .add("no-seq-scan=t", "SELECT * FROM t WHERE id = 7;").last());
    }

    @Test
    void aBoundSnippetsPreparedStatementIsNamedByItsPlaceOnThePageAsTheBrowserNamesIt() throws Exception {
        // Red team helper-94: the build named it by a counter of bound snippets (kensho_p1), the browser by the snippet's
        // place on the page (BrowserRuns: kensho_p2), and a claim on pg_prepared_statements passed with the build's name.
        assertPassed(page().add("", "CREATE TABLE t (id int);").add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n")
                .add("$1:integer=1", "SELECT name FROM pg_prepared_statements WHERE $1 = 1;", "   name\n-----------\n kensho_p2\n").last());
    }

    @Test
    void aSetLocalInsideAHiddenFunctionBodyCountsForCachedPlans() throws Exception {
        // Red team helper-96: SET LOCAL in a DO body, then seven EXECUTEs (a generic plan) cached under it; the claim passed.
        Outcome outcome = page().add("setup", "CREATE TABLE t (id int, val int);\nINSERT INTO t SELECT g, 1 FROM generate_series(1, 20000) g;\n"
                        + "CREATE INDEX t_val ON t (val); ANALYZE t;")
                .add("hidden", "BEGIN;\nDO $$ BEGIN SET LOCAL enable_seqscan = off; END $$;\nPREPARE q(int) AS SELECT count(id) FROM t WHERE val = $1;\n"
                        + "EXECUTE q(1); EXECUTE q(1); EXECUTE q(1); EXECUTE q(1); EXECUTE q(1); EXECUTE q(1); EXECUTE q(1);\nCOMMIT;")
                .add("uses-index=t_val", "EXECUTE q(1);").last();
        assertEquals("plan claims cannot be checked: the hidden snippet at page.md:7:1 may change settings, and plans it cached "
                + "under them (prepared statements, functions' queries) may serve this statement for a reason a reader cannot "
                + "see. Make the snippet visible, or DISCARD PLANS in a visible snippet before the claim", outcome.failure().message());
        assertTrue(ScriptRunner.changesSettings("CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN IF true THEN "
                + "SET LOCAL random_page_cost = 1; END IF; END $$;", 0));
        assertFalse(ScriptRunner.changesSettings("SET SESSION AUTHORIZATION DEFAULT; SET LOCAL statement_timeout = '1s';", 0));
        // Red team helper-97: a hidden snippet's data and an UPDATE of a column called session changed no setting.
        assertFalse(ScriptRunner.changesSettings("INSERT INTO tasks VALUES (0, 'Reset password'), (1, 'Set up CI');", 0));
        assertFalse(ScriptRunner.changesSettings("UPDATE ONLY s.users AS u SET session = NULL; UPDATE users SET local = 1;", 0));
        assertTrue(ScriptRunner.changesSettings("SELECT set_config('enable_' || 'seqscan', 'off', true);", 0));
        assertTrue(ScriptRunner.changesSettings("RESET ALL;", 0));
    }
}
