package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** English pages count in English ("1 row", "1 statement"); Japanese pages keep their own words. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class EnglishWordingTest {

    @TempDir
    Path temp;

    private static final String PAGE = TestSite.source("Counts", """

            ```sql result
            SELECT 1 AS one;
            ```

            ```sql
            SELECT 2 AS two;
            ```

            ```rows
             two
            -----
               2
            ```
            """);

    @Test
    void oneRowAndOneStatementAreSingular() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: en\n").page("index.md", PAGE);
        site.theme = null;
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals("1 row", html.selectFirst(".result-count").text());
        assertEquals(List.of("runs to the end without an error (1 statement)", "runs to the end without an error (1 statement)",
                "returns the one row of the table below (in any order: the query the server parsed has no ORDER BY)"), html.select(".assertions li").eachText());
        assertEquals("1 page", html.selectFirst("body").attr("data-ui-pages-one"));
        assertEquals("Search", html.selectFirst("#search-input").attr("placeholder"));
    }

    @Test
    void japanesePagesDoNotBorrowEnglishSingulars() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: ja\n").page("index.md", PAGE);
        site.theme = null;
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals(html.selectFirst("body").attr("data-ui-pages"), html.selectFirst("body").attr("data-ui-pages-one"));
        assertEquals("検索", html.selectFirst("#search-input").attr("placeholder"));
    }
}
