package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the second security review found in files, settings and reports: each is a clear error at its path or line, in bounded time. */
class HardeningTest {

    @TempDir
    Path temp;

    private TestSite site() throws Exception {
        return new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n"));
    }

    @Test
    void contentFilesMayNotReplaceTheThemesOrGeneratedFiles() throws Exception {
        TestSite site = site().page("assets/kensho.js", "alert(1)").page("assets/kensho.css", "body{display:none}")
                .page("search.js", "alert(2)").page("404.html", "<script>alert(3)</script>").page("index.html", "x")
                .page("sitemap.xml", "<x/>").page("a/index.html", "<script>alert(4)</script>");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        String active = ":1:1: error: not published: a .%s file could run script on the site's origin";
        assertTrue(run.err().contains(site.display("assets/kensho.js") + ":1:1: error: not published: assets/kensho.js is the theme's own "
                + "file; a content file may not replace it"), run::toString);
        assertTrue(run.err().contains(site.display("assets/kensho.css") + ":1:1: error: not published: assets/kensho.css is the theme's own "
                + "file"), run::toString);
        assertTrue(run.err().contains(site.display("search.js") + active.formatted("js")), run::toString);
        assertTrue(run.err().contains(site.display("404.html") + active.formatted("html")), run::toString);
        assertTrue(run.err().contains(site.display("index.html") + active.formatted("html")), run::toString);
        assertTrue(run.err().contains(site.display("sitemap.xml") + active.formatted("xml")), run::toString);
        assertTrue(run.err().contains(site.display("a/index.html") + active.formatted("html")), run::toString);
        assertFalse(Files.exists(site.out), "nothing is published");
        TestSite.Run check = site.check();
        assertEquals(1, check.status(), check::toString);
        assertTrue(check.err().contains(site.display("search.js") + active.formatted("js")), "check reports it too: " + check);
    }

