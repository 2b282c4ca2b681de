package dev.kensho.generator.markdown;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The text after a fence's backticks: a language, then Expressive Code style meta such as
 * {@code title="keys.sql" setup expect-error=23505 {2,4-5} ins={7} "text" del=/re(gex)?/}. Bare words
 * become flags with the value "true"; line ranges in braces are keys of their own; quoted text and
 * {@code /regular expressions/}, bare or after {@code mark=}, {@code ins=} or {@code del=}, are inline
 * markers. A key written twice keeps its first value and is listed in {@code repeated}: a claim must
 * never be silently replaced by another.
 */
public record FenceInfo(String language, Map<String, String> meta, List<String> repeated, List<TextMarker> markers) {

    /** Text to mark wherever it occurs in the block, as Expressive Code's text and regex markers. */
    public record TextMarker(String kind, String text, boolean regex) {
    }

    private static final List<String> MARKER_KINDS = List.of("mark", "ins", "del");

    public static FenceInfo parse(String info) {
        String text = info.strip();
        int space = indexOfWhitespace(text);
        String language = space < 0 ? text : text.substring(0, space);
        Map<String, String> meta = new LinkedHashMap<>();
        List<String> repeated = new ArrayList<>();
        List<TextMarker> markers = new ArrayList<>();
        int i = space < 0 ? text.length() : space;
        while (i < text.length()) {
            while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i >= text.length()) {
                break;
            }
            char first = text.charAt(i);
            if (first == '"' || first == '\'' || first == '/') {
                int end = closing(text, i);
                markers.add(new TextMarker("mark", unescape(text.substring(i + 1, end), first), first == '/'));
                i = Math.min(text.length(), end + 1);
                continue;
            }
            if (first == '{') {
                int end = text.indexOf('}', i);
                end = end < 0 ? text.length() - 1 : end;
                String key = text.substring(i, end + 1);
                if (meta.putIfAbsent(key, "true") != null) {
                    repeated.add(key);
                }
                i = end + 1;
                continue;
            }
            int keyStart = i;
            while (i < text.length() && !Character.isWhitespace(text.charAt(i)) && text.charAt(i) != '=') {
                i++;
            }
            String key = text.substring(keyStart, i);
            if (i < text.length() && text.charAt(i) == '=') {
                i++;
                char opener = i < text.length() ? text.charAt(i) : ' ';
                String value;
                boolean marker = MARKER_KINDS.contains(key) && (opener == '"' || opener == '\'' || opener == '/');
                if (opener == '"' || opener == '\'' || (marker && opener == '/')) {
                    int end = closing(text, i);
                    value = unescape(text.substring(i + 1, end), opener);
                    i = Math.min(text.length(), end + 1);
                } else if (opener == '{') {
                    int end = text.indexOf('}', i);
                    end = end < 0 ? text.length() - 1 : end;
                    value = text.substring(i, end + 1);
                    i = end + 1;
                } else {
                    int valueStart = i;
                    while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
                        i++;
                    }
                    value = text.substring(valueStart, i);
                }
                if (marker) {
                    markers.add(new TextMarker(key, value, opener == '/'));
                } else if (meta.putIfAbsent(key, value) != null) {
                    repeated.add(key);
                }
            } else if (meta.putIfAbsent(key, "true") != null) {
                repeated.add(key);
            }
        }
        return new FenceInfo(language.toLowerCase(Locale.ROOT), Collections.unmodifiableMap(meta), List.copyOf(repeated), List.copyOf(markers));
    }

    /** The index of the quote or slash closing the one at {@code open} (a backslash escapes it), or the end of the text. */
    private static int closing(String text, int open) {
        char quote = text.charAt(open);
        for (int i = open + 1; i < text.length(); i++) {
            if (text.charAt(i) == '\\' && i + 1 < text.length() && text.charAt(i + 1) == quote) {
                i++;
            } else if (text.charAt(i) == quote) {
                return i;
            }
        }
        return text.length();
    }

    /** A backslash lets a value hold its quote character: "say \"hi\"". In a regular expression the escape stays. */
    private static String unescape(String value, char quote) {
        return quote == '/' ? value.replace("\\/", "/") : value.replace("\\" + quote, String.valueOf(quote));
    }

    private static int indexOfWhitespace(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isWhitespace(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
