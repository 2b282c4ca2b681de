package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** check blocks what build blocks (links and anchors too), and speaks GitHub's annotations and JUnit's file/line. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class CheckInCiTest {

    /** Below the working directory, so that paths come out relative to it as they do in a CI job. */
    private final Path root;

    CheckInCiTest() throws Exception {
        Files.createDirectories(Path.of("target"));
        root = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "check-in-ci-");
    }

    @AfterEach
    void removeFolder() throws Exception {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    private TestSite.Run check(TestSite site, Map<String, String> environment) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), environment, "check",
                "--content", site.content.toString(), "--out", site.out.toString(), "--report", site.report.toString(),
                "--cache", root.resolve("cache").toString(), "--postgres", "embedded", "--junit-xml", root.resolve("junit").toString());
        return new TestSite.Run(status, out.toString(), err.toString());
    }

    private static String relative(Path file) {
        return Path.of("").toAbsolutePath().relativize(file).toString();
    }

    private TestSite brokenSite() throws Exception {
        TestSite site = new TestSite(root)
                .page("index.md", TestSite.source("Home", "\nSee [the queue](queue.md#no-such-heading) and [gone](gone.md).\n"))
                .page("queue.md", TestSite.source("Queue", "\n## Taking a job\n\n```sql\nSELECT 1 AS one;\n```\n"));
        site.theme = null;
        return site;
    }

    @Test
    void checkFailsOnBrokenLinksAndAnchorsAndWritesNoSite() throws Exception {
        TestSite site = brokenSite();
        TestSite.Run run = check(site, Map.of());
        assertEquals(1, run.status(), run::toString);
        String index = relative(site.content.resolve("index.md"));
        assertTrue(run.err().contains(index + ":5:17: error: broken link 'queue.md#no-such-heading': queue/index.html has no element with id \"no-such-heading\""), run::toString);
        assertTrue(run.err().contains(index + ":5:54: error: broken link 'gone.md': gone.md is not part of the site"), run::toString);
        assertFalse(run.out().contains("::error"), "no annotations outside GitHub Actions");
        assertFalse(Files.exists(site.out), "check writes no site");
    }

    @Test
    void onGitHubActionsEveryProblemIsAlsoAnAnnotationWithARelativePath() throws Exception {
        TestSite site = brokenSite();
        TestSite.Run run = check(site, Map.of("GITHUB_ACTIONS", "true"));
        assertEquals(1, run.status(), run::toString);
        String index = relative(site.content.resolve("index.md"));
        assertTrue(run.out().contains("::error file=" + index + ",line=5,col=17,title=Kensho::broken link 'queue.md#no-such-heading': "
                + "queue/index.html has no element with id \"no-such-heading\"\n"), run::toString);
        assertTrue(run.out().contains("::error file=" + index + ",line=5,col=54,title=Kensho::broken link 'gone.md': gone.md is not part of the site\n"), run::toString);
        assertEquals(2, run.out().lines().filter(line -> line.startsWith("::error file=target/check-in-ci-")).count(), run::toString);

        var junit = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(root.resolve("junit/TEST-kensho.xml").toFile());
        Element snippet = (Element) junit.getElementsByTagName("testcase").item(0);
        assertEquals(relative(site.content.resolve("queue.md")), snippet.getAttribute("file"));
        assertEquals("8", snippet.getAttribute("line"));
    }
}
