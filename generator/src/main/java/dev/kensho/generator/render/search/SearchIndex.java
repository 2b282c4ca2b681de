package dev.kensho.generator.render.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

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

    /**
     * Characters of a section kept for showing the matching passage: a section's whole text on the lesson site (at 1,500, 30
     * of its 99 sections were cut, and a hit past the cut showed the section's start with nothing marked); still bounded, so
     * that one page of a million characters does not make a fragment of megabytes.
     */
    private static final int PASSAGE_TEXT = 16_000;
    /** Aimed size of one term shard; the number of shards grows with the site. */
    private static final int SHARD_BYTES = 16 * 1024;
    public static final String FOLDER = "assets/search/";
    /** Furniture and evidence are not what a reader searches for (the copy button's label, say). */
    private static final Set<String> SKIPPED_CLASSES = Set.of("anchor", "evidence", "scenario-source", "predict-label");
    private static final Set<String> SKIPPED_TAGS = Set.of("script", "style", "button", "title");

    /** One page's part of the index, made where the page is rendered: its sections and its terms. */
    public record PageEntry(List<List<String>> sections, Set<String> terms, Set<String> titleTerms) {
    }

    /** Where this index's files go: {@link #FOLDER}, or a folder of its own per language on a multilingual site. */
    private final String folder;

    public SearchIndex(String folder) {
        this(folder, null, false);
    }

    /**
     * @param previous the same folder's index from the preview's previous build, or null: its term shards are reused
     *                 where no term of theirs changed its pages, so an edit writes again only the shards it reaches
     * @param kept whether a next build will be handed this index as its previous one (the preview): only then are the
     *             page files it made remembered, by page entry, for that build to reuse
     */
    public SearchIndex(String folder, SearchIndex previous, boolean kept) {
        this.folder = folder;
        this.previous = previous;
        this.joined = kept ? new IdentityHashMap<>() : null;
    }

    /** A page file as {@link #join} wrote it: the same entry at the same page and first section writes the same text. */
    private record Joined(int page, int firstSection, String text) {
    }

    /**
     * Page entry → its page file, when this index is kept for a next build. A page the render memo reused hands over the
     * same entry object, so its file is known without writing its sections out as JSON again.
     */
    private final Map<PageEntry, Joined> joined;

    /** The previous build's index until {@link #files()} is made (then dropped: indexes never chain). */
    private SearchIndex previous;
    /** The term shards {@link #files()} made, by number: what a next build may reuse. */
    private String[] shardFiles;

    /** Term → pages holding it, ascending (pages are joined in order). */
    private final Map<String, PageList> postings = new HashMap<>();
    private final Map<String, PageList> titlePostings = new HashMap<>();
    private int pages;
    private int sections;

    /**
     * Reads a rendered page, one section per heading (the text before the first h2, then each h2/h3),
     * without changing it: the same tree then gets its anchors and links.
     */
    public static PageEntry extract(String url, String pageTitle, Element content) {
        List<List<String>> sections = new ArrayList<>();
        Set<String> terms = new HashSet<>();
        Set<String> titleTerms = new HashSet<>();
        String heading = pageTitle;
        String anchor = "";
        StringBuilder text = new StringBuilder();
        for (Element element : content.children()) {
            if (element.tagName().equals("h2") || element.tagName().equals("h3")) {
                section(url + anchor, pageTitle, heading, text, sections, terms, titleTerms);
                heading = element.text();
                anchor = "#" + element.id();
                text.setLength(0);
            } else if (!skipped(element, isSvg(element))) {
                appendText(element, isSvg(element), text);
                text.append(' ');
            }
        }
        section(url + anchor, pageTitle, heading, text, sections, terms, titleTerms);
        collectTerms(pageTitle, titleTerms);
        return new PageEntry(sections, terms, titleTerms);
    }

    /** @param inSvg whether the element is an {@code <svg>} or inside one (the content root never is) */
    private static boolean skipped(Element element, boolean inSvg) {
        if (SKIPPED_TAGS.contains(element.tagName()) && (!element.tagName().equals("title") || inSvg)) {
            return true; // a diagram's <title> is its tooltip, already said in the text around it
        }
        for (String name : element.classNames()) {
            if (SKIPPED_CLASSES.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /** What {@code closest("svg")} matches on the element itself. */
    private static boolean isSvg(Element element) {
        return element.normalName().equals("svg");
    }

    /**
     * @param inSvg whether {@code node} is an {@code <svg>} or inside one: carried down the walk instead of asking each
     *              element for its closest svg (a selector parsed and the ancestors walked per element, 6 % of rendering)
     */
    private static void appendText(Node node, boolean inSvg, StringBuilder out) {
        for (Node child : node.childNodes()) {
            if (child instanceof TextNode text) {
                out.append(text.getWholeText());
            } else if (child instanceof Element element) {
                boolean elementInSvg = inSvg || isSvg(element);
                if (skipped(element, elementInSvg)) {
                    continue;
                }
                // Words of separate boxes stay separate words: blocks, line breaks, and the labels of a drawing
                // (an SVG's texts are inline to jsoup), so that `a_begin` and `a_commit` are not indexed as one.
                boolean boundary = element.isBlock() || element.tagName().equals("br") || elementInSvg;
                if (boundary) {
                    out.append(' ');
                }
                appendText(child, elementInSvg, out);
                if (boundary) {
                    out.append(' ');
                }
            }
        }
    }

    private static void section(String url, String pageTitle, String heading, StringBuilder text, List<List<String>> sections,
                                Set<String> terms, Set<String> titleTerms) {
        String body = collapseWhitespace(text);
        sections.add(List.of(url, pageTitle, heading, body.length() > PASSAGE_TEXT ? body.substring(0, PASSAGE_TEXT) : body));
        collectTerms(heading, terms);
        collectTerms(body, terms);
        // Pages whose title or a heading holds a term rank first (the title's own terms are added once, in extract).
        collectTerms(heading, titleTerms);
    }

    /** Runs of whitespace as one space, trimmed (the passage shown under a result): {@code \s+} → " ", then strip(). */
    private static String collapseWhitespace(CharSequence text) {
        StringBuilder out = new StringBuilder(text.length());
        boolean inRun = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean space = c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
            if (!space) {
                out.append(c);
            } else if (!inRun) {
                out.append(' ');
            }
            inRun = space;
        }
        return out.toString().strip();
    }

    /**
     * Joins a page to the index as the next page, and returns the script of its own file
     * ({@code p-N.js}, its sections), to be written now: only the postings stay in memory.
     */
    public String join(PageEntry entry) {
        int page = pages++;
        for (String term : entry.terms()) {
            postings.computeIfAbsent(term, k -> new PageList()).add(page);
        }
        for (String term : entry.titleTerms()) {
            titlePostings.computeIfAbsent(term, k -> new PageList()).add(page);
        }
        int firstSection = sections;
        Joined before = previous == null || previous.joined == null ? null : previous.joined.get(entry);
        String text;
        if (before != null && before.page() == page && before.firstSection() == firstSection) {
            sections += entry.sections().size();
            text = before.text();
        } else {
            List<List<Object>> pageSections = new ArrayList<>();
            for (List<String> section : entry.sections()) {
                List<Object> numbered = new ArrayList<>();
                numbered.add(sections++);
                numbered.addAll(section);
                pageSections.add(numbered);
            }
            try {
                text = "window.__kenshoSearch.page(" + page + "," + JSON.writeValueAsString(pageSections) + ");\n";
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        if (joined != null) {
            joined.put(entry, new Joined(page, firstSection, text));
        }
        return text;
    }

    /** Where page N's own file goes. */
    public String pageFile(int page) {
        return folder + "p-" + page + ".js";
    }

    /** The number of pages joined so far. */
    public int pages() {
        return pages;
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Ascending page numbers, stored as ints: a term on every page of 10,000 costs 40 KB, not a set of boxed numbers. */
    private static final class PageList {
        private int[] pages = new int[4];
        private int size;

        void add(int page) {
            if (size > 0 && pages[size - 1] == page) {
                return;
            }
            if (size == pages.length) {
                pages = Arrays.copyOf(pages, size * 2);
            }
            pages[size++] = page;
        }

        /** True when {@code other} holds the same pages. */
        boolean samePages(PageList other) {
            return other != null && other.size == size && Arrays.equals(pages, 0, size, other.pages, 0, size);
        }

        static boolean same(PageList a, PageList b) {
            return a == null ? b == null : a.samePages(b);
        }

        /** How many runs {@link #runs()} lists (it lists two numbers for each). */
        int runCount() {
            int count = 0;
            for (int i = 0; i < size; i++) {
                if (i == 0 || pages[i] != pages[i - 1] + 1) {
                    count++;
                }
            }
            return count;
        }

        /** Consecutive pages as runs: the gap before each run, then its length. A term on every page is two numbers. */
        List<Integer> runs() {
            List<Integer> out = new ArrayList<>();
            int end = 0;
            int i = 0;
            while (i < size) {
                int start = pages[i];
                int length = 1;
                while (i + length < size && pages[i + length] == start + length) {
                    length++;
                }
                out.add(start - end);
                out.add(length);
                end = start + length;
                i += length;
            }
            return out;
        }
    }

    /** The terms of a text: Latin words whole, kanji/kana runs as overlapping pairs of characters. */
    public static Set<String> terms(String text) {
        Set<String> terms = new LinkedHashSet<>();
        collectTerms(text, terms);
        return terms;
    }

    /** Adds the terms of a text to a set (see {@link #terms}). */
    private static void collectTerms(String text, Set<String> terms) {
        String normalized = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
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
    }

    /** Hiragana as katakana, so that ぺーじ finds ページ. */
    static int foldKana(int c) {
        return c >= 0x3041 && c <= 0x3096 ? c + 0x60 : c;
    }

    private static boolean isWordChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }

    static boolean isCjk(int c) {
        // The common blocks first (kana, unified ideographs); the script table only for the rest.
        if (c >= 0x4E00 && c <= 0x9FFC) {
            return true;
        }
        if (c >= 0x3041 && c <= 0x30FF) {
            // Kana, except the marks and punctuation Unicode files under Common or Inherited (as search.js reads them).
            return !(c >= 0x3099 && c <= 0x309C) && c != 0x30A0 && c != 0x30FB && c != 0x3097 && c != 0x3098;
        }
        if (c < 0x2E80) {
            return false;
        }
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

    /** A run of CJK characters as its character pairs (bigrams), or the character itself when it stands alone. */
    private static void flushCjk(StringBuilder run, Set<String> terms) {
        if (run.length() == 0) {
            return;
        }
        String text = run.toString();
        run.setLength(0);
        int second = text.offsetByCodePoints(0, 1);
        if (second == text.length()) {
            terms.add(text);
            return;
        }
        for (int start = 0, next = second; next < text.length(); ) {
            int end = text.offsetByCodePoints(next, 1);
            terms.add(text.substring(start, end));
            start = next;
            next = end;
        }
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

    /**
     * Output path → script text of the index's shared files: the term shards and index.js (page files were written as
     * pages joined). A shard is made again only when one of its terms is new, gone or on other pages than in the previous
     * index (when there is one and it had as many shards); otherwise its text is the previous one's, which is what
     * making it again would give: the output is a full build's byte for byte.
     */
    public Map<String, String> files() {
        Map<String, String> files = new LinkedHashMap<>();
        try {
            long estimate = 0;
            for (Map.Entry<String, PageList> posting : postings.entrySet()) {
                PageList titled = titlePostings.get(posting.getKey());
                estimate += posting.getKey().length() * 3L + posting.getValue().runCount() * 6L
                        + (titled == null ? 0 : titled.runCount() * 6L) + 8;
            }
            int shards = Integer.highestOneBit((int) Math.max(1, Math.min(4096, estimate / SHARD_BYTES))) * 2;
            boolean[] changed = changedShards(shards);
            List<Map<String, List<List<Integer>>>> shardMaps = new ArrayList<>();
            for (int i = 0; i < shards; i++) {
                shardMaps.add(changed[i] ? new TreeMap<>() : null);
            }
            // Runs are written out only for the shards made again: a reused shard's text already holds its terms'.
            postings.forEach((term, pagesOf) -> {
                Map<String, List<List<Integer>>> shard = shardMaps.get(shardOf(term, shards));
                if (shard != null) {
                    PageList titled = titlePostings.get(term);
                    shard.put(term, List.of(pagesOf.runs(), titled == null ? List.of() : titled.runs()));
                }
            });
            shardFiles = new String[shards];
            for (int i = 0; i < shards; i++) {
                shardFiles[i] = changed[i] ? "window.__kenshoSearch.terms(" + i + "," + JSON.writeValueAsString(shardMaps.get(i)) + ");\n"
                        : previous.shardFiles[i];
                files.put(folder + "t-" + i + ".js", shardFiles[i]);
            }
            previous = null;
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("shards", shards);
            meta.put("pages", pages);
            files.put(folder + "index.js", "window.__kenshoSearch.meta(" + JSON.writeValueAsString(meta) + ");\n");
            return files;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Which of {@code shards} term shards must be made: all without a previous index of as many shards. */
    private boolean[] changedShards(int shards) {
        boolean[] changed = new boolean[shards];
        if (previous == null || previous.shardFiles == null || previous.shardFiles.length != shards) {
            Arrays.fill(changed, true);
            return changed;
        }
        for (Map.Entry<String, PageList> posting : postings.entrySet()) {
            String term = posting.getKey();
            if (!posting.getValue().samePages(previous.postings.get(term))
                    || !PageList.same(titlePostings.get(term), previous.titlePostings.get(term))) {
                changed[shardOf(term, shards)] = true;
            }
        }
        for (String term : previous.postings.keySet()) {
            if (!postings.containsKey(term)) {
                changed[shardOf(term, shards)] = true;
            }
        }
        return changed;
    }
}
