package dev.kensho.generator;

import dev.kensho.generator.render.search.SearchIndex;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Page furniture, highlighting, search and link checking, on built pages. */
class ReaderExperienceTest {

    @TempDir
    Path temp;

    private TestSite site() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "title: Test site\nurl: https://example.github.io/repo/\ngroups:\n  lessons: レッスン\n")
                .page("index.md", TestSite.source("Home", "\nSee [keys](lessons/keys.html#予約する).\n"))
                .page("lessons/keys.md", "---\ntitle: 冪等キー\ndescription: キーの話\nsidebar:\n  order: 1\n---\n"
                        + "\n## 予約する\n\n一意制約と ON CONFLICT で予約します。\n\n```sql {2} title=\"reserve.sql\"\nCREATE TABLE t (k text PRIMARY KEY);\n"
                        + "INSERT INTO t VALUES ('a') ON CONFLICT (k) DO NOTHING;\n```\n\n### 細かい話\n\ncreated_at で並べます。\n")
                .page("lessons/cursor.md", "---\ntitle: カーソル\nsidebar:\n  order: 2\n---\n\n## 次のページ\n\nカーソルは結果不明と関係ありません。\n");
        return site;
    }

    @Test
    void pagesCarryFurnitureMetaAndAWorking404AndSitemap() throws Exception {
        TestSite site = site();
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document keys = Jsoup.parse(site.out.resolve("lessons/keys/index.html").toFile());
        assertEquals("https://example.github.io/repo/lessons/keys/", keys.selectFirst("link[rel=canonical]").attr("href"));
        assertEquals("冪等キー | Test site", keys.selectFirst("meta[property=og:title]").attr("content"));
        assertEquals("キーの話", keys.selectFirst("meta[property=og:description]").attr("content"));
        assertEquals("Test site › レッスン", keys.selectFirst(".breadcrumb").text());
        assertEquals("#予約する", keys.selectFirst("h2 .anchor").attr("href"));
        assertEquals(List.of("予約する", "細かい話"), keys.select(".toc a").eachText());
        assertEquals("../../lessons/cursor/", keys.selectFirst(".pager .next").attr("href"));
        assertEquals("page", keys.selectFirst(".sidebar a[href=\"../../lessons/keys/\"]").attr("aria-current"));
        assertEquals("ja", keys.selectFirst("html").attr("lang"));
        assertTrue(Files.readString(site.out.resolve("404.html")).contains("href=\"/repo/index.html\""));
        String sitemap = Files.readString(site.out.resolve("sitemap.xml"));
        assertTrue(sitemap.contains("<loc>https://example.github.io/repo/lessons/cursor/</loc>"), sitemap);
        assertEquals(List.of(), keys.select("script[src], link[rel~=stylesheet|icon|preload|prefetch], img[src], iframe, source, video, audio")
                .stream().map(e -> e.hasAttr("src") ? e.attr("src") : e.attr("href")).filter(u -> u.matches("(?i)(https?:)?//.*")).toList(),
                "a page must make no request to another host");
    }

    @Test
    void codeIsHighlightedAtBuildTimeWithMarkedLinesAndTheVerifiedMarkIntact() throws Exception {
        TestSite site = site();
        assertEquals(0, site.build().status());
        Document keys = Jsoup.parse(site.out.resolve("lessons/keys/index.html").toFile());
        var code = keys.selectFirst(".code-block.verified code.language-sql");
        assertEquals(List.of("CREATE", "TABLE", "text", "PRIMARY", "KEY"), code.select(".line").get(0).select(".token.keyword").eachText());
        assertEquals(2, code.select(".line").size());
        assertTrue(code.select(".line").get(1).hasClass("marked"));
        assertEquals("CREATE TABLE t (k text PRIMARY KEY);\nINSERT INTO t VALUES ('a') ON CONFLICT (k) DO NOTHING;", code.wholeText());
        assertEquals("reserve.sql", keys.selectFirst(".code-block .code-title").text());
        assertEquals("✓ PostgreSQL 18.6 で検証済み", keys.selectFirst(".code-block .evidence summary").text());
    }

    /**
     * A section's passage holds its whole text, up to a bound: at 1,500 characters 30 of the lesson site's 99 sections were
     * cut, and a hit in a section's later part showed its start with nothing marked. Past 16,000 it is cut.
     */
    @Test
    void aSearchPassageHoldsTheWholeSectionUpToItsBound() {
        String filler = "あいうえお ".repeat(1000); // 6,000 characters
        var content = Jsoup.parseBodyFragment("<h2 id=\"s\">S</h2><p>" + filler + "late_term</p>").body();
        var entry = SearchIndex.extract("p/", "P", content);
        String passage = entry.sections().get(1).get(3);
        assertTrue(passage.endsWith("late_term"), passage.substring(passage.length() - 40));
        var huge = Jsoup.parseBodyFragment("<p>" + "x ".repeat(20_000) + "</p>").body();
        assertEquals(16_000, SearchIndex.extract("q/", "Q", huge).sections().get(0).get(3).length());
    }

    @Test
    void searchTermsSegmentJapaneseIntoBigramsAndKeepSqlWordsWhole() {
        assertEquals(Set.of("冪等"), SearchIndex.terms("冪等"));
        assertEquals(Set.of("一意", "意制", "制約"), SearchIndex.terms("一意制約"));
        assertEquals(Set.of("on", "conflict"), SearchIndex.terms("ON CONFLICT"));
        assertEquals(Set.of("created_at", "デ並", "並ベ", "ベマ", "マス"), SearchIndex.terms("created_at で並べます"), "hiragana folded to katakana");
        assertEquals(Set.of("カー", "ーソ", "ソル"), SearchIndex.terms("ｶｰｿﾙ"), "half-width kana are normalised");
    }

    @Test
    void identifiersInDiagramsTablesAndAfterLineBreaksAreIndexedAsSeparateWords() {
        org.jsoup.nodes.Element content = Jsoup.parseBodyFragment("<p>first<br>second</p>"
                + "<table class=\"sequence-table\"><tr><td><div class=\"seq-step\"><code>a_begin</code></div></td>"
                + "<td><div class=\"seq-step\"><code>a_commit</code></div><div class=\"seq-note\">1 行</div></td></tr></table>"
                + "<svg><text>x_one</text><text>x_two</text></svg>").body();
        SearchIndex.PageEntry entry = SearchIndex.extract("p/", "P", content);
        assertTrue(entry.terms().containsAll(Set.of("first", "second", "a_begin", "a_commit", "x_one", "x_two")), entry.terms()::toString);
        assertTrue(entry.terms().stream().noneMatch(term -> term.equals("firstsecond") || term.startsWith("a_begina") || term.equals("x_onex_two")),
                entry.terms()::toString);
        assertEquals("first second a_begin a_commit 1 行 x_one x_two", entry.sections().get(0).get(3));
    }

    @Test
    void aDrawingsNestedTitleIsSkippedAndItsNestedLabelsStaySeparateWords() {
        // "Inside an svg" is carried down the walk: a <title> or label nested in groups is still the drawing's.
        org.jsoup.nodes.Element content = Jsoup.parseBodyFragment("<div><p>before<svg><g><title>tooltip_text</title>"
                + "<g><text>y_one</text><text>y_two</text></g></g></svg>after</p></div>").body();
        SearchIndex.PageEntry entry = SearchIndex.extract("p/", "P", content);
        assertEquals("before y_one y_two after", entry.sections().get(0).get(3));
        assertTrue(entry.terms().stream().noneMatch(term -> term.startsWith("tooltip")), entry.terms()::toString);
    }

    @Test
    void theSearchIndexFindsTheRightSections() throws Exception {
        TestSite site = site();
        assertEquals(0, site.build().status());
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        java.util.function.Function<String, com.fasterxml.jackson.databind.JsonNode> read = name -> {
            try {
                String script = Files.readString(site.out.resolve("assets/search/" + name));
                return json.readTree(script.substring(script.indexOf(name.startsWith("index") ? '(' : ',') + 1, script.lastIndexOf(')')));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        int shards = read.apply("index.js").get("shards").asInt();
        java.util.function.Function<String, List<String>> find = query -> {
            Set<String> wanted = SearchIndex.terms(query);
            List<Set<Integer>> sets = wanted.stream().map(term -> {
                Set<Integer> pages = new java.util.TreeSet<>();
                var runs = read.apply("t-" + SearchIndex.shardOf(term, shards) + ".js").path(term).path(0);
                int end = 0;
                for (int i = 0; i + 1 < runs.size(); i += 2) {
                    int start = end + runs.get(i).asInt();
                    for (int page = start; page < start + runs.get(i + 1).asInt(); page++) {
                        pages.add(page);
                    }
                    end = start + runs.get(i + 1).asInt();
                }
                return pages;
            }).toList();
            Set<Integer> hits = new java.util.TreeSet<>(sets.get(0));
            sets.forEach(hits::retainAll);
            // Of each page found, the sections that hold every term, as search.js shows them.
            List<String> urls = new ArrayList<>();
            for (int page : hits) {
                read.apply("p-" + page + ".js").forEach(section -> {
                    if (SearchIndex.terms(section.get(3).asText() + " " + section.get(4).asText()).containsAll(wanted)) {
                        urls.add(section.get(1).asText());
                    }
                });
            }
            return urls;
        };
        assertEquals(List.of("lessons/keys/#予約する"), find.apply("ON CONFLICT"));
        assertEquals(List.of("lessons/keys/#予約する"), find.apply("一意制約"));
        assertEquals(List.of("lessons/keys/#細かい話"), find.apply("created_at"));
        assertEquals(List.of("lessons/cursor/#次のページ"), find.apply("結果不明"));
        assertTrue(run(site).out().contains("Kensho: search index "), "the index size is reported");
        assertEquals(Set.of("カー", "ーソ", "ソル"), SearchIndex.terms("かーそる"), "hiragana finds katakana");
        assertEquals(List.of(), find.apply("コピー"), "the copy button's label is not indexed");
    }

    private static TestSite.Run run(TestSite site) {
        return site.build();
    }

    @Test
    void aBrokenLinkFailsTheBuildAtItsSourceLine() throws Exception {
        TestSite site = new TestSite(temp)
                .page("a.md", TestSite.source("A", "\nIntro.\n\nSee [the other page](b.html) and [a section](b.html#nowhere).\n"))
                .page("b.md", TestSite.source("B", "\n## Somewhere\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":7:46: error: broken link 'b.html#nowhere': b/index.html has no element with id \"nowhere\""), run::toString);

        site.page("a.md", TestSite.source("A", "\n[gone](missing.html)\n"));
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":5:8: error: broken link 'missing.html': a/missing.html is not part of the site"), run::toString);
    }

    @Test
    void externalLinksAreListedInTheReportNotFetched() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n[RFC 9110](https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2)\n"));
        assertEquals(0, site.build().status());
        var report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(site.report.toFile());
        assertEquals("https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2", report.get("externalLinks").get(0).get("url").asText());
        assertNotNull(report.get("externalLinks").get(0).get("page"));
    }

    @Test
    void aLargeSiteSharesOneSidebarFileSoPagesDoNotGrowWithTheSite() throws Exception {
        TestSite site = folderOfPages(220);
        assertEquals(0, site.build().status());
        String page = Files.readString(site.out.resolve("g/p7/index.html"));
        assertTrue(page.contains("class=\"sidebar-shared\" id=\"kensho-sidebar-shared\" data-current=\"g/p7/\" data-src=\"assets/sidebar-root.js\""), "the page points at the shared sidebar");
        assertTrue(!page.contains("p123"), "another page's link is not in this page");
        String sidebar = Files.readString(site.out.resolve("assets/sidebar-root.js"));
        assertTrue(sidebar.startsWith("window.__kenshoSidebar([{\"label\":\"g\",\"collapsed\":false,\"items\":[")
                && sidebar.contains("[\"g/p123/\",\"Page 123\",\"\"]"), sidebar.substring(0, 80));
        assertTrue(Files.size(site.out.resolve("g/p7/index.html")) < 12_000, "page size " + Files.size(site.out.resolve("g/p7/index.html")));
        // Without script, the home page lists the first pages of the group and links to the group's full list.
        String home = Files.readString(site.out.resolve("index.html"));
        assertTrue(home.contains("href=\"contents/0.html\">g のすべてのページ（220 ページ）</a>"), home);
        assertTrue(!home.contains("p123"), "the home page does not list every page");
        assertTrue(Files.readString(site.out.resolve("contents/0.html")).contains("href=\"../g/p123/\""), "the group's page lists all");
    }

    @Test
    void aGroupTooLargeForOneContentsPageIsSplitAndEveryPartLinksOn() throws Exception {
        TestSite site = folderOfPages(850);
        assertEquals(0, site.build().status());
        Document first = Jsoup.parse(site.out.resolve("contents/0.html").toFile());
        assertEquals("g (1/3)", first.selectFirst("h1").text());
        assertEquals(400, first.select("main ul li").size());
        assertEquals("0-2.html", first.selectFirst(".pager .next").attr("href"));
        Document last = Jsoup.parse(site.out.resolve("contents/0-3.html").toFile());
        assertEquals(50, last.select("main ul li").size());
        assertEquals("Page 99", last.select("main ul li").last().text(), "titles sort as text");
        assertEquals("0-2.html", last.selectFirst(".pager .prev").attr("href"));
        try (var files = Files.list(site.out.resolve("contents"))) {
            for (var file : files.toList()) {
                assertTrue(Files.size(file) < 100_000, file + " is " + Files.size(file) + " bytes");
            }
        }
    }

    /** A site of {@code count} short pages in the folder g/ ("Page 0" … ). */
    private TestSite folderOfPages(int count) throws Exception {
        TestSite site = new TestSite(temp);
        for (int i = 0; i < count; i++) {
            site.page("g/p" + i + ".md", TestSite.source("Page " + i, "\nText " + i + ".\n"));
        }
        return site;
    }
}
