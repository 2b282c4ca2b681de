package dev.kensho.generator.render.page;

import dev.kensho.generator.cli.KenshoCommand;
import dev.kensho.generator.verify.CacheSecret;
import dev.kensho.generator.verify.SignedStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Highlighted code kept between builds is used only when this machine signed it for that code: a forged, altered or
 * foreign entry gives way to Prism's own HTML, and a build from the cache is the cold build byte for byte.
 */
class HighlightCacheTest {

    @TempDir
    Path temp;

    private static final String CODE = "SELECT id, total FROM orders WHERE total > 100 ORDER BY id;";

    private static byte[] key(String ciSecret) throws Exception {
        return new CacheSecret(Path.of("unused"), ciSecret).key();
    }

    /** A sparse 3 GiB file in an entry's place (no disk taken) is not read: before, readAllBytes threw OutOfMemoryError. */
    @Test
    void aHugeFileInAnEntrysPlaceIsIgnoredWithoutReadingIt() throws Exception {
        SyntaxHighlighter.forgetMemo();
        String fresh = SyntaxHighlighter.get().highlight(CODE, "sql");
        Path folder = temp.resolve("highlight");
        Files.createDirectories(folder);
        try (java.io.RandomAccessFile huge = new java.io.RandomAccessFile(folder.resolve(HighlightCache.key("sql", CODE) + ".json").toFile(), "rw")) {
            huge.setLength(3L * 1024 * 1024 * 1024);
        }
        HighlightCache cache = new HighlightCache(new SignedStore(folder, key("this machine"), HighlightCache.SCHEME));
        SyntaxHighlighter.forgetMemo();
        assertEquals(fresh, SyntaxHighlighter.get().highlight(CODE, "sql", cache));
        StringBuilder ignored = new StringBuilder();
        cache.report(line -> ignored.append(line).append('\n'));
        assertEquals("Kensho: 1 highlight cache entry in " + folder + " ignored (not signed by this machine for their code); "
                + "that code was highlighted afresh\n", ignored.toString());
    }

    @Test
    void aForgedAlteredOrForeignEntryIsNeverUsedAndTheCodeIsHighlightedAfresh() throws Exception {
        SyntaxHighlighter.forgetMemo();
        String fresh = SyntaxHighlighter.get().highlight(CODE, "sql");
        assertTrue(fresh.startsWith("<span class=\"token keyword\">SELECT</span>"), fresh);
        Path folder = temp.resolve("highlight");
        String entry = HighlightCache.key("sql", CODE);
        String forged = "<img src=x onerror=alert(1)>";

        // Committed by hand: a well-formed line that is no signature of this machine's.
        Files.createDirectories(folder);
        Files.writeString(folder.resolve(entry + ".json"), "0".repeat(64) + "\n" + forged);
        HighlightCache cache = new HighlightCache(new SignedStore(folder, key("this machine"), HighlightCache.SCHEME));
        SyntaxHighlighter.forgetMemo();
        assertEquals(fresh, SyntaxHighlighter.get().highlight(CODE, "sql", cache));
        assertEquals(0, cache.reused());
        StringBuilder ignored = new StringBuilder();
        cache.report(line -> ignored.append(line).append('\n'));
        assertEquals("Kensho: 1 highlight cache entry in " + folder + " ignored (not signed by this machine for their code); "
                + "that code was highlighted afresh\n", ignored.toString());

        // Signed by another machine, and signed by this one for another purpose (the verification cache's scheme).
        for (SignedStore foreign : List.of(new SignedStore(folder, key("another machine"), HighlightCache.SCHEME),
                new SignedStore(folder, key("this machine"), "kensho verification cache entry v2"))) {
            foreign.write(entry, "sql", forged.getBytes(StandardCharsets.UTF_8));
            HighlightCache again = new HighlightCache(new SignedStore(folder, key("this machine"), HighlightCache.SCHEME));
            SyntaxHighlighter.forgetMemo();
            assertEquals(fresh, SyntaxHighlighter.get().highlight(CODE, "sql", again));
            assertEquals(0, again.reused());
        }

        // The entry this machine wrote just now is used; once its HTML is altered, it is not.
        HighlightCache signed = new HighlightCache(new SignedStore(folder, key("this machine"), HighlightCache.SCHEME));
        SyntaxHighlighter.forgetMemo();
        assertEquals(fresh, SyntaxHighlighter.get().highlight(CODE, "sql", signed));
        assertEquals(1, signed.reused());
        Path file = folder.resolve(entry + ".json");
        Files.writeString(file, Files.readString(file).replace("SELECT", "<script>SELECT"));
        HighlightCache altered = new HighlightCache(new SignedStore(folder, key("this machine"), HighlightCache.SCHEME));
        SyntaxHighlighter.forgetMemo();
        assertEquals(fresh, SyntaxHighlighter.get().highlight(CODE, "sql", altered));
        assertEquals(0, altered.reused());
        StringBuilder said = new StringBuilder();
        altered.report(line -> said.append(line).append('\n'));
        assertEquals("Kensho: 1 highlight cache entry in " + folder + " ignored (not signed by this machine for their code); "
                + "that code was highlighted afresh\n", said.toString());
    }

