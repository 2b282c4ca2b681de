package dev.kensho.generator.verify;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * One of N deterministic shares of the pages, for CI jobs that verify in parallel. A page belongs to
 * a shard by a hash of its path below content/, so adding or removing a page moves no other page
 * between shards; every page is in exactly one shard.
 *
 * @param index 1-based
 * @param count how many shards in all
 */
public record Shard(int index, int count) {

    public static final Shard ALL = new Shard(1, 1);
    private static final Pattern FORMAT = Pattern.compile("(\\d+)/(\\d+)");

    public Shard {
        if (count < 1 || index < 1 || index > count) {
            throw new IllegalArgumentException("--shard takes I/N with 1 <= I <= N, such as 2/4");
        }
    }

    public static Shard parse(String text) {
        Matcher matcher = FORMAT.matcher(text.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("--shard takes I/N with 1 <= I <= N, such as 2/4, not '" + text + "'");
        }
        return new Shard(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    /** Whether the page at {@code relativePath} (below content/, forward slashes) is in this shard. */
    public boolean contains(String relativePath) {
        CRC32 crc = new CRC32();
        crc.update(relativePath.getBytes(StandardCharsets.UTF_8));
        return crc.getValue() % count == index - 1;
    }

    @Override
    public String toString() {
        return index + "/" + count;
    }
}
