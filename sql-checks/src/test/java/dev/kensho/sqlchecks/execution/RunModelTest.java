package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The run model (issue 21): every claim is judged on the one execution a reader's psql would make,
 * nested work included; what hidden setup changed is stated or fails plan claims; the server decides
 * row order and statement boundaries. Each class has a false claim that fails with its exact message
 * and a true one that passes.
 */
class RunModelTest {

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

    private static String description(Outcome outcome, String kind) {
        return outcome.assertions().stream().filter(a -> a.kind().equals(kind)).findFirst().orElseThrow().description();
    }

    private static final String ACCOUNTS = """
            CREATE TABLE accounts (id int PRIMARY KEY);
            CREATE TABLE orders (id serial PRIMARY KEY, account_id int REFERENCES accounts, pad text);
            INSERT INTO accounts SELECT g FROM generate_series(1, 100) AS g;
            INSERT INTO orders (account_id, pad) SELECT 1 + g % 99, repeat('x', 200) FROM generate_series(1, 10000) AS g;
            ANALYZE accounts; ANALYZE orders;
            """;

    // --- 1. one execution, measured as it ran, nested work included

    @Test
    void workIsMeasuredOnTheStatementsOwnExecution() throws Exception {
        // A second run would find every row done and discard all 2,000 by the filter.
        Outcome outcome = page().add("", "CREATE TABLE jobs (id int, done bool); INSERT INTO jobs SELECT g, false FROM generate_series(1, 2000) g;")
                .add("max-rows-removed=0", "UPDATE jobs SET done = true WHERE NOT done;").last();
        assertPassed(outcome);
        assertEquals("discards at most 0 rows by filter (measured 0)", description(outcome, "max-rows-removed"));
    }

