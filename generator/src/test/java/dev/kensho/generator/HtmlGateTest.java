package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every surface where a contributor's text becomes HTML passes the one gate, and a refusal is reported at its line. */
class HtmlGateTest {

    @TempDir
    Path temp;

    /** Payloads of the second security review; each once reached the published page. */
    static final String HOSTILE_PAGE = """
            ---
            title: A
            prev: {link: "javascript:alert(7)", label: back}
            next: {link: "JAVASCRIPT:alert(8)"}
            banner:
              content: "<!--> <img src=x onerror=alert(9)> -->"
            ---

            <!-- x --><script>alert(1)</script>

            <!--> <img src=x onerror=alert(2)> -->

            <!-- a --!> <img src=x onerror=alert(3)> -->

            <Aside type="tip"><img src=x onerror=alert(4)></Aside>

            A [link](JavaScript:alert(5)) here.

            <Aside type="note">[y](JaVaScRiPt:alert(6))</Aside>

            <!--kensho:0-->
            """;

    @Test
    void everyContributorSurfaceIsRefusedAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", HOSTILE_PAGE);
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        String a = site.display("a.md");
        String script = ": error: raw HTML <script> is not allowed: contributor markup may not run script or embed other content";
        String handler = ": error: raw HTML <img onerror> is not allowed: an event handler would run script";
        String scheme = "the URL scheme 'javascript:' is not allowed on the published site";
        assertTrue(run.err().contains(a + ":9:11" + script), run::toString);
        assertTrue(run.err().contains(a + ":11:7" + handler), run::toString);
        assertTrue(run.err().contains(a + ":13:13" + handler), run::toString);
        assertTrue(run.err().contains(a + ":15:1: error: <Aside> content: raw HTML <img onerror> is not allowed"), run::toString);
        assertTrue(run.err().contains(a + ":17:3: error: " + scheme), run::toString);
        assertTrue(run.err().contains(a + ":19:1: error: <Aside> content: <a href>: " + scheme), run::toString);
        assertTrue(run.err().contains(a + ":3:1: error: front matter: prev.link: " + scheme), run::toString);
        assertTrue(run.err().contains(a + ":4:1: error: front matter: next.link: " + scheme), run::toString);
        assertTrue(run.err().contains(a + ":5:1: error: front matter: banner.content: raw HTML <img onerror> is not allowed"), run::toString);
        assertFalse(Files.exists(site.out.resolve("a/index.html")));
    }

    @Test
    void aRefusalInsideAnHtmlBlockIsReportedAtItsOwnLineAndColumn() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                <div class="note">
                <p>fine</p>
                  <span>x</span> <img src="a.png" onerror="alert(1)">
                </div>

                - item with <a href="javascript:alert(2)">a link</a>
                """));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":7:18: error: raw HTML <img onerror> is not allowed"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":10:13: error: <a href>: the URL scheme 'javascript:' is not allowed"), run::toString);
    }

    @Test
    void aComponentInsideAnAttributeCannotBreakOutOfIt() throws Exception {
        // The Badge's own markup, put where its marker stood, would end the title (a variant that carried an attribute,
        // "x onmouseover=alert(1) y", is refused before that now: variant is one of the Badge's own).
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                <div title="<Badge text="t" variant="tip" />">hover</div>
                """));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:1: error: <div title>: a component or an HTML comment cannot stand inside "
                + "an attribute value"), run::toString);
    }

    @Test
    void headAttributesIgnoreCaseAndMayNotRepeat() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", """
                ---
                title: A
                head:
                  - tag: link
                    attrs: {REL: stylesheet, rel: icon, href: x.css}
                ---
                Text.
                """);
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":3:1: error: front matter: head: <link> has the attribute 'rel' twice "
                + "(attribute names ignore case); give it once"), run::toString);
    }

    @Test
    void aMarkerWrittenByThePageIsOnlyAComment() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText <!--kensho:0--> and\n\n<Badge text=\"B\" />\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        String html = Files.readString(site.out.resolve("a/index.html"));
        assertFalse(html.contains("kensho:0"), html);
        assertEquals(1, org.jsoup.Jsoup.parse(html).select("main .badge").size(), "the page's own marker placed the component a second time");
    }
}
