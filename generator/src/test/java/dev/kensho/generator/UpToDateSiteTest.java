package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A build whose inputs did not change leaves the site as the full build wrote it, and only then: every kind of input
 * change, a hand-edited output file, an expired mark or a record this machine did not sign gives the full build's bytes.
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class UpToDateSiteTest {

    @TempDir
    Path temp;

    private static final String UP_TO_DATE = " is up to date: nothing that reaches it changed since the build that wrote it,"
            + " and its verified marks from the cache still hold; nothing rebuilt";

    /** Kensho with the user's cache folder (and so the cache's secret) under {@code temp/xdg}. */
    private TestSite.Run run(TestSite site, Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("build", "--content", site.content.toString(), "--out", out.toString(),
                "--report", out.resolveSibling(out.getFileName() + "-report.json").toString(), "--postgres", "embedded",
                "--cache", site.root.resolve("cache").toString()));
        if (site.theme != null) {
            args.addAll(List.of("--theme", site.theme.toString()));
        }
        args.addAll(List.of(extra));
        StringWriter out1 = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out1, true), new PrintWriter(err, true),
                Map.of("XDG_CACHE_HOME", temp.resolve("xdg").toString(), "HOME", temp.toString()), args.toArray(String[]::new));
        return new TestSite.Run(status, out1.toString(), err.toString());
    }

    private TestSite.Run build(TestSite site) {
        TestSite.Run run = run(site, site.out);
        assertEquals(0, run.status(), run::toString);
        return run;
    }

    /** The site a full build writes now: the same sources into a folder of its own, with nothing kept from earlier builds. */
    private Map<String, String> fullBuild(TestSite site) throws Exception {
        Path reference = site.root.resolve("reference/site");
        TestSite.Run run = run(site, reference, "--no-cache");
        assertEquals(0, run.status(), run::toString);
        return files(reference);
    }

    private static Map<String, String> files(Path folder) throws Exception {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(folder.relativize(file).toString(), HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
            }
        }
        return files;
    }

    private static boolean skipped(TestSite site, TestSite.Run run) {
        boolean said = run.out().contains("Kensho: " + site.out + UP_TO_DATE + "\n");
        assertEquals(said, run.out().contains("up to date: " + site.out + " is left as it was ("), run::toString);
        return said;
    }

    private static TestSite prose(Path root) throws Exception {
        TestSite site = new TestSite(root)
                .page("site.yml", "title: Course\nlang: en\n")
                .page("index.md", "---\ntitle: Home\n---\nimport shown from './shown.sql?raw';\n\nWelcome.\n\n<Code code={shown} lang=\"sql\" />\n")
                .page("shown.sql", "SELECT 1;\n")
                .page("guide/a.md", TestSite.source("First", "\nSee [the second page](b.md).\n"))
                .page("guide/b.md", TestSite.source("Second", "\nText.\n"));
        site.theme = Files.createDirectories(root.resolve("theme/assets")).getParent();
        Files.writeString(site.theme.resolve("assets/kensho.css"), Files.readString(TestSite.THEME.resolve("assets/kensho.css")));
        return site;
    }

    @Test
    void everyKindOfChangeGivesTheFullBuildsSiteAndAnUnchangedBuildLeavesIt() throws Exception {
        TestSite site = prose(temp);
        TestSite.Run first = build(site);
        assertFalse(skipped(site, first), first::toString);
        TestSite.Run second = build(site);
        assertTrue(skipped(site, second), second::toString);
        assertEquals(List.of("Kensho: " + site.out + UP_TO_DATE, "up to date: " + site.out + " is left as it was (TIME)", "0 passed, 0 failed"),
                second.out().lines().map(line -> line.replaceAll("\\(\\d+\\.\\d\\d s\\)$", "(TIME)")).toList(), second::toString);
        assertEquals(fullBuild(site), files(site.out));

        Map<String, Runnable> changes = new java.util.LinkedHashMap<>();
        changes.put("page text", () -> write(site.content.resolve("guide/b.md"), TestSite.source("Second", "\nOther text.\n")));
        changes.put("imported file", () -> write(site.content.resolve("shown.sql"), "SELECT 2;\n"));
        changes.put("theme file", () -> write(site.theme.resolve("assets/kensho.css"), "body { color: teal; }\n"));
        changes.put("site.yml", () -> write(site.content.resolve("site.yml"), "title: Another course\nlang: en\n"));
        // a.md's text is unchanged; its sidebar shows b's title.
        changes.put("another page's title", () -> write(site.content.resolve("guide/b.md"), TestSite.source("Renamed", "\nOther text.\n")));
        changes.put("a new page", () -> write(site.content.resolve("guide/c.md"), TestSite.source("Third", "\nMore.\n")));
        changes.put("a hand-edited output file", () -> write(site.out.resolve("guide/a/index.html"), "<p>edited</p>\n"));
        changes.put("an output file added", () -> write(site.out.resolve("extra.html"), "<p>extra</p>\n"));
        for (Map.Entry<String, Runnable> change : changes.entrySet()) {
            Map<String, String> before = files(site.out);
            change.getValue().run();
            TestSite.Run changed = build(site);
            assertFalse(skipped(site, changed), change.getKey() + ": " + changed);
            Map<String, String> full = fullBuild(site);
            assertEquals(full, files(site.out), change.getKey());
            if (!change.getKey().contains("output")) {
                assertFalse(full.equals(before), change.getKey() + " must change the site, or this test shows nothing");
            }
            TestSite.Run again = build(site);
            assertTrue(skipped(site, again), change.getKey() + ", built again: " + again);
            assertEquals(full, files(site.out), change.getKey());
        }
    }

    @Test
    void aRecordThisMachineDidNotSignIsIgnoredSaidAndNeverChangesTheSite() throws Exception {
        TestSite site = prose(temp);
        build(site);
        assertTrue(skipped(site, build(site)));
        Path record;
        try (Stream<Path> records = Files.list(site.root.resolve("cache/site"))) {
            record = records.filter(file -> file.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        byte[] signed = Files.readAllBytes(record);
        String payload = new String(signed, StandardCharsets.UTF_8);
        String ignored = "Kensho: up-to-date record " + record + " ignored (not signed by this machine for this site); the site is built";

        // Altered: an output file edited, and the record made to name its new digest under the old signature.
        write(site.out.resolve("guide/a/index.html"), "<p>altered</p>\n");
        Files.writeString(record, payload.replaceAll("output [0-9a-f]+ guide%2Fa%2Findex.html", "output " + sha("<p>altered</p>\n")
                + " guide%2Fa%2Findex.html"));
        assertFalse(payload.equals(Files.readString(record)), "the record must have been altered");
        TestSite.Run altered = build(site);
        assertEquals(ignored, altered.out().lines().findFirst().orElseThrow(), altered::toString);
        assertFalse(skipped(site, altered));
        assertEquals(fullBuild(site), files(site.out));

        // Signed with a key a forger might guess (all zero bytes).
        String body = new String(Files.readAllBytes(record), StandardCharsets.UTF_8);
        body = body.substring(body.indexOf('\n') + 1);
        write(site.out.resolve("guide/a/index.html"), "<p>forged</p>\n");
        Files.writeString(record, HexFormat.of().formatHex(hmac(new byte[32], record, site, body)) + "\n"
                + body.replaceAll("output [0-9a-f]+ guide%2Fa%2Findex.html", "output " + sha("<p>forged</p>\n") + " guide%2Fa%2Findex.html"));
        TestSite.Run forged = build(site);
        assertEquals(ignored, forged.out().lines().findFirst().orElseThrow(), forged::toString);
        assertEquals(fullBuild(site), files(site.out));

        // Foreign: another site's record, copied under this site's name.
        TestSite other = prose(temp.resolve("other"));
        other.theme = site.theme;
        Path otherOut = site.root.resolve("other-out/site");
        assertEquals(0, run(other, otherOut).status());
        TestSite.Run otherSecond = run(other, otherOut);
        assertTrue(otherSecond.out().contains(UP_TO_DATE), otherSecond::toString);
        Path otherRecord;
        try (Stream<Path> records = Files.list(other.root.resolve("cache/site"))) {
            otherRecord = records.filter(file -> file.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        Files.copy(otherRecord, record, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        TestSite.Run foreign = build(site);
        assertEquals(ignored, foreign.out().lines().findFirst().orElseThrow(), foreign::toString);
        assertEquals(fullBuild(site), files(site.out));
        assertTrue(skipped(site, build(site)), "a record of its own again");
    }

    private static final String CLOCK_PAGE = TestSite.source("Clock", """

            ```sql
            SELECT now() > '2000-01-01' AS later;
            ```

            ```rows
             later
            -------
             t
            ```
            """);

    @Test
    void aSiteWithVerifiedMarksIsLeftOnlyWhileTheyHold() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Course\nlang: en\ncache:\n  clockPagesFor: 1h\n")
                .page("index.md", CLOCK_PAGE).page("plain.md", TestSite.source("Plain", "\n```sql\nSELECT 1 AS one;\n```\n"));
        TestSite.Run ran = build(site);
        assertTrue(ran.out().contains("Kensho: PostgreSQL 18.6 via embedded"), ran::toString);
        assertFalse(skipped(site, ran));
        // From the cache: the pages show when their SQL ran, as the record's build will.
        TestSite.Run cached = build(site);
        assertFalse(skipped(site, cached), cached::toString);
        Map<String, String> cachedSite = files(site.out);
        TestSite.Run third = build(site);
        assertTrue(skipped(site, third), third::toString);
        assertTrue(third.out().endsWith("2 passed, 0 failed\n"), third::toString);
        assertEquals(cachedSite, files(site.out));

        // The record holds exactly as long as the marks it reused: the clock page's hour, the plain page's day.
        Path record;
        try (Stream<Path> records = Files.list(site.root.resolve("cache/site"))) {
            record = records.filter(file -> file.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        List<Long> verified = new ArrayList<>();
        try (Stream<Path> entries = Files.list(site.root.resolve("cache"))) {
            for (Path entry : entries.filter(file -> file.toString().endsWith(".json")).toList()) {
                String text = Files.readString(entry);
                java.util.regex.Matcher at = java.util.regex.Pattern.compile("\"verifiedAtEpochSecond\":(\\d+)").matcher(text);
                assertTrue(at.find(), text);
                verified.add(Long.parseLong(at.group(1)));
            }
        }
        assertEquals(2, verified.size());
        long clockRan = verified.stream().mapToLong(Long::longValue).max().orElseThrow(); // one run: both within seconds
        String payload = Files.readString(record);
        java.util.regex.Matcher valid = java.util.regex.Pattern.compile("\nvalid (\\d+) (\\d+)\n").matcher(payload);
        assertTrue(valid.find(), payload);
        assertEquals(clockRan, Long.parseLong(valid.group(1)));
        long until = Long.parseLong(valid.group(2));
        assertTrue(verified.contains(until - 3600), "the clock page's hour: " + until + " " + verified);

        // Past that time (here: the record re-signed as this machine would, saying so), the site is built again.
        byte[] secret = Files.readAllBytes(temp.resolve("xdg/kensho/cache-secret"));
        String body = payload.substring(payload.indexOf('\n') + 1).replaceFirst("\nvalid \\d+ \\d+\n",
                "\nvalid " + valid.group(1) + " " + (Instant.now().getEpochSecond() - 1) + "\n");
        Files.writeString(record, HexFormat.of().formatHex(hmac(secret, record, site, body)) + "\n" + body);
        TestSite.Run expired = build(site);
        assertFalse(skipped(site, expired), expired::toString);
        assertTrue(expired.out().startsWith("Kensho: all 2 page(s) with SQL unchanged since PostgreSQL 18.6 verified them"), expired::toString);
        assertEquals(cachedSite, files(site.out));

        // A verification cache entry changed (here: removed) is an input changed: its page runs, and shows this build's time.
        try (Stream<Path> entries = Files.list(site.root.resolve("cache"))) {
            for (Path entry : entries.filter(file -> file.toString().endsWith(".json")).toList()) {
                Files.delete(entry);
            }
        }
        TestSite.Run rerun = build(site);
        assertFalse(skipped(site, rerun), rerun::toString);
        assertTrue(rerun.out().contains("Kensho: PostgreSQL 18.6 via embedded"), rerun::toString);
    }

    /** The HMAC an up-to-date record carries: scheme, key (the file's name) and name (the site folder), length-prefixed. */
    private static byte[] hmac(byte[] secret, Path record, TestSite site, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        String key = record.getFileName().toString().replace(".json", "");
        for (String part : List.of("kensho up-to-date site v1", key, site.out.toAbsolutePath().normalize().toString())) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            mac.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
            mac.update(bytes);
        }
        return mac.doFinal(body.getBytes(StandardCharsets.UTF_8));
    }

    private static String sha(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
