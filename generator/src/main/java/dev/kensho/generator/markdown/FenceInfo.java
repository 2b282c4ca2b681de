package dev.kensho.generator.markdown;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The text after a fence's backticks: a language, then Expressive Code style meta such as
 * {@code title="keys.sql" setup expect-error=23505}. Bare words become flags with the value "true".
 * A key written twice keeps its first value and is listed in {@code repeated}: a claim must never be
 * silently replaced by another.
 */
public record FenceInfo(String language, Map<String, String> meta, List<String> repeated) {

    public static FenceInfo parse(String info) {
        String text = info.strip();
        int space = indexOfWhitespace(text);
        String language = space < 0 ? text : text.substring(0, space);
        Map<String, String> meta = new LinkedHashMap<>();
        List<String> repeated = new ArrayList<>();
        int i = space < 0 ? text.length() : space;
        while (i < text.length()) {
            while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            int keyStart = i;
            while (i < text.length() && !Character.isWhitespace(text.charAt(i)) && text.charAt(i) != '=') {
                i++;
            }
            String key = text.substring(keyStart, i);
            if (key.isEmpty()) {
                break;
            }
            if (i < text.length() && text.charAt(i) == '=') {
                i++;
                String value;
                if (i < text.length() && (text.charAt(i) == '"' || text.charAt(i) == '\'')) {
                    char quote = text.charAt(i);
                    StringBuilder quoted = new StringBuilder();
                    i++;
                    while (i < text.length() && text.charAt(i) != quote) {
                        // A backslash lets a value hold the quote character itself: "say \"hi\"".
                        if (text.charAt(i) == '\\' && i + 1 < text.length() && text.charAt(i + 1) == quote) {
                            i++;
                        }
                        quoted.append(text.charAt(i));
                        i++;
                    }
                    value = quoted.toString();
                    i = Math.min(text.length(), i + 1);
                } else {
                    int valueStart = i;
                    while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
                        i++;
                    }
                    value = text.substring(valueStart, i);
                }
                if (meta.putIfAbsent(key, value) != null) {
                    repeated.add(key);
                }
            } else if (meta.putIfAbsent(key, "true") != null) {
                repeated.add(key);
            }
        }
        return new FenceInfo(language.toLowerCase(Locale.ROOT), Collections.unmodifiableMap(meta), List.copyOf(repeated));
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
