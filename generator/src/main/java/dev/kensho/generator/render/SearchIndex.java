package dev.kensho.generator.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.Collection;
import java.util.TreeSet;

/**
 * Full-text search built at build time and split into small files, as Pagefind does, so that a query
 * on a site of thousands of pages fetches a few dozen kilobytes rather than the whole index. Japanese
 * has no spaces between words, so text is cut into character bigrams inside runs of kanji and kana
 * (hiragana folded to katakana), and into whole words inside runs of Latin letters, digits and
 * underscores (so {@code ON CONFLICT} and {@code created_at} are found). The browser cuts queries the
 * same way ({@code site/assets/search.js} mirrors {@link #terms(String)} and {@link #shardOf}).
 *
 * <p>Files (scripts, not JSON, so that search works from the file system too):
 * <ul>
 * <li>{@code assets/search/index.js}: the number of term shards and of pages;</li>
 * <li>{@code assets/search/t-N.js}: for every term whose hash falls in shard N, the pages holding it
 *     and those whose title or a heading holds it (page numbers as runs: gap, length, gap, length …).
 *     Postings name pages, not sections: a common term then costs a few numbers, not thousands;</li>
 * <li>{@code assets/search/p-N.js}: page N's sections (URL, titles, text), fetched only to show a hit;
 *     the browser picks the sections that hold every term.</li>
 * </ul>
 */
public final class SearchIndex {

    /** Characters of a section kept for showing the matching passage. */
    private static final int PASSAGE_TEXT = 1500;
    /** Aimed size of one term shard; the number of shards grows with the site. */
    private static final int SHARD_BYTES = 16 * 1024;
    public static final String FOLDER = "assets/search/";

    private final List<List<String>> sections = new ArrayList<>();
    /** Index in {@link #sections} of each page's first section. */
    private final List<Integer> pageStarts = new ArrayList<>();
    private final Map<String, Set<Integer>> postings = new LinkedHashMap<>();
    private final Map<String, Set<Integer>> titlePostings = new LinkedHashMap<>();

    /** Adds a rendered page, one entry per section (the text before the first h2, then each h2/h3). */
    public void add(String url, String pageTitle, String articleHtml) {
        Document document = Jsoup.parseBodyFragment(articleHtml);
        // Furniture and evidence are not what a reader searches for (the copy button's label, say).
        document.select(".anchor, .evidence, .scenario-source, script, style, svg title, button, .predict-label").remove();
        pageStarts.add(sections.size());
        String heading = pageTitle;
        String anchor = "";
        StringBuilder text = new StringBuilder();
        for (Element element : document.body().children()) {
            if (element.tagName().matches("h[23]")) {
                flush(url, anchor, pageTitle, heading, text);
                heading = element.text();
                anchor = "#" + element.id();
                text.setLength(0);
            } else {
                appendText(element, text);
                text.append(' ');
            }
        }
        flush(url, anchor, pageTitle, heading, text);
    }

    private static void appendText(Node node, StringBuilder out) {
        for (Node child : node.childNodes()) {
            if (child instanceof TextNode text) {
                out.append(text.getWholeText());
            } else {
                if (child instanceof Element element && element.isBlock()) {
                    out.append(' ');
                }
                appendText(child, out);
            }
        }
    }

    private void flush(String url, String anchor, String pageTitle, String heading, StringBuilder text) {
        String body = text.toString().replaceAll("\\s+", " ").strip();
        int id = sections.size();
        sections.add(List.of(url + anchor, pageTitle, heading, body.length() > PASSAGE_TEXT ? body.substring(0, PASSAGE_TEXT) : body));
        int page = pageStarts.size() - 1;
        for (String term : terms(heading + " " + body)) {
            postings.computeIfAbsent(term, k -> new LinkedHashSet<>()).add(page);
        }
        // Pages whose title or a heading holds a term rank first.
        for (String term : terms(pageTitle + " " + heading)) {
            titlePostings.computeIfAbsent(term, k -> new LinkedHashSet<>()).add(page);
        }
    }

    /** Appends another index's sections after this one's (pages are indexed apart, then joined in order). */
    public void addAll(SearchIndex other) {
        int offset = sections.size();
        int pageOffset = pageStarts.size();
        sections.addAll(other.sections);
        other.pageStarts.forEach(start -> pageStarts.add(start + offset));
        merge(other.postings, postings, pageOffset);
        merge(other.titlePostings, titlePostings, pageOffset);
    }

    private static void merge(Map<String, Set<Integer>> from, Map<String, Set<Integer>> into, int offset) {
        from.forEach((term, ids) -> {
            Set<Integer> target = into.computeIfAbsent(term, k -> new LinkedHashSet<>());
            ids.forEach(id -> target.add(id + offset));
        });
    }

