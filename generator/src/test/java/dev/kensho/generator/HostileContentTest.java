package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Contributor content that tries to read the build machine or run script on the site is refused at its path or line. */
class HostileContentTest {

    @TempDir
    Path temp;

    private static final String CANARY = "KENSHO_CANARY_7f3a";

    /** True when any file below {@code folder} contains {@code text}. */
    private static boolean anyFileContains(Path folder, String text) throws Exception {
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(text)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Test
    void linksToFilesOutsideContentAreNeitherReadNorPublished() throws Exception {
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), CANARY);
        Files.writeString(outside.resolve("secret.md"), "---\ntitle: " + CANARY + "\n---\n" + CANARY);
        Files.writeString(outside.resolve("secret.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>" + CANARY + "</text></svg>");
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                <Diagram src="../outside/secret.svg" alt="x" />
                """));
        Files.createSymbolicLink(site.content.resolve("leak.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(site.content.resolve("leak.md"), outside.resolve("secret.md"));
        Files.createSymbolicLink(site.content.resolve("environ.md"), Path.of("/proc/self/environ"));
        Files.createSymbolicLink(site.content.resolve("passwd"), Path.of("/etc/passwd"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        String linkMessage = ":1:1: error: not read: it is a symbolic link to a file outside the content folder; Kensho never reads or publishes such a file";
        assertTrue(run.err().contains(site.display("leak.txt") + linkMessage), run::toString);
        assertTrue(run.err().contains(site.display("leak.md") + linkMessage), run::toString);
        assertTrue(run.err().contains(site.display("environ.md") + linkMessage), run::toString);
        assertTrue(run.err().contains(site.display("passwd") + linkMessage), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":5:1: error: cannot use diagram src=\"../outside/secret.svg\": it is "
                + "outside the content folder; only files inside content/ are read"), run::toString);
        assertFalse(run.err().contains(CANARY) || run.out().contains(CANARY), run::toString);
        assertFalse(run.err().contains("PATH="), run::toString);
        assertFalse(anyFileContains(site.out, CANARY), "the canary reached the output");
    }

    @Test
    void aFifoAndADeviceAreRefusedWithoutBeingOpened() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n<Diagram src=\"/dev/zero\" alt=\"x\" />\n"));
        Process mkfifo = new ProcessBuilder("mkfifo", site.content.resolve("pipe.svg").toString()).start();
        assertEquals(0, mkfifo.waitFor());
        Files.createSymbolicLink(site.content.resolve("zero.bin"), Path.of("/dev/zero"));
        long t0 = System.nanoTime();
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("pipe.svg") + ":1:1: error: not read: it is not a regular file (a FIFO, socket or device); "
                + "Kensho reads only plain files"), run::toString);
        assertTrue(run.err().contains(site.display("zero.bin") + ":1:1: error: not read: it is a symbolic link to a file outside the content folder"),
                run::toString);
        assertTrue(run.err().contains("error: src=\"/dev/zero\" must name an .svg file inside content/"), run::toString);
        assertTrue(System.nanoTime() - t0 < 20_000_000_000L);
    }

    @Test
    void aLinkInsideContentIsFollowed() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n"));
        Files.writeString(site.content.resolve("data.txt"), "inside");
        Files.createSymbolicLink(site.content.resolve("alias.txt"), site.content.resolve("data.txt"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("inside", Files.readString(site.out.resolve("alias.txt")));
    }

    private TestSite.Run buildWithDiagram(String svg) throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n<Diagram src=\"d.svg\" alt=\"a diagram\" />\n"));
        Files.writeString(site.content.resolve("d.svg"), svg);
        return site.build();
    }

    @Test
    void svgPayloadsThatOnceRanScriptAreRefusedOrDropped() throws Exception {
        String open = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">";
        TestSite.Run animate = buildWithDiagram(open + "<a><animate attributeName=\"href\" values=\"java&#9;script:alert(1)\"/></a></svg>");
        assertTrue(animate.err().contains("d.svg contains <a>, which is not a drawing element Kensho publishes"), animate::toString);
        TestSite.Run set = buildWithDiagram(open + "<set attributeName=\"href\" to=\"java&#10;script:alert(1)\"/></svg>");
        assertTrue(set.err().contains("d.svg contains <set>, which is not a drawing element Kensho publishes (animation could "
                + "change links and run script)"), set::toString);
        TestSite.Run style = buildWithDiagram(open + "<style>@import url(https://evil.example/x.css);</style></svg>");
        assertTrue(style.err().contains("d.svg contains <style>, which is not a drawing element Kensho publishes (a <style> would "
                + "restyle the whole page"), style::toString);
        TestSite.Run escaped = buildWithDiagram(open + "<rect fill=\"u\\72l(https://evil.example/p)\"/></svg>");
        assertTrue(escaped.err().contains("d.svg: <rect fill> refers outside the document or could run script"), escaped::toString);
        TestSite.Run imageSet = buildWithDiagram(open + "<rect style=\"fill: image-set('https://evil.example/p' 1x)\"/></svg>");
        assertTrue(imageSet.err().contains("d.svg: <rect style> refers outside the document or could run script"), imageSet::toString);
        TestSite.Run handler = buildWithDiagram(open + "<rect onclick=\"alert(1)\"/></svg>");
        assertTrue(handler.err().contains("d.svg: <rect onclick> is not an attribute Kensho publishes (an event handler would run script)"),
                handler::toString);
    }

    @Test
    void aProcessingInstructionIsDroppedNotReEmitted() throws Exception {
        TestSite.Run run = buildWithDiagram("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">"
                + "<?x ><img src=data:, onerror=alert(1)> ?><!-- <img src=x onerror=alert(2)> --><![CDATA[<img src=x onerror=alert(3)>]]>"
                + "<rect width=\"5\" height=\"5\"/></svg>");
        assertEquals(0, run.status(), run::toString);
        String html = Files.readString(temp.resolve("out/site/a/index.html"));
        assertFalse(html.contains("onerror"), html);
        assertTrue(html.contains("<rect width=\"5\" height=\"5\"></rect>") || html.contains("<rect width=\"5\" height=\"5\" />"), html);
    }

    @Test
    void rawHtmlThatRunsScriptIsAnErrorAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                Fine: <kbd>Ctrl</kbd> and <mark>marked</mark>.

                <script>alert(1)</script>

                An image: <img src="x.png" onerror="alert(2)">

                A [link](java&#9;script:alert(3)) and <LinkCard title="t" href="javascript:alert(4)" />
                """));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":7:1: error: raw HTML <script> is not allowed: contributor markup may not "
                + "run script or embed other content"), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":9:11: error: raw HTML <img onerror> is not allowed: an event handler would run script"),
                run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":11:3: error: the URL scheme 'javascript:' is not allowed on the published site"),
                run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":11:39: error: <LinkCard> href=\"…\": the URL scheme 'javascript:' is not allowed"),
                run::toString);
        assertFalse(run.err().contains("<kbd>"), run::toString);
    }

    @Test
    void fileNamesThatCannotBeUrlsAreRefusedAtTheirPath() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n"))
                .page("what?.md", TestSite.source("Q", "\nText.\n"))
                .page("100%.md", TestSite.source("P", "\nText.\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("what?.md") + ":1:1: error: not read: its name holds '?'; file names in content/ "
                + "become URLs, so they may hold only letters, digits, '-', '_' and '.'"), run::toString);
        assertTrue(run.err().contains(site.display("100%.md") + ":1:1: error: not read: its name holds '%'"), run::toString);
        assertFalse(run.err().contains("a.md:"), "problems are not blamed on other pages: " + run);
    }

    @Test
    void controlCharactersNeitherDriveTheTerminalNorBreakTheJUnitXml() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql\nDO $$ BEGIN RAISE EXCEPTION E'red \\x1b[31m alert \\x01 bell \\x07'; END $$;\n```\n"));
        Path junit = temp.resolve("junit");
        TestSite.Run run = site.check("--junit-xml", junit.toString());
        assertEquals(1, run.status(), run::toString);
        assertFalse(run.err().contains("\u001b"), "an ANSI escape reached the terminal");
        assertTrue(run.err().contains("error: red \\u001b[31m alert \\u0001 bell \\u0007 [P0001]"), run::toString);
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(junit.resolve("TEST-kensho.xml").toFile());
    }

    @Test
    void theCaretStandsUnderTheColumnAsATerminalShowsIt() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A",
                "\n```sql\nSELECT '検証' AS 列, missing_column FROM (VALUES (1)) AS v(x);\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(":6:19: error: column \"missing_column\" does not exist [42703]\n"
                + " 6 | SELECT '検証' AS 列, missing_column FROM (VALUES (1)) AS v(x);\n"
                + "   |                      ^\n"), run::toString);
    }
}
