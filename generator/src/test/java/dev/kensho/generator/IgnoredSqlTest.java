package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ```sql ignore: shown with a "not verified" label, never run, never marked, counted in the summary. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class IgnoredSqlTest {

    @TempDir
    Path temp;

    @Test
    void anIgnoredFenceIsShownLabelledAndCountedButNotRun() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: en\n").page("index.md", TestSite.source("Ignore", """

                ```sql ignore
                DROP DATABASE production;  -- would fail if it ran: no such database
                ```

                ```sql
                SELECT 1;
                ```
                """));
        site.theme = null;
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().endsWith("1 SQL fence(s) marked ignore shown as not verified: " + site.display("index.md") + ":5\n1 passed, 0 failed\n"), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        Element ignored = html.selectFirst("figure.not-verified");
        assertTrue(ignored.text().contains("DROP DATABASE production;"), ignored::toString);
        assertEquals("Not verified: shown as written; the build did not run it", ignored.selectFirst(".not-verified-label").text());
        assertNull(ignored.selectFirst(".evidence"), "no mark over SQL the build did not run");
        assertEquals(1, html.select(".verified .evidence").size());
        JsonNode report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals(1, report.get("totals").get("ignoredSqlFences").asInt());
        assertEquals(site.display("index.md") + ":5", report.get("ignoredSqlFences").get(0).asText());
        assertEquals(1, report.get("totals").get("snippets").asInt());
    }

    /** Red team helper-98: a ```postgresql fence was highlighted as SQL with no label, beside verified code that has a mark. */
    @Test
    void sqlInAnotherFenceLanguageIsLabelledNotVerified() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: en\n").page("index.md", TestSite.source("Other", """

                ```postgresql
                DELETE FROM accounts;
                ```

                ```psql
                SELECT 2;
                ```

                ```sql
                SELECT 1;
                ```
                """));
        site.theme = null;
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals(2, html.select("figure.not-verified").size(), html::toString);
        for (Element shown : html.select("figure.not-verified")) {
            assertEquals("Not verified: shown as written; the build did not run it", shown.selectFirst(".not-verified-label").text());
            assertNull(shown.selectFirst(".evidence"));
        }
        assertEquals(1, html.select(".verified .evidence").size());
    }

    /**
     * Red team helper-101: a ```diff lang="sql" fence and a {@code <Code lang="sql">} were highlighted as SQL, never run,
     * with no label, under a footer saying every claim held.
     */
    @Test
    void sqlShownThroughADiffOrTheCodeComponentIsLabelledNotVerified() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: en\n").page("index.mdx", TestSite.source("Shown", """

                ```diff lang="sql"
                 SELECT 1/0 AS forged;
                ```

                <Code code="SELECT 1/0 AS i;" lang="SQL" />

                <Code code="echo hi" lang="sh" />

                ```diff lang="scenario"
                 SELECT 1/0 AS boom;
                ```

                ```sql
                SELECT 1;
                ```
                """));
        site.theme = null;
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("[\"" + site.display("index.mdx") + ":5\",\"" + site.display("index.mdx") + ":13\"]",
                new ObjectMapper().readTree(site.report.toFile()).get("unverifiedSqlFences").toString());
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        // lang="scenario" is highlighted with SQL's grammar too (red team helper-103).
        assertEquals(List.of("sql", "SQL", "scenario"), html.select("figure.not-verified").eachAttr("data-language"), html::toString);
        for (Element shown : html.select("figure.not-verified")) {
            assertEquals("Not verified: shown as written; the build did not run it", shown.selectFirst(".not-verified-label").text());
            assertNull(shown.selectFirst(".evidence"));
        }
        assertEquals(5, html.select("figure.code-block").size());
        assertEquals(1, html.select(".verified .evidence").size());
    }

    /** Red team helper-101: lang="text evidence run-verdict" put the theme's evidence classes on a page's code. */
    @Test
    void aLanguageThatIsNotANameIsRefusedAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("index.mdx", TestSite.source("Lang", """

                <Code code="✓ Verified on PostgreSQL 18.6" lang="text exercise-label evidence run-verdict" />
                """));
        site.theme = null;
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("index.mdx") + ":5:1: error: <Code lang=\"text exercise-label evidence run-verdict\">:"
                + " lang is a language name (letters, digits and _ + # . -, at most 32), such as lang=\"sql\""), run::toString);

        // frame= goes into the block's class: one of Expressive Code's frames only (red team helper-103).
        TestSite framed = new TestSite(temp.resolve("frame")).page("index.md", TestSite.source("Frame", "\n```sql ignore frame=\"code myx\"\nSELECT 1;\n```\n"));
        framed.theme = null;
        TestSite.Run frame = framed.check();
        assertEquals(1, frame.status(), frame::toString);
        assertTrue(frame.err().contains(framed.display("index.md") + ":5:1: error: frame=\"code myx\" is not a frame; frame is one of auto, code,"
                + " none, terminal"), frame::toString);

        TestSite diff = new TestSite(temp.resolve("diff")).page("index.md", TestSite.source("Diff", "\n```diff lang=\"text evidence\"\n+ x\n```\n"));
        diff.theme = null;
        TestSite.Run refused = diff.check();
        assertEquals(1, refused.status(), refused::toString);
        assertTrue(refused.err().contains(diff.display("index.md") + ":5:1: error: lang=\"text evidence\" is not a language name (letters,"
                + " digits and _ + # . -, at most 32); write the one language the diff's lines are highlighted as, such as lang=\"sql\""), refused::toString);
    }

    @Test
    void aClaimOnAnIgnoredFenceIsAnError() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TestSite.source("Ignore", "\n```sql ignore expect-error=23505\nINSERT INTO t VALUES (1);\n```\n"));
        site.theme = null;
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("index.md") + ":5:1: error: 'expect-error' on a ```sql ignore fence is not checked: "
                + "the fence is not run; remove ignore to check the claim, or the claim to show the SQL unverified"), run::toString);
    }
}
