package dev.kensho.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An exercise's named data sets (```sql case=NAME and its ```rows): the build runs the model answer on each, from the
 * state before the answer, in a transaction it rolls back, and records the rows for the browser; bad authoring fails
 * at its line. The browser half (the reader's query judged on each case) is BrowserTest's.
 */
class ExerciseCasesTest {

    @TempDir
    Path temp;

    /** A page whose exercise has two cases; {@code cases} replaces them (line 28 is the first case's fence). */
    private static String page(String cases) {
        return TestSite.source("A", """

                ```sql
                CREATE TABLE t (id int PRIMARY KEY, status text);
                INSERT INTO t VALUES (1, 'paid'), (2, 'paid');
                ```

                <Exercise title="Paid">
                Return the ids of paid rows, smallest first.

                <Fragment slot="answer">

                ```sql
                SELECT id FROM t WHERE status = 'paid' ORDER BY id;
                ```

                ```rows
                 id
                ----
                  1
                  2
                (2 rows)
                ```

                """ + cases + """

                </Fragment>
                </Exercise>

                ```sql
                SELECT count(*) AS n FROM t;
                ```

                ```rows
                 n
                ---
                 2
                (1 row)
                ```
                """);
    }

    private static final String TWO_CASES = """
            ```sql case="a NULL status"
            INSERT INTO t VALUES (3, NULL), (4, 'paid');
            ```

            ```rows
             id
            ----
              1
              2
              4
            (3 rows)
            ```

            ```sql case="only refunds"
            UPDATE t SET status = 'refunded' WHERE id = 1;
            ```

            ```rows
             id
            ----
              2
            (1 row)
            ```
            """;

    @SuppressWarnings("unchecked")
    @Test
    void theBuildRunsTheAnswerOnEachCaseFromTheStateBeforeItAndRecordsItsRowsForTheBrowser() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", page(TWO_CASES));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        // The case's rows were rolled back: the page after the exercise counts two rows, as the reader's replay does.
        Map<String, Object> plan = new ObjectMapper().readValue(site.out.resolve("a/index.run.json").toFile(), Map.class);
        List<Map<String, Object>> runs = (List<Map<String, Object>>) plan.get("runs");
        assertEquals(List.of(0, 1, 4), runs.stream().map(r -> r.get("snippet")).toList(), "the cases are not replayed with the page");
        assertEquals(List.of(Map.of("name", "a NULL status", "line", 28, "statements", List.of("INSERT INTO t VALUES (3, NULL), (4, 'paid')")),
                Map.of("name", "only refunds", "line", 41, "statements", List.of("UPDATE t SET status = 'refunded' WHERE id = 1"))),
                runs.get(1).get("cases"));
        Map<String, Object> rows = new ObjectMapper().readValue(site.out.resolve("a/" + runs.get(1).get("rows")).toFile(), Map.class);
        List<Map<String, Object>> cases = (List<Map<String, Object>>) rows.get("cases");
        assertEquals(List.of("a NULL status", "only refunds"), cases.stream().map(c -> c.get("name")).toList());
        assertEquals(List.of(List.of("1"), List.of("2"), List.of("4")),
                ((List<Map<String, Object>>) cases.get(0).get("results")).get(0).get("rows"));
        assertEquals(List.of(List.of("2")), ((List<Map<String, Object>>) cases.get(1).get("results")).get(0).get("rows"));
        assertEquals(true, ((Map<String, Object>) cases.get(1).get("expect")).get("ordered"));
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        var figures = html.select(".exercise-answer figure[data-kensho-case]");
        assertEquals(List.of("a NULL status", "only refunds"), figures.eachAttr("data-kensho-case"));
        assertEquals("ケース：a NULL status", figures.get(0).selectFirst("figcaption").text());
        assertTrue(figures.select("[data-kensho-run], .run-unavailable").isEmpty(), "a case has no run control and no note of its own");
        assertNotNull(html.selectFirst(".exercise-answer figure[data-kensho-snippet]:not([data-kensho-case])"));
        assertTrue(html.select(".exercise-expected figure[data-kensho-case]").isEmpty(), "the expected result is the page data's alone");
        assertEquals(3, html.select(".exercise-expected .expected-rows").size() + html.select(".exercise-answer .expected-rows").size(),
                "the answer's rows under the expected result, each case's with the answer");
        assertNotNull(html.selectFirst("[data-kensho-exercise-start]"), "the exercise can still be checked in the browser");
    }

    @Test
    void aDataSetThatFailsFailsTheBuildAtItsStatement() throws Exception {
        TestSite.Run run = new TestSite(temp).page("a.mdx", page("""
                ```sql case="broken"
                INSERT INTO t VALUES (3, 'paid');
                INSERT INTO nowhere VALUES (1);
                ```

                ```rows
                 id
                ----
                  1
                (1 row)
                ```
                """)).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:29:13: error: case \"broken\": its data set fails: relation \"nowhere\" does not exist"),
                run::toString);
    }

    @Test
    void aCaseOnWhichTheAnswerReturnsNoRowsFailsTheBuild() throws Exception {
        TestSite.Run run = new TestSite(temp).page("a.mdx", page("""
                ```sql case="nothing paid"
                DELETE FROM t;
                ```

                ```rows
                 id
                ----
                (0 rows)
                ```
                """)).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:28:1: error: case \"nothing paid\" gives the model answer no rows, so a query that "
                + "returns nothing would pass it; give it data the answer finds"), run::toString);
    }

    @Test
    void aCaseWhoseRowsAreNotTheAnswersFailsTheBuildAtTheCase() throws Exception {
        TestSite.Run run = new TestSite(temp).page("a.mdx", page("""
                ```sql case="one more"
                INSERT INTO t VALUES (3, 'paid');
                ```

                ```rows
                 id
                ----
                  1
                  2
                (2 rows)
                ```
                """)).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:28:1: error: case \"one more\": the model answer does not return its rows: "), run::toString);
    }

    @Test
    void aCaseWithoutANameOrNamedTwiceOrWithoutRowsOrAfterNoAnswerFailsTheBuild() throws Exception {
        TestSite.Run unnamed = new TestSite(temp.resolve("unnamed")).page("a.mdx", page("""
                ```sql case
                INSERT INTO t VALUES (3, 'paid');
                ```
                """)).check();
        assertTrue(unnamed.err().contains("a.mdx:27:1: error: case needs a value: case=…"), unnamed::toString);
        TestSite.Run twice = new TestSite(temp.resolve("twice")).page("a.mdx", page("""
                ```sql case="more"
                INSERT INTO t VALUES (3, 'paid');
                ```

                ```rows
                 id
                ----
                  1
                  2
                  3
                (3 rows)
                ```

                ```sql case="more"
                INSERT INTO t VALUES (4, 'paid');
                ```

                ```rows
                 id
                ----
                  1
                  2
                  4
                (3 rows)
                ```
                """)).check();
        assertTrue(twice.err().contains("a.mdx:41:1: error: case \"more\" is named twice; give each case of an answer its own name "
                + "(the reader is told it by name)"), twice::toString);
        TestSite.Run noRows = new TestSite(temp.resolve("norows")).page("a.mdx", page("""
                ```sql case="more"
                INSERT INTO t VALUES (3, 'paid');
                ```
                """)).check();
        assertTrue(noRows.err().contains("a.mdx:28:1: error: case \"more\" needs the rows the model answer returns on its data: "
                + "write a ```rows fence right after it"), noRows::toString);
        TestSite.Run stray = new TestSite(temp.resolve("stray")).page("a.mdx", TestSite.source("A", """

                ```sql
                SELECT 1 AS one;
                ```

                ```sql case="lonely"
                SELECT 2;
                ```

                ```rows
                 one
                -----
                   1
                (1 row)
                ```
                """)).check();
        assertTrue(stray.err().contains("a.mdx:10:1: error: case \"lonely\" is a data set for the snippet right before it, which "
                + "compares no rows: put the case after the model answer's ```sql fence and its ```rows"), stray::toString);
    }

    /** A page whose case inserts a row through the id column's default, its table made by {@code table} instead. */
    private static String unpaidRowCase(String table) {
        return page("""
                ```sql case="an unpaid row"
                INSERT INTO t (status) VALUES ('unpaid');
                ```

                ```rows
                 id
                ----
                  1
                  2
                (2 rows)
                ```
                """).replace("CREATE TABLE t (id int PRIMARY KEY, status text);", table);
    }

    @Test
    void aCaseThatLeavesWhatARollbackDoesNotUndoFailsTheBuild() throws Exception {
        // Red team helper-85: a case's INSERT took a serial column's default, and the browser, running the reader's query
        // after the case in the same session, judged SELECT (last_value - 1) FROM the sequence right.
        TestSite.Run serial = new TestSite(temp.resolve("serial")).page("a.mdx", unpaidRowCase(
                "CREATE TABLE t (id serial PRIMARY KEY, status text); SELECT setval('t_id_seq', 2);")).check();
        assertEquals(1, serial.status(), serial::toString);
        assertTrue(serial.err().contains("a.mdx:28:1: error: case \"an unpaid row\" leaves the session changed after Kensho's "
                + "rollback (sequences before: [public.t_id_seq=2], after: [public.t_id_seq=3]), and the browser runs the reader's "
                + "query after the cases in the same session"), serial::toString);
        // Red team helper-86: a sequence the page's role may not read (pg_sequences shows it a NULL last_value) is read by
        // Kensho's superuser on the case's replay: an identity column's draw is seen.
        TestSite.Run hidden = new TestSite(temp.resolve("hidden")).page("a.mdx", unpaidRowCase(
                "CREATE TABLE t (id int GENERATED BY DEFAULT AS IDENTITY (START 10) PRIMARY KEY, status text); "
                        + "REVOKE ALL ON SEQUENCE t_id_seq FROM CURRENT_USER;")).check();
        assertEquals(1, hidden.status(), hidden::toString);
        assertTrue(hidden.err().contains("a.mdx:28:1: error: case \"an unpaid row\" leaves the session changed after Kensho's "
                + "rollback (sequences before: [public.t_id_seq=], after: [public.t_id_seq=10])"), hidden::toString);
        TestSite.Run run = new TestSite(temp.resolve("sequence")).page("a.mdx", page("""
                ```sql case="a sequence"
                SELECT nextval('t_seq');
                ```

                ```rows
                 id
                ----
                  1
                  2
                (2 rows)
                ```
                """).replace("INSERT INTO t VALUES (1, 'paid'), (2, 'paid');",
                "INSERT INTO t VALUES (1, 'paid'), (2, 'paid'); CREATE SEQUENCE t_seq;")).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:28:1: error: case \"a sequence\" leaves the session changed after Kensho's rollback "
                + "(sequences before: [public.t_seq=], after: [public.t_seq=1]), and the browser runs the reader's query after the "
                + "cases in the same session, where a right query could be judged wrong and a wrong one right; give explicit values "
                + "instead of a sequence's"), run::toString);
    }

    @Test
    void aDataSetMayNotEndTheTransactionItRunsIn() throws Exception {
        TestSite.Run run = new TestSite(temp).page("a.mdx", page("""
                ```sql case="committed"
                INSERT INTO t VALUES (3, 'paid');
                COMMIT;
                ```

                ```rows
                 id
                ----
                  1
                  2
                  3
                (3 rows)
                ```
                """)).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:29:1: error: case \"committed\": its data set runs inside a transaction Kensho rolls "
                + "back, so it may not control transactions (COMMIT)"), run::toString);
    }
    /** A data set of {@code sql} on which the answer returns ids 1 to 3 (its third row is the data set's). */
    private static String storing(String name, String sql) {
        return page("```sql case=\"" + name + "\"\n" + sql + "\n```\n\n```rows\n id\n----\n  1\n  2\n  3\n(3 rows)\n```\n");
    }

    /**
     * A case's verdict is a promise like a mark: what its data set stored from Kensho's session or the server as a whole (a
     * setting, a transaction counter), which the reader's browser would not give, fails at the case, whether the text names
     * it or only a statement built at run time reads it (red team helper-83: both passed).
     */
    @Test
    void aCaseWhoseDataReadsWhatTheReadersRunWouldNotGiveFailsAtTheCase() throws Exception {
        TestSite.Run setting = new TestSite(temp.resolve("setting")).page("a.mdx", storing("a setting",
                "INSERT INTO t SELECT 3, CASE WHEN current_setting('client_min_messages') <> 'notice' THEN 'paid' END;")).check();
        assertEquals(1, setting.status(), setting::toString);
        String kenshos = "Kensho sets application_name, client_min_messages, debug_pretty_print, debug_print_parse and "
                + "debug_print_rewritten to see parse trees)";
        assertTrue(setting.err().contains("a.mdx:28:51: error: case \"a setting\": this claim cannot be checked: the page reads a "
                + "setting Kensho gives its session and a reader's session does not have (client_min_messages, at "), setting::toString);
        assertTrue(setting.err().contains("a.mdx:28:51; " + kenshos), setting::toString);
        TestSite.Run counter = new TestSite(temp.resolve("counter")).page("a.mdx", storing("a counter",
                "INSERT INTO t SELECT 3, CASE WHEN txid_current() > 0 THEN 'paid' END;")).check();
        assertEquals(1, counter.status(), counter::toString);
        assertTrue(counter.err().contains("a.mdx:28:35: error: case \"a counter\": this claim cannot be checked: the page reads a "
                + "counter the whole server shares (txid_current, at "), counter::toString);
        TestSite.Run built = new TestSite(temp.resolve("built")).page("a.mdx", storing("built at run time",
                "DO $$ BEGIN EXECUTE 'INSERT INTO t SELECT 3, CASE WHEN current_' || 'setting(''client_min_' || 'messages'') <> ''notice'' "
                        + "THEN ''paid'' END'; END $$;")).check();
        assertEquals(1, built.status(), built::toString);
        assertTrue(built.err().contains("a.mdx:28:1: error: case \"built at run time\": this claim cannot be checked: the page reads a "
                + "setting Kensho gives its session and a reader's session does not have (current_setting, read by a statement the "
                + "page built at run time, in the case at "), built::toString);
        assertTrue(built.err().contains("a.mdx:28:1; " + kenshos), built::toString);
        // The exercise says why it has no verified rows, not that they were never written.
        assertTrue(built.err().contains("a.mdx:10:1: error: <Exercise> cannot check a reader: its model answer's rows were not "
                + "verified (the error at the answer or its case says why)"), built::toString);
        assertFalse(built.err().contains("needs the model answer's rows"), built::toString);
    }
    /**
     * What a case leaves in the session that a rollback does not undo (red team helper-84, finding 1): the seed of random(),
     * a session's advisory lock, a prepared statement made again under its name, an open cursor moved. The real run runs no
     * case, but the browser runs the reader's query after the cases in the same session, where it would see them.
     */
    @Test
    void aCaseMayLeaveNothingInTheSessionThatTheReadersQueryAfterItWouldSee() throws Exception {
        TestSite.Run seed = new TestSite(temp.resolve("seed")).page("a.mdx", storing("a seed",
                "INSERT INTO t VALUES (3, 'paid'); SELECT setseed(0.25);")).check();
        assertEquals(1, seed.status(), seed::toString);
        assertTrue(seed.err().contains("a.mdx:28:1: error: case \"a seed\" calls setseed(), whose effect on the session (a "
                + "sequence's value, currval, the seed of random(), a session's advisory lock) outlives Kensho's rollback, and the "
                + "browser runs the reader's query after the cases in the same session; give explicit values"), seed::toString);
        TestSite.Run lock = new TestSite(temp.resolve("lock")).page("a.mdx", storing("a lock",
                "INSERT INTO t VALUES (3, 'paid'); DO $$ BEGIN EXECUTE 'SELECT pg_advisory_' || 'lock(2)'; END $$;")).check();
        assertEquals(1, lock.status(), lock::toString);
        assertTrue(lock.err().contains("a.mdx:28:1: error: case \"a lock\" leaves the session changed after Kensho's rollback "
                + "(advisory locks before: [], after: [0/2/1 ExclusiveLock]), and the browser runs the reader's query after the cases in "
                + "the same session, where a right query could be judged wrong and a wrong one right; a case may leave nothing a "
                + "rollback does not undo"), lock::toString);
        // Locked and unlocked again: nothing left, and still refused, by the call the server's tree shows.
        TestSite.Run unlocked = new TestSite(temp.resolve("unlocked")).page("a.mdx", storing("unlocked",
                "INSERT INTO t VALUES (3, 'paid'); DO $$ BEGIN EXECUTE 'SELECT pg_advisory_unlock_' || 'all()'; END $$;")).check();
        assertEquals(1, unlocked.status(), unlocked::toString);
        assertTrue(unlocked.err().contains("a.mdx:28:1: error: case \"unlocked\" calls pg_advisory_unlock_all(), whose effect"),
                unlocked::toString);
        TestSite.Run prepared = new TestSite(temp.resolve("prepared")).page("a.mdx", storing("prepared again",
                "INSERT INTO t VALUES (3, 'paid'); DO $$ BEGIN EXECUTE 'DEALLOCATE q'; EXECUTE 'PREPARE q AS SELECT 2 AS v'; END $$;")
                .replace("INSERT INTO t VALUES (1, 'paid'), (2, 'paid');", "INSERT INTO t VALUES (1, 'paid'), (2, 'paid'); PREPARE q AS SELECT 1 AS v;"))
                .check();
        assertEquals(1, prepared.status(), prepared::toString);
        assertTrue(prepared.err().contains("a.mdx:28:1: error: case \"prepared again\" leaves the session changed after Kensho's "
                + "rollback (prepared statements before: [q: PREPARE q AS SELECT 1 AS v; {}], after: [q: PREPARE q AS SELECT 2 AS v {}])"),
                prepared::toString);
        TestSite.Run cursor = new TestSite(temp.resolve("cursor")).page("a.mdx", storing("a cursor", "INSERT INTO t VALUES (3, 'paid');")
                .replace("INSERT INTO t VALUES (1, 'paid'), (2, 'paid');",
                        "INSERT INTO t VALUES (1, 'paid'), (2, 'paid'); BEGIN; DECLARE c CURSOR WITH HOLD FOR SELECT id FROM t; COMMIT;"))
                .check();
        assertEquals(1, cursor.status(), cursor::toString);
        assertTrue(cursor.err().contains("a.mdx:28:1: error: case \"a cursor\" runs while the page holds the cursor(s) c open; a "
                + "case may move one"), cursor::toString);
    }
    /**
     * A case runs only on a replay of the page that stops after its answer, never in the run whose marks the page shows: a
     * reader's run never runs a case before the snippets after it. The class behind red team helper-84's finding 1: what a
     * case leaves in the tables' files and the plans it cached reached the snippets after it, so a plan claim after an
     * exercise with cases used to fail; now it is checked as on any page.
     */
    @Test
    void aCaseRunsOnlyOnAReplaySoTheSnippetsAfterItRunAsAReadersRunDoes() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", storing("a row rolled back", "INSERT INTO t VALUES (3, 'paid');")
                + """

                ```sql no-seq-scan=t
                SET enable_seqscan = off;
                SELECT id FROM t WHERE id = 1;
                ```
                """);
        TestSite.Run run = site.check();
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().contains("5 passed"), run::toString);
    }
    @Test
    void kenshosReadOfTheSessionRunsNoneOfThePagesFunctions() throws Exception {
        // Red team helper-94: Kensho's read of what a case left (on the page's session) called format() unqualified, and the
        // page's public.format(text, name, name, bigint), first on the search_path it set, inserted a row on one call and
        // deleted it on the next: the case's rows counted Kensho's calls, and a false claim passed. A reader's run gives 1.
        TestSite.Run run = new TestSite(temp).page("a.mdx", TestSite.source("A", """

                ```sql
                CREATE TABLE log (n int);
                CREATE SEQUENCE sq;
                CREATE FUNCTION public.format(text, name, name, bigint) RETURNS text LANGUAGE plpgsql AS $$ BEGIN
                  IF EXISTS (SELECT 1 FROM public.log WHERE n = 0) THEN DELETE FROM public.log WHERE n = 0;
                  ELSE INSERT INTO public.log VALUES (0); END IF;
                  RETURN 'x'; END $$;
                SET search_path = public, pg_catalog;
                ```

                <Exercise title="Count the log">
                Count the rows of `log`.

                <Fragment slot="answer">

                ```sql
                SELECT count(*) AS n FROM log;
                ```

                ```rows
                 n
                ---
                 0
                (1 row)
                ```

                ```sql case="one row"
                INSERT INTO log VALUES (5);
                ```

                ```rows
                 n
                ---
                 2
                (1 row)
                ```

                </Fragment>
                </Exercise>
                """)).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:32:1: error: case \"one row\": the model answer does not return its rows: "), run::toString);
    }

    @Test
    void aModelAnswerWithParametersTakesNoCases() throws Exception {
        // Red team helper-96: the model answer ran bound on each case (its rows named kensho_case_p1), which no reader's
        // answer, run as written, can give.
        TestSite.Run run = new TestSite(temp).page("a.mdx", TestSite.source("A", """

                ```sql
                CREATE TABLE t (id int);
                ```

                <Exercise title="Count">
                Count the rows.

                <Fragment slot="answer">

                ```sql $1:integer=1
                SELECT count(*) AS n FROM t WHERE $1 = 1;
                ```

                ```rows
                 n
                ---
                 0
                (1 row)
                ```

                ```sql case="one row"
                INSERT INTO t VALUES (1);
                ```

                ```rows
                 n
                ---
                 1
                (1 row)
                ```

                </Fragment>
                </Exercise>
                """)).check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("a.mdx:26:1: error: case \"one row\" is a data set for a model answer with $n parameters, "
                + "and a reader's answer runs as written, without them: write the values into the model answer"), run::toString);
    }
}
