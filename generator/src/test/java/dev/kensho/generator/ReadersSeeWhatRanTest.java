package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a reader sees of a fence is what ran: no reordered display, no struck-out code that ran, tabs that say how they ran. */
class ReadersSeeWhatRanTest {

    @TempDir
    Path temp;

    @Test
    void bidirectionalControlsInAnyCodeBlockAreAnErrorAtTheirColumn() throws Exception {
        // Trojan Source: U+202E makes the comment's end display before the WHERE it hides.
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql\nDELETE FROM t /* \u202E } \u2066 WHERE id = 1 */;\n```\n\n```js\nlet admin = false; // \u2067 check\n```\n"
                        + "\nAn inline `SELECT 1 -- \u200F` and Arabic prose \u061C are told apart.\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":6:18: error: bidirectional control character U+202E "
                + "(RIGHT-TO-LEFT OVERRIDE) in a code block: it changes the order the code is displayed in, not the order "
                + "it runs in, so readers could see code that is not what runs; remove it (write it as an escape such as "
                + "U&'\\202E' if the text needs it)\n"
                + " 6 | DELETE FROM t /* \\u202e } \\u2066 WHERE id = 1 */;\n"
                + "   |                  ^\n"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":6:22: error: bidirectional control character U+2066 (LEFT-TO-RIGHT ISOLATE)"),
                run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":10:23: error: bidirectional control character U+2067 (RIGHT-TO-LEFT ISOLATE)"),
                run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":13:24: error: bidirectional control character U+200F (RIGHT-TO-LEFT MARK)"),
                run::toString);
        assertFalse(run.err().contains(":13:46:"), "prose may hold bidirectional marks: " + run);
        assertFalse(run.err().contains("\u202E"), "a bidirectional control reached the terminal");
    }

    @Test
    void aCodeComponentShowingABidirectionalControlIsRefusedAtItsTag() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A",
                "\nText.\n\n<Code code=\"if (admin) { /* \u202E } */ }\" lang=\"js\" />\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.mdx") + ":7:1: error: <Code> code=\"…\": bidirectional control character "
                + "U+202E (RIGHT-TO-LEFT OVERRIDE) in a code block"), run::toString);
    }

    @Test
    void theSameCodeWithTheControlWrittenAsAnEscapeRuns() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql\nSELECT length(U&'\\202E') AS n;\n```\n```rows\n n\n---\n 1\n(1 row)\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(0, run.status(), run::toString);
    }

    @Test
    void codeShownDeletedOnAFenceKenshoRunsIsRefused() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql del={2}\nCREATE TABLE t (id int);\nDROP TABLE t;\n```\n\n```sql del=\"DROP\"\nSELECT 1;\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        String message = ": error: del= shows code as deleted, but Kensho runs every line of a ```sql fence, so what readers see "
                + "struck out would be what ran; show the old version in a ```diff fence (never run) or a fence of its own";
        assertTrue(run.err().contains(site.display("a.md") + ":5:1" + message), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":10:1" + message), run::toString);
    }

    @Test
    void insertedLinesAndADiffOfSqlStillBuildAndTheDiffCarriesNoMark() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql ins={2}\nCREATE TABLE t (id int);\nDROP TABLE t;\n```\n\n```diff lang=\"sql\"\n-DROP TABLE t;\n+SELECT 1;\n```\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        assertEquals(1, html.select("figure.code-block.verified").size(), html.select("figure").toString());
        assertEquals("sql", html.select("figure.code-block:not(.verified)").attr("data-language"));
        // The mark names the database's locale: text order and case rules follow it.
        assertEquals("データベース：UTF8, collation C, character type C.UTF-8 (libc)（文字列の並び順と大文字・小文字の規則はこれに従います）",
                html.select("figure.verified .evidence-database").text());
    }

    private static final String TABS = """

            <Tabs>
            <TabItem label="one">

            ```sql
            CREATE TABLE t (id int);
            ```

            </TabItem>
            <TabItem label="two">

            ```%s
            INSERT INTO t VALUES (1);
            ```

            </TabItem>
            </Tabs>
            """;

    @Test
    void tabsOfVerifiedSqlSayTheyRanInSequenceOnOneDatabase() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", TABS.formatted("sql")));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        assertEquals("タブの SQL は左のタブから順に、同じ一つのデータベースで実行して検証しています。各タブは前のタブが終えた状態から始まります。",
                html.select(".tabs > p.tabs-sequence").text());
    }

    @Test
    void tabsWithVerifiedSqlInOneTabOnlyNeedNoNote() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", TABS.formatted("js")));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        assertEquals(1, html.select(".tabs figure.verified").size());
        assertTrue(html.select(".tabs-sequence").isEmpty());
    }
}
