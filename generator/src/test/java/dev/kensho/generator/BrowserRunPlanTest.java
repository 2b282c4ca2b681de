package dev.kensho.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.render.playground.BrowserRuns;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the build gives the reader's browser: the run plan (the build's run, replayable), the markup the run
 * controls hang on, the JSON report's word on each snippet, the engine's files, and exercises that must
 * rest on a verified answer. The browser half is BrowserTest's.
 */
class BrowserRunPlanTest {

    @TempDir
    Path temp;

    private static final String PAGE = """

            ```sql
            CREATE TABLE t (id int PRIMARY KEY, name text);
            INSERT INTO t VALUES (1, 'a'), (2, NULL);
            ```

            ```sql setup hidden
            CREATE TABLE s (n int);
            ```

            ```sql $1:integer=2
            SELECT id, name FROM t WHERE id <= $1 ORDER BY id;
            ```

            ```rows
             id | name
            ----+--------
              1 | a
              2 | (null)
            (2 rows)
            ```

            ```sql expect-error=23505
            INSERT INTO t VALUES (1, 'b');
            ```

            ```scenario
            setup { CREATE TABLE u (id int); }
            session a
            step a1 { SELECT 1; }
            session b
            step b1 { SELECT 2; }
            permutation a1 b1
            ```

            ```sql
            SELECT count(*) AS n FROM u;
            ```

            ```scenario
            session a
            step a2 { SELECT 3; }
            session b
            step b2 { SELECT 4; }
            permutation a2 b2
            ```
            """;

    @Test
    void aBindingIsWrittenInOneOrderWhateverTheJvm() throws Exception {
        // Map.of iterates in an order salted per JVM: the plan differed between two builds of the same site.
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", PAGE));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        String plan = java.nio.file.Files.readString(site.out.resolve("a/index.run.json"));
        assertTrue(plan.contains("\"binding\":{\"prefix\":\"PREPARE kensho_p2 (integer) AS \",\"execute\":\"EXECUTE kensho_p2 ('2')\","
                + "\"deallocate\":\"DEALLOCATE kensho_p2\",\"parameters\":[{\"position\":1,\"type\":\"integer\",\"value\":\"2\"}]}"), plan);
    }

    /** A sample page: two sessions insert rows at once; the snippet after the scenario reads them. */
    static final String RESTORED_PAGE = """

            ```sql
            CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric);
            ```

            ```scenario title="二人が同時に注文する"
            session a
            step a1 { INSERT INTO orders (note, amount) VALUES ('from a', 1.50); }
            session b
            step b1 { INSERT INTO orders (note, amount) VALUES ('it''s b', NULL); }
            permutation a1 b1
            ```

            ```sql
            SELECT id, note, amount FROM orders ORDER BY id;
            ```

            ```rows
             id |  note  | amount
            ----+--------+--------
              1 | from a |   1.50
              2 | it's b | (null)
            (2 rows)
            ```
            """;

