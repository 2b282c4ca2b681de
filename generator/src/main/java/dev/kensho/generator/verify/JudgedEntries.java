package dev.kensho.generator.verify;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Verification cache entries the preview ({@code kensho serve}) has already read, checked and judged in this session,
 * kept in memory so that an edit reads and judges again only the pages whose verification inputs changed. An entry is
 * found by exactly what decides a load from the cache: the page's cache key (Kensho's code, the server, the limits and
 * session settings, every fence's SQL, meta and expected rows), the page, and its snippets as they are now (their
 * locations included). What is kept is an entry whose signature was checked and whose every claim held on it when it
 * was judged; how long it may be reused is still decided at each load ({@link VerificationCache}), so a clock page's
 * entry expires as it would on disk. Only this process writes it: nothing from the cache folder reaches it unchecked.
 */
public final class JudgedEntries {

    /** An entry as judged for these snippets (their {@code toString}: location, SQL, directives, expected rows). */
    record Judged(String snippets, VerificationCache.Entry entry) {
    }

    private final Map<String, Judged> entries = new ConcurrentHashMap<>();
    private final AtomicInteger judgedNow = new AtomicInteger();
    private volatile int lastJudged;

    VerificationCache.Entry get(String key, String page, String snippets) {
        Judged judged = entries.get(key + "\n" + page);
        return judged != null && judged.snippets().equals(snippets) ? judged.entry() : null;
    }

    void put(String key, String page, String snippets, VerificationCache.Entry entry) {
        entries.put(key + "\n" + page, new Judged(snippets, entry));
    }

    void forget(String key, String page) {
        entries.remove(key + "\n" + page);
    }

    /** Counts, from now on, the entries read from the cache folder and judged (a new build began). */
    void startBuild() {
        judgedNow.set(0);
        lastJudged = 0;
    }

    void judged() {
        lastJudged = judgedNow.incrementAndGet();
    }

    /** How many pages the last build read from the cache folder and judged; the other pages from the cache were kept. */
    public int lastJudged() {
        return lastJudged;
    }
}
