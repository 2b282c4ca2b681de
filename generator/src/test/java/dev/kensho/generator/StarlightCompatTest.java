package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        Document html = Jsoup.parse(site.out.resolve("s.html").toFile());
        String main = html.selectFirst("main").text();
        assertFalse(main.contains("@astrojs") || main.contains("export const") || main.contains("Extra.astro"), "ESM lines are not text: " + main);
        assertFalse(main.contains("JSX comment"), main);
        assertEquals(List.of("<EditLink />", "<Aside>"), html.select("main p > code").eachText().subList(0, 2));
        assertEquals(List.of("覚えておくこと", "メモ", "Careful"), html.select("aside .aside-title").eachText());
        assertEquals(List.of("aside aside-tip", "aside aside-note", "aside aside-caution"), html.select("aside").eachAttr("class"));
        assertEquals("other.html", html.selectFirst("a.link-card").attr("href"));
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
                        """))
                .page("guides/b.md", TestSite.source("B", "\n## part\n\nText.\n"))
                .page("index.md", TestSite.source("Home", "\nHome.\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("guides/a.html").toFile());
        assertEquals(List.of("b.html", "b.html#part", "../index.html", "b.html", "b.html", "b.html#part", "b.html"),
                html.select("main li a").eachAttr("href"));
    }

    @Test
    void aBrokenLinkRepeatedOnAPageIsReportedAtEachLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n[one](/nowhere/)\n\n[two](/nowhere/)\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:7: error: broken link '/nowhere/'"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":7:7: error: broken link '/nowhere/'"), run::toString);
    }
}
