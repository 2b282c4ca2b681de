package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verification cache and parallel builds. */
class CacheAndParallelismTest {

    @TempDir
    Path temp;

    private TestSite site() throws Exception {
        TestSite site = new TestSite(temp);
        for (int i = 0; i < 8; i++) {
            site.page("lessons/p" + i + ".md", TestSite.source("Page " + i, """

                    ## 表

                    ```sql result
                    CREATE TABLE t (id int PRIMARY KEY, label text);
                    INSERT INTO t SELECT g, 'row ' || g FROM generate_series(1, %d) g RETURNING id;
                    ```

                    ```rows
                     count
                    -------
                     %d
                    ```

                    本文 %d。[次へ](p%d.html)
                    """.formatted(i + 1, i + 1, i, (i + 1) % 8)).replace("RETURNING id;\n```\n\n```rows", "RETURNING id;\nSELECT count(*) FROM t;\n```\n\n```rows"));
        }
        return site;
    }

    private static Map<String, byte[]> files(Path root) throws Exception {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(path).toString(), Files.readAllBytes(path));
            }
        }
        return files;
    }

    @Test
    void anUnchangedSiteIsBuiltFromTheCacheWithoutAServerAndAChangedPageRunsAgain() throws Exception {
        TestSite site = site();
        TestSite.Run first = site.build("--cache", temp.resolve("cache").toString());
        assertEquals(0, first.status(), first::toString);
        assertTrue(first.out().startsWith("Kensho: PostgreSQL 18.6 via embedded"), first::toString);

        TestSite.Run second = site.build("--cache", temp.resolve("cache").toString());
        assertEquals(0, second.status(), second::toString);
        assertTrue(second.out().startsWith("Kensho: all 8 page(s) with SQL unchanged since PostgreSQL 18.6 verified them; "
                + "outcomes from the cache, no PostgreSQL server started"), second::toString);
        assertEquals(List.of(), TestSite.kenshoPostgresProcesses());
        JsonNode report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals(8, report.get("totals").get("pagesFromCache").asInt());
        assertTrue(report.get("snippets").get(0).get("cached").asBoolean());

        site.page("lessons/p3.md", Files.readString(site.content.resolve("lessons/p3.md")).replace("generate_series(1, 4)", "generate_series(1, 5)"));
        TestSite.Run third = site.build("--cache", temp.resolve("cache").toString());
        assertEquals(1, third.status(), "the changed page must run again and its stale claim fail: " + third);
        assertTrue(third.out().contains("; 7 unchanged page(s) from the cache"), third::toString);
        assertTrue(third.err().contains("rows differ"), third::toString);

        TestSite.Run noCache = site.build("--no-cache");
        assertTrue(noCache.out().startsWith("Kensho: PostgreSQL 18.6 via embedded"), noCache::toString);
    }

    @Test
    void theOutputIsTheSameByteForByteWhateverTheParallelism() throws Exception {
        TestSite site = site();
        assertEquals(0, site.build("--jobs", "1", "--no-cache").status());
        Map<String, byte[]> serial = files(site.out);
        assertEquals(0, site.build("--jobs", "4", "--no-cache").status());
        Map<String, byte[]> parallel = files(site.out);
        assertEquals(serial.keySet(), parallel.keySet());
        for (String file : serial.keySet()) {
            assertArrayEquals(serial.get(file), parallel.get(file), file + " differs between --jobs 1 and --jobs 4");
        }
        assertTrue(Arrays.equals(serial.get("assets/search/index.js"), parallel.get("assets/search/index.js")));
    }
}