    @Test
    void anInsertWithAPlanClaimRunsOnceAndItsSequenceMovesOnce() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id serial PRIMARY KEY, v text UNIQUE);")
                .add("explain scan-in=\"Values Scan\"", "INSERT INTO t (v) VALUES ('a') RETURNING id;", " id\n----\n  1\n")
                .add("", "SELECT last_value FROM t_id_seq;", " last_value\n------------\n          1\n").run();
        assertTrue(result.passed(), () -> result.outcomes().toString());
        String plan = result.outcomes().get(1).plan();
        assertTrue(plan.startsWith("Insert on public.t  (actual time="), plan);
        assertTrue(plan.contains("rows=1.00 loops=1)"), plan);
    }

    @Test
    void theExplainShownIsTheExecutionThatDeletedTheRow() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (id int); INSERT INTO t VALUES (1), (2);")
                .add("explain", "DELETE FROM t WHERE id = 1;").last();
        assertPassed(outcome);
        assertTrue(outcome.plan().contains("->  Seq Scan on public.t  (actual time="), outcome.plan());
        assertTrue(outcome.plan().contains("rows=1.00 loops=1)\n        Filter: (t.id = 1)\n        Rows Removed by Filter: 1"), outcome.plan());
    }

    @Test
    void theForeignKeyCheckOfADeleteCountsAsItsWork() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS)
                .add("max-buffers=20", "DELETE FROM accounts WHERE id = 100;").last();
        String message = outcome.failure().message();
        assertTrue(message.startsWith("plan assertion failed: touches at most 20 shared buffers (measured "), message);
        assertTrue(message.contains("(the statement and the 2 statement(s) it caused), more than 20; most of them in nested statement 2 "
                + "(SELECT 1 FROM ONLY \"public\".\"orders\" x WHERE $1 OPERATOR(pg_catalog.=) \"account_id\" FOR KEY SHARE OF x): "), message);
    }

    @Test
    void aSeqScanInTheForeignKeyCheckFailsNoSeqScan() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS)
                .add("no-seq-scan=orders", "DELETE FROM accounts WHERE id = 100;").last();
        assertEquals("plan assertion failed: no Seq Scan on orders: the plan reads public.orders with Seq Scan on orders in nested "
                + "statement 2 (SELECT 1 FROM ONLY \"public\".\"orders\" x WHERE $1 OPERATOR(pg_catalog.=) \"account_id\" FOR KEY SHARE OF x)",
                outcome.failure().message());
    }

    @Test
    void anIndexedForeignKeyMakesTheSameClaimsTrue() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS + "CREATE INDEX orders_account_idx ON orders (account_id); ANALYZE orders;")
                .add("no-seq-scan=orders max-buffers=20", "DELETE FROM accounts WHERE id = 100;").last();
        assertPassed(outcome);
    }

    @Test
    void aTriggersSeqScanCountsAsTheStatements() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS + """
                        CREATE INDEX orders_account_idx ON orders (account_id);
                        CREATE FUNCTION audit() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN PERFORM count(*) FROM orders WHERE pad <> 'y'; RETURN NULL; END $$;
                        CREATE TRIGGER accounts_audit AFTER UPDATE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION audit();""")
                .add("no-seq-scan=orders", "UPDATE accounts SET id = id WHERE id = 5;").last();
        assertTrue(outcome.failure().message().startsWith("plan assertion failed: no Seq Scan on orders: the plan reads public.orders "
                + "with Seq Scan on orders in nested statement 1 (SELECT count(*) FROM orders WHERE pad <> 'y')"), outcome.failure().message());
    }

    /**
     * On a page that claims a plan, Kensho's switch is a SET the page's role may run too: a page that turns capture
     * off still has its claimed statement measured, and the settings that shape the report stay the superuser's.
     */
    @Test
    void aPageCannotSwitchPlanCaptureOffForAClaimedStatement() throws Exception {
        Outcome off = page().add("setup hidden", ACCOUNTS)
                .add("", "SET auto_explain.log_min_duration = -1;")
                .add("max-buffers=100", "SELECT count(*) FROM accounts WHERE id = 5;", " count\n-------\n     1\n").run().outcomes().get(1);
        assertEquals("permission denied to set parameter \"auto_explain.log_min_duration\"", off.failure().message());
        Outcome analyze = page().add("setup hidden", ACCOUNTS)
                .add("", "SET auto_explain.log_analyze = off;")
                .add("max-buffers=100", "SELECT count(*) FROM accounts WHERE id = 5;", " count\n-------\n     1\n").run().outcomes().get(1);
        assertEquals("permission denied to set parameter \"auto_explain.log_analyze\"", analyze.failure().message());
    }

    @Test
    void aTriggerCannotTurnCaptureOffToHideTheSeqScanOfItsNestedStatement() throws Exception {
        // The red team's page: a trigger switches auto_explain off around its own read of big, under a computed name.
        String setup = """
                CREATE TABLE big (id int PRIMARY KEY, v int);
                INSERT INTO big SELECT g, g FROM generate_series(1, 5000) AS g; ANALYZE big;
                CREATE TABLE small (id int);
                CREATE FUNCTION hide() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                  PERFORM set_config(E'auto\\x5fexplain.log_min_duration', '-1', true);
                  PERFORM count(*) FROM big WHERE v = NEW.id;
                  PERFORM set_config(E'auto\\x5fexplain.log_min_duration', '0', true);
                  RETURN NEW; END $$;
                CREATE TRIGGER small_hide BEFORE INSERT ON small FOR EACH ROW EXECUTE FUNCTION hide();""";
        Outcome hidden = page().add("setup hidden", setup)
                .add("no-seq-scan=big", "INSERT INTO small SELECT id FROM big WHERE id = 5;").last();
        assertEquals("permission denied to set parameter \"auto_explain.log_min_duration\"", hidden.failure().message());
    }

    @Test
    void aStatementWithoutAPlanOfItsOwnCannotCarryPlanClaims() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS + "CREATE PROCEDURE touch() LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; "
                        + "PERFORM count(*) FROM orders; END $$;")
                .add("max-buffers=1000", "CALL touch();").last();
        assertEquals("plan claims cannot be checked: the statement has no plan of its own (a utility statement such as CALL, DO, "
                + "COMMIT or CREATE INDEX, whose work auto_explain cannot see whole); claim the plan of a query or of INSERT, "
                + "UPDATE, DELETE or MERGE", outcome.failure().message());
    }

    @Test
    void anIndexOnlyATriggerUsesDoesNotMakeUsesIndexTrue() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS + """
                        CREATE INDEX orders_account_idx ON orders (account_id); ANALYZE orders;
                        CREATE FUNCTION peek() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN PERFORM 1 FROM orders WHERE account_id = 7; RETURN NULL; END $$;
                        CREATE TRIGGER orders_peek AFTER UPDATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION peek();""")
                .add("uses-index=orders_account_idx", "UPDATE orders SET pad = pad WHERE pad = 'none';").last();
        assertTrue(outcome.failure().message().startsWith("plan assertion failed: uses index orders_account_idx: the plan uses no "
                + "index public.orders_account_idx"), outcome.failure().message());
    }

    @Test
    void aPlanClaimAfterAHiddenSnippetThatCachedAPlanUnderOtherSettingsCannotBeChecked() throws Exception {
        Outcome outcome = page().add("hidden", """
                        CREATE TABLE small (id int PRIMARY KEY, v text);
                        INSERT INTO small SELECT g, 'v' || g FROM generate_series(1, 50) AS g; ANALYZE small;
                        SET enable_seqscan = off;
                        PREPARE q AS SELECT v FROM small WHERE id > 10;
                        EXECUTE q;
                        RESET enable_seqscan;""")
                .add("uses-index=small_pkey", "EXECUTE q;").last();
        // Kensho no longer discards the session's plans after hidden snippets (that changed what a reader's statements do:
        // InvisibleCheckTest): the claim fails as one it cannot check.
        assertEquals("plan claims cannot be checked: the hidden snippet at page.md:1:1 may change settings, and plans it cached "
                + "under them (prepared statements, functions' queries) may serve this statement for a reason a reader cannot "
                + "see. Make the snippet visible, or DISCARD PLANS in a visible snippet before the claim", outcome.failure().message());
    }

    @Test
    void explainLinesCompareInOrder() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE t (id int PRIMARY KEY);")
                .add("", "EXPLAIN (COSTS OFF) SELECT * FROM t WHERE id > 0 ORDER BY id DESC LIMIT 1;", """
                                              QUERY PLAN
                        ------------------------------------------------------
                           ->  Index Only Scan Backward using t_pkey on t
                                 Index Cond: (id > 0)
                         Limit
                        """).last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
    }

    // --- 2. nothing hidden changes what the shown SQL means without saying so

    @Test
    void aHiddenSettingThatChangesResultsIsStated() throws Exception {
        Outcome outcome = page().add("hidden", "CREATE TABLE t (x int); INSERT INTO t VALUES (NULL), (1); SET transform_null_equals = on;")
                .add("", "SELECT count(*) FROM t WHERE x = NULL;", " count\n-------\n     1\n").last();
        assertPassed(outcome);
        assertEquals("runs under conditions a stock session does not have: transform_null_equals = on, made by the hidden snippet "
                + "at page.md:1:1", description(outcome, "conditions"));
    }

    @Test
    void aHiddenOpenTransactionIsStated() throws Exception {
        Outcome outcome = page().add("setup hidden", """
                        CREATE TABLE a (id int PRIMARY KEY);
                        CREATE TABLE b (a_id int REFERENCES a DEFERRABLE INITIALLY DEFERRED);
                        BEGIN;""")
                .add("", "INSERT INTO b VALUES (42);").last();
        assertPassed(outcome);
        // Kensho reads nothing inside the page's transaction (issue 31): what the hidden snippet changed stays unread, and says so.
        assertEquals("runs under conditions a stock session does not have: runs inside the transaction opened by the hidden snippet "
                + "at page.md:1:1 (not committed yet); the session's state after the snippet at page.md:1:1 could not be read "
                + "(Kensho reads nothing inside the page's open transaction), so what it changed is not known",
                description(outcome, "conditions"));
    }

    @Test
    void aFunctionShadowingABuiltInIsStated() throws Exception {
        Outcome outcome = page().add("hidden", """
                        CREATE TABLE t (v varchar); INSERT INTO t VALUES ('A');
                        CREATE FUNCTION public.lower(varchar) RETURNS text LANGUAGE sql AS $$ SELECT 'shadowed' $$;""")
                .add("", "SELECT lower(v) FROM t;", " lower\n----------\n shadowed\n").last();
        assertPassed(outcome);
        assertEquals("runs under conditions a stock session does not have: lower(character varying) (function named like one in "
                + "pg_catalog, on the search path), made by the hidden snippet at page.md:1:1", description(outcome, "conditions"));
    }

    @Test
    void aHiddenStatisticsTargetFailsPlanClaims() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS + "CREATE INDEX orders_account_idx ON orders (account_id);"
                        + " ALTER TABLE orders ALTER COLUMN account_id SET STATISTICS 0; ANALYZE orders;")
                .add("uses-index=orders_account_idx", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertEquals("plan claims cannot be checked: the plan was made with statistics target of orders.account_id = 0, made by the "
                + "setup snippet at page.md:1:1; a plan forced by planner inputs the reader cannot see says nothing about what "
                + "PostgreSQL chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet",
                outcome.failure().message());
    }

    @Test
    void aSettingThatCannotChangeAPlansShapeDoesNotBlockPlanClaims() throws Exception {
        Outcome outcome = page().add("setup hidden", ACCOUNTS + "CREATE INDEX orders_account_idx ON orders (account_id); ANALYZE orders; SET jit = off;")
                .add("uses-index=orders_account_idx", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertPassed(outcome);
    }

    @Test
    void anExplainWrittenAsRowsUnderAHiddenPlannerSettingFails() throws Exception {
        Outcome outcome = page().add("setup hidden", "CREATE TABLE t (id int PRIMARY KEY); SET enable_seqscan = off;")
                .add("", "EXPLAIN (COSTS OFF) SELECT * FROM t WHERE id > 0;", """
                                           QUERY PLAN
                        ------------------------------------------
                         Bitmap Heap Scan on t
                           Recheck Cond: (id > 0)
                           ->  Bitmap Index Scan on t_pkey
                                 Index Cond: (id > 0)
                        """).last();
        assertEquals("the rows are an EXPLAIN, a plan claim, and it cannot be checked: the plan was made with enable_seqscan = off, "
                + "made by the setup snippet at page.md:1:1; a plan forced by planner inputs the reader cannot see says nothing about "
                + "what PostgreSQL chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet",
                outcome.failure().message());
    }

    // --- 3. order and statement boundaries as PostgreSQL decides them

    private static final String NUMBERS = "CREATE TABLE n (k int, s text); INSERT INTO n VALUES (1, 'a'), (1, 'b'), (2, 'c');";

    @Test
    void aParenthesisedOrderByIsAnOrder() throws Exception {
        Outcome outcome = page().add("", NUMBERS)
                .add("", "(SELECT k, s FROM n ORDER BY k DESC);", " k | s\n---+---\n 1 | a\n 2 | c\n 1 | b\n").last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
    }

    @Test
    void aCursorDeclaredWithOrderByFetchesInOrder() throws Exception {
        Outcome outcome = page().add("", NUMBERS + " BEGIN; DECLARE c CURSOR FOR SELECT k, s FROM n ORDER BY k DESC;")
                .add("", "FETCH ALL FROM c;", " k | s\n---+---\n 1 | a\n 2 | c\n 1 | b\n").last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
    }

    @Test
    void rowsThatTieOnEveryKeyCompareInAnyOrder() throws Exception {
        Outcome outcome = page().add("", NUMBERS)
                .add("", "SELECT k, s FROM n ORDER BY k;", " k | s\n---+---\n 1 | b\n 1 | a\n 2 | c\n").last();
        assertPassed(outcome);
        assertEquals("returns the 3 expected row(s) in order (rows that tie on every ORDER BY key in any order)", description(outcome, "rows"));
        Outcome wrong = page().add("", NUMBERS)
                .add("", "SELECT k, s FROM n ORDER BY k;", " k | s\n---+---\n 2 | c\n 1 | b\n 1 | a\n").last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", wrong.failure().message());
    }

    @Test
    void withStandardConformingStringsOffABackslashQuoteHidesNoOrderBy() throws Exception {
        Outcome outcome = page().add("", NUMBERS + " SET standard_conforming_strings = off;")
                .add("", "SELECT k, s FROM n WHERE s <> 'O\\'Brien; x' ORDER BY k DESC;", " k | s\n---+---\n 1 | a\n 2 | c\n 1 | b\n").last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
    }

    @Test
    void aSnippetIsSplitAsPsqlSplitsItAfterTheSettingChanges() throws Exception {
        Outcome outcome = page().add("", "SET standard_conforming_strings = off; SELECT 'a\\';b' AS s;", " s\n-----\n a';b\n").last();
        assertPassed(outcome);
        assertEquals("runs without error", outcome.assertions().get(0).description());
        assertEquals("2", outcome.assertions().get(0).facts().get("statements"));
    }

    // --- 5. plan matching that means what it says

    private static final String VENUES = """
            CREATE TABLE seats (id int PRIMARY KEY, venue_id int, row_no int);
            CREATE INDEX seats_venue_idx ON seats (venue_id);
            INSERT INTO seats SELECT g, g % 300, g % 40 FROM generate_series(1, 30000) AS g;
            ANALYZE seats;
            """;

    @Test
    void indexCondContainsMatchesWholeTokens() throws Exception {
        Outcome outcome = page().add("setup hidden", VENUES)
                .add("index-cond-contains=\"id = 7\"", "SELECT * FROM seats WHERE venue_id = 7;").last();
        assertEquals("plan assertion failed: Index Cond contains id = 7: no Index Cond holds it as whole tokens; the plans': "
                + "(venue_id = 7)", outcome.failure().message());
        Outcome right = page().add("setup hidden", VENUES)
                .add("index-cond-contains=\"venue_id = 7\"", "SELECT * FROM seats WHERE venue_id = 7;").last();
        assertPassed(right);
    }

    @Test
    void aBitmapScanOfAnotherSchemasIndexDoesNotSatisfyAClaimAboutPublics() throws Exception {
        Outcome outcome = page().add("setup hidden", VENUES + """
                        CREATE SCHEMA archive;
                        CREATE TABLE archive.seats (LIKE seats);
                        CREATE INDEX seats_venue_idx ON archive.seats (venue_id);
                        INSERT INTO archive.seats SELECT * FROM seats;
                        ANALYZE archive.seats;""")
                .add("uses-index=public.seats_venue_idx", "SELECT count(*) FROM archive.seats WHERE venue_id IN (7, 8, 9);").last();
        assertTrue(outcome.failure().message().startsWith("plan assertion failed: uses index public.seats_venue_idx: the plan uses no index "
                + "public.seats_venue_idx; it scans with"), outcome.failure().message());
    }

    @Test
    void aPartitionsIndexCountsForItsPartitionedParentIndex() throws Exception {
        Outcome outcome = page().add("setup hidden", """
                        CREATE TABLE events (id int, at date, kind text) PARTITION BY RANGE (at);
                        CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
                        CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
                        CREATE INDEX events_kind_idx ON events (kind);
                        INSERT INTO events SELECT g, date '2025-01-01' + g % 700, 'k' || g % 500 FROM generate_series(1, 40000) AS g;
                        ANALYZE events;""")
                .add("uses-index=events_kind_idx", "SELECT * FROM events WHERE kind = 'k7' AND at >= '2026-03-01';").last();
        assertPassed(outcome);
    }

    @Test
    void noSortFailsOnAnAggregateThatSortsItsInput() throws Exception {
        Outcome outcome = page().add("setup hidden", VENUES)
                .add("no-sort", "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY row_no) FROM seats WHERE venue_id = 7;").last();
        assertEquals("plan assertion failed: no Sort node: the aggregate percentile_cont('0.5'::double precision) WITHIN GROUP "
                + "(ORDER BY ((row_no)::double precision)) sorts its input itself (an ordered-set aggregate sorts each group's "
                + "rows in its own functions; EXPLAIN shows no Sort node for it)",
                outcome.failure().message());
    }

    // --- every failure of a page in one run

    @Test
    void aFailedClaimOnAStatementThatRanDoesNotStopThePage() throws Exception {
        PageResult result = page().add("", NUMBERS)
                .add("", "SELECT count(*) FROM n;", " count\n-------\n     4\n")
                .add("", "SELECT max(k) FROM n;", " max\n-----\n   3\n").run();
        List<Outcome> outcomes = result.outcomes();
        assertEquals(Outcome.Status.FAILED, outcomes.get(1).status());
        assertEquals(Outcome.Status.FAILED, outcomes.get(2).status());
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcomes.get(2).failure().message());
    }

    @Test
    void anUnexpectedErrorStillStopsWhatBuildsOnIt() throws Exception {
        PageResult result = page().add("", "CREATE TABLE t (id int); INSERT INTO t VALUES ('x');")
                .add("", "SELECT count(*) FROM t;").run();
        assertEquals(Outcome.Status.SKIPPED, result.outcomes().get(1).status());
    }
}
