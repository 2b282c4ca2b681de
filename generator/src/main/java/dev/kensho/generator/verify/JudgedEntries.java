package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.Snippet;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Verification cache entries the preview ({@code kensho serve}) has already read, checked and judged in this session,
 * kept in memory so that an edit reads and judges again only the pages whose verification inputs changed. An entry is
 * found by exactly what decides a load from the cache: the page's cache key (Kensho's code, the server, the limits and
 * session settings, every fence's SQL, meta and expected rows), the page, and its snippets as they are now (their
 * locations included), compared as their text (location, SQL, directives, expected rows); the same snippet objects
 * (a page the parse memo kept) are known without writing them out. With the entry are kept the outcomes it was judged into: an unchanged page
 * hands the same outcomes to every later build, which the browser's run plans then recognise without comparing them
 * field by field (writing the snippets out as text to compare them, and comparing fresh outcomes, was a third of an
 * edit's rebuild). What is kept is an entry whose signature was checked and whose every claim held on it when it
 * was judged; how long it may be reused is still decided at each load ({@link VerificationCache}), so a clock page's
 * entry expires as it would on disk. Only this process writes it: nothing from the cache folder reaches it unchecked.
 */
public final class JudgedEntries {

    /** An entry as judged for these snippets (location, SQL, directives, expected rows), and the outcomes it gave them. */
    record Judged(List<Snippet> snippets, VerificationCache.Entry entry, List<Outcome> outcomes) {
    }

    private final Map<String, Judged> entries = new ConcurrentHashMap<>();
    private final AtomicInteger judgedNow = new AtomicInteger();
    private volatile int lastJudged;

    Judged get(String key, String page, List<Snippet> snippets) {
        Judged judged = entries.get(key + "\n" + page);
        // equals is as strict as the text or stricter (a compiled pattern counts by identity): only a page parsed again
        // (the edited one) is written out to be compared.
        return judged != null && (judged.snippets().equals(snippets) || judged.snippets().toString().equals(snippets.toString()))
                ? judged : null;
    }

    void put(String key, String page, List<Snippet> snippets, VerificationCache.Entry entry, List<Outcome> outcomes) {
        entries.put(key + "\n" + page, new Judged(List.copyOf(snippets), entry, List.copyOf(outcomes)));
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
