package dev.kensho.generator.markdown;

import dev.kensho.sqlchecks.assertion.BoundedMatch;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Expressive Code's text and regex markers: {@code "text"}, {@code ins="text"}, {@code del=/re(gex)/}
 * mark every occurrence in a code block with {@code <mark>}, {@code <ins>} or {@code <del>}. Marks are
 * laid over the highlighted HTML by character position in the plain text, closed and reopened around
 * token spans and line breaks so that the HTML stays well nested.
 */
public final class TextMarks {

    private TextMarks() {
    }

    /** A marker that cannot be applied; the message names it. */
    public static final class Problem extends Exception {
        Problem(String message) {
            super(message);
        }
    }

    /** Markers one fence may carry: each is a pass over the block. */
    static final int MAX_MARKERS = 32;

    /**
     * The kind ("mark", "ins", "del") of every character of the plain text, or null where unmarked; later markers win.
     *
     * @param deadline when regular expressions must be done ({@link BoundedMatch#deadline()}), shared by a page's fences
     */
    static String[] kinds(String text, List<FenceInfo.TextMarker> markers, long deadline) throws Problem {
        if (markers.size() > MAX_MARKERS) {
            throw new Problem(markers.size() + " text markers on one fence; at most " + MAX_MARKERS);
        }
        String[] kinds = new String[text.length()];
        for (FenceInfo.TextMarker marker : markers) {
            if (marker.text().isEmpty()) {
                throw new Problem(marker.kind() + " marker is empty; write the text to mark between the quotes");
            }
            if (!marker.regex()) {
                for (int at = text.indexOf(marker.text()); at >= 0; at = text.indexOf(marker.text(), at + marker.text().length())) {
                    fill(kinds, at, at + marker.text().length(), marker.kind());
                }
                continue;
            }
            Pattern pattern;
            try {
                pattern = Pattern.compile(JsRegex.toJava(marker.text()));
            } catch (PatternSyntaxException e) {
                throw new Problem("marker /" + marker.text() + "/ is not a valid regular expression: " + e.getDescription());
            }
            try {
                for (int[] span : BoundedMatch.findAll(pattern, text, "marker", deadline)) {
                    fill(kinds, span[0], span[1], marker.kind());
                }
            } catch (BoundedMatch.TooSlow e) {
                throw new Problem(e.getMessage());
            } catch (StackOverflowError e) {
                // Java's regex engine recurses once per repetition of a group such as (a|b)*: a long line exhausts the stack.
                throw new Problem("marker /" + marker.text() + "/ repeats a group too many times on this code to match; "
                        + "mark a shorter piece, or write it without a repeated group");
            }
        }
        return kinds;
    }

    private static void fill(String[] kinds, int from, int to, String kind) {
        for (int i = from; i < to; i++) {
            kinds[i] = kind;
        }
    }

    /** Lays the marks over highlighted HTML whose text (entities decoded) is the plain text the kinds were found in. */
    public static String apply(String html, String[] kinds) {
        StringBuilder out = new StringBuilder(html.length() + 64);
        String open = null;
        int position = 0;
        int i = 0;
        while (i < html.length()) {
            char c = html.charAt(i);
            if (c == '<') {
                int end = html.indexOf('>', i);
                if (open != null) {
                    out.append("</").append(open).append('>');
                    open = null;
                }
                out.append(html, i, end + 1);
                i = end + 1;
                continue;
            }
            int next = c == '&' && html.indexOf(';', i) > 0 ? html.indexOf(';', i) + 1 : i + 1;
            String kind = c == '\n' || position >= kinds.length ? null : kinds[position];
            if (!Objects.equals(kind, open)) {
                if (open != null) {
                    out.append("</").append(open).append('>');
                }
                if (kind != null) {
                    out.append('<').append(kind).append('>');
                }
                open = kind;
            }
            out.append(html, i, next);
            position++;
            i = next;
        }
        if (open != null) {
            out.append("</").append(open).append('>');
        }
        return out.toString();
    }
}
