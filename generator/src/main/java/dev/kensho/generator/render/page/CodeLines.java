package dev.kensho.generator.render.page;

import java.util.ArrayList;
import java.util.Deque;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Splits highlighted HTML into one span per line, closing and reopening the token spans that cross
 * a line break, and gives the lines an author named a class, as Expressive Code does: {@code {2,4-5}}
 * or {@code mark={…}} (marked), {@code ins={…}} (inserted), {@code del={…}} (deleted).
 */
final class CodeLines {

    private static final Pattern TAG = Pattern.compile("<span[^>]*>|</span>");

    private CodeLines() {
    }

    static String split(String html, Map<Integer, String> lineClasses) {
        return split(html, lineClasses, Set.of(), count -> "");
    }

    /**
     * @param collapsed lines folded away behind a summary, as Expressive Code's {@code collapse={…}}
     * @param summary   the summary's text for a number of folded lines
     */
    static String split(String html, Map<Integer, String> lineClasses, Set<Integer> collapsed, IntFunction<String> summary) {
        List<String> lines = new ArrayList<>();
        Deque<String> open = new ArrayDeque<>();
        StringBuilder line = new StringBuilder();
        int i = 0;
        Matcher tag = TAG.matcher(html);
        while (i < html.length()) {
            char c = html.charAt(i);
            if (c == '<' && tag.find(i) && tag.start() == i) {
                String text = tag.group();
                if (text.startsWith("</")) {
                    open.pop();
                } else {
                    open.push(text);
                }
                line.append(text);
                i = tag.end();
            } else if (c == '\n') {
                line.append("</span>".repeat(open.size()));
                lines.add(line.toString());
                line = new StringBuilder();
                open.descendingIterator().forEachRemaining(line::append);
                i++;
            } else {
                line.append(c);
                i++;
            }
        }
        lines.add(line.toString());
        StringBuilder out = new StringBuilder();
        for (int n = 0; n < lines.size(); n++) {
            if (collapsed.contains(n + 1) && !collapsed.contains(n)) {
                int count = 0;
                while (collapsed.contains(n + 1 + count) && n + count < lines.size()) {
                    count++;
                }
                // No line break around the section: it is a block of its own inside the <pre>.
                if (out.length() > 0 && out.charAt(out.length() - 1) == '\n') {
                    out.setLength(out.length() - 1);
                }
                out.append("<details class=\"collapsed-lines\"><summary>").append(summary.apply(count)).append("</summary>");
            }
            String kind = lineClasses.get(n + 1);
            out.append(kind == null ? "<span class=\"line\">" : "<span class=\"line " + kind + "\">")
                    .append(lines.get(n)).append("</span>");
            boolean sectionEnds = collapsed.contains(n + 1) && (!collapsed.contains(n + 2) || n == lines.size() - 1);
            if (sectionEnds) {
                out.append("</details>");
            } else if (n < lines.size() - 1) {
                out.append('\n');
            }
        }
        return out.toString();
    }
}
