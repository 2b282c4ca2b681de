package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Claims written in Markdown that the build could not check are errors at their line, and the page
 * shows a "matches" label or a result only over what the build did check.
 */
class ClaimMarkupTest {

    @TempDir
    Path temp;

    @Test
    void aRowsTableUnderAnExpectedErrorIsAnErrorAtTheTable() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql expect-error=22012
                SELECT 1 / 0 AS x;
                ```

                ```rows
                 x
                ---
                 1
                ```
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":9:1: error: a ```rows table cannot be compared under a snippet "
                + "with expect-error: the failing statement returns no rows\n"), run::toString);
    }

    @Test
    void aRowsTableUnderAScenarioIsAnErrorAtTheTable() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```scenario
                session a
                step a1 { SELECT 1; }
                session b
                step b1 { SELECT 2; }
                permutation a1 b1
                ```

                ```rows
                 x
                ---
                 1
                ```
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":13:1: error: a ```rows table is not compared after a ```scenario "
                + "fence; state a step's rows in a rows { … } block right after the step inside the scenario\n"), run::toString);
    }

    @Test
    void aDirectiveWrittenTwiceIsAnError() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql uses-index=a_idx uses-index=b_idx\nSELECT 1;\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":5:1: error: 'uses-index' is written twice on this fence; state "
                + "each claim once (a second one would silently replace the first)\n"), run::toString);
    }

    @Test
    void aDirectiveOnAScenarioFenceIsAnError() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```scenario expect-error=40001
                session a
                step a1 { SELECT 1; }
                session b
                step b1 { SELECT 2; }
                permutation a1 b1
                ```
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":5:1: error: 'expect-error' on a ```scenario fence is not checked; "
                + "state claims on its steps (waits-for=, expect-error=, rows { … })\n"), run::toString);
    }

    @Test
    void aMalformedRowsTableDoesNotHideThePagesOtherProblems() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql
                SELECT 1 AS x;
                ```

                ```rows
                 x
                 1
                ```

                ```sql
                SELECT * FROM missing_table;
                ```
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":9:1: error: expected rows: expected rows must be a psql-style table"),
                run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":15:15: error: relation \"missing_table\" does not exist [42P01]"),
                run::toString);
    }

    @Test
    void evidenceIsInJapaneseAndNullIsShownApart() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql result
                SELECT NULL::text AS a, 'NULL' AS b, '' AS c;
                ```

                ```sql
                SELECT 2 AS y;
                ```

                ```rows
                 y
                ---
                 2
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        String html = Files.readString(site.out.resolve("a/index.html"));
        assertTrue(html.contains("<td class=\"null\">(null)</td><td>NULL</td><td></td>"), html);
        assertTrue(html.contains("ビルド時に返った行（表示のみ。期待する結果との比較はしていない）"), html);
        assertTrue(html.contains("エラーなく最後まで実行できる（文 1 個）"), html);
        assertTrue(html.contains("下の表の 1 行をそのまま返す（サーバーが解析したクエリに ORDER BY がないので順序は問わずに比較）"), html);
        assertTrue(html.contains("期待する結果（PostgreSQL 18.6 の結果と一致）"), html);
        assertFalse(html.contains("runs without error"), html);
    }

    @Test
    void preformattedEvidenceKeepsEveryLeadingSpace() throws Exception {
        String rows = """
                 k  |  v
                ----+-----
                 a  |   1
                 bb |  22
                (2 rows)
                """;
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql explain\n"
                + "SELECT * FROM (VALUES ('a', 1), ('bb', 22)) AS t(k, v) ORDER BY k;\n```\n\n```rows\n" + rows + "```\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        org.jsoup.nodes.Document html = org.jsoup.Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(rows.stripTrailing(), html.selectFirst("figure.expected-rows pre code").wholeText());
        String plan = html.selectFirst("pre.plan code").wholeText();
        assertTrue(plan.contains("\n  ->  "), "plan children keep their indentation: " + plan);
    }
}
