package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

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
