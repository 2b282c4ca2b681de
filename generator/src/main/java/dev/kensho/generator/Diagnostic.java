package dev.kensho.generator;

import dev.kensho.sqlchecks.script.PsqlFormat;

import java.util.ArrayList;
import java.util.List;

/**
 * One problem found in the author's sources, printed the way compilers print theirs:
 * {@code file:line:col: error: message [SQLSTATE]}, the source line, a caret, then notes.
 *
 * @param file       path as the author would type it (relative to the working directory where possible)
 * @param line       1-based line
 * @param column     1-based column
 * @param message    what is wrong
 * @param code       a short code such as an SQLSTATE, or null
 * @param sourceLine the offending line as written, or null
 * @param notes      further lines ("detail: …", "hint: …")
 */
public record Diagnostic(String file, int line, int column, String message, String code, String sourceLine,
                         List<String> notes) {

    public Diagnostic {
        notes = List.copyOf(notes);
    }

    public static Diagnostic at(String file, int line, int column, String message, String sourceLine) {
        return new Diagnostic(file, line, column, message, null, sourceLine, List.of());
    }

    public String location() {
        return file + ":" + line + ":" + column;
    }

    /**
     * The full multi-line rendering ({@link #lines}, each ended by a line feed).
     */
    public String format() {
        StringBuilder out = new StringBuilder();
        for (String line : lines()) {
            out.append(line).append('\n');
        }
        return out.toString();
    }

    /**
     * The rendering, line by line. Everything a contributor or the server wrote is shown with its
     * control characters and line breaks escaped (an ANSI escape in a file name must not drive the
     * terminal, a newline in a RAISE message must not start a line of its own), and the caret sits
     * under the column as a terminal shows it (CJK characters are two columns wide). A note keeps the
     * lines Kensho laid out (a table of expected and actual rows), each indented under it.
     */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        lines.add(printable(location()) + ": error: " + printable(message) + (code == null ? "" : " [" + printable(code) + "]"));
        if (sourceLine != null) {
            String number = Integer.toString(line);
            String gutter = " ".repeat(number.length());
            String shown = printable(sourceLine.replace('\t', ' '));
            String plain = sourceLine.replace('\t', ' ');
            String before = printable(plain.substring(0, Math.min(plain.length(), Math.max(0, column - 1))));
            lines.add(" " + number + " | " + shown);
            lines.add(" " + gutter + " | " + " ".repeat(PsqlFormat.width(before)) + "^");
        }
        for (String note : notes) {
            String[] parts = note.split("\n", -1);
            lines.add("  = " + printable(parts[0]));
            for (int i = 1; i < parts.length; i++) {
                lines.add("    " + printable(parts[i]));
            }
        }
        return lines;
    }

    /**
     * Unicode's bidirectional controls: the embeddings, overrides and isolates (U+202A–U+202E,
     * U+2066–U+2069) and the marks U+200E, U+200F and U+061C, the set rustc's text_direction_codepoint lints deny.
     */
    public static boolean isBidiControl(int c) {
        return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C;
    }

    /**
     * The text as one line: control characters and every line break (LF as {@code \\n}; CR, VT, FF, NEL,
     * U+2028 and U+2029 as {@code \\u} escapes) escaped, so that text a contributor or the server wrote
     * never starts a line of its own on a console or in a CI log.
     */
    public static String printable(String text) {
        // Bidirectional controls too: a terminal would reorder the line around them.
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                out.append("\\n");
            } else if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029 || isBidiControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