    /** The terms of a text: Latin words whole, kanji/kana runs as overlapping pairs of characters. */
    public static Set<String> terms(String text) {
        String normalized = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        Set<String> terms = new LinkedHashSet<>();
        StringBuilder word = new StringBuilder();
        StringBuilder cjk = new StringBuilder();
        for (int i = 0; i < normalized.length(); ) {
            int c = foldKana(normalized.codePointAt(i));
            i += Character.charCount(normalized.codePointAt(i));
            if (isWordChar(c)) {
                flushCjk(cjk, terms);
                word.appendCodePoint(c);
            } else if (isCjk(c)) {
                flushWord(word, terms);
                cjk.appendCodePoint(c);
            } else {
                flushWord(word, terms);
                flushCjk(cjk, terms);
            }
        }
        flushWord(word, terms);
        flushCjk(cjk, terms);
        return terms;
    }

    /** Hiragana as katakana, so that ぺーじ finds ページ. */
    static int foldKana(int c) {
        return c >= 0x3041 && c <= 0x3096 ? c + 0x60 : c;
    }

    private static boolean isWordChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }

    static boolean isCjk(int c) {
        Character.UnicodeScript script = Character.UnicodeScript.of(c);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA || c == 'ー' || c == '々';
    }

    private static void flushWord(StringBuilder word, Set<String> terms) {
        if (word.length() > 0) {
            terms.add(word.toString());
            word.setLength(0);
        }
    }

    private static void flushCjk(StringBuilder run, Set<String> terms) {
        int[] points = run.codePoints().toArray();
        if (points.length == 1) {
            terms.add(new String(points, 0, 1));
        }
        for (int i = 0; i + 1 < points.length; i++) {
            terms.add(new String(points, i, 2));
        }
        run.setLength(0);
    }

    /** FNV-1a over UTF-16 units, the same as search.js computes. */
    public static int shardOf(String term, int shards) {
        int hash = 0x811c9dc5;
        for (int i = 0; i < term.length(); i++) {
            hash ^= term.charAt(i);
            hash *= 0x01000193;
        }
        return Integer.remainderUnsigned(hash, shards);
    }

    /** Output path → script text of every file of the index. */
    public Map<String, String> files() {
        ObjectMapper json = new ObjectMapper();
        Map<String, String> files = new LinkedHashMap<>();
        try {
            long estimate = 0;
            Map<String, List<List<Integer>>> entries = new TreeMap<>();
            for (Map.Entry<String, Set<Integer>> posting : postings.entrySet()) {
                List<Integer> all = runs(posting.getValue());
                List<Integer> titles = runs(titlePostings.getOrDefault(posting.getKey(), Set.of()));
                entries.put(posting.getKey(), List.of(all, titles));
                estimate += posting.getKey().length() * 3L + all.size() * 3L + titles.size() * 3L + 8;
            }
            int shards = Integer.highestOneBit((int) Math.max(1, Math.min(4096, estimate / SHARD_BYTES))) * 2;
            List<Map<String, List<List<Integer>>>> shardMaps = new ArrayList<>();
            for (int i = 0; i < shards; i++) {
                shardMaps.add(new TreeMap<>());
            }
            entries.forEach((term, lists) -> shardMaps.get(shardOf(term, shards)).put(term, lists));
            for (int i = 0; i < shards; i++) {
                files.put(FOLDER + "t-" + i + ".js", "window.__kenshoSearch.terms(" + i + "," + json.writeValueAsString(shardMaps.get(i)) + ");\n");
            }
            for (int page = 0; page < pageStarts.size(); page++) {
                int from = pageStarts.get(page);
                int to = page + 1 < pageStarts.size() ? pageStarts.get(page + 1) : sections.size();
                List<List<Object>> pageSections = new ArrayList<>();
                for (int id = from; id < to; id++) {
                    List<Object> section = new ArrayList<>();
                    section.add(id);
                    section.addAll(sections.get(id));
                    pageSections.add(section);
                }
                files.put(FOLDER + "p-" + page + ".js", "window.__kenshoSearch.page(" + page + "," + json.writeValueAsString(pageSections) + ");\n");
            }
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("shards", shards);
            meta.put("pages", pageStarts.size());
            files.put(FOLDER + "index.js", "window.__kenshoSearch.meta(" + json.writeValueAsString(meta) + ");\n");
            return files;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Ascending ids as runs of consecutive ids: the gap before each run, then its length. A term on
     * every section of a thousand pages is two numbers, and the files stay small.
     */
    private static List<Integer> runs(Collection<Integer> ids) {
        List<Integer> out = new ArrayList<>();
        int end = 0;
        int runStart = -1;
        int runLength = 0;
        for (int id : new TreeSet<>(ids)) {
            if (runLength > 0 && id == runStart + runLength) {
                runLength++;
                continue;
            }
            if (runLength > 0) {
                out.add(runStart - end);
                out.add(runLength);
                end = runStart + runLength;
            }
            runStart = id;
            runLength = 1;
        }
        if (runLength > 0) {
            out.add(runStart - end);
            out.add(runLength);
        }
        return out;
    }

}
