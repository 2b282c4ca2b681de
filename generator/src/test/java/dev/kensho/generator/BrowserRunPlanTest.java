package dev.kensho.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
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
            session a
            step a1 { SELECT 1; }
            session b
            step b1 { SELECT 2; }
            permutation a1 b1
            ```

            ```sql
            SELECT count(*) AS n FROM t;
            ```

            ```scenario
            session a
            step a2 { SELECT 3; }
            session b
            step b2 { SELECT 4; }
            permutation a2 b2
            ```
            """;

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
        assertEquals(" id |  name\n----+--------\n  1 | a\n  2 | (null)\n(2 rows)", runs.get(2).get("printed"));
        assertEquals("23505", ((Map<String, Object>) runs.get(3).get("expect")).get("error"));
        assertTrue(((String) runs.get(3).get("printed")).startsWith("ERROR:  duplicate key value violates unique constraint \"t_pkey\"\n"
                + "SQLSTATE: 23505"), (String) runs.get(3).get("printed"));
        assertEquals("a concurrency scenario needs several sessions at once, and the browser's PostgreSQL (PGlite) has one connection",
                runs.get(4).get("reason"));
        assertEquals("it runs after the snippet at line 31, which the browser cannot replay: a concurrency scenario needs several "
                + "sessions at once, and the browser's PostgreSQL (PGlite) has one connection", runs.get(5).get("reason"));
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
                        "ブラウザーでは実行できません（31 行目の、ブラウザーでは再現できない例の後に実行されるため）",
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
