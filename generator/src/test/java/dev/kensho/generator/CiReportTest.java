package dev.kensho.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What CI systems read: JUnit XML and shards, through the CLI. */
class CiReportTest {

    @TempDir
    Path temp;

    @Test
    void junitXmlHasOneTestCasePerSnippetAndOneFailureForTheBrokenOne() throws Exception {
        TestSite site = new TestSite(temp)
                .page("ok.md", TestSite.source("OK", "\n```sql\nSELECT 1;\n```\n"))
                .page("broken.md", TestSite.source("Broken", "\n```sql\nSELECT 1;\n```\n\n```sql\nSELECT * FROM missing_table;\n```\n"));
        Path junit = temp.resolve("junit");
        TestSite.Run run = site.check("--junit-xml", junit.toString());
        assertEquals(1, run.status(), run::toString);

        var document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(junit.resolve("TEST-kensho.xml").toFile());
        NodeList cases = document.getElementsByTagName("testcase");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < cases.getLength(); i++) {
            names.add(((Element) cases.item(i)).getAttribute("name"));
        }
        assertEquals(List.of(site.display("broken.md") + ":6 sql", site.display("broken.md") + ":10 sql", site.display("ok.md") + ":6 sql"), names);
        NodeList failures = document.getElementsByTagName("failure");
        assertEquals(1, failures.getLength());
        Element failure = (Element) failures.item(0);
        assertEquals(site.display("broken.md") + ":10:15: relation \"missing_table\" does not exist [42P01]", failure.getAttribute("message"));
        assertTrue(failure.getTextContent().contains(" 10 | SELECT * FROM missing_table;"), failure.getTextContent());
        assertEquals("10:15", ((Element) failure.getParentNode()).getAttribute("name").replaceAll(".*:(\\d+) sql", "$1") + ":15");
    }

    @Test
    void shardsTogetherVerifyEveryPageOnce() throws Exception {
        TestSite site = new TestSite(temp);
        for (int i = 0; i < 6; i++) {
            site.page("p" + i + ".md", TestSite.source("P" + i, "\n```sql\nSELECT " + i + ";\n```\n"));
        }
        List<String> verified = new ArrayList<>();
        for (int shard = 1; shard <= 3; shard++) {
            TestSite.Run run = site.check("--shard", shard + "/3");
            assertEquals(0, run.status(), run::toString);
            new ObjectMapper().readTree(site.report.toFile()).get("snippets").forEach(s -> verified.add(s.get("file").asText()));
        }
        verified.sort(null);
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            all.add(site.display("p" + i + ".md"));
        }
        assertEquals(all, verified);
    }

    @Test
    void buildDoesNotTakeAShard() throws Exception {
        TestSite.Run run = new TestSite(temp).build("--shard", "1/2");
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().startsWith("Unknown options: '--shard', '1/2'"), run::toString);
    }

    /** issue 35: links were checked only when every example passed, never in JUnit, never with --shard. */
    @Test
    void brokenLinksAndAnchorsAreReportedBesideAFailedExampleInEveryReport() throws Exception {
        TestSite site = linkedSiteWithAFailedExample();
        Path junit = temp.resolve("junit");
        TestSite.Run run = site.build("--junit-xml", junit.toString());
        assertEquals(1, run.status(), run::toString);
        String sql = site.display("broken.md") + ":6:15: error: relation \"missing_table\" does not exist";
        String link = site.display("index.md") + ":5:12: error: broken link 'gone.md': gone.md is not part of the site";
        String anchor = site.display("broken.md") + ":9:13: error: broken link 'index.md#nowhere': index.html has no element with id \"nowhere\"";
        for (String expected : List.of(sql, link, anchor)) {
            assertTrue(run.err().contains(expected), () -> expected + "\n" + run);
        }
        assertTrue(!java.nio.file.Files.exists(site.out), "a failed build writes no site");

        List<String> problems = new ArrayList<>();
        new ObjectMapper().readTree(site.report.toFile()).get("problems").forEach(p -> problems.add(
                p.get("file").asText() + ":" + p.get("line").asText() + ":" + p.get("column").asText() + ": " + p.get("message").asText()));
        problems.sort(null);
        List<String> expected = new ArrayList<>(List.of(sql.replace("error: ", ""), link.replace("error: ", ""), anchor.replace("error: ", "")));
        expected.sort(null);
        assertEquals(expected, problems);

        var document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(junit.resolve("TEST-kensho.xml").toFile());
        NodeList failures = document.getElementsByTagName("failure");
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < failures.getLength(); i++) {
            messages.add(((Element) failures.item(i)).getAttribute("message"));
        }
        messages.sort(null);
        List<String> inJunit = new ArrayList<>(List.of(sql.replace("error: ", "") + " [42P01]", link.replace("error: ", ""), anchor.replace("error: ", "")));
        inJunit.sort(null);
        assertEquals(inJunit, messages);
    }

    @Test
    void shardsTogetherReportEveryBrokenLinkOnce() throws Exception {
        TestSite site = linkedSiteWithAFailedExample();
        List<String> links = new ArrayList<>();
        for (int shard = 1; shard <= 2; shard++) {
            TestSite.Run run = site.check("--shard", shard + "/2");
            run.err().lines().filter(line -> line.contains("error: broken link")).forEach(links::add);
        }
        links.sort(null);
        assertEquals(List.of(site.display("broken.md") + ":9:13: error: broken link 'index.md#nowhere': index.html has no element with id \"nowhere\"",
                site.display("index.md") + ":5:12: error: broken link 'gone.md': gone.md is not part of the site"), links);
    }

    private TestSite linkedSiteWithAFailedExample() throws Exception {
        return new TestSite(temp)
                .page("index.md", TestSite.source("Home", "\nSee [gone](gone.md).\n\n```sql\nSELECT 1;\n```\n"))
                .page("broken.md", TestSite.source("Broken", "\n```sql\nSELECT * FROM missing_table;\n```\n\nBack [home](index.md#nowhere).\n"));
    }

}
