package dev.kensho.generator.render;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pages rendered by an earlier build of the same session (the preview), reused when nothing that
 * shapes them changed: the page's source, its outcomes, the navigation (titles, order), the theme
 * and the build time shown on it. A one-page edit then renders one page.
 */
public final class RenderMemo {

    record Entry(String key, RenderedPage page) {
    }

    private final Map<String, Entry> pages = new ConcurrentHashMap<>();
    private volatile int lastRendered;

    Entry get(String page, String key) {
        Entry entry = pages.get(page);
        return entry != null && entry.key().equals(key) ? entry : null;
    }

    void put(String page, Entry entry) {
        pages.put(page, entry);
    }

    private final Map<String, SearchIndex> indexes = new ConcurrentHashMap<>();

    /** The search index the last build made in {@code folder}, or null. */
    SearchIndex lastIndex(String folder) {
        return indexes.get(folder);
    }

    void keepIndex(String folder, SearchIndex index) {
        indexes.put(folder, index);
    }

    /** The browser run plans of the last build, by page ({@link BrowserRuns#ofPages(Map, dev.kensho.generator.content.SiteConfig, dev.kensho.generator.verify.VersionCoverage, RenderMemo)}). */
    final Map<String, BrowserRuns> runPlans = new ConcurrentHashMap<>();
    volatile int runPlansMade;

    /** How many pages' browser run plans the last build made (the rest were reused). */
    public int lastRunPlansMade() {
        return runPlansMade;
    }

    private volatile dev.kensho.generator.verify.VersionCoverage coverage;

    /**
     * The last build's version coverage when it equals {@code now}, else {@code now}, kept for the next build: a build
     * whose coverage did not change then hands the same object to every page's run plan and rendered page, which know
     * it as theirs without comparing every page's plans and claims again (once per page, a tenth of an edit's rebuild).
     */
    public dev.kensho.generator.verify.VersionCoverage sameCoverage(dev.kensho.generator.verify.VersionCoverage now) {
        dev.kensho.generator.verify.VersionCoverage last = coverage;
        if (last != null && last.equals(now)) {
            return last;
        }
        coverage = now;
        return now;
    }

    void rendered(int count) {
        lastRendered = count;
    }

    /** How many pages the last build actually rendered (the rest were reused). */
    public int lastRendered() {
        return lastRendered;
    }

    static String key(String... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                byte[] bytes = part == null ? new byte[0] : part.getBytes(StandardCharsets.UTF_8);
                digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
                digest.update((byte) ':');
                digest.update(bytes);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