    /**
     * The snippet after a scenario runs in the browser from the state the build recorded after it: the plan holds, in the
     * scenario's place, the restore the build proved (the same statements), and the snippet has its run control.
     */
    @SuppressWarnings("unchecked")
    @Test
    void aSnippetAfterAScenarioRunsFromTheRestoreTheBuildProved() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", RESTORED_PAGE));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Map<String, Object> plan = new ObjectMapper().readValue(site.out.resolve("a/index.run.json").toFile(), Map.class);
        List<Map<String, Object>> runs = (List<Map<String, Object>>) plan.get("runs");
        assertEquals(true, runs.get(1).get("restored"));
        assertEquals(List.of("TRUNCATE \"public\".\"orders\"",
                "INSERT INTO \"public\".\"orders\" (\"id\", \"note\", \"amount\") VALUES ('1'::bigint, 'from a'::text, '1.50'::numeric),"
                        + " ('2'::bigint, 'it''s b'::text, NULL)",
                "SELECT pg_catalog.setval('\"public\".\"orders_id_seq\"', 2, true)"), runs.get(1).get("statements"));
        assertNull(runs.get(1).get("rows"), "the scenario itself has no run control");
        assertNull(runs.get(2).get("reason"));
        assertEquals("index.run.2.json", runs.get(2).get("rows"));
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("ブラウザーでは実行できません（複数のセッションを同時に使う例で、ブラウザーの PostgreSQL（PGlite）の接続は一つだけのため）"),
                html.select(".run-unavailable").eachText());
        assertEquals(List.of("0", "2"), html.select("figure[data-kensho-snippet]").eachAttr("data-kensho-snippet"));
        assertEquals("シナリオの後の状態は、ビルドの実行が残した行から復元しています（ブラウザーではシナリオを実行せず、ビルドが記録した表の行と順序の位置を入れ直します）。",
                ((Map<String, Object>) plan.get("ui")).get("restored"));
    }

    /** A snippet after a scenario names it by the title the reader sees above it (escaped), not by a source line. */
    @Test
    void aSnippetAfterAScenarioNamesItByItsTitle() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql
                CREATE TABLE t (id int);
                ```

                ```scenario title="<b>A</b> が commit する"
                setup { CREATE TABLE u (id int); }
                session a
                step a1 { SELECT 1; }
                session b
                step b1 { SELECT 2; }
                permutation a1 b1
                ```

                ```sql
                SELECT count(*) AS n FROM u;
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("ブラウザーでは実行できません（複数のセッションを同時に使う例で、ブラウザーの PostgreSQL（PGlite）の接続は一つだけのため）",
                "ブラウザーでは実行できません（ブラウザーでは再現できない例「<b>A</b> が commit する」の後に実行されるため）"),
                html.select(".run-unavailable").eachText());
        assertTrue(html.select(".run-unavailable b").isEmpty(), "the title is text, not markup");
    }

    @SuppressWarnings("unchecked")
    @Test
    void thePlanReplaysTheBuildsRunInItsOrderAndStopsAtWhatTheBrowserCannotReplay() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", PAGE));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Map<String, Object> plan = new ObjectMapper().readValue(site.out.resolve("a/index.run.json").toFile(), Map.class);
        List<Map<String, Object>> runs = (List<Map<String, Object>>) plan.get("runs");
        // The setup snippet (second on the page) runs first, as the build ran it.
        assertEquals(List.of(1, 0, 2, 3, 4, 5, 6), runs.stream().map(r -> ((Number) r.get("snippet")).intValue()).toList());
        assertEquals(List.of("CREATE TABLE t (id int PRIMARY KEY, name text)", "INSERT INTO t VALUES (1, 'a'), (2, NULL)"),
                runs.get(1).get("statements"));
        assertEquals(Map.of("prefix", "PREPARE kensho_p2 (integer) AS ", "execute", "EXECUTE kensho_p2 ('2')",
                "deallocate", "DEALLOCATE kensho_p2", "parameters", List.of(Map.of("position", 1, "type", "integer", "value", "2"))),
                runs.get(2).get("binding"));
        Map<String, Object> expect = (Map<String, Object>) runs.get(2).get("expect");
        assertEquals(true, expect.get("rows"));
        assertEquals(true, expect.get("ordered"));
        assertEquals(List.of(0), expect.get("keys"));
        // How its rows tie: on column 0 under int4's equality (=, OID 96), whose printed text is exact.
        assertEquals(List.of(Map.of("column", 0, "eq", 96, "exact", true)), expect.get("ties"));
        // The rows are in a file of the snippet's own, once, as values (the browser prints them as psql does).
        assertEquals("index.run.2.json", runs.get(2).get("rows"));
        assertEquals("{\"results\":[{\"columns\":[\"id\",\"name\"],\"types\":[\"int4\",\"text\"],\"rows\":[[\"1\",\"a\"],[\"2\",null]],"
                + "\"statement\":0,\"explain\":false,\"sorted\":true,\"keys\":[0],\"ties\":[{\"column\":0,\"eq\":96,\"exact\":true}]}]}", Files.readString(site.out.resolve("a/index.run.2.json")));
        assertFalse(Files.readString(site.out.resolve("a/index.run.json")).contains("\"rows\":[["), "no rows in the replay file");
        assertFalse(Files.readString(site.out.resolve("a/index.run.json")).contains("printed"), "no printed copy of the rows");
        assertEquals("23505", ((Map<String, Object>) runs.get(3).get("expect")).get("error"));
        assertEquals("duplicate key value violates unique constraint \"t_pkey\"", ((Map<String, Object>) runs.get(3).get("expect")).get("message"));
        assertEquals("{\"results\":[]}", Files.readString(site.out.resolve("a/index.run.3.json")));
        // One file per runnable snippet, none for the others.
        try (var files = Files.list(site.out.resolve("a"))) {
            assertEquals(List.of("index.html", "index.run.0.json", "index.run.1.json", "index.run.2.json", "index.run.3.json", "index.run.json"),
                    files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        assertEquals("a concurrency scenario needs several sessions at once, and the browser's PostgreSQL (PGlite) has one connection",
                runs.get(4).get("reason"));
        // Its end state is recorded, but the restore (which cannot make the table its setup made) did not end the count alike.
        assertEquals(true, runs.get(4).get("restored"));
        assertEquals("it runs after the snippet at line 31, which the browser cannot replay: the state the build recorded after it, "
                + "restored on a fresh database, did not end the snippets after it as the scenario's own run did", runs.get(5).get("reason"));
        assertNull(runs.get(5).get("sql"), "nothing past a snippet the browser cannot replay is sent to it");
        // A second scenario is a scenario first: its own reason, not the first one's.
        assertEquals(runs.get(4).get("reason"), runs.get(6).get("reason"));
        assertEquals("▶ ブラウザーで実行する", ((Map<String, Object>) plan.get("ui")).get("open"), "the run controls' words in the page's language");

        // Run controls only on the snippets the browser can run; the markup the browser finds them by.
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("0", "1", "2", "3"), html.select("figure[data-kensho-snippet]").eachAttr("data-kensho-snippet"));
        assertEquals(List.of("index.run.json", "index.run.json", "index.run.json", "index.run.json"), html.select("[data-kensho-run]").eachAttr("data-kensho-run"));
        assertTrue(html.select("[data-kensho-run]").stream().allMatch(e -> e.hasAttr("hidden")), "shown by script only");
        // A verified snippet the browser cannot run says why, in the page's language.
        assertEquals(List.of("ブラウザーでは実行できません（複数のセッションを同時に使う例で、ブラウザーの PostgreSQL（PGlite）の接続は一つだけのため）",
                        "ブラウザーでは実行できません（ブラウザーでは再現できない、このページの 5 番目の SQL の例の後に実行されるため）",
                        "ブラウザーでは実行できません（複数のセッションを同時に使う例で、ブラウザーの PostgreSQL（PGlite）の接続は一つだけのため）"),
                html.select(".run-unavailable").eachText());
        assertEquals("../assets/pglite/0.5.16/", html.body().attr("data-engine"));

        // The JSON report says, per snippet, runnable or why not.
        Map<String, Object> report = new ObjectMapper().readValue(site.report.toFile(), Map.class);
        List<Object> browser = ((List<Map<String, Object>>) report.get("snippets")).stream().map(s -> s.get("browser")).toList();
        assertEquals(List.of("runnable", "runnable", "runnable", "runnable", runs.get(4).get("reason"), runs.get(5).get("reason"),
                runs.get(4).get("reason")), browser);
        assertEquals(4, ((Number) ((Map<String, Object>) report.get("totals")).get("runnableInBrowser")).intValue());
    }

    @SuppressWarnings("unchecked")
    @Test
    void aResultOverItsBudgetStaysOutOfThePlanIsStillReplayedAndTheSnippetSaysWhy() throws Exception {
        assertEquals(List.of(1000, 100_000, 1_000_000), List.of(BrowserRuns.SNIPPET_ROWS, BrowserRuns.SNIPPET_CHARACTERS, BrowserRuns.PAGE_BYTES));
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql
                CREATE TABLE t AS SELECT g FROM generate_series(1, 1001) g;
                ```

                ```sql
                SELECT g FROM t;
                ```

                ```sql
                SELECT repeat('x', 4097) AS v;
                ```

                ```sql
                SELECT CASE WHEN g = 1 THEN repeat('x', 1000) ELSE '' END AS v, g FROM generate_series(1, 200) g;
                ```

                ```sql
                SELECT count(*) AS n FROM t;
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        // Under each snippet over a budget, in the page's language, the budget it passed.
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("ブラウザーでは実行できません（結果が、ブラウザーに渡せる 1 例あたりの上限 1,000 行を超えるため）",
                        "ブラウザーでは実行できません（結果の値に、ビルドが一つの値について保つ 4,096 文字より長いものがあるため）",
                        // 1,000 characters of values, but 200 lines padded to the widest one: printed, it is over the budget.
                        "ブラウザーでは実行できません（psql の形式で表した結果が、ブラウザーに渡せる 1 例あたりの上限 100,000 文字を超えるため）"),
                html.select(".run-unavailable").eachText());
        assertEquals(List.of("0", "4"), html.select("figure[data-kensho-snippet]").eachAttr("data-kensho-snippet"));
        // The snippets over a budget are replayed (the count after them needs the table), without rows.
        Map<String, Object> plan = new ObjectMapper().readValue(site.out.resolve("a/index.run.json").toFile(), Map.class);
        List<Map<String, Object>> runs = (List<Map<String, Object>>) plan.get("runs");
        assertEquals(List.of("SELECT g FROM t", "SELECT count(*) AS n FROM t"), List.of(runs.get(1).get("statements"), runs.get(4).get("statements"))
                .stream().map(s -> ((List<String>) s).get(0)).toList());
        assertEquals(List.of(false, true, true, true, false), runs.stream().map(r -> r.containsKey("reason")).toList());
        assertEquals(List.of("index.run.0.json", "index.run.4.json"), runs.stream().map(r -> r.get("rows")).filter(r -> r != null).toList());
        try (var files = Files.list(site.out.resolve("a"))) {
            assertEquals(List.of("index.html", "index.run.0.json", "index.run.4.json", "index.run.json"),
                    files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        Map<String, Object> report = new ObjectMapper().readValue(site.report.toFile(), Map.class);
        assertEquals(List.of("runnable", "its result has 1001 rows, more than the 1,000 a snippet may bring to the browser",
                        "a value of its result is longer than the 4096 characters the build keeps of one value",
                        "its result, as psql prints it, is longer than the 100,000 characters a snippet may bring to the browser", "runnable"),
                ((List<Map<String, Object>>) report.get("snippets")).stream().map(s -> s.get("browser")).toList());
    }

    /** The page: ten fences, 1.3 KB of SQL, each returning a thousand rows of 12,000 characters. */
    @Test
    void tenFencesOfHugeResultsMakeNoPlanAndAPageThatFillsItsBudgetStopsThere() throws Exception {
        StringBuilder huge = new StringBuilder("\n");
        StringBuilder filling = new StringBuilder("\n");
        for (int i = 0; i < 10; i++) {
            huge.append("```sql\nSELECT g, repeat('x', 4000) AS a, repeat('y', 4000) AS b, repeat('z', 4000) AS c FROM generate_series(1, 1000) g;\n```\n\n");
        }
        for (int i = 0; i < 15; i++) {
            // About 94 KB of rows each: ten fit the page's budget.
            filling.append("```sql\nSELECT g, repeat('x', 90) AS v FROM generate_series(1, 900) g;\n```\n\n");
        }
        TestSite site = new TestSite(temp).page("huge.md", TestSite.source("Huge", huge.toString()))
                .page("filling.md", TestSite.source("Filling", filling.toString()));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertFalse(Files.exists(site.out.resolve("huge/index.run.json")), "nothing of it is runnable in the browser");
        Document html = Jsoup.parse(site.out.resolve("huge/index.html").toFile());
        assertEquals(10, html.select(".run-unavailable").eachText().stream()
                .filter(t -> t.equals("ブラウザーでは実行できません（psql の形式で表した結果が、ブラウザーに渡せる 1 例あたりの上限 100,000 文字を超えるため）")).count());
        assertTrue(Files.size(site.out.resolve("huge/index.html")) < 1_000_000, "page: " + Files.size(site.out.resolve("huge/index.html")));

        Document filled = Jsoup.parse(site.out.resolve("filling/index.html").toFile());
        assertEquals(List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), filled.select("figure[data-kensho-snippet]").eachAttr("data-kensho-snippet"));
        assertEquals(java.util.Collections.nCopies(5, "ブラウザーでは実行できません（このページの実行データが、ブラウザーに渡せる 1 ページあたりの上限 1,000 KB を超えるため）"),
                filled.select(".run-unavailable").eachText());
        long words;
        long total = 0;
        try (var files = Files.list(site.out.resolve("filling"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().contains(".run.")).toList()) {
                total += Files.size(file);
                assertTrue(Files.size(file) <= 100_000, file + ": " + Files.size(file));
            }
        }
        // The budget counts the snippets' entries and rows; the theme's words and the server's version come on top.
        Map<?, ?> plan = new ObjectMapper().readValue(site.out.resolve("filling/index.run.json").toFile(), Map.class);
        words = new ObjectMapper().writeValueAsBytes(Map.of("server", plan.get("server"), "ui", plan.get("ui"))).length;
        assertTrue(total <= BrowserRuns.PAGE_BYTES + words, total + " bytes, words " + words);
        assertTrue(total > 900_000, "the budget is used, not left empty: " + total);
        assertTrue(Files.size(site.out.resolve("filling/index.run.json")) < 20_000, "a click fetches a small replay file and its own rows: "
                + Files.size(site.out.resolve("filling/index.run.json")));
    }

    /** The build keeps the first rows of a result it does not compare; a compared result is compared whole. */
    @Test
    void whatTheBuildKeepsIsBoundedButARowsClaimComparesEveryRow() throws Exception {
        StringBuilder rows = new StringBuilder("   g\n------\n");
        for (int g = 1; g <= 1500; g++) {
            rows.append(String.format("%5d%n", g == 1400 ? 9999 : g).replace("\r", ""));
        }
        rows.append("(1500 rows)\n");
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql\nSELECT g FROM generate_series(1, 1500) g ORDER BY g;\n```\n\n```rows\n" + rows + "```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("9999"), "the 1,400th row, past the 1,000 the build keeps, is compared: " + run);
    }

    @Test
    void theEngineIsPGliteAsPublishedByteForByteAndCachedForGood() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n"));
        assertEquals(0, site.build().status());
        Path engine = site.out.resolve("assets/pglite/0.5.16");
        // SHA-256 of the files in @electric-sql/pglite-0.5.16.tgz (whose own SHA-256 generator/pom.xml pins).
        Map<String, String> published = Map.of(
                "pglite.wasm", sha256(engine.resolve("pglite.wasm")),
                "pglite.data", sha256(engine.resolve("pglite.data")),
                "initdb.wasm", sha256(engine.resolve("initdb.wasm")));
        assertEquals(Map.of(
                "pglite.wasm", PGLITE_WASM, "pglite.data", PGLITE_DATA, "initdb.wasm", INITDB_WASM), published);
        assertTrue(Files.exists(engine.resolve("index.js")) && Files.exists(engine.resolve("LICENSE")));
        String headers = Files.readString(site.out.resolve("_headers"));
        assertTrue(headers.contains("/assets/pglite/0.5.16/pglite.wasm\n  Cache-Control: public, max-age=31536000, immutable\n"), headers);
        assertTrue(headers.contains("script-src 'self' 'wasm-unsafe-eval';"), headers);
    }

    @Test
    void aSiteWithoutRunnableSqlPublishesNoEngine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n"));
        assertEquals(0, site.build().status());
        assertFalse(Files.exists(site.out.resolve("assets/pglite")));
        assertFalse(Files.exists(site.out.resolve("a/index.run.json")));
    }

    @Test
    void anExerciseMustRestOnOneVerifiedAnswerWhoseRowsTheBuildCompared() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", """

                <Exercise title="One">
                Return one.

                <Fragment slot="answer">

                ```sql
                SELECT 1 AS one;
                ```

                </Fragment>
                </Exercise>

                """));
        TestSite other = new TestSite(temp.resolve("other")).page("b.mdx", TestSite.source("B", """

                <Exercise title="Two">
                No answer at all.
                </Exercise>
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.mdx") + ":5:1: error: <Exercise> needs the model answer's rows: write a ```rows "
                + "fence right after its ```sql fence, so that the build compares them and the reader is checked against the build's result"),
                run::toString);
        TestSite.Run none = other.check();
        assertEquals(1, none.status(), none::toString);
        assertTrue(none.err().contains(other.display("b.mdx") + ":5:1: error: <Exercise> has no model answer: put it in "
                + "<Fragment slot=\"answer\">, as a ```sql fence followed by the ```rows it returns"), none::toString);
    }

    @Test
    void anExerciseShowsTheTaskAndHidesTheExpectedRowsAndTheAnswerUntilAsked() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", """

                <Exercise title="One">
                Return one.

                <Fragment slot="hint">Use SELECT.</Fragment>

                <Fragment slot="answer">

                ```sql
                SELECT 1 AS one;
                ```

                ```rows
                 one
                -----
                   1
                (1 row)
                ```

                </Fragment>
                </Exercise>
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        var exercise = html.selectFirst("section[data-kensho-exercise]");
        assertEquals("練習問題：One", exercise.selectFirst(".exercise-label").text());
        assertEquals("Return one.", exercise.selectFirst(".exercise-task").text());
        assertEquals(List.of("ヒント", "期待する結果を見る", "模範解答を見る"), exercise.select("> details > summary").eachText());
        assertTrue(exercise.selectFirst(".exercise-expected .expected-rows.verified") != null, "the expected rows are the build's compared ones");
        assertTrue(exercise.selectFirst(".exercise-answer figure.verified[data-kensho-snippet]") != null, "the answer is verified and runnable");
        assertTrue(exercise.selectFirst("[data-kensho-exercise-start][hidden]") != null);
    }

    @SuppressWarnings("unchecked")
    @Test
    void playgroundFalseInSiteYmlLeavesNoRunControlAndNoEngineAndSaysWhy() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nplayground: false\n")
                .page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertFalse(Files.exists(site.out.resolve("assets/pglite")));
        assertFalse(Files.exists(site.out.resolve("a/index.run.json")));
        assertTrue(Jsoup.parse(site.out.resolve("a/index.html").toFile()).select("[data-kensho-run], [data-kensho-snippet]").isEmpty());
        Map<String, Object> report = new ObjectMapper().readValue(site.report.toFile(), Map.class);
        assertEquals("site.yml turns the browser's run controls off (playground: false)",
                ((List<Map<String, Object>>) report.get("snippets")).get(0).get("browser"));
        TestSite wrong = new TestSite(temp.resolve("wrong")).page("site.yml", "title: T\nplayground: sometimes\n")
                .page("a.md", TestSite.source("A", "\nText.\n"));
        TestSite.Run refused = wrong.check();
        assertEquals(1, refused.status(), refused::toString);
        assertTrue(refused.err().contains(wrong.display("site.yml") + ":2:1: error: site settings: playground is true or false "
                + "(false: no run control in the reader's browser)"), refused::toString);
    }

    @Test
    void contributorMarkupCanNeitherMakeARunControlNorForgeVerifiedRows() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n<span data-kensho-run=\"index.run.json\">Run</span>\n\n<pre data-kensho-verified-rows>forged</pre>\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:1: error: raw HTML <span data-kensho-run> is not allowed"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":7:1: error: raw HTML <pre data-kensho-verified-rows> is not allowed"), run::toString);
        // Nor look like evidence: the theme's classes for what the build checked are the theme's alone.
        TestSite forged = new TestSite(temp.resolve("forged")).page("a.md", TestSite.source("A",
                "\n<figure class=\"code-block expected-rows verified\"><pre>FORGED</pre></figure>\n\n<p class=\"run-verdict\">同じです</p>\n"));
        TestSite.Run refused = forged.check();
        assertEquals(1, refused.status(), refused::toString);
        assertTrue(refused.err().contains(forged.display("a.md") + ":5:1: error: <figure class=\"code-block\">: the class is the theme's, "
                + "for what the build checked (evidence, verified rows, run results); contributor markup may not look like it"), refused::toString);
        assertTrue(refused.err().contains(forged.display("a.md") + ":7:1: error: <p class=\"run-verdict\">: the class is the theme's"), refused::toString);
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static final String PGLITE_WASM = "5256d9ac379f631355f41ab30291e6a6d9f854242b5ee2a2d0940e28041d3fca";
    private static final String PGLITE_DATA = "d73cf4ba1b0bf92f80f088ce7d23b17f9bc175327d7584ec2a713b27e9758c31";
    private static final String INITDB_WASM = "63d8b9d54110f827711545a338a643621e65b5658f09e1acfcf36073be365ce2";
}
