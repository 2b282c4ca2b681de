package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.ContentLoader;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.verify.ProviderChoice;
import dev.kensho.generator.verify.VerificationCache;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.postgres.ContainerPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cache entry becomes a mark only when this machine wrote it for this page: entries anyone can
 * compute from the public jar (committed, forged, altered, copied) are ignored and said, a cache
 * folder a commit could fill is refused, and a signed entry's claims are judged again.
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class CacheIntegrityTest {

    @TempDir
    Path temp;

    /** The page as committed: its claim is false (SELECT 1 returns 1, not 2). */
    private static final String FALSE_CLAIM = TestSite.source("False", """

            ```sql
            SELECT 1 AS one;
            ```

            ```rows
             one
            -----
               2
            ```
            """);

    private static final String TRUE_CLAIM = TestSite.source("True", """

            ```sql result
            SELECT 'genuine' AS label;
            ```

            ```rows
             label
            ---------
             genuine
            ```
            """);

    /** Kensho with the user's cache folder (and so the cache's secret) under {@code temp/xdg}. */
    private TestSite.Run run(TestSite site, String... extra) {
        List<String> args = new ArrayList<>(List.of("build", "--content", site.content.toString(), "--theme", TestSite.THEME.toString(),
                "--out", site.out.toString(), "--report", site.report.toString(), "--postgres", "embedded"));
        args.addAll(List.of(extra));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true),
                Map.of("XDG_CACHE_HOME", temp.resolve("xdg").toString(), "HOME", temp.toString()), args.toArray(String[]::new));
        return new TestSite.Run(status, out.toString(), err.toString());
    }

    /** The name of the page's cache entry as anyone can compute it with the public jar. */
    private static String publicKey(TestSite site, String page) throws Exception {
        List<Diagnostic> diagnostics = new ArrayList<>();
        ContentFiles files = new ContentFiles(site.content.toAbsolutePath().normalize());
        SiteConfig config = SiteConfig.load(files, "site.yml", diagnostics);
        ContentLoader loader = new ContentLoader(files, Path.of("").toAbsolutePath(), config);
        Page found = loader.load(diagnostics).stream().filter(p -> p.relativePath().equals(page)).findFirst().orElseThrow();
        MarkdownDocument document = MarkdownDocument.parse(found, Theme.load(TestSite.THEME), loader.files(), diagnostics);
        VerifierSettings settings = new VerifierSettings(Duration.ofSeconds(10)).withPageTimeout(Duration.ofSeconds(60))
                .withExtensions(config.extensions());
        return VerificationCache.entryName(VerificationCache.key(document, KenshoVersion.VALUE,
                ProviderChoice.identityOf("embedded", ContainerPostgres.DEFAULT_IMAGE), settings), found.displayPath());
    }

    /** An entry that says the false claim held: rows 2, every claim passed. */
    private static final String FORGED_ENTRY = """
            {"serverVersion":"18.6","serverDescription":"embedded PostgreSQL","outcomes":[{"status":"PASSED","failure":null,\
            "results":[{"statement":"SELECT 1 AS one;","columns":["one"],"types":["int4"],"rows":[["2"]],"totalRows":1}],\
            "assertions":[{"kind":"runs","facts":{"statements":"1"},"description":"runs without error","passed":true},\
            {"kind":"rows","facts":{"count":"1","ordered":"false","ties":"","keys":"","basis":"the server's parse"},\
            "description":"returns the 1 expected row(s) (in any order)","passed":true}],"plan":null,"transcript":null,"durationNanos":1}]}""";

    @Test
    void aCommittedOrForgedEntryGivesNoMarkAndPostgresRuns() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", FALSE_CLAIM);
        Path cache = temp.resolve("cache");
        Files.createDirectories(cache);
        String key = publicKey(site, "index.md");
        // As on main (plain JSON), and signed with a key a forger might guess (all zero bytes).
        Files.writeString(cache.resolve(key + ".json"), FORGED_ENTRY);
        TestSite.Run plain = run(site, "--cache", cache.toString());

        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(new byte[32], "HmacSHA256"));
        Files.writeString(cache.resolve(key + ".json"), HexFormat.of().formatHex(mac.doFinal(FORGED_ENTRY.getBytes(StandardCharsets.UTF_8)))
                + "\n" + FORGED_ENTRY);
        TestSite.Run guessed = run(site, "--cache", cache.toString());

        for (TestSite.Run run : List.of(plain, guessed)) {
            assertEquals(1, run.status(), "the false claim must fail: " + run);
            assertEquals("Kensho: 1 verification cache entry in " + cache + " ignored (1 not signed by this machine for their page); "
                    + "their pages run on PostgreSQL", run.out().lines().findFirst().orElseThrow(), run::toString);
            assertTrue(run.out().lines().skip(1).findFirst().orElseThrow().startsWith("Kensho: PostgreSQL 18.6 via embedded"), run::toString);
            assertTrue(run.err().startsWith(site.display("index.md") + ":6:1: error: rows differ (as a multiset, because the query has no ORDER BY)\n"), run::toString);
            assertFalse(Files.exists(site.out), "no site, so no mark: " + run);
        }
    }

    @Test
    void anAlteredEntrysRowsNeverReachThePageOrItsRunPlan() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM);
        Path cache = temp.resolve("cache");
        TestSite.Run first = run(site, "--cache", cache.toString());
        assertEquals(0, first.status(), first::toString);
        Path entry;
        try (Stream<Path> entries = Files.list(cache)) {
            entry = entries.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        String stored = Files.readString(entry);
        assertTrue(stored.contains("[\"genuine\"]"), stored);
        Files.writeString(entry, stored.replace("[\"genuine\"]", "[\"forged\"]"));

        TestSite.Run second = run(site, "--cache", cache.toString());
        assertEquals(0, second.status(), second::toString);
        assertEquals("Kensho: 1 verification cache entry in " + cache + " ignored (1 not signed by this machine for their page); "
                + "their pages run on PostgreSQL", second.out().lines().findFirst().orElseThrow(), second::toString);
        assertTrue(second.out().contains("Kensho: PostgreSQL 18.6 via embedded"), second::toString);
        try (Stream<Path> written = Files.walk(site.out)) {
            for (Path file : written.filter(Files::isRegularFile).toList()) {
                assertFalse(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).contains("forged"), file + " holds the altered rows");
            }
        }
        assertTrue(Files.readString(site.out.resolve("index.html")).contains("genuine"));
    }

    /** Rewrites the site's one cache entry and signs it with this machine's own secret, as only Kensho could. */
    private Path resign(TestSite site, java.util.function.UnaryOperator<String> change) throws Exception {
        Path entry;
        try (Stream<Path> entries = Files.walk(temp.resolve("xdg/kensho/projects"))) {
            entry = entries.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        String key = entry.getFileName().toString().replace(".json", "");
        String stored = Files.readString(entry);
        String payload = change.apply(stored.substring(stored.indexOf('\n') + 1));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Files.readAllBytes(temp.resolve("xdg/kensho/cache-secret")), "HmacSHA256"));
        for (String part : List.of("kensho verification cache entry v2", key, site.display("index.md"))) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            mac.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
            mac.update(bytes);
        }
        Files.writeString(entry, HexFormat.of().formatHex(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8))) + "\n" + payload);
        return entry;
    }

    @Test
    void aSignedEntryWhoseRecordedRowsDoNotBearOutThePageIsJudgedAgainAndNotUsed() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM);
        assertEquals(0, run(site).status());
        // Signed with this machine's own secret, as only this machine could: the record itself contradicts the claim.
        Path entry = resign(site, payload -> payload.replace("[\"genuine\"]", "[\"other\"]"));

        TestSite.Run second = run(site);
        assertEquals(0, second.status(), second::toString);
        assertTrue(second.out().startsWith("Kensho: 1 verification cache entry in " + entry.getParent() + " ignored (1 whose page's claims "
                + "do not hold on the recorded outcome); their pages run on PostgreSQL\nKensho: PostgreSQL 18.6 via embedded"), second::toString);
        assertFalse(Files.readString(site.out.resolve("index.html")).contains("other"));
    }

    @Test
    void pagesHoldingTheSameSqlEachKeepTheirOwnEntry() throws Exception {
        // Named by the SQL's key alone, the second page's entry replaced the first's: one of the two ran on every build.
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM).page("copy.md", TRUE_CLAIM);
        TestSite.Run first = run(site);
        assertEquals(0, first.status(), first::toString);
        try (Stream<Path> entries = Files.list(temp.resolve("xdg/kensho/projects")).flatMap(CacheIntegrityTest::jsonFiles)) {
            assertEquals(2, entries.count(), "one entry per page");
        }
        TestSite.Run second = run(site);
        assertEquals(0, second.status(), second::toString);
        assertTrue(second.out().startsWith("Kensho: all 2 page(s) with SQL unchanged since PostgreSQL 18.6 verified them; "
                + "outcomes from the cache, no PostgreSQL server started"), second::toString);
    }

    private static Stream<Path> jsonFiles(Path project) {
        try (Stream<Path> files = Files.list(project)) {
            return files.filter(p -> p.getFileName().toString().matches("[0-9a-f]{64}\\.json")).toList().stream();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A run's marks name the one server version that ran it: an entry verified on another version (an image tag such as
     * postgres:18 that moved from 18.5 to 18.6, a server behind a URL that was upgraded) is run again, not shown under
     * the version this build started.
     */
    @Test
    void anEntryVerifiedOnAnotherServerVersionRunsAgainUnderTheVersionItIsShownWith() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM);
        assertEquals(0, run(site).status());
        resign(site, payload -> payload.replace("\"serverVersion\":\"18.6\"", "\"serverVersion\":\"18.5\""));
        site.page("other.md", TestSite.source("Other", "\n```sql\nSELECT 2 AS two;\n```\n"));

        TestSite.Run second = run(site);
        assertEquals(0, second.status(), second::toString);
        String started = second.out().lines().filter(line -> line.startsWith("Kensho: PostgreSQL ")).findFirst().orElseThrow();
        assertTrue(started.startsWith("Kensho: PostgreSQL 18.6 via embedded"), second::toString);
        assertFalse(started.contains("from the cache"), "the entry verified on 18.5 was shown as 18.6's: " + started);
        assertFalse(Files.readString(site.out.resolve("index.html")).contains("18.5"));
    }

    @Test
    void aSignedEntryOlderThanADayIsNotUsed() throws Exception {
        // Red team: a page reading the clock in a way the detector misses would keep its mark for ever; a day at most now.
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM);
        assertEquals(0, run(site).status());
        resign(site, payload -> payload.replaceFirst("\"verifiedAtEpochSecond\":\\d+",
                "\"verifiedAtEpochSecond\":" + (java.time.Instant.now().getEpochSecond() - 90_000)));

        TestSite.Run second = run(site);
        assertEquals(0, second.status(), second::toString);
        assertTrue(second.out().startsWith("Kensho: PostgreSQL 18.6 via embedded"), second::toString);
    }

    @Test
    void aCacheFolderGitTracksIsIgnoredAndSaid() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM);
        Path cache = temp.resolve("cache");
        Files.createDirectories(cache);
        Files.writeString(cache.resolve("README"), "committed\n");
        git("init", "-q");
        git("add", "-f", "cache/README");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "cache");

        TestSite.Run run = run(site, "--cache", cache.toString());
        assertEquals(0, run.status(), run::toString);
        assertEquals("Kensho: verification cache " + cache + " ignored: git tracks files in it, so a commit decides what it holds; "
                + "every page runs on PostgreSQL", run.out().lines().findFirst().orElseThrow(), run::toString);
        try (Stream<Path> files = Files.list(cache)) {
            assertEquals(List.of(cache.resolve("README")), files.toList(), "nothing written into a tracked folder");
        }

        Path untracked = temp.resolve("lessons-cache");
        TestSite.Run inside = run(site, "--cache", untracked.toString());
        assertEquals("Kensho: verification cache " + untracked + " ignored: it lies inside the checkout " + temp.toRealPath()
                + " and git does not ignore it, so a commit could fill it; every page runs on PostgreSQL",
                inside.out().lines().findFirst().orElseThrow(), inside::toString);
    }

    @Test
    void byDefaultTheCacheIsTheUsersSignedWithASecretOnlyTheUserReadsAndAHitStillNeedsNoServer() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TRUE_CLAIM);
        TestSite.Run first = run(site);
        assertEquals(0, first.status(), first::toString);
        TestSite.Run second = run(site);
        assertEquals(0, second.status(), second::toString);
        assertTrue(second.out().startsWith("Kensho: all 1 page(s) with SQL unchanged since PostgreSQL 18.6 verified them; "
                + "outcomes from the cache, no PostgreSQL server started"), second::toString);
        Path secret = temp.resolve("xdg/kensho/cache-secret");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
        assertEquals(32, Files.size(secret));
        try (Stream<Path> projects = Files.list(temp.resolve("xdg/kensho/projects"))) {
            Path project = projects.findFirst().orElseThrow();
            assertTrue(project.getFileName().toString().matches("content-[0-9a-f]{16}"), project.toString());
        }
        String secretHex = HexFormat.of().formatHex(Files.readAllBytes(secret));
        assertFalse(first.out().contains(secretHex) || first.err().contains(secretHex), "the secret is never printed");
    }

    private void git(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(temp.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
    }
}
