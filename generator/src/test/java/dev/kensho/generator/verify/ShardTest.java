package dev.kensho.generator.verify;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardTest {

    private static final List<String> PAGES = IntStream.range(0, 200).mapToObj(i -> "lessons/page-" + i + ".md").toList();

    private static Map<String, Integer> assign(List<String> pages, int count) {
        Map<String, Integer> owner = new HashMap<>();
        for (int i = 1; i <= count; i++) {
            Shard shard = new Shard(i, count);
            for (String page : pages) {
                if (shard.contains(page)) {
                    Integer previous = owner.put(page, i);
                    assertEquals(null, previous, page + " is in shard " + previous + " and " + i);
                }
            }
        }
        return owner;
    }

    @Test
    void theShardsPartitionThePages() {
        for (int count = 1; count <= 7; count++) {
            Map<String, Integer> owner = assign(PAGES, count);
            assertEquals(PAGES.size(), owner.size(), "with " + count + " shards some page is in none");
        }
    }

    @Test
    void addingAPageMovesNoOtherPage() {
        Map<String, Integer> before = assign(PAGES, 4);
        List<String> more = new ArrayList<>(PAGES);
        more.add("lessons/new-page.md");
        Map<String, Integer> after = assign(more, 4);
        PAGES.forEach(page -> assertEquals(before.get(page), after.get(page), page));
    }

    @Test
    void everyShardGetsAFairShare() {
        Map<String, Integer> owner = assign(PAGES, 4);
        for (int i = 1; i <= 4; i++) {
            int shard = i;
            long size = owner.values().stream().filter(v -> v == shard).count();
            assertTrue(size > 30 && size < 70, "shard " + i + " has " + size + " of 200 pages");
        }
    }

    @Test
    void rejectsMalformedShards() {
        assertEquals("--shard takes I/N with 1 <= I <= N, such as 2/4, not '3'",
                assertThrows(IllegalArgumentException.class, () -> Shard.parse("3")).getMessage());
        assertEquals("--shard takes I/N with 1 <= I <= N, such as 2/4",
                assertThrows(IllegalArgumentException.class, () -> Shard.parse("5/4")).getMessage());
    }
}
