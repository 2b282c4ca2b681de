package dev.kensho.generator.markdown;

import com.vladsch.flexmark.util.ast.Node;
import com.vladsch.flexmark.util.sequence.BasedSequence;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;

import java.util.List;
import java.util.Locale;

/**
 * Refuses Unicode's bidirectional controls in code blocks, as rustc's {@code text_direction_codepoint_in_literal}
 * and {@code text_direction_codepoint_in_comment} lints deny them: they reorder how a line is displayed without
 * changing what runs, so a {@code WHERE} a reader sees as code can sit inside a comment (Trojan Source,
 * CVE-2021-42574). Any fence counts, run or not, and inline code too: a reader copies the code of each.
 */
final class BidiControls {

    /** At most this many are reported per fence; the first ones say what to do. */
    private static final int MAX_REPORTED = 5;

    private BidiControls() {
    }

    /** The problem with the first control in a component's code attribute, or null when it holds none. */
    static String problem(String code) {
        for (int i = 0; i < code.length(); i++) {
            if (Diagnostic.isBidiControl(code.charAt(i))) {
                return "code=\"…\": " + message(code.charAt(i));
            }
        }
        return null;
    }

    private static String message(char c) {
        return String.format(Locale.ROOT, "bidirectional control character U+%04X (%s) in a code block: it changes the "
                + "order the code is displayed in, not the order it runs in, so readers could see code that is not "
                + "what runs; remove it (write it as an escape such as U&'\\%04X' if the text needs it)",
                (int) c, Character.getName(c), (int) c);
    }

    /** Reports each control in the code (a fence with its info string and closing line, or inline code) at its own line and column. */
    static void check(Node code, Page page, String body, List<Diagnostic> diagnostics) {
        BasedSequence chars = code.getChars();
        int reported = 0;
        for (int i = 0; i < chars.length() && reported < MAX_REPORTED; i++) {
            char c = chars.charAt(i);
            if (!Diagnostic.isBidiControl(c)) {
                continue;
            }
            int offset = chars.getStartOffset() + i;
            int lineStart = body.lastIndexOf('\n', offset - 1) + 1;
            int lineEnd = body.indexOf('\n', offset);
            String source = body.substring(lineStart, lineEnd < 0 ? body.length() : lineEnd);
            diagnostics.add(Diagnostic.at(page.displayPath(), code.getDocument().getLineNumber(offset) + 1, offset - lineStart + 1,
                    message(c), source));
            reported++;
        }
    }
}
