package dev.kensho.generator.render;

import dev.kensho.generator.render.playground.BrowserRuns;
import dev.kensho.generator.render.page.PageOutline;
import dev.kensho.generator.render.search.SearchIndex;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pages rendered by an earlier build of the same session (the preview), reused when nothing that
 * shapes them changed: the page's source, its outcomes, the navigation (titles, order), the theme
 * and the build time shown on it. A one-page edit then renders one page.
 */
public final class RenderMemo {

    /**
     * A page as rendered, with everything that shaped it as it was then: compared part by part with {@code equals},
     * not hashed. An unchanged page's parts are mostly the very same strings (the parse memo's source, the outcomes'
     * fingerprint below), which compare at once; hashing every page's source and outcomes again on every edit was an
     * eighth of an edit's rebuild.
     */
    record Entry(List<String> key, RenderedPage page) {
    }

    private final Map<String, Entry> pages = new ConcurrentHashMap<>();
    private volatile int lastRendered;

    Entry get(String page, List<String> key) {
        Entry entry = pages.get(page);
        return entry != null && entry.key().equals(key) ? entry : null;
    }

    /** A page's outcomes and what they were written out as, for {@link #outcomesFingerprint}. */
    private record Fingerprint(List<Outcome> outcomes, String text) {
    }

    private final Map<String, Fingerprint> fingerprints = new ConcurrentHashMap<>();

    /**
     * What {@code write} makes of the page's outcomes, written out again only when they are other objects than the last
     * build's: an unchanged page from the cache gets the very same (immutable) outcomes on every build of the session
     * ({@link dev.kensho.generator.verify.JudgedEntries}), and the same objects write out the same text.
     */
    String outcomesFingerprint(String page, PageResult result, Function<PageResult, String> write) {
        if (result == null) {
            return write.apply(null);
        }
        Fingerprint last = fingerprints.get(page);
        if (last != null && sameObjects(last.outcomes(), result.outcomes())) {
            return last.text();
        }
        String text = write.apply(result);
        fingerprints.put(page, new Fingerprint(new ArrayList<>(result.outcomes()), text));
        return text;
    }

    private static boolean sameObjects(List<Outcome> a, List<Outcome> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
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
    private final Map<String, BrowserRuns> runPlans = new ConcurrentHashMap<>();
    private volatile int runPlansMade;

    /** The run plan the last build made for the page at {@code pagePath}, or null. */
    public BrowserRuns lastRunPlan(String pagePath) {
        return runPlans.get(pagePath);
    }

    /** Keeps this build's run plans for the next build, {@code made} of them made anew. */
    public void keepRunPlans(Map<String, BrowserRuns> plans, int made) {
        runPlans.clear();
        runPlans.putAll(plans);
        runPlansMade = made;
    }

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

    /** Whole documents' outlines the link check read, by the document's text: those of the last check, and this one's. */
    private Map<String, PageOutline> outlinesBefore = new ConcurrentHashMap<>();
    private Map<String, PageOutline> outlinesNow = new ConcurrentHashMap<>();

    /**
     * The outline of a whole document (the theme's frame around a folder's pages, the home and 404 pages), read with
     * {@code read} only when no document of the same text was read by the last link check or this one: an edit of one
     * page's prose leaves every frame as it was, and parsing them all again was most of the link check's time.
     */
    public PageOutline wholeOutline(String html, Function<String, PageOutline> read) {
        PageOutline outline = outlinesNow.get(html);
        if (outline == null) {
            outline = outlinesBefore.get(html);
            if (outline == null) {
                outline = read.apply(html);
            }
            outlinesNow.put(html, outline);
        }
        return outline;
    }

    /** A link check ended: what it read is what the next may reuse (documents no longer in the site are let go). */
    public void linkCheckDone() {
        outlinesBefore = outlinesNow;
        outlinesNow = new ConcurrentHashMap<>();
    }

    void rendered(int count) {
        lastRendered = count;
    }

    /** How many pages the last build actually rendered (the rest were reused). */
    public int lastRendered() {
        return lastRendered;
    }

    public static String key(String... parts) {
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
