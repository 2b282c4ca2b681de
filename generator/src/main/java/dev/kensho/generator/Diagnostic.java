package dev.kensho.generator;

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

    /** The full multi-line rendering. */
    public String format() {
        StringBuilder out = new StringBuilder();
        out.append(location()).append(": error: ").append(message);
        if (code != null) {
            out.append(" [").append(code).append(']');
        }
        out.append('\n');
        if (sourceLine != null) {
            String number = Integer.toString(line);
            String gutter = " ".repeat(number.length());
            out.append(' ').append(number).append(" | ").append(sourceLine.replace('\t', ' ')).append('\n');
            out.append(' ').append(gutter).append(" | ").append(" ".repeat(Math.max(0, column - 1))).append("^\n");
        }
        for (String note : notes) {
            out.append("  = ").append(note.replace("\n", "\n    ")).append('\n');
        }
        return out.toString();
    }
}
