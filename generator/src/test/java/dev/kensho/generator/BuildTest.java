package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole pipeline through the CLI, against embedded PostgreSQL 18.6. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class BuildTest {

    @TempDir
    Path temp;

    @Test
    void aPassingPageIsWrittenWithItsEvidenceAndReported() throws Exception {
        TestSite site = new TestSite(temp).page("lessons/keys.md", TestSite.source("冪等キー", """

                ## 予約

                ```sql result
                CREATE TABLE t (id int PRIMARY KEY);
                INSERT INTO t VALUES (1), (2) RETURNING id;
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().startsWith("Kensho: PostgreSQL 18.6 via embedded (--postgres embedded)"), run::toString);
        assertTrue(run.out().endsWith("1 passed, 0 failed\n"), run::toString);

        Document html = Jsoup.parse(site.out.resolve("lessons/keys/index.html").toFile());
        assertEquals("ja", html.selectFirst("html").attr("lang"));
        assertEquals("冪等キー", html.selectFirst("h1").text());
        assertEquals("✓ PostgreSQL 18.6 で検証済み", html.selectFirst(".verified .evidence summary").text());
        assertEquals(List.of("1", "2"), html.select(".verified table.result td").eachText());
        assertTrue(Files.exists(site.out.resolve("index.html")));
        assertTrue(Files.exists(site.out.resolve("assets/kensho.css")));

        JsonNode report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals("18.6", report.get("serverVersion").asText());
        assertEquals("embedded", report.get("provider").asText());
        JsonNode snippet = report.get("snippets").get(0);
        assertEquals(site.display("lessons/keys.md"), snippet.get("file").asText());
        assertEquals(8, snippet.get("line").asInt());
        assertEquals("passed", snippet.get("status").asText());
        assertEquals(1, report.get("totals").get("passed").asInt());
    }

    @Test
    void aSyntaxErrorIsReportedLikeACompilerErrorAtFileLineColumn() throws Exception {
        TestSite site = new TestSite(temp).page("keys.md", TestSite.source("Keys", """

                ```sql
                SELECT 1;
                SELEC 2;
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        String file = site.display("keys.md");
        assertEquals(file + ":7:1: error: syntax error at or near \"SELEC\" [42601]\n"
                + " 7 | SELEC 2;\n"
                + "   | ^\n\n", run.err());
        assertTrue(run.out().endsWith("0 passed, 1 failed\n"), run::toString);
    }

    @Test
    void aMissingTableIsReportedAtTheServersPositionWithTheSqlState() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", """

                ```sql
                CREATE TABLE orders (id int);
                ```

                Then:

                - a list item with its own fence:

                  ```sql
                  SELECT id
                  FROM "order" WHERE id = 1;
                  ```
                """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("a.md") + ":15:8: error: relation \"order\" does not exist [42P01]\n"
                + " 15 |   FROM \"order\" WHERE id = 1;\n"
                + "    |        ^\n"), run::toString);
        assertTrue(run.out().contains("1 passed, 1 failed"), run::toString);
    }

    @Test
    void everyFailingPageIsListedNotOnlyTheFirst() throws Exception {
        TestSite site = new TestSite(temp)
                .page("a.md", TestSite.source("A", "\n```sql\nSELECT * FROM missing_a;\n```\n"))
                .page("b.md", TestSite.source("B", "\n```sql\nSELECT * FROM missing_b;\n```\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":6:15: error: relation \"missing_a\" does not exist [42P01]"), run::toString);
        assertTrue(run.err().contains(site.display("b.md") + ":6:15: error: relation \"missing_b\" does not exist [42P01]"), run::toString);
    }

    @Test
    void aRunawaySnippetIsStoppedByTheTimeout() throws Exception {
        TestSite site = new TestSite(temp).page("slow.md", TestSite.source("Slow", "\n```sql\nSELECT pg_sleep(60);\n```\n"));
        long t0 = System.nanoTime();
        TestSite.Run run = site.check("--statement-timeout", "1s");
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(":6:1: error: Kensho stopped the statement after 1 s (its own limit per statement, "
                + "--statement-timeout); a limit of Kensho's never satisfies a claim. To show a timeout, set statement_timeout or "
                + "lock_timeout in the snippet itself\n"), run::toString);
        assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "the build took more than 20 s");
    }

    @Test
    void aFailedBuildLeavesThePreviousSiteExactlyAsItWas() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql\nSELECT 1;\n```\n"));
        assertEquals(0, site.build().status());
        // Twice, so that the failing builds below write into the recycled spare of the first.
        assertEquals(0, site.build().status());
        assertTrue(Files.isDirectory(site.out.resolveSibling(".site.spare")));
        Path page = site.out.resolve("a/index.html");
        byte[] before = Files.readAllBytes(page);
        Files.writeString(site.out.resolve("marker.txt"), "previous build");

        site.page("a.md", TestSite.source("A changed", "\n```sql\nSELECT * FROM nowhere;\n```\n"));
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.out().contains("nothing written: " + site.out + " is left as it was"), run::toString);
        assertEquals(new String(before), Files.readString(page));
        assertEquals("previous build", Files.readString(site.out.resolve("marker.txt")));
        assertNoStagingLeft(site, "no staging folder may be left behind");

        // Found only after every page was rendered and written to the staging folder: the same.
        site.page("a.md", TestSite.source("A changed", "\n```sql\nSELECT 2;\n```\n\n[gone](missing.md)\n"));
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("broken link 'missing.md'"), run::toString);
        assertTrue(run.out().contains("nothing written: " + site.out + " is left as it was"), run::toString);
        assertEquals(new String(before), Files.readString(page));
        assertEquals("previous build", Files.readString(site.out.resolve("marker.txt")));
        assertNoStagingLeft(site, "the staging folder the pages were written to is removed");
    }

    @Test
    void aSuccessfulBuildReplacesTheWholeSite() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "text\n"));
        assertEquals(0, site.build().status());
        Files.writeString(site.out.resolve("stale.html"), "old");
        site.page("a.md", TestSite.source("A", "new text\n"));
        assertEquals(0, site.build().status());
        assertFalse(Files.exists(site.out.resolve("stale.html")));
        assertTrue(Files.readString(site.out.resolve("a/index.html")).contains("new text"));
    }

    @Test
    void aRebuildIntoTheRecycledSpareGivesExactlyTheSiteAFreshBuildGives() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "text a\n"))
                .page("b.md", TestSite.source("B", "text b\n"))
                .page("deep/c.md", TestSite.source("C", "text c\n"));
        assertEquals(0, site.build().status());
        // A changed page, so that the second build renders (an unchanged one is left as it is: UpToDateSite).
        site.page("a.md", TestSite.source("A", "text a, edited\n"));
        assertEquals(0, site.build().status());
        Path spare = site.out.resolveSibling(".site.spare");
        assertTrue(Files.isDirectory(spare.resolve("a")), "the replaced site is kept as the next build's staging folder");
        // Anything in the spare that is not a file or a folder is not followed: a link planted where a page goes.
        Path outside = Files.writeString(temp.resolve("outside.txt"), "untouched");
        Files.delete(spare.resolve("b/index.html"));
        Files.createSymbolicLink(spare.resolve("b/index.html"), outside);

        // Pages removed (deep/c.md), added (d.md) and changed, and the URL format switched, so that files
        // stand where folders go and folders where files go.
        Files.delete(site.content.resolve("deep/c.md"));
        site.page("d.md", TestSite.source("D", "text d\n"))
                .page("b.md", TestSite.source("B", "new text b\n"))
                .page("site.yml", "title: T\nbuild:\n  format: file\n");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("untouched", Files.readString(outside));

        TestSite fresh = new TestSite(Files.createDirectories(temp.resolve("fresh")));
        for (String page : List.of("a.md", "b.md", "d.md", "site.yml")) {
            fresh.page(page, Files.readString(site.content.resolve(page)));
        }
        assertEquals(0, fresh.build().status());
        assertEquals(tree(fresh.out), tree(site.out));

        // A page removed whose file stands beside files that stay (d.html beside a.html): it goes too.
        assertEquals(0, site.build().status());
        Files.delete(site.content.resolve("d.md"));
        Files.delete(fresh.content.resolve("d.md"));
        assertEquals(0, site.build().status());
        assertEquals(0, fresh.build().status());
        assertFalse(Files.exists(site.out.resolve("d.html")));
        assertEquals(tree(fresh.out), tree(site.out));

        // And back: the switch the other way, into the spare of the directory-URL site.
        site.page("site.yml", "title: T\n");
        fresh.page("site.yml", "title: T\n");
        assertEquals(0, site.build().status());
        assertEquals(0, fresh.build().status());
        assertEquals(tree(fresh.out), tree(site.out));
        assertTrue(Files.exists(site.out.resolve("b/index.html")));
    }

    /** Beside the site only the report, the lock and the spare (the site before, kept for the next build). */
    private static void assertNoStagingLeft(TestSite site, String message) throws IOException {
        try (var siblings = Files.list(site.out.getParent())) {
            List<String> names = siblings.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(List.of("report.json", "site"), names.stream().filter(n -> !n.equals(".site.lock") && !n.equals(".site.spare")).toList(),
                    message);
        }
    }

    /** Every file of a site with its text, but for the lines that carry the build's time. */
    private static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (var paths = Files.walk(root)) {
            for (Path path : paths.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(path).toString(), Files.readString(path).lines()
                        .filter(line -> !line.contains("builtAt") && !line.contains("<time")).collect(Collectors.joining("\n")));
            }
        }
        return files;
    }

    @Test
    void malformedFrontMatterIsReportedAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("bad.md", "---\ntitle: Bad\nsidebar: [unclosed\n---\nbody\n");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("bad.md") + ":3:10: error: front matter: expected ',' or ']', but got <stream end>\n"
                + " 3 | sidebar: [unclosed\n"), run::toString);
    }

    @Test
    void aPageWithoutATitleIsRejected() throws Exception {
        TestSite site = new TestSite(temp).page("bad.md", "---\ndescription: no title\n---\nbody\n");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("bad.md") + ":2:1: error: front matter needs a 'title' (text)"), run::toString);
    }

    @Test
    void usageErrorsExitWithTwo() throws Exception {
        TestSite site = new TestSite(temp);
        TestSite.Run run = site.build("--postgres", "mysql");
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().contains("--postgres takes auto, embedded, container or a jdbc:postgresql:// URL, not 'mysql'"), run::toString);
    }

    @Test
    void aPageWithoutSqlStartsNoServer() throws Exception {
        TestSite site = new TestSite(temp).page("plain.md", TestSite.source("Plain", "no SQL here\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().startsWith("Kensho: no SQL on any page checked here; no PostgreSQL server started"), run::toString);
    }

    @Test
    void stagingLeftByAKilledBuildIsRemovedAndConcurrentBuildsDoNotCollide() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText.\n"));
        Path leftover = Files.createDirectories(site.out.getParent().resolve(".site.staging-999/a"));
        Path[] outs = {site.out, site.out};
        java.util.List<java.util.concurrent.Future<TestSite.Run>> runs = new java.util.ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (Path ignored : outs) {
                runs.add(pool.submit(() -> site.build("--no-cache")));
            }
            for (var run : runs) {
                TestSite.Run result = run.get();
                assertEquals(0, result.status(), result::toString);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(Files.notExists(leftover.getParent()), "the killed build's staging folder is still there");
        assertTrue(Files.exists(site.out.resolve("a/index.html")));
    }
}
