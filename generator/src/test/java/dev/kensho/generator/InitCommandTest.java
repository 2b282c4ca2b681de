package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code kensho init} writes a site that builds at once, with no theme folder. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class InitCommandTest {

    @TempDir
    Path temp;

    private static TestSite.Run kensho(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new TestSite.Run(status, out.toString(), err.toString());
    }

    private TestSite.Run build(Path folder, String command) {
        return kensho(command, "--content", folder.resolve("content").toString(), "--out", folder.resolve("target/site").toString(),
                "--report", folder.resolve("target/report.json").toString(), "--cache", folder.resolve("target/cache").toString(),
                "--postgres", "embedded");
    }

    /**
     * CI at scale: the workflow init writes checks pull requests as a matrix of the PostgreSQL versions site.yml
     * names × shards, a job each with the action's postgres-version and shard, uploads each job's report under a name
     * of both, and merges them in one job that needs them all; site.yml and the matrix name the same versions.
     */
    @Test
    void theWorkflowInitWritesFansOutOverVersionsTimesShardsAndMergesTheirReports() throws Exception {
        Path folder = temp.resolve("matrix");
        for (String lang : List.of("en", "ja")) {
            Path site = folder.resolve(lang);
            assertEquals(0, kensho("init", site.toString(), "--lang", lang).status());
            List<String> workflow = Files.readAllLines(site.resolve(".github/workflows/kensho.yml"));
            String action = KenshoVersion.actionReference();
            assertEquals(List.of(
                    "  check:",
                    "    if: github.event_name == 'pull_request'",
                    "    strategy:",
                    "      fail-fast: false",
                    "      matrix:",
                    "        postgres: [18]   # the versions content/site.yml names; the report job refuses a merge that lacks one",
                    "        shard: [1, 2]    # more shards for more pages: list them here and change the /2 below",
                    "    runs-on: ubuntu-latest",
                    "    steps:",
                    "      - uses: actions/checkout@v4",
                    "      - uses: " + action,
                    "        with:",
                    "          command: check",
                    "          content: content",
                    "          postgres-version: ${{ matrix.postgres }}",
                    "          shard: ${{ matrix.shard }}/2",
                    "      # The action writes its report outside the checkout (runner.temp): no file of a pull request can stand in for it.",
                    "      - if: always()",
                    "        uses: actions/upload-artifact@v4",
                    "        with:",
                    "          name: kensho-report-${{ matrix.postgres }}-${{ matrix.shard }}",
                    "          path: ${{ runner.temp }}/kensho/kensho-report.json",
                    "",
                    "  report:",
                    "    if: always() && github.event_name == 'pull_request'",
                    "    needs: check",
                    "    runs-on: ubuntu-latest",
                    "    steps:",
                    "      - uses: actions/checkout@v4",
                    "      - uses: actions/download-artifact@v4",
                    "        with:",
                    "          pattern: kensho-report-*",
                    "          path: ${{ runner.temp }}/kensho-reports",
                    "      - uses: " + action,
                    "        with:",
                    "          command: merge-reports",
                    "          content: content",
                    "          reports: ${{ runner.temp }}/kensho-reports"),
                    workflow.subList(workflow.indexOf("  check:"), workflow.indexOf("          reports: ${{ runner.temp }}/kensho-reports") + 1));
            assertEquals(List.of("postgres:", "  versions: [18]"), Files.readAllLines(site.resolve("content/site.yml")).stream()
                    .filter(l -> l.startsWith("postgres:") || l.startsWith("  versions:")).toList());
        }
    }

    @Test
    void anEnglishStarterSiteBuildsAtOnceWithItsLogoAndCustomCss() throws Exception {
        Path folder = temp.resolve("notes");
        TestSite.Run init = kensho("init", folder.toString(), "--lang", "en");
        assertEquals(0, init.status(), init::toString);
        for (String file : List.of("content/index.md", "content/site.yml", "content/logo.svg", "content/custom.css",
                ".github/workflows/kensho.yml", ".gitignore")) {
            assertTrue(Files.isRegularFile(folder.resolve(file)), file);
            assertTrue(init.out().contains("created " + folder.resolve(file)), init::toString);
        }
        // issue 35: no release exists, so a snapshot pins the commit it was built from (the action builds it).
        List<String> uses = Files.readAllLines(folder.resolve(".github/workflows/kensho.yml")).stream().filter(l -> l.contains("uses: kensho-docs/")).toList();
        assertEquals(java.util.Collections.nCopies(3, "      - uses: " + KenshoVersion.actionReference()), uses);
        assertEquals(KenshoVersion.REPOSITORY + "@" + KenshoVersion.COMMIT + "   # Kensho " + KenshoVersion.VALUE
                + ", not released: the action builds this commit with Maven", KenshoVersion.actionReference());

        TestSite.Run build = build(folder, "build");
        assertEquals(0, build.status(), build::toString);
        assertTrue(build.out().endsWith("3 passed, 0 failed\n"), build::toString);
        Document home = Jsoup.parse(folder.resolve("target/site/index.html").toFile());
        assertEquals("en", home.selectFirst("html").attr("lang"));
        assertEquals("Job queue notes", home.selectFirst("h1").text());
        assertEquals("Job queue notes", home.selectFirst("a.site-title").text());
        assertEquals("logo.svg", home.selectFirst("a.site-title img.site-logo").attr("src"));
        List<String> sheets = home.select("link[rel=stylesheet]").eachAttr("href");
        assertTrue(sheets.get(0).matches("assets/kensho\\.[0-9a-f]{10}\\.css"), sheets::toString);
        assertEquals("custom.css", sheets.get(1));
        assertEquals(List.of("✓ Verified on PostgreSQL 18.6", "✓ Verified on PostgreSQL 18.6", "✓ Verified on PostgreSQL 18.6 (several sessions)"),
                home.select(".verified .evidence summary").eachText());
        assertEquals(1, home.select(".scenario.verified").size());
        assertTrue(Files.isRegularFile(folder.resolve("target/site/custom.css")));
    }

    @Test
    void aJapaneseStarterSiteChecks() throws Exception {
        Path folder = temp.resolve("notes");
        assertEquals(0, kensho("init", folder.toString(), "--lang", "ja").status());
        assertTrue(Files.readString(folder.resolve("content/site.yml")).contains("lang: ja"));
        TestSite.Run check = build(folder, "check");
        assertEquals(0, check.status(), check::toString);
        assertTrue(check.out().endsWith("3 passed, 0 failed\n"), check::toString);
    }

    @Test
    void initWritesNothingOverExistingFiles() throws Exception {
        Files.createDirectories(temp.resolve("content"));
        Files.writeString(temp.resolve("content/index.md"), "mine");
        Files.writeString(temp.resolve(".gitignore"), "mine");
        TestSite.Run init = kensho("init", temp.toString());
        assertEquals(1, init.status(), init::toString);
        assertEquals("error: not written, these files are already there: content/index.md, .gitignore\n", init.err());
        assertFalse(Files.exists(temp.resolve("content/site.yml")));
        assertEquals("mine", Files.readString(temp.resolve("content/index.md")));
    }

    @Test
    void initWritesNothingThroughALink() throws Exception {
        Path folder = Files.createDirectories(temp.resolve("notes"));
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        Files.createSymbolicLink(folder.resolve("content"), elsewhere);
        TestSite.Run init = kensho("init", folder.toString());
        assertEquals(2, init.status(), init::toString);
        assertEquals("error: nothing written: " + folder.resolve("content") + " is a symbolic link; kensho init writes only inside "
                + folder + ", never through a link that may lead elsewhere. Remove the link, or choose another folder\n", init.err());
        assertEquals(List.of(), listed(elsewhere));
        assertEquals(List.of("content"), listed(folder), "nothing written beside the link either");

        // Deeper folders and the files themselves, all said at once; a dangling link is a link too.
        Files.delete(folder.resolve("content"));
        Files.createDirectories(folder.resolve(".github"));
        Files.createSymbolicLink(folder.resolve(".github/workflows"), elsewhere);
        Files.createSymbolicLink(folder.resolve(".gitignore"), elsewhere.resolve("not-yet-there"));
        init = kensho("init", folder.toString(), "--lang", "ja");
        assertEquals(2, init.status(), init::toString);
        assertEquals("error: nothing written: " + folder.resolve(".github/workflows") + ", " + folder.resolve(".gitignore")
                + " are symbolic links; kensho init writes only inside " + folder + ", never through a link that may lead elsewhere. "
                + "Remove the link, or choose another folder\n", init.err());
        assertEquals(List.of(), listed(elsewhere));
        assertEquals(List.of(".github", ".gitignore"), listed(folder));
    }

    private static List<String> listed(Path folder) throws java.io.IOException {
        try (var files = Files.list(folder)) {
            return files.map(file -> file.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void anUnknownLanguageIsAUsageError() {
        TestSite.Run init = kensho("init", temp.toString(), "--lang", "fr");
        assertEquals(2, init.status(), init::toString);
        assertTrue(init.err().startsWith("--lang takes en or ja, not 'fr'"), init::toString);
    }
}
