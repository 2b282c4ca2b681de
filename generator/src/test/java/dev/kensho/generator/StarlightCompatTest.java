package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

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
        assertEquals("SELECT", html.selectFirst("figure:has(.code-title:contains(q.sql)) code .token.keyword").text(), "<Code> is highlighted");
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
        assertFailsAt(site, "site.yml", ":3:1: error: site settings: build.format must be 'directory' or 'file', not 'pretty'");
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

    /**
     * Red team helper-101: draft: "yes" published the page, sidebar.hidden: "true" left it in the sidebar, a mapping as a
     * label showed as "{a=b}", a list as the description as "[one, two]", and slug was read and ignored, all in silence.
     */
    @Test
    void frontMatterValuesOfTheWrongTypeFailAtTheirLine() throws Exception {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("---\ntitle: P\ndraft: \"yes\"\n---\n", ":3:1: error: front matter: draft must be true or false, not 'yes'");
        cases.put("---\ntitle: P\npagefind: 0\n---\n", ":3:1: error: front matter: pagefind must be true or false, not '0'");
        cases.put("---\ntitle: P\nslug: guides/intro\n---\n", ":3:1: error: front matter: slug is not supported: a page's address follows its file's"
                + " path (content/guides/intro.md is guides/intro/); move or rename the file instead");
        cases.put("---\ntitle: P\nsidebar:\n  hidden: \"true\"\n---\n", ":4:1: error: front matter: sidebar.hidden must be true or false, not 'true'");
        cases.put("---\ntitle: P\nsidebar: {label: {a: b}}\n---\n", ":3:1: error: front matter: sidebar.label must be text, not '{a=b}'");
        cases.put("---\ntitle: P\nsidebar:\n  badge: {text: [x]}\n---\n", ":4:1: error: front matter: sidebar.badge must be text, or a mapping"
                + " with text: \"…\", not '{text=[x]}'");
        cases.put("---\ntitle: P\ndescription: [one, two]\n---\n", ":3:1: error: front matter: description must be text, not '[one, two]'");
        // Red team helper-103: a string "false", string levels, a word as the date, a number as the pager were misread.
        cases.put("---\ntitle: P\ntableOfContents: \"false\"\n---\n", ":3:1: error: front matter: tableOfContents must be true, false or"
                + " {minHeadingLevel: 2, maxHeadingLevel: 3} (numbers 1 to 6), not 'false'");
        cases.put("---\ntitle: P\ntableOfContents: {minHeadingLevel: \"2\"}\n---\n", ":3:1: error: front matter: tableOfContents must be"
                + " true, false or {minHeadingLevel: 2, maxHeadingLevel: 3} (numbers 1 to 6), not '{minHeadingLevel=2}'");
        cases.put("---\ntitle: P\nlastUpdated: yes-please\n---\n", ":3:1: error: front matter: lastUpdated must be false or a date such as"
                + " 2026-12-05, not 'yes-please'");
        cases.put("---\ntitle: P\nprev: 5\n---\n", ":3:1: error: front matter: prev must be false, a label, or {link: …, label: …} with"
                + " text values, not '5'");
        int n = 0;
        for (Map.Entry<String, String> c : cases.entrySet()) {
            TestSite site = new TestSite(temp.resolve("case" + n++)).page("a.md", c.getKey() + "\nText.\n");
            assertFailsAt(site, "a.md", c.getValue());
        }
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
        assertFailsAt(site, "a.mdx", ":6:15: error: attribute points: data is imported from './data.json', "
                + "and Kensho runs no JavaScript; write the value here, or as 'export const data = …' in this page");

        site.page("a.mdx", "---\ntitle: Chart\n---\nimport example from './example.js?raw';\nimport secret from '../../../../../../etc/passwd?raw';\n\n"
                + "<Code code={example} lang=\"js\" />\n");
        site.page("example.js", "const answer = 42;\n");
        run = assertFailsAt(site, "a.mdx", ":5:1: error: import '../../../../../../etc/passwd?raw': ");
        assertFalse(run.err().contains("root:"), "nothing of the file outside content/ is shown");
        site.page("a.mdx", "---\ntitle: Chart\n---\nimport example from './example.js?raw';\n\n<Code code={example} lang=\"js\" />\n");
        run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("const answer = 42;", Jsoup.parse(site.out.resolve("a/index.html").toFile()).selectFirst("figure code").text().strip(),
                "a ?raw import is the file's text");

        site.page("a.mdx", "---\ntitle: Chart\n---\n\n<Chart points={[{href: 'javascript:alert(1)'}]} />\n");
        assertFailsAt(site, "a.mdx", ":5:1: error: <Chart> points={…}: the URL scheme 'javascript:' is not allowed");
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

    @Test
    void nestedFoldersAreNestedGroupsAndASidebarCanBeConfigured() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "title: T\ngroups:\n  guides: ガイド\n  guides/advanced: 発展\n")
                .page("index.md", TestSite.source("Home", "\nHome.\n"))
                .page("guides/a.md", TestSite.source("A", "\nA.\n"))
                .page("guides/advanced/deep.md", TestSite.source("Deep", "\nDeep.\n"))
                .page("reference/r.md", TestSite.source("R", "\nR.\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document deep = Jsoup.parse(site.out.resolve("guides/advanced/deep/index.html").toFile());
        assertEquals(List.of("ガイド", "発展", "reference"), deep.select(".sidebar summary").eachText());
        assertEquals("Deep", deep.selectFirst(".sidebar details[data-group] details[data-group] a").text(), "a subfolder is a group inside its folder's group");
        assertEquals("T › ガイド › 発展", deep.selectFirst(".breadcrumb").text());
        assertEquals("../../../reference/r/", deep.selectFirst(".pager .next").attr("href"));

        site.page("site.yml", """
                title: T
                sidebar:
                  - label: Start
                    items:
                      - guides/advanced/deep
                      - slug: guides/a
                        label: The A page
                        badge: New
                      - label: Elsewhere
                        link: https://example.org/
                  - label: Reference
                    collapsed: true
                    autogenerate: {directory: reference}
                """);
        run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document a = Jsoup.parse(site.out.resolve("guides/a/index.html").toFile());
        assertEquals(List.of("Deep", "The A page New", "Elsewhere", "R"), a.select(".sidebar a").eachText());
        assertEquals("https://example.org/", a.selectFirst(".sidebar a:contains(Elsewhere)").attr("href"));
        assertFalse(a.selectFirst("details:has(summary:contains(Reference))").hasAttr("open"), "a collapsed group is folded");
        assertEquals("../../guides/advanced/deep/", a.selectFirst(".pager .prev").attr("href"), "previous/next follow the configured sidebar");
        Document r = Jsoup.parse(site.out.resolve("reference/r/index.html").toFile());
        assertTrue(r.selectFirst("details:has(summary:contains(Reference))").hasAttr("open"), "it opens on the pages inside it");
        assertTrue(Files.exists(site.out.resolve("index.html")), "a page left out of the sidebar is still built");

        site.page("site.yml", "title: T\nsidebar:\n  - label: Start\n    items:\n      - guides/missing\n");
        assertFailsAt(site, "site.yml", ":5:1: error: site settings: the sidebar names 'guides/missing', "
                + "but no page has that slug");
    }

    @Test
    void starlightLocalesTranslateTheThemeAndFallBackToTheDefaultLanguage() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", """
                        title: Docs
                        url: https://example.org/docs/
                        locales:
                          root: {label: 日本語, lang: ja}
                          en: {label: English, lang: en}
                        groups:
                          guides: {root: ガイド, en: Guides}
                        """)
                .page("index.md", TestSite.source("ホーム", "\n本文。\n"))
                .page("guides/a.md", TestSite.source("A ページ", "\n## 節\n\n```sql\nSELECT 1 AS one;\n```\n"))
                .page("en/index.md", TestSite.source("Home", "\nText.\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().contains("1 passed, 0 failed"), "the fallback copy is not verified again: " + run);
        assertTrue(run.out().contains("Kensho: 1 untranslated page(s) served in the default language with a notice"), run::toString);

        Document enHome = Jsoup.parse(site.out.resolve("en/index.html").toFile());
        assertEquals("en", enHome.selectFirst("html").attr("lang"));
        assertEquals("Search this site", enHome.selectFirst("#search-input").attr("aria-label"));
        assertEquals("Site contents", enHome.selectFirst("nav.sidebar").attr("aria-label"));
        assertEquals(List.of("ja https://example.org/docs/", "x-default https://example.org/docs/", "en https://example.org/docs/en/"),
                enHome.select("link[rel=alternate][hreflang]").stream().map(l -> l.attr("hreflang") + " " + l.attr("href")).toList());
        assertEquals(List.of("日本語 ../", "English ../en/"), enHome.select(".language-picker a").stream().map(l -> l.text() + " " + l.attr("href")).toList());
        assertEquals("English", enHome.selectFirst(".language-picker a[aria-current]").text());
        assertEquals(List.of("Home", "A ページ"), enHome.select(".sidebar a").eachText(), "the English sidebar has its own pages and the fallbacks");
        assertEquals("Guides", enHome.selectFirst(".sidebar summary").text(), "a group label per language");

        Document enA = Jsoup.parse(site.out.resolve("en/guides/a/index.html").toFile());
        assertEquals("This content is not available in your language yet; it is shown in its original language.",
                enA.selectFirst(".fallback-notice").text());
        assertEquals("ja", enA.selectFirst(".page-content").attr("lang"), "the untranslated text keeps its language");
        assertTrue(enA.selectFirst(".evidence summary").text().matches("✓ Verified on PostgreSQL 18\\.\\d+"),
                "the evidence is worded in the page's language: " + enA.selectFirst(".evidence summary").text());
        assertEquals("runs to the end without an error (1 statement)", enA.selectFirst(".assertions li").text());
        assertEquals("Link to “節”", enA.selectFirst("h2 .anchor").attr("aria-label"));
        assertTrue(enA.select("link[rel=alternate]").isEmpty(), "a fallback is not a translation");

        Document jaA = Jsoup.parse(site.out.resolve("guides/a/index.html").toFile());
        assertEquals("ja", jaA.selectFirst("html").attr("lang"));
        assertEquals("ガイド", jaA.selectFirst(".sidebar summary").text());
        assertEquals("サイト内検索", jaA.selectFirst("#search-input").attr("aria-label"));
        assertTrue(jaA.select(".fallback-notice").isEmpty());
        assertEquals("エラーなく最後まで実行できる（文 1 個）", jaA.selectFirst(".assertions li").text());
        String sitemap = Files.readString(site.out.resolve("sitemap.xml"));
        assertFalse(sitemap.contains("en/guides/a/"), "fallback copies are not in the sitemap: " + sitemap);
        // One search index per language, as Pagefind does: a reader searches the pages of theirs.
        assertEquals("assets/search/en/", enHome.selectFirst("body").attr("data-search"));
        assertEquals("assets/search/root/", jaA.selectFirst("body").attr("data-search"));
        assertTrue(Files.readString(site.out.resolve("assets/search/en/index.js")).contains("\"pages\":2"),
                "en: its own page and the untranslated one served at its URL");
        assertTrue(Files.readString(site.out.resolve("assets/search/en/p-1.js")).contains("\"en/guides/a/\""), "found at the English URL");
        assertTrue(Files.readString(site.out.resolve("assets/search/root/index.js")).contains("\"pages\":2"), "root: two pages");
    }

    @Test
    void splashHeroBannerHeadAndEditLinks() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "title: T\neditLink:\n  baseUrl: https://github.com/o/r/edit/main/content/\n")
                .page("index.md", """
                        ---
                        title: Home
                        template: splash
                        hero:
                          tagline: Proven examples
                          image: {file: ./hero.svg, alt: A drawing}
                          actions:
                            - {text: Start, link: /guides/a/, variant: primary}
                        banner:
                          content: New edition. <a href="/guides/a/">Read</a>
                        head:
                          - tag: meta
                            attrs: {name: robots, content: noindex}
                          - tag: title
                            content: Custom title
                        ---

                        Body.
                        """)
                .page("hero.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>")
                .page("guides/a.md", "---\ntitle: A\neditUrl: false\n---\n\nA.\n")
                .page("guides/b.md", "---\ntitle: B\n---\n\nB.\n");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document home = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertTrue(home.select("nav.sidebar").isEmpty() && home.select(".toc").isEmpty() && home.select(".pager").isEmpty(), "a splash page");
        assertEquals("Home", home.selectFirst(".hero h1").text());
        assertEquals("Proven examples", home.selectFirst(".hero-tagline").text());
        assertEquals("hero.svg", home.selectFirst(".hero-image").attr("src"));
        assertEquals("guides/a/", home.selectFirst(".hero-actions a").attr("href"));
        assertEquals("guides/a/", home.selectFirst(".banner a").attr("href"), "banner links are pointed like the body's");
        assertEquals("noindex", home.selectFirst("meta[name=robots]").attr("content"));
        assertEquals("Custom title", home.title());
        assertEquals("https://github.com/o/r/edit/main/content/index.md", home.selectFirst("a.edit-link").attr("href"));
        assertTrue(Jsoup.parse(site.out.resolve("guides/a/index.html").toFile()).select("a.edit-link").isEmpty(), "editUrl: false");

        // Contributor text outside the body follows the same rules as the body: nothing that runs script.
        site.page("guides/b.md", "---\ntitle: B\nhead:\n  - tag: script\n    content: alert(1)\n---\n\nB.\n");
        assertFailsAt(site, "guides/b.md", ":3:1: error: front matter: head: <script> may not be added");
        site.page("guides/b.md", "---\ntitle: B\nbanner:\n  content: <img src=x onerror=alert(1)>\n---\n\nB.\n");
        assertFailsAt(site, "guides/b.md", ":3:1: error: front matter: banner.content: raw HTML <img onerror> is not allowed");
        site.page("guides/b.md", "---\ntitle: B\nhero:\n  actions:\n    - {text: Go, link: 'javascript:alert(1)'}\n---\n\nB.\n");
        assertFailsAt(site, "guides/b.md", ":3:1: error: front matter: hero: action 'Go': the URL scheme 'javascript:'");
        site.page("guides/b.md", "---\ntitle: B\nhead:\n  - tag: link\n    attrs: {rel: stylesheet, href: 'https://evil.example/x.css'}\n---\n\nB.\n");
        assertFailsAt(site, "guides/b.md", ":3:1: error: front matter: head: <link rel=\"stylesheet\"> may not be added");
        // A variant is written into a class name: one of Starlight's, not the theme's evidence classes (red team helper-98).
        site.page("guides/b.md", "---\ntitle: B\nhero:\n  actions:\n    - {text: Go, link: /, variant: 'x verified'}\n---\n\nB.\n");
        assertFailsAt(site, "guides/b.md", ":3:1: error: front matter: hero: action 'Go': variant is one of primary, secondary, minimal");
        // Nor may a sidebar link of site.yml wear them.
        site.page("guides/b.md", "---\ntitle: B\n---\n\nB.\n").page("site.yml", "title: T\nsidebar:\n  - label: Out\n    link: /\n"
                + "    attrs: {class: 'plain verified'}\n");
        assertFailsAt(site, "site.yml", ":5:1: error: site settings: sidebar link 'Out': the class verified is the theme's own (its evidence or the "
                + "page's frame); a link of the site may not wear it");
    }

    @Test
    void markersFallOnTheCodeAsShownAndSiteSettingsLinksFollowTheUrlRules() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", """
                ---
                title: Markers
                ---

                ```js "answer"
                // answer.js
                const answer = 42;
                ```

                ```diff lang="js" "oldValue"
                -  return oldValue;
                +  return answer;
                ```
                """);
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals("answer.js", html.select("figure.code-block").get(0).selectFirst(".code-title").text());
        assertEquals(List.of("answer"), html.select("figure.code-block").get(0).select("code mark").eachText(),
                "the mark is on the code shown, after the title line was taken out");
        assertEquals(List.of("oldValue"), html.select("figure.code-block").get(1).select("code mark").eachText(),
                "and after the +/- column was taken out");

        site.page("a.md", "---\ntitle: M\n---\n\n```js " + "\"x\" ".repeat(33) + "\nx\n```\n");
        assertFailsAt(site, "a.md", ":5:1: error: 33 text markers on one fence; at most 32");

        site.page("a.md", TestSite.source("A", "\nText.\n"));
        site.page("site.yml", "title: T\nsidebar:\n  - label: Bad\n    link: 'javascript:alert(1)'\n");
        assertFailsAt(site, "site.yml", ":4:1: error: site settings: sidebar link 'Bad': the URL scheme "
                + "'javascript:' is not allowed");
        site.page("site.yml", "title: T\neditLink:\n  baseUrl: 'javascript:alert(1)//'\n");
        assertFailsAt(site, "site.yml", ":3:1: error: site settings: editLink.baseUrl: the URL scheme "
                + "'javascript:' is not allowed");
    }

    @Test
    void withoutARootLanguageEveryPageIsInALanguageFolderAndTheRootSendsReadersToTheDefault() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "title: T\ndefaultLocale: ja\nlocales:\n  ja: {label: 日本語, lang: ja}\n  en: {label: English, lang: en}\n")
                .page("ja/index.md", TestSite.source("ホーム", "\n本文。\n"))
                .page("ja/a.md", TestSite.source("A", "\nA.\n"))
                .page("index.md", TestSite.source("Top", "\nTop.\n"));
        TestSite.Run run = assertFailsAt(site, "index.md", ":1:1: error: this page is outside every language folder (ja/, en/); "
                + "move it into one, or add a root locale to site.yml");

        Files.delete(site.content.resolve("index.md"));
        run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("0; url=ja/", Jsoup.parse(site.out.resolve("index.html").toFile()).selectFirst("meta[http-equiv=refresh]").attr("content"));
        assertTrue(Files.exists(site.out.resolve("en/a/index.html")), "the English fallback of ja/a.md");
        assertEquals("../../en/", Jsoup.parse(site.out.resolve("en/a/index.html").toFile()).selectFirst(".site-title").attr("href"));
    }

    /** Builds the site, which must fail, the first error being at {@code file} and starting with {@code error}. */
    /** issue 35: Starlight's own Japanese docs write asides with attributes; the aside was printed as text. */
    @Test
    void anAsideWithAttributesIsAnAsideAndOnlyItsIconReachesThePage() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                :::tip{icon="heart"}
                Starlight's attribute.
                :::

                :::caution[気をつけて]{#warn .wide onclick="alert(1)" style='position:fixed' data-x=1 hidden icon=star}
                Unknown attributes are read and dropped.
                :::

                :::note{icon="<img src=x onerror=alert(1)>"}
                No such icon.
                :::
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals(List.of("aside aside-tip", "aside aside-caution", "aside aside-note"), html.select("main aside").eachAttr("class"));
        assertEquals(List.of("♥ ヒント", "★ 気をつけて", "メモ"), html.select("main aside .aside-title").eachText());
        assertEquals(List.of("Starlight's attribute.", "Unknown attributes are read and dropped.", "No such icon."),
                html.select("main aside .aside-content").eachText());
        String main = html.selectFirst("main").outerHtml();
        for (String dropped : List.of("onclick", "alert", "position:fixed", "data-x", "id=\"warn\"", "wide", "onerror", ":::")) {
            assertFalse(main.contains(dropped), dropped + " reached the page: " + main);
        }
    }

    @Test
    void malformedAsideAttributesFailAtTheirLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n:::tip{icon=\"heart}\nText.\n:::\n"));
        site.theme = null;
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:7: error: aside attributes {icon=\"heart}: cannot read 'icon=\"heart'; "
                + "write name=\"value\" pairs, as :::tip{icon=\"heart\"}"), run::toString);
    }

    @Test
    void anAsideIconWithAScriptSchemeFailsAtItsLineAndColumn() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n  :::danger{icon=javascript:alert(1)}\nText.\n:::\n"));
        site.theme = null;
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:3: error: <Aside> icon=\"…\": the URL scheme 'javascript:' is not allowed "
                + "on the published site (use a relative link, http, https, mailto or tel)"), run::toString);
    }

    /** issue 35: a Starlight site's own alias (tsconfig paths "~/*": ["src/*"]) is declared in site.yml and read through the content gate. */
    @Test
    void aSitesOwnPathAliasNamesFilesInsideContentOnly() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "title: Aliases\naliases: {\"~/\": \"shared/\"}\n")
                .page("shared/assets/chart.png", "not really a PNG")
                .page("shared/snippets/q.js", "const answer = 42;\n")
                .page("guides/a.mdx", "---\ntitle: A\n---\nimport example from '~/snippets/q.js?raw';\n\n![chart](~/assets/chart.png)\n\n"
                        + "<Code code={example} lang=\"js\" />\n");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("guides/a/index.html").toFile());
        assertEquals("../../shared/assets/chart.png", html.selectFirst("main img").attr("src"));
        assertEquals("const answer = 42;", html.selectFirst("figure code").text().strip());

        Files.delete(site.content.resolve("shared/snippets/q.js")); // imported by no page now, so not publishable
        site.page("guides/a.mdx", "---\ntitle: A\n---\nimport secret from '~/../../../../../etc/passwd?raw';\n\n![gone](~/assets/gone.png)\n");
        run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("guides/a.mdx") + ":4:1: error: import '~/../../../../../etc/passwd?raw': it is outside the content "
                + "folder and not a file git tracks in this repository"), run::toString);
        assertFalse(run.err().contains("root:"), "nothing of the file outside content/ is shown");

        site.page("guides/a.mdx", "---\ntitle: A\n---\n\n![gone](~/assets/gone.png)\n");
        run = site.check();
        assertTrue(run.err().contains(site.display("guides/a.mdx") + ":5:9: error: broken link '~/assets/gone.png': shared/assets/gone.png is not part "
                + "of the site\n"), run::toString);

        site.page("site.yml", "title: Aliases\naliases: {\"~/\": \"../\", \"/abs/\": \"x/\"}\n");
        run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":2:1: error: site settings: aliases: '~/': '../' is outside the content folder; "
                + "an alias names a folder inside content/, such as 'shared/'"), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":2:1: error: site settings: aliases: '/abs/': a prefix is a short name ending in '/' "
                + "that no relative path, absolute path or URL starts with, such as '~/' or '@/'"), run::toString);
    }

    private static TestSite.Run assertFailsAt(TestSite site, String file, String error) {
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display(file) + error), run::toString);
        return run;
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
