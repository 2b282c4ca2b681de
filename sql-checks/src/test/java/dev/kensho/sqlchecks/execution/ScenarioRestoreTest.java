package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.model.StateAfter;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a scenario leaves is recorded beside the page's session and restored in its place (for the reader's browser,
 * which has one connection); the build proves the restore by running the page again from it.
 */
class ScenarioRestoreTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(3)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static final String TWO_SESSIONS = """
            session a
            step a1 { INSERT INTO orders (note, amount) VALUES ('from a', 1.50); }
            session b
            step b1 { INSERT INTO orders (note, amount) VALUES ('it''s b', NULL); }
            permutation a1 b1
            """;

    private static PageResult page(String create, String scenario, String later) throws Exception {
        Snippet setup = Snippet.of(new SourceLocation("page.md", 1, 1), create);
        Snippet both = Snippet.of(new SourceLocation("page.md", 5, 1), scenario).withScenario(ScenarioParser.parse(scenario));
        Snippet select = Snippet.of(new SourceLocation("page.md", 20, 1), later);
        return verifier.verifyPage("page.md", List.of(setup, both, select));
    }

    @Test
    void rowsTwoSessionsInsertedAreRecordedAndTheirRestoreIsProvenByTheSnippetAfter() throws Exception {
        PageResult result = page("CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric, cents int GENERATED ALWAYS AS"
                + " ((amount * 100)::int) STORED);", TWO_SESSIONS, "SELECT id, note, amount, cents FROM orders ORDER BY id;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        StateAfter after = result.outcomes().get(1).transcript().after();
        assertEquals(List.of(
                "TRUNCATE \"public\".\"orders\"",
                "INSERT INTO \"public\".\"orders\" (\"id\", \"note\", \"amount\") VALUES ('1'::bigint, 'from a'::text, '1.50'::numeric),"
                        + " ('2'::bigint, 'it''s b'::text, NULL)",
                "SELECT pg_catalog.setval('\"public\".\"orders_id_seq\"', 2, true)"), after.restoreStatements());
        assertEquals(1, after.reproduced(), "the SELECT after the scenario returned the same rows after the restore");
        // The verification cache keeps it as JSON: read back, it is the same state, nulls included.
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertEquals(result.outcomes().get(1).transcript(), json.readValue(json.writeValueAsBytes(result.outcomes().get(1).transcript()),
                dev.kensho.sqlchecks.model.ScenarioTranscript.class));
        // The page's own session was not where the build read: the snippet after the scenario saw what the scenario left.
        assertEquals(List.of(List.of("1", "from a", "1.50", "150"), java.util.Arrays.asList("2", "it's b", null, null)),
                result.outcomes().get(2).results().get(0).rows());
    }

    /** A table is restored after the tables its foreign keys point to, whatever their names: its rows find theirs. */
    @Test
    void aReferencingTableIsRestoredAfterTheTableItRefersTo() throws Exception {
        String scenario = """
                session a
                step a1 { INSERT INTO b_customers VALUES (1); }
                session b
                step b1 { INSERT INTO a_orders VALUES (10, 1); }
                permutation a1 b1
                """;
        PageResult result = page("CREATE TABLE b_customers (id int PRIMARY KEY); CREATE TABLE a_orders (id int PRIMARY KEY,"
                + " customer int REFERENCES b_customers);", scenario, "SELECT id, customer FROM a_orders;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        StateAfter after = result.outcomes().get(1).transcript().after();
        assertEquals(List.of("TRUNCATE \"public\".\"b_customers\", \"public\".\"a_orders\"",
                "INSERT INTO \"public\".\"b_customers\" (\"id\") VALUES ('1'::integer)",
                "INSERT INTO \"public\".\"a_orders\" (\"id\", \"customer\") VALUES ('10'::integer, '1'::integer)"), after.restoreStatements());
        assertEquals(1, after.reproduced());
    }

    @Test
    void rowsInAnotherSchemaAreNotRestoredAndTheProofSaysSo() throws Exception {
        PageResult result = page("CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric); CREATE SCHEMA audit;"
                + " CREATE TABLE audit.seen (note text);", TWO_SESSIONS.replace("step b1 {", "step b2 { INSERT INTO audit.seen VALUES ('b'); }\nstep b1 {")
                .replace("permutation a1 b1", "permutation a1 b1 b2"), "SELECT note FROM audit.seen;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        StateAfter after = result.outcomes().get(1).transcript().after();
        assertEquals(0, after.reproduced(), "audit.seen is empty after the restore, so the SELECT after it ended otherwise");
    }

    /**
     * A page that reads the statistics views by name is read after its scenario like any other (the state is read on a capture
     * run of its own, see CaptureRun): the text guard that once kept such pages from being read is gone.
     */
    @Test
    void aPageThatReadsStatisticsViewsIsReadAfterItsScenarioOnACaptureRun() throws Exception {
        PageResult result = page("CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric);", TWO_SESSIONS,
                "SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'orders' AND seq_scan >= 0 AND n_tup_ins < 0;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        assertEquals(1, result.outcomes().get(1).transcript().after().reproduced());
    }

    /**
     * A page that names the statistics view so that no text test sees it (a U& identifier) is read after its scenario, and
     * the read leaves no count there: the page's SELECT shows seq_scan 1, what the same page shows when nothing is read
     * after its scenario, not 2. Long before the capture run, the read ran as the page's role and counted; now it does not
     * run in the real run at all (CaptureRun). The sleep lets a finished backend's statistics reach the shared ones, as they would by the reader's next statement.
     */
    @Test
    void theReadOfAScenariosEndStateLeavesNoCountInTheStatisticsHoweverThePageNamesThem() throws Exception {
        PageResult result = page("CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric);", TWO_SESSIONS,
                "SELECT pg_sleep(1.5) IS NOT NULL AS slept; SELECT seq_scan, n_tup_ins FROM U&\"pg\\005fstat_user_tables\""
                        + " WHERE relname = 'orders';");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        assertEquals(List.of(List.of("1", "2")), result.outcomes().get(2).results().get(1).rows());
        assertEquals(2, result.outcomes().get(1).transcript().after().tables().get(0).rows().size(), "the state was read");
    }

    /**
     * The read runs as Kensho's superuser: a page that owns its database and puts its own schema before pg_catalog there
     * (ALTER DATABASE ... SET search_path), with an operator of its own for text LIKE text, must not have it called by
     * that session. Here the operator would fail the read (nothing recorded); on a real attack it would run as superuser.
     */
    @Test
    void thePagesOwnOperatorsAreNotCalledByTheSuperuserReadingTheEndState() throws Exception {
        PageResult result = page("""
                CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric);
                CREATE FUNCTION public.trap(text, text) RETURNS boolean LANGUAGE plpgsql AS $$
                  DECLARE prefix text;
                  BEGIN -- the role's prefix read through dynamic SQL (the run-name gate refuses it compared with a constant)
                        EXECUTE 'SELECT pg_catalog.left(' || pg_catalog.quote_literal(current_user) || ', 7)' INTO prefix;
                        IF current_user <> session_user OR prefix <> 'kensho_'
                        THEN RAISE EXCEPTION 'page code ran as %', current_user; END IF; RETURN pg_catalog.textlike($1, $2); END $$;
                CREATE OPERATOR public.~~ (LEFTARG = text, RIGHTARG = text, FUNCTION = public.trap);
                DO $$ BEGIN EXECUTE pg_catalog.format('ALTER DATABASE %I SET search_path = public, pg_catalog', pg_catalog.current_database()); END $$;
                """, TWO_SESSIONS, "SELECT count(*) FROM orders;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        assertEquals(1, result.outcomes().get(1).transcript().after().reproduced());
    }

    @Test
    void aScenarioThatLeavesNothingIsNotRecorded() throws Exception {
        String scenario = """
                session a
                step a1 { SELECT 1 AS one; }
                session b
                step b1 { SELECT 2 AS two; }
                permutation a1 b1
                """;
        PageResult result = page("SELECT 1 AS nothing_made;", scenario, "SELECT 2 AS two;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        Outcome outcome = result.outcomes().get(1);
        assertNull(outcome.transcript().after());
    }
}