    @Test
    void aPageMayNotTakeThePathOfAFileTheBuildGenerates() throws Exception {
        // On a site large enough for per-group contents pages, contents/0.md in file format is contents/0.html.
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nbuild: {format: file}\n")
                .page("contents/0.md", TestSite.source("Mine", "\nText.\n"));
        for (int i = 0; i < 200; i++) {
            site.page("g/p" + i + ".md", TestSite.source("Page " + i, "\nText.\n"));
        }
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("contents/0.md") + ":1:1: error: the page's output path contents/0.html is also a file "
                + "the build generates; rename or move the page"), run::toString);
    }

    @Test
    void onlyPassiveFilesArePublishedAndSvgOnlySanitised() throws Exception {
        TestSite site = site().page("x.xhtml", "<html xmlns='http://www.w3.org/1999/xhtml'><script>alert(1)</script></html>")
                .page("undefined", "alert(2)")
                .page("evil.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(3)\"/>");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("x.xhtml") + ":1:1: error: not published: a .xhtml file could run script"), run::toString);
        assertTrue(run.err().contains(site.display("undefined") + ":1:1: error: not published: a file without an extension could run script"),
                run::toString);
        assertTrue(run.err().contains(site.display("evil.svg") + ":1:1: error: not published: evil.svg: <svg onload> is not an attribute "
                + "Kensho publishes (an event handler would run script)"), run::toString);

        Files.delete(site.content.resolve("x.xhtml"));
        Files.delete(site.content.resolve("undefined"));
        site.page("evil.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 9 9\"><!-- c --><text>a<![CDATA[<b>]]></text>"
                + "<rect width=\"5\" height=\"5\"/></svg>").page("data.csv", "a,b\n");
        run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 9 9\"><text>a</text>"
                + "<rect width=\"5\" height=\"5\" /></svg>\n", Files.readString(site.out.resolve("evil.svg")));
        assertEquals("a,b\n", Files.readString(site.out.resolve("data.csv")));
    }

    @Test
    void aDiagramMayNotLayItselfOverThePage() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n<Diagram src=\"d.svg\" alt=\"a diagram\" />\n"))
                .page("d.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><rect style=\"fill: red; position:fixed; "
                        + "inset: 0\" width=\"5\" height=\"5\"/></svg>");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:1: error: d.svg: <rect style> sets 'position'; a diagram's style may set "
                + "only presentation properties"), run::toString);
    }

    @Test
    void siteUrlIsAnAbsoluteHttpUrlWithAPlainPath() throws Exception {
        TestSite site = site().page("site.yml", "title: T\nurl: \"https://x.org//evil.host/\"\n");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("site.yml:2:1: error: site settings: url: 'https://x.org//evil.host/' must be an absolute http or https "
                + "URL with a plain path"), run::toString);
        for (String url : new String[]{"javascript:alert(1)//", "//evil.host/", "https://x.org/a/../b/", "https://u@x.org/", "https://x.org/?q"}) {
            site.page("site.yml", "title: T\nurl: \"" + url + "\"\n");
            run = site.build();
            assertEquals(1, run.status(), url);
            assertTrue(run.err().contains("site.yml:2:1: error: site settings: url: '"), url + "\n" + run);
        }
        site.page("site.yml", "title: T\nurl: https://example.org/docs\n");
        assertEquals(0, site.build().status());
        assertTrue(Files.readString(site.out.resolve("404.html")).matches("(?s).*src=\"/docs/assets/kensho\\.[0-9a-f]{10}\\.js\".*"));
    }

    /**
     * Red team helper-98: 80,000 unclosed image links in one paragraph (400 KB) kept flexmark's inline parser busy past
     * five minutes, its time growing with the square of the paragraph. The parse now stops at its deadline, at the
     * paragraph's line; the previous site is left as it was.
     */
    @Test
    void aParagraphTheParserReadsInQuadraticTimeStopsAtItsLine() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            TestSite site = site().page("p.md", "---\ntitle: p\n---\n\nAn introduction.\n\n" + "![a](".repeat(80_000) + "\n");
            TestSite.Run run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains(site.display("p.md") + ":7:1: error: the page's Markdown took more than 10 s to read: a "
                    + "paragraph holds a construct the Markdown parser reads in time that grows with the square of its length (such "
                    + "as thousands of unclosed '](' or '[' in one paragraph); split the paragraph or put the text in a code block"),
                    run::toString);
            assertFalse(Files.exists(site.out));
            // Red team helper-99: a one-line component's content is Markdown too, under the same budget of the page.
            site.page("p.md", "---\ntitle: p\n---\n\n<Aside>" + "![a](".repeat(40_000) + "</Aside>\n");
            run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains(site.display("p.md") + ":5:1: error: <Aside> content: the Markdown took more than 10 s to "
                    + "read"), run::toString);
        });
    }

    @Test
    void yamlAliasesEntriesAndNestingAreBoundedAtTheirLine() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            // Fifty aliases of aliases: a billion entries once expanded.
            StringBuilder laughs = new StringBuilder("title: T\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
            for (int i = 1; i <= 9; i++) {
                laughs.append("a").append(i).append(": &a").append(i).append(" [").append(("*a" + (i - 1) + ", ").repeat(9))
                        .append("*a").append(i - 1).append("]\n");
            }
            TestSite site = site().page("site.yml", laughs.toString());
            TestSite.Run run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains("site.yml:7:45: "), run::toString);
            assertTrue(run.err().contains("error: site settings: more than 1000000 YAML entries once aliases are expanded"), run::toString);

            site.page("site.yml", "a: &a x\nb: [" + "*a, ".repeat(150) + "*a]\n");
            run = site.build();
            assertTrue(run.err().contains("site.yml:2:") && run.err().contains("error: site settings: more than 100 YAML aliases (*name)"),
                    run::toString);

            site.page("site.yml", "title: T\nx: " + "[".repeat(5000) + "]".repeat(5000) + "\n");
            run = site.build();
            assertTrue(run.err().contains("site.yml:2:67: error: site settings: YAML nested deeper than 64 levels"), run::toString);

            site.page("site.yml", "title: T\n").page("a.md", "---\ntitle: A\ntags: " + "[".repeat(5000) + "]".repeat(5000) + "\n---\nText.\n");
            run = site.build();
            assertTrue(run.err().contains(site.display("a.md") + ":3:70: error: front matter: YAML nested deeper than 64 levels"), run::toString);
        });
    }

    @Test
    void aLargeSidebarIsReadInLinearTime() throws Exception {
        // 40,000 sidebar links through aliases (a 2 MB site.yml once took hours: each entry's line was looked up from the top).
        // The links are written once, in the first group, and reused by the others (site.yml has no free-form keys).
        StringBuilder yaml = new StringBuilder("title: T\nsidebar:\n  - a\n  - label: G0\n    collapsed: true\n    items: &links\n");
        for (int i = 0; i < 400; i++) {
            yaml.append("      - {label: \"Link ").append(i).append("\", link: \"https://example.org/").append(i).append("\"}\n");
        }
        for (int i = 1; i < 99; i++) {
            yaml.append("  - {label: G").append(i).append(", collapsed: true, items: *links}\n");
        }
        TestSite site = site().page("site.yml", yaml.toString());
        long t0 = System.nanoTime();
        TestSite.Run run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> site.build());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("sidebar of " + 99 * 400 + " links read and built in " + ms + " ms");
        assertEquals(0, run.status(), run::toString);
    }

    @Test
    void deepBlockquotesAndARecursiveMarkerAreClearErrors() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n" + ">".repeat(5000) + " deep\n"));
            TestSite.Run run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains(site.display("a.md") + ":1:1: error: the page nests blockquotes, lists or other blocks too deeply"),
                    run::toString);
            assertFalse(run.err().contains("internal error") || run.err().contains("StackOverflow"), run::toString);

            site.page("a.md", TestSite.source("A", "\n```text /(a|b)*/\n" + "ab".repeat(100_000) + "\n```\n"));
            run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains(site.display("a.md") + ":5:1: error: marker /(a|b)*/ "), run::toString);
            assertFalse(run.err().contains("internal error") || run.err().contains("StackOverflow"), run::toString);
        });
    }

    /**
     * The red team's page: one code block of 49,295 lines {@code SELECT 1 LIMIT 0;/*x…*&#47;} (3.5 MB). Highlighting it kept a
     * build busy for more than 26 minutes at 2.2 GB (53 s and 2.5 GB of a psql block on the 2-core machine); now the block
     * is shown as plain text, exactly escaped, and the build names it.
     */
    @Test
    void aHugeCodeBlockIsShownAsPlainTextAndNamed() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            String code = ("SELECT 1 LIMIT 0;/*" + "x".repeat(44) + " <b>&</b> */\n").repeat(49_295);
            TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n\n```psql\n" + code + "```\n"));
            TestSite.Run run = site.build();
            assertEquals(0, run.status(), run::toString);
            assertTrue((run.out() + run.err()).contains(site.display("a.md") + ":7: warning: code block not highlighted: larger than 50000 "
                    + "characters (" + (code.length() - 1) + "); it is shown as plain text"), run::toString); // its last newline is not shown
            String html;
            try (var files = Files.walk(site.out)) {
                Path page = files.filter(file -> file.toString().endsWith(".html")).filter(file -> {
                    try {
                        return Files.readString(file).contains("LIMIT 0;/*xxx");
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }).findFirst().orElseThrow();
                html = Files.readString(page, StandardCharsets.UTF_8);
            }
            assertEquals(49_295, html.split("SELECT 1 LIMIT 0;/\\*x{44} &lt;b&gt;&amp;&lt;/b&gt; \\*/", -1).length - 1);
            assertFalse(html.contains("<span class=\"token"), "no Prism token spans");
        });
    }

    @Test
    void aHardLinkOrAFileOfAnotherAccountIsRefused() throws Exception {
        Path outside = Files.writeString(temp.resolve("secret.txt"), "KENSHO_CANARY_hardlink");
        TestSite site = site();
        Files.createLink(site.content.resolve("leak.txt"), outside);
        Path foreign = Files.writeString(site.content.resolve("foreign.txt"), "x");
        boolean chowned = new ProcessBuilder("chown", "nobody", foreign.toString()).start().waitFor() == 0;
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("leak.txt") + ":1:1: error: not read: it has 2 hard links; a file in content/ must have one"),
                run::toString);
        if (chowned) {
            assertTrue(run.err().contains(site.display("foreign.txt") + ":1:1: error: not read: it is owned by another account"), run::toString);
        }
        assertFalse(run.err().contains("KENSHO_CANARY") || Files.exists(site.out));
    }

    @Test
    void outInsideContentOrContentInsideOutIsAUsageError() throws Exception {
        TestSite site = site();
        TestSite.Run run = site.build("--out", site.content.resolve("site").toString());
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().contains("--out " + site.content.resolve("site") + " and --content " + site.content
                + " may not lie inside one another"), run::toString);
        run = site.build("--out", temp.toString());
        assertEquals(2, run.status(), run::toString);
        assertFalse(Files.exists(site.content.resolve("site")));
    }

    @Test
    void anUnencodableCharacterAndAHugeMessageKeepTheReportsSmallAndWellFormed() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql\nSELECT '\uFFFF' AS x FROM missing_table;\n```\n"))
                .page("b.md", TestSite.source("B", "\n```sql\nDO $$ BEGIN RAISE EXCEPTION '%', repeat('x', 300000); END $$;\n```\n"));
        Path junit = temp.resolve("junit");
        TestSite.Run run = site.check("--junit-xml", junit.toString());
        assertEquals(1, run.status(), run::toString);
        Path xml = junit.resolve("TEST-kensho.xml");
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
        assertTrue(Files.size(xml) < 64 * 1024, "JUnit file of " + Files.size(xml) + " bytes");
        assertTrue(Files.size(site.report) < 64 * 1024, "JSON report of " + Files.size(site.report) + " bytes");
        assertTrue(Files.readString(site.report, StandardCharsets.UTF_8).contains("more characters cut)"));
    }
}
