package dev.kensho.generator;


import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Directives as authors meet them: errors at file:line, evidence on the page. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class DirectiveBuildTest {

    @TempDir
    Path temp;

    @Test
    void anUnknownDirectiveIsAnErrorAtTheFenceAndThePageIsNotRun() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql expect=23505\nSELECT 1;\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        // At the directive, with the nearest known name (newcomer trial helper-102: column 1 and no suggestion).
        assertTrue(run.err().startsWith(site.display("a.md") + ":5:8: error: unknown directive 'expect'; known: "),
                run::toString);
        assertTrue(run.err().contains(" 5 | ```sql expect=23505\n   |        ^"), run::toString);
        assertTrue(run.out().startsWith("Kensho: no SQL on any page"), "a page with unreadable directives must not run: " + run);

        TestSite underscore = new TestSite(temp.resolve("u")).page("a.md", TestSite.source("A", "\n```sql title=\"x\" expect_error=23505\nSELECT 1;\n```\n"));
        TestSite.Run typo = underscore.check();
        assertTrue(typo.err().startsWith(underscore.display("a.md") + ":5:18: error: unknown directive 'expect_error' (did you mean 'expect-error'?); known: "),
                typo::toString);
    }

    @Test
    void wrongRowsAreShownAsBothTablesUnderTheCompilerStyleError() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql
                SELECT * FROM (VALUES ('a'), ('b')) AS t(k);
                ```

                ```rows
                 k
                ---
                 a
                 c
                ```
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertEquals(site.display("a.md") + ":6:1: error: rows differ (as a multiset, because the query has no ORDER BY)\n"
                + " 6 | SELECT * FROM (VALUES ('a'), ('b')) AS t(k);\n"
                + "   | ^\n"
                + "  = detail: expected:\n"
                + "        k\n"
                + "       ---\n"
                + "        a\n"
                + "     >  c\n"
                + "       (2 rows)\n"
                + "    actual (as psql prints it; NULL is written (null)):\n"
                + "        k\n"
                + "       ---\n"
                + "        a\n"
                + "     >  b\n"
                + "       (2 rows)\n"
                + "    missing: c\n"
                + "    extra:   b\n\n", run.err());
    }

    @Test
    void aRowsTableAwayFromItsQueryIsAnError() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n\n```rows\n a\n---\n 1\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":7:1: error: a ```rows table must directly follow the ```sql fence whose rows it states"), run::toString);
    }

    @Test
    void thePageShowsWhatWasAssertedTheBoundValuesAndFoldsHiddenSetupAwayUntilAsked() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql setup hidden
                CREATE TABLE secret_seed (n int); INSERT INTO secret_seed VALUES (1), (2);
                ```

                ```sql $1:integer=1
                SELECT n FROM secret_seed WHERE n > $1;
                ```

                ```rows
                 n
                ---
                 2
                ```

                ```sql expect-error=42P01
                SELECT * FROM nothing_here;
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        // Hidden SQL is folded away, not withheld: a reader may open it and see what ran (mdBook's hidden lines).
        Element hidden = html.selectFirst("details.hidden-snippet");
        assertEquals("このページが実行した隠れた SQL を表示", hidden.selectFirst("summary").text());
        assertTrue(hidden.selectFirst("pre").text().contains("CREATE TABLE secret_seed"), hidden::outerHtml);
        assertNull(html.selectFirst(".setup-note"), "a setup snippet that stands first needs no note");
        hidden.remove();
        List<String> evidence = html.select(".evidence").eachText();
        assertEquals(2, evidence.size());
        assertTrue(evidence.get(0).contains("$1 = 1（integer）"), evidence.get(0));
        assertEquals(List.of("エラーなく最後まで実行できる（文 1 個）", "下の表の 1 行をそのまま返す（サーバーが解析したクエリに ORDER BY がないので順序は問わずに比較）"),
                html.select(".evidence").get(0).select(".assertions li").eachText());
        assertEquals(List.of("SQLSTATE 42P01 で失敗する。サーバーのメッセージ：「relation \"nothing_here\" does not exist」"), html.select(".evidence").get(1).select(".assertions li").eachText());
        assertEquals("期待する結果（PostgreSQL 18.6 の結果と一致）", html.selectFirst(".expected-rows figcaption").text());
        assertNull(html.selectFirst(".plan"), "no plan is shown unless the author asks for it");
    }

    @Test
    void aSetupSnippetStandingAfterOthersSaysItRunsFirst() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql
                SELECT count(*) FROM later_table;
                ```

                ```sql setup
                CREATE TABLE later_table (n int);
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("この setup スニペットは、書かれた位置にかかわらず、ページのほかのスニペットより先に実行されます。"),
                html.select(".setup-note").eachText());
        assertTrue(html.select(".setup-note").first().parent().text().contains("CREATE TABLE later_table"));
    }
}
