package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Starlight-style MDX pages through the real theme, and the errors an author can make with components. */
class ComponentsTest {

    @TempDir
    Path temp;

    private TestSite samples() throws Exception {
        TestSite site = new TestSite(temp);
        Path samples = Path.of("src/test/resources/mdx-samples");
        try (Stream<Path> files = Files.walk(samples)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path target = site.content.resolve(samples.relativize(file).toString());
                Files.createDirectories(target.getParent());
                Files.copy(file, target);
            }
        }
        return site;
    }

    @Test
    void everyComponentRendersFromItsTemplate() throws Exception {
        TestSite site = samples();
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("guides/components/index.html").toFile());

        assertEquals(List.of("メモ", "Watch out!", "危険"), html.select(".aside .aside-title").eachText());
        assertEquals("A warning aside with a custom title and a link.", html.select(".aside-caution .aside-content").text());
        assertNotNull(html.selectFirst(".aside-caution em"), "Markdown inside a component is rendered");
        assertEquals(List.of("Stars", "Moons"), html.select(".tabs [role=tab]").eachText());
        assertEquals("Sirius, Vega, Betelgeuse", html.select(".tab-panel").get(0).text());
        assertNotNull(html.selectFirst(".tab-panel strong"));
        assertNotNull(html.selectFirst(".tab-panel .code-block.verified"), "a SQL fence inside a tab is verified");
        assertEquals(3, html.select(".steps ol > li").size());
        assertEquals(List.of("✓Check", "Publish"), html.select(".card-grid .card-title").eachText());
        assertEquals("../../", html.selectFirst("a.link-card").attr("href"));
        assertEquals(List.of("New", "Draft"), html.select(".badge").eachText());
        assertTrue(html.selectFirst(".badge").hasClass("badge-success"));
        assertTrue(html.selectFirst("details.details").hasAttr("open"));
        assertEquals("keys.md", html.select(".file-tree li li li").text());
        var svg = html.selectFirst("figure.diagram svg");
        assertNotNull(svg, "the diagram is inlined");
        assertEquals("A request going from the client to the API", svg.attr("aria-label"));
        assertEquals("A request going from the client to the API", svg.selectFirst("title").text());
        assertTrue(svg.selectFirst("line").attr("marker-end").matches("url\\(#d\\d+-arrow\\)"), svg.outerHtml());
        assertEquals("Client API", svg.select("text").text());
        assertEquals("The request flow", html.selectFirst("figure.diagram figcaption").text());
    }

    @Test
    void anUnknownComponentIsAnErrorAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", "\n<Callout type=\"tip\">\nHi\n</Callout>\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.mdx") + ":5:1: error: unknown component <Callout>; the theme has Aside, Badge, "), run::toString);
        assertTrue(run.err().contains("(add theme/components/Callout.ftlh to define it)"), run::toString);
        assertEquals(1, run.err().split("error:").length - 1, "a faulty opening tag must not cascade into its closing tag: " + run.err());
    }

    @Test
    void aMissingRequiredAttributeIsAnErrorAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", "\n<Tabs>\n<TabItem>x</TabItem>\n</Tabs>\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.mdx") + ":6:1: error: <TabItem> needs the attribute label=\"…\""), run::toString);
    }

    @Test
    void anUnclosedTagIsAnErrorAtItsOpeningLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.mdx", TestSite.source("A", "\ntext\n\n<Aside type=\"tip\">\nnever closed\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.mdx") + ":7:1: error: <Aside> is never closed: add </Aside> on a line of its own"), run::toString);
    }

    @Test
    void anSvgWithScriptIsRefusedAtTheDiagramsLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n<Diagram src=\"bad.svg\" alt=\"x\" />\n"));
        Files.writeString(site.content.resolve("bad.svg"),
                "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":5:1: error: bad.svg contains <script>, which is not a drawing element Kensho publishes"), run::toString);
    }

    @Test
    void svgEventHandlersForeignObjectsAndOutsideReferencesAreRefused() throws Exception {
        String[][] cases = {
                {"<rect onclick=\"x()\"/>", "bad.svg: <rect onclick> is not an attribute Kensho publishes (an event handler would run script)"},
                {"<foreignObject><div/></foreignObject>", "bad.svg contains <foreignObject>"},
                {"<image href=\"https://example.com/x.png\"/>", "bad.svg contains <image>, which is not a drawing element Kensho publishes"},
                {"<use href=\"https://example.com/x.svg#a\"/>", "bad.svg: <use href> refers outside the document; only #fragment references are allowed"},
        };
        for (String[] c : cases) {
            TestSite site = new TestSite(Files.createTempDirectory(temp, "case")).page("a.md", TestSite.source("A", "\n<Diagram src=\"bad.svg\" alt=\"x\" />\n"));
            Files.writeString(site.content.resolve("bad.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\">" + c[0] + "</svg>");
            TestSite.Run run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().startsWith(site.display("a.md") + ":5:1: error: " + c[1]), run::toString);
        }
    }

    @Test
    void aDiagramWithoutTextAlternativeIsRefused() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n<Diagram src=\"x.svg\" />\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":5:1: error: <Diagram> needs the attribute alt=\"…\""), run::toString);
    }
}
