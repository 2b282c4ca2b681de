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

/**
 * Full-text search built at build time. Japanese has no spaces between words, so text is cut into
 * character bigrams inside runs of kanji and kana, and into whole words inside runs of Latin letters,
 * digits and underscores (so {@code ON CONFLICT} and {@code created_at} are found). The browser cuts
 * queries the same way ({@code site/assets/search.js} mirrors {@link #terms(String)}). The index is a
 * script, not JSON, so search works from the file system too.
 */
public final class SearchIndex {

    /** Characters of a section kept for showing the matching passage. */
    private static final int PASSAGE_TEXT = 4000;

    private final List<List<String>> sections = new ArrayList<>();
    private final Map<String, Set<Integer>> postings = new LinkedHashMap<>();

    /** Adds a rendered page, one entry per section (the text before the first h2, then each h2/h3). */
    public void add(String url, String pageTitle, String articleHtml) {
        Document document = Jsoup.parseBodyFragment(articleHtml);
        document.select(".anchor, .evidence, .scenario-source, script, style, svg title").remove();
        String heading = pageTitle;
        String anchor = "";
        StringBuilder text = new StringBuilder();
        int count = 0;
        for (Element element : document.body().children()) {
            if (element.tagName().matches("h[23]")) {
                count += flush(url, anchor, pageTitle, heading, text);
                heading = element.text();
                anchor = "#" + element.id();
                text.setLength(0);
            } else {
                appendText(element, text);
                text.append(' ');
            }
        }
        count += flush(url, anchor, pageTitle, heading, text);
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

    private int flush(String url, String anchor, String pageTitle, String heading, StringBuilder text) {
        String body = text.toString().replaceAll("\\s+", " ").strip();
        int id = sections.size();
        sections.add(List.of(url + anchor, pageTitle, heading, body.length() > PASSAGE_TEXT ? body.substring(0, PASSAGE_TEXT) : body));
        // The page's own entry (before its first heading) also answers to the page title.
        for (String term : terms(heading + " " + body)) {
            postings.computeIfAbsent(term, k -> new LinkedHashSet<>()).add(id);
        }
        return 1;
    }

    /** Appends another index's sections after this one's (pages are indexed apart, then joined in order). */
    public void addAll(SearchIndex other) {
        int offset = sections.size();
        sections.addAll(other.sections);
        other.postings.forEach((term, ids) -> {
            Set<Integer> target = postings.computeIfAbsent(term, k -> new LinkedHashSet<>());
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
            int c = normalized.codePointAt(i);
            i += Character.charCount(c);
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

    /** The index as a script that sets {@code window.KENSHO_SEARCH}. */
    public String script() {
        Map<String, Object> index = new LinkedHashMap<>();
        index.put("sections", sections);
        Map<String, Object> compact = new LinkedHashMap<>();
        postings.forEach((term, ids) -> compact.put(term, ids));
        index.put("terms", compact);
        try {
            return "window.KENSHO_SEARCH=" + new ObjectMapper().writeValueAsString(index) + ";\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
