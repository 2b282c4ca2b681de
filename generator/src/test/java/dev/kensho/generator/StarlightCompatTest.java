package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pages written for Astro Starlight build unchanged (a sample written for this test, not Starlight's docs). */
class StarlightCompatTest {

    @TempDir
    Path temp;

    private static final String PAGE = """
            ---
            title: Starlight page
            ---
            import { Aside, Card, CardGrid, LinkButton, Icon, Code } from '@astrojs/starlight/components';

            Intro with `<EditLink />` and `<Aside>` in inline code.

            {/* a JSX comment
                over two lines */}

            :::tip[覚えておくこと]
            Asides in **directive** syntax.
            :::

            :::note
            A plain note.
            :::

            export const answer = 42;
            import Extra from '../components/Extra.astro';

            <LinkCard
              title="Next"
              href="other.html"
            />

            <Aside
              type="caution"
              title="Careful">
            Opening tag over three lines.
            </Aside>

            <CardGrid>
            <Card title="Start" icon="rocket">
            Go.
            </Card>
            </CardGrid>

            <LinkButton href="other.html" variant="secondary">Read on</LinkButton>

            <Icon name="star" label="Favourite" /> and <Code code="SELECT 1;" lang="sql" title="q.sql" />

            ```ts
            const answer: number = 42;
            ```

            ```yaml
            key: value
            ```

            ```somethingunknown
            plain text
            ```
            """;

    @Test
    void aStarlightStylePageBuildsAndRendersAsAStarlightReaderExpects() throws Exception {
        TestSite site = new TestSite(temp).page("s.mdx", PAGE).page("other.md", TestSite.source("Other", "\nOther.\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("s/index.html").toFile());
        String main = html.selectFirst("main").text();
        assertFalse(main.contains("@astrojs") || main.contains("export const") || main.contains("Extra.astro"), "ESM lines are not text: " + main);
        assertFalse(main.contains("JSX comment"), main);
        assertEquals(List.of("<EditLink />", "<Aside>"), html.select("main p > code").eachText().subList(0, 2));
        assertEquals(List.of("覚えておくこと", "メモ", "Careful"), html.select("aside .aside-title").eachText());
        assertEquals(List.of("aside aside-tip", "aside aside-note", "aside aside-caution"), html.select("aside").eachAttr("class"));
        assertEquals("../other/", html.selectFirst("a.link-card").attr("href"));
        assertEquals("🚀", html.selectFirst(".card-icon").text());
        assertEquals("Read on", html.selectFirst("a.link-button-secondary").text());
        assertEquals("Favourite", html.selectFirst(".icon").attr("aria-label"));
        assertEquals("q.sql", html.selectFirst("figure[data-language=sql] .code-title").text());
        assertTrue(!html.select("code.language-ts .token.keyword").isEmpty(), "TypeScript is highlighted");
        assertTrue(!html.select("code.language-yaml .token").isEmpty(), "YAML is highlighted");
        assertEquals("plain text", html.selectFirst("code.language-somethingunknown").text(), "an unknown language renders plain");
    }

    @Test
    void directoryStyleRootAbsoluteAndSourceLinksAllReachTheirPage() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "title: T\nurl: https://example.org/docs/\n")
                .page("guides/a.md", TestSite.source("A", """

                        - [dir](/guides/b/)
                        - [base](/docs/guides/b/#part)
                        - [home](/)
                        - [folder-relative](../b/)
                        - [file](b.html)
                        - [source](b.md#part)
                        - [same folder](./b)
                        - [folder index](/guides/)
                        - [download](files/data.csv)

                        ![chart](chart.png)
                        """))
                .page("guides/b.md", TestSite.source("B", "\n## part\n\nText.\n"))
                .page("guides/index.md", TestSite.source("Guides", "\nAll guides.\n"))
                .page("guides/chart.png", "not really a PNG")
                .page("guides/files/data.csv", "a,b\n")
                .page("index.md", TestSite.source("Home", "\nHome.\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        // Directory URLs (Starlight's default): guides/a.md is served as guides/a/.
        Document html = Jsoup.parse(site.out.resolve("guides/a/index.html").toFile());
        assertEquals(List.of("../b/", "../b/#part", "../../", "../b/", "../b/", "../b/#part", "../b/", "../", "../files/data.csv"),
                html.select("main li a").eachAttr("href"));
        assertEquals("../chart.png", html.selectFirst("main img").attr("src"), "an image named beside the source");
        assertEquals("https://example.org/docs/guides/a/", html.selectFirst("link[rel=canonical]").attr("href"));
        assertTrue(Files.readString(site.out.resolve("sitemap.xml")).contains("<loc>https://example.org/docs/guides/</loc>"));
        assertEquals("../../guides/a/", Jsoup.parse(site.out.resolve("guides/b/index.html").toFile()).selectFirst(".pager .prev").attr("href"));

        // File URLs (Astro's build.format: file): the same links, written the same way, reach the same pages.
        site.page("site.yml", "title: T\nurl: https://example.org/docs/\nbuild:\n  format: file\n");
        run = site.build();
        assertEquals(0, run.status(), run::toString);
        html = Jsoup.parse(site.out.resolve("guides/a.html").toFile());
        assertEquals(List.of("b.html", "b.html#part", "../index.html", "b.html", "b.html", "b.html#part", "b.html", "index.html",
                        "files/data.csv"), html.select("main li a").eachAttr("href"));
        assertEquals("chart.png", html.selectFirst("main img").attr("src"));
        assertFalse(Files.exists(site.out.resolve("guides/a/index.html")), "the previous build's directory pages are gone");

        site.page("site.yml", "title: T\nbuild:\n  format: pretty\n");
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("site.yml") + ":3:1: error: site settings: build.format must be 'directory' or 'file', not 'pretty'"),
                run::toString);
    }

    @Test
    void aBrokenLinkRepeatedOnAPageIsReportedAtEachLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n[one](/nowhere/)\n\n[two](/nowhere/)\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:7: error: broken link '/nowhere/'"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":7:7: error: broken link '/nowhere/'"), run::toString);
    }

    @Test
    void starlightFrontMatterIsHonoured() throws Exception {
        TestSite site = new TestSite(temp)
                .page("a.md", "---\ntitle: A\nsidebar:\n  order: 1\n  badge: New\nnext: false\n"
                        + "tableOfContents:\n  minHeadingLevel: 2\n  maxHeadingLevel: 4\nlastUpdated: false\n---\n\n"
                        + "## Two\n\n### Three\n\n#### Four\n\nA footnote[^1] and a task list:\n\n- [x] done\n- [ ] open\n\n[^1]: The note.\n")
                .page("b.md", "---\ntitle: B\nsidebar:\n  order: 2\n  hidden: true\n---\n\nHidden from the sidebar.\n")
                .page("c.md", "---\ntitle: C\nsidebar:\n  order: 3\nprev:\n  link: /a/\n  label: Back to A\npagefind: false\n"
                        + "tableOfContents: false\n---\n\n## Section\n\nUnsearchable.\n")
                .page("d.md", "---\ntitle: D\ndraft: true\n---\n\nNot published.\n")
                .page("404.md", "---\ntitle: Lost\n---\n\nOur own 404 text.\n");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().contains("Kensho: 1 draft page(s) (draft: true) left out"), run::toString);
        assertFalse(java.nio.file.Files.exists(site.out.resolve("d/index.html")), "a draft is not published");
        Document a = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("A New", "C"), a.select(".sidebar li a").eachText(), "hidden and 404 pages are not in the sidebar");
        assertEquals(List.of("Two", "Three", "Four"), a.select(".toc li a").eachText());
        assertTrue(a.select(".pager .next").isEmpty(), "next: false");
        assertTrue(a.select(".last-updated").isEmpty(), "lastUpdated: false");
        assertEquals(1, a.select("sup a[href^=#fn]").size() + a.select("a.footnote-ref").size() > 0 ? 1 : 0, "a footnote reference");
        assertEquals(2, a.select("li.task-list-item input[type=checkbox], li input[type=checkbox]").size());
        Document c = Jsoup.parse(site.out.resolve("c/index.html").toFile());
        assertEquals("Back to A", c.selectFirst(".pager .prev").ownText().isEmpty() ? c.selectFirst(".pager .prev").text().replace("前へ", "")
                : c.selectFirst(".pager .prev").ownText());
        assertEquals("../a/", c.selectFirst(".pager .prev").attr("href"));
        assertTrue(c.select(".toc").isEmpty(), "tableOfContents: false");
        assertTrue(java.nio.file.Files.readString(site.out.resolve("404.html")).contains("Our own 404 text."), "the site's own 404 page");
        String index = java.nio.file.Files.readString(site.out.resolve("assets/search/index.js"));
        assertTrue(index.contains("\"pages\":2"), "a and b are indexed; c (pagefind: false) and 404 are not: " + index);
    }

    @Test
    void twoSourcesForOnePageAreAnError() throws Exception {
        TestSite site = new TestSite(temp).page("x.md", TestSite.source("X", "\nOne.\n")).page("x.mdx", TestSite.source("X", "\nTwo.\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("x.mdx") + ":1:1: error: this page and " + site.display("x.md")
                + " would both be x/index.html; keep one of them"), run::toString);
    }

    @Test
    void expressiveCodeMarksFramesTitlesLineNumbersAndWrapping() throws Exception {
        TestSite site = new TestSite(temp).page("e.md", TestSite.source("E", """

                ```js ins={2} del={3} {4} showLineNumbers wrap
                // app.js
                const kept = 1;
                const added = 2;
                const removed = 3;
                const marked = 4;
                ```

                ```sh
                npm run build
                ```

                ```text frame="none"
                plain
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("e/index.html").toFile());
        var js = html.selectFirst("figure[data-language=js]");
        assertEquals("app.js", js.selectFirst(".code-title").text(), "a first-line file comment becomes the title");
        assertFalse(js.selectFirst("pre").text().contains("app.js"), "and leaves the code");
        // Line numbers count after the title line is taken out, as in Expressive Code.
        assertEquals(List.of("line", "line ins", "line del", "line marked"), js.select("span.line").eachAttr("class"));
        assertTrue(js.hasClass("line-numbers") && js.hasClass("wrap"), js.className());
        assertTrue(html.selectFirst("figure[data-language=sh]").hasClass("frame-terminal"));
        assertTrue(html.selectFirst("figure[data-language=text]").hasClass("frame-none"));
    }

    @Test
    void componentsInsideListItemsStayThereAndStepsKeepCounting() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", """
                ---
                title: Steps
                ---

                <Steps>

                1. Install:

                   <Tabs>
                   <TabItem label="npm">
                   Run `npm i`.
                   </TabItem>
                   </Tabs>

                2. Configure:

                   :::tip
                   Keep it short.
                   :::

                3. Done <Badge text="New" />

                </Steps>
                """);
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(1, html.select(".steps ol").size(), "one list, numbered 1 to 3");
        assertEquals(3, html.select(".steps ol > li").size());
        assertEquals("npm", html.selectFirst(".steps ol > li:nth-child(1) .tabs [role=tab]").text());
        assertEquals("Keep it short.", html.selectFirst(".steps ol > li:nth-child(2) aside .aside-content").text());
        assertEquals("Done New", html.selectFirst(".steps ol > li:nth-child(3) > p").text(), "the paragraph around an inline component stays whole");
    }

    @Test
    void structuredAttributeValuesReachASiteDefinedComponentAsData() throws Exception {
        Path theme = temp.resolve("theme");
        copyFolder(TestSite.THEME, theme);
        Files.writeString(theme.resolve("components/Chart.ftlh"), """
                <#-- requires: points -->
                <ul class="chart" data-title="${attrs.options.title}"><#list attrs.points as p><li>${p.x}:${p.y}</li></#list></ul>
                """);
        TestSite site = new TestSite(temp).page("a.mdx", """
                ---
                title: Chart
                ---
                import Chart from '../components/Chart.astro';

                <Chart points={points} options={{ title: "Sales <2026>" }} />

                export const points = [
                  { x: 1, y: 2 },
                  { x: 2, y: 4 },
                ];
                """);
        site.theme = theme;
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("1:2", "2:4"), html.select("ul.chart li").eachText());
        assertEquals("Sales <2026>", html.selectFirst("ul.chart").attr("data-title"), "values are escaped by the template");

        site.page("a.mdx", "---\ntitle: Chart\n---\nimport data from './data.json';\n\n<Chart points={data} />\n");
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.mdx") + ":6:15: error: attribute points: data is imported from './data.json', "
                + "and Kensho runs no JavaScript; write the value here, or as 'export const data = …' in this page"), run::toString);

        site.page("a.mdx", "---\ntitle: Chart\n---\n\n<Chart points={[{href: 'javascript:alert(1)'}]} />\n");
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.mdx") + ":5:1: error: <Chart> points={…}: the URL scheme 'javascript:' is not allowed"),
                run::toString);
    }

    @Test
    void expressiveCodeTextMarkersCollapsedSectionsAndDiffWithALanguage() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", """
                ---
                title: EC
                ---

                ```js "answer" ins="added" del=/old(Value)/ collapse={2-4}
                const answer = 42; // added
                line2
                line3
                line4
                const oldValue = answer < 3;
                ```

                ```diff lang="js"
                 function f() {
                -  return oldValue;
                +  return answer;
                 }
                ```
                """);
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        var first = html.select("figure.code-block").get(0);
        assertEquals(List.of("answer", "answer"), first.select("code mark").eachText(), "a text marker marks every occurrence");
        assertEquals("added", first.selectFirst("code .token.comment ins").text(), "marks sit inside the token they fall in");
        assertEquals("Value", first.selectFirst("code del").text(), "a regex marker marks its capture group");
        assertEquals(List.of("line2", "line3", "line4"), first.select("details.collapsed-lines .line").eachText());
        assertEquals("3 行を表示", first.selectFirst("details.collapsed-lines summary").text());
        var diff = html.select("figure.code-block").get(1);
        assertEquals("js", diff.attr("data-language"));
        assertEquals(List.of("line", "line del", "line ins", "line"), diff.select(".line").eachAttr("class"));
        assertEquals("  return answer;", diff.select(".line").get(2).wholeText(), "the +/- column is removed");
        assertFalse(diff.select(".token.keyword").isEmpty(), "highlighted as js");

        site.page("a.md", "---\ntitle: EC\n---\n\n```js del=/(.*a){20}x/\n" + "a".repeat(60) + "b\n```\n\n```js /[unclosed/\nx\n```\n");
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:1: error: marker /(.*a){20}x/ took longer than 1 s on the code block"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":9:1: error: marker /[unclosed/ is not a valid regular expression"), run::toString);
    }

    private static void copyFolder(Path from, Path to) throws java.io.IOException {
        try (var files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }
}
