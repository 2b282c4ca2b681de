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
}