    @Test
    void aBuildFromTheCacheIsTheColdBuildByteForByteAndAForgedEntryChangesNothing() throws Exception {
        Path content = Files.createDirectories(temp.resolve("content"));
        Files.writeString(content.resolve("index.md"), """
                ---
                title: Code
                ---

                ```js
                const total = orders.reduce((sum, o) => sum + o.total, 0);
                ```

                ```bash
                curl -s https://example.com | grep -c order
                ```

                ```python
                def total(orders):
                    return sum(o.total for o in orders)
                ```
                """);
        SyntaxHighlighter.forgetMemo();
        Build cold = build(content);
        Path folder = temp.resolve("cache").resolve(HighlightCache.FOLDER);
        List<Path> entries;
        try (Stream<Path> files = Files.list(folder)) {
            entries = files.sorted().toList();
        }
        assertEquals(3, entries.size(), entries::toString);

        SyntaxHighlighter.forgetMemo();
        Build warm = build(content);
        assertEquals(cold.files(), warm.files());
        assertEquals("", warm.log());

        // The warm build did read the entries: re-signed with this machine's key, a changed entry shows on the page.
        SignedStore mine = new SignedStore(folder, key("test key"), HighlightCache.SCHEME);
        for (Path entry : entries) {
            String name = entry.getFileName().toString().replace(".json", "");
            String html = new String(mine.read(name, language(cold, entry)).orElseThrow(), StandardCharsets.UTF_8);
            mine.write(name, language(cold, entry), ("<span class=\"token comment\">kept</span>" + html).getBytes(StandardCharsets.UTF_8));
        }
        SyntaxHighlighter.forgetMemo();
        Build reSigned = build(content);
        assertEquals(3, reSigned.files().get("index.html").split("<span class=\"token comment\">kept</span>", -1).length - 1);

        // Altered without the key: every entry is ignored and said, and the site is the cold build's.
        for (Path entry : entries) {
            Files.writeString(entry, Files.readString(entry).replace("kept", "forged"));
        }
        SyntaxHighlighter.forgetMemo();
        Build forged = build(content);
        assertEquals(cold.files(), forged.files());
        assertEquals("Kensho: 3 highlight cache entries in " + folder + " ignored (not signed by this machine for their code); "
                + "that code was highlighted afresh\n", forged.log());
    }

    /** The Prism language an entry was written for (its key is over the language and the code). */
    private static String language(Build cold, Path entry) {
        for (String language : List.of("javascript", "bash", "python")) {
            for (String code : List.of("const total = orders.reduce((sum, o) => sum + o.total, 0);",
                    "curl -s https://example.com | grep -c order", "def total(orders):\n    return sum(o.total for o in orders)")) {
                if (entry.getFileName().toString().equals(HighlightCache.key(language, code) + ".json")) {
                    return language;
                }
            }
        }
        throw new AssertionError("an entry for no block of the page: " + entry);
    }

    record Build(Map<String, String> files, String log) {
    }

    private Build build(Path content) throws Exception {
        Path out = temp.resolve("out");
        // Each build here must render: the up-to-date record would otherwise leave an unchanged site as the last build
        // wrote it, and what is tested is what the highlight cache gives a rendering build.
        Path record = temp.resolve("cache").resolve(dev.kensho.generator.output.UpToDateSite.FOLDER);
        if (Files.exists(record)) {
            try (Stream<Path> walk = Files.walk(record)) {
                for (Path file : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(stdout, true), new PrintWriter(stderr, true),
                Map.of("XDG_CACHE_HOME", temp.resolve("xdg").toString(), "HOME", temp.toString(), "KENSHO_CACHE_KEY", "test key",
                        "SOURCE_DATE_EPOCH", "1764633600"),
                "build", "--content", content.toString(), "--theme", Path.of("../site").toAbsolutePath().normalize().toString(),
                "--out", out.resolve("site").toString(), "--report", out.resolve("report.json").toString(), "--postgres", "embedded",
                "--cache", temp.resolve("cache").toString());
        assertEquals(0, status, stdout + "\n" + stderr);
        Map<String, String> files = new TreeMap<>();
        Path site = out.resolve("site");
        try (Stream<Path> walk = Files.walk(site)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(site.relativize(file).toString(), new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
            }
        }
        String log = stdout.toString().lines().filter(line -> line.contains("highlight cache")).map(line -> line + "\n")
                .reduce("", String::concat);
        return new Build(files, log);
    }
}
