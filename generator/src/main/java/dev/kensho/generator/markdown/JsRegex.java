package dev.kensho.generator.markdown;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expressive Code's regex markers are JavaScript regular expressions; Java reads a few things differently. This
 * rewrites the JavaScript source (without the u flag, as browsers read it under Annex B) into a Java pattern of the
 * same meaning: a brace that starts no quantifier is a literal ({@code /{ extend: .+ }/}), {@code [} and {@code &&}
 * inside a class are literals, {@code [^]} matches any character and {@code []} none.
 */
final class JsRegex {

    private static final Pattern QUANTIFIER = Pattern.compile("\\{\\d+(,\\d*)?}");

    private JsRegex() {
    }

    static String toJava(String js) {
        StringBuilder java = new StringBuilder(js.length() + 8);
        boolean inClass = false;
        for (int i = 0; i < js.length(); i++) {
            char c = js.charAt(i);
            if (c == '\\' && i + 1 < js.length()) {
                java.append(c).append(js.charAt(++i));
                continue;
            }
            if (inClass) {
                if (c == ']') {
                    inClass = false;
                    java.append(c);
                } else if (c == '[' || c == '&') {
                    java.append('\\').append(c);
                } else {
                    java.append(c);
                }
                continue;
            }
            if (c == '[') {
                if (js.startsWith("[^]", i)) {
                    java.append("[\\s\\S]");
                    i += 2;
                } else if (js.startsWith("[]", i)) {
                    java.append("(?!)");
                    i += 1;
                } else {
                    inClass = true;
                    java.append(c);
                    if (i + 1 < js.length() && js.charAt(i + 1) == '^') {
                        java.append('^');
                        i++;
                    }
                    // A ']' first in a class closes it in JavaScript (an empty class) but is a literal in Java.
                }
                continue;
            }
            if (c == '{') {
                Matcher quantifier = QUANTIFIER.matcher(js).region(i, js.length());
                if (quantifier.lookingAt() && i > 0) {
                    java.append(quantifier.group());
                    i = quantifier.end() - 1;
                } else {
                    java.append("\\{");
                }
                continue;
            }
            java.append(c == '}' ? "\\}" : String.valueOf(c));
        }
        return java.toString();
    }
}
