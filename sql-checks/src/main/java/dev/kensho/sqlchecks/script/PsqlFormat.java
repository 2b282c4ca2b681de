package dev.kensho.sqlchecks.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * psql's aligned output format, which is the contract for expected rows: authors copy what psql
 * prints, and Kensho prints results the same way. Values are shown as psql 18 shows them (newlines
 * continue on the next line with a {@code +} at the cell's edge, a tab advances to the next multiple
 * of 8, {@code \r} and other control characters are escaped as psql's {@code pg_wcsformat} escapes
 * them: C0 controls and DEL as {@code \xHH}, C1 controls (U+0080 to U+009F) as a backslash, u and four hex digits, each
 * as wide as its escape), widths are psql's own ({@link PsqlCharWidth}), numbers are
 * right-aligned. A result without columns prints as psql prints it: {@code --} and the footer. NULL is shown as {@value #NULL}, as
 * {@code \pset null '(null)'} makes psql show it, so that it cannot be mistaken for an empty string.
 */
public final class PsqlFormat {

    /** How NULL is written in expected rows and shown in results. */
    public static final String NULL = "(null)";

    /** Types psql right-aligns. */
    private static final Set<String> NUMERIC = Set.of("int2", "int4", "int8", "float4", "float8", "numeric", "oid", "xid",
            "xid8", "cid", "money", "serial", "bigserial", "smallserial");

    private PsqlFormat() {
    }

    public static boolean rightAligned(String type) {
        return type != null && NUMERIC.contains(type);
    }

    /** The lines psql prints for a value (one for a value without a newline). */
    public static List<String> lines(String value) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        int width = 0;
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '\n') {
                lines.add(line.toString());
                line.setLength(0);
                width = 0;
            } else if (cp == '\r') {
                line.append("\\r");
                width += 2;
            } else if (cp == '\t') {
                do {
                    line.append(' ');
                    width++;
                } while (width % 8 != 0);
            } else if (cp < 0x20 || cp == 0x7f) {
                String escaped = String.format("\\x%02X", cp);
                line.append(escaped);
                width += escaped.length();
            } else if (cp >= 0x80 && cp < 0xa0) {
                // psql's ucs_wcwidth gives C1 controls -1; pg_wcsformat then prints a multibyte one as a backslash, u and four hex digits.
                String escaped = String.format("\\u%04X", cp);
                line.append(escaped);
                width += escaped.length();
            } else {
                line.appendCodePoint(cp);
                width += width(cp);
            }
        }
        lines.add(line.toString());
        return lines;
    }

    /** Columns a string takes on a terminal. */
    public static int width(String text) {
        int width = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            width += width(cp);
            i += Character.charCount(cp);
        }
        return width;
    }

    /**
     * Columns one code point takes, as psql's ucs_wcwidth gives them ({@link PsqlCharWidth}). A control character
     * is never measured by psql (it prints its escape instead); here it counts as one column.
     */
    public static int width(int cp) {
        int width = PsqlCharWidth.of(cp);
        return width < 0 ? 1 : width;
    }

    /**
     * Prints a table as psql's aligned format does, footer included.
     *
     * @param rows   values, null for NULL
     * @param marked per row, whether to flag it with {@code >} in a margin (null: no margin)
     */
    public static String format(List<String> columns, List<String> types, List<List<String>> rows, List<Boolean> marked) {
        return format(columns, types, rows, marked, Long.MAX_VALUE);
    }

    /**
     * The table as {@link #format} prints it, or null when that is longer than {@code limit} characters: the
     * printing stops there, so a narrow value in a wide column cannot make the build write gigabytes of padding.
     */
    public static String formatWithin(List<String> columns, List<String> types, List<List<String>> rows, long limit) {
        return format(columns, types, rows, null, limit);
    }

    private static String format(List<String> columns, List<String> types, List<List<String>> rows, List<Boolean> marked, long limit) {
        int n = columns.size();
        if (n == 0) {
            // psql prints no header and no row lines for a result without columns, only "--" and the footer.
            String margin = marked == null ? "" : "   ";
            return margin + "--\n" + margin + footer(rows.size());
        }
        List<List<List<String>>> cells = new ArrayList<>();
        int[] widths = new int[n];
        for (int c = 0; c < n; c++) {
            for (String line : lines(columns.get(c))) {
                widths[c] = Math.max(widths[c], width(line));
            }
        }
        for (List<String> row : rows) {
            List<List<String>> rowCells = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                String value = c < row.size() ? row.get(c) : null;
                List<String> lines = value == null ? List.of(NULL) : lines(value);
                for (String line : lines) {
                    widths[c] = Math.max(widths[c], width(line));
                }
                rowCells.add(lines);
            }
            cells.add(rowCells);
        }
        String margin = marked == null ? "" : "   ";
        StringBuilder out = new StringBuilder();
        List<List<String>> header = new ArrayList<>();
        for (String column : columns) {
            header.add(lines(column));
        }
        appendRow(out, margin, header, widths, types, true);
        out.append(margin);
        for (int c = 0; c < n; c++) {
            out.append(c == 0 ? "" : "+").append("-".repeat(widths[c] + 2));
        }
        out.append('\n');
        for (int r = 0; r < cells.size() && out.length() <= limit; r++) {
            appendRow(out, marked == null ? "" : marked.get(r) ? " > " : "   ", cells.get(r), widths, types, false);
        }
        out.append(margin).append(footer(rows.size()));
        return out.length() > limit ? null : out.toString();
    }

    private static String footer(int rows) {
        return "(" + rows + (rows == 1 ? " row)" : " rows)");
    }

    /** Columns psql gives a result's column: the widest line of its name and of its values. */
    public static int columnWidth(String name, List<List<String>> rows, int column) {
        int width = 0;
        for (String line : lines(name)) {
            width = Math.max(width, width(line));
        }
        for (List<String> row : rows) {
            String value = column < row.size() ? row.get(column) : null;
            for (String line : value == null ? List.of(NULL) : lines(value)) {
                width = Math.max(width, width(line));
            }
        }
        return width;
    }

    /**
     * A one-line column name as psql prints it in a header cell of the given width (border spaces
     * excluded): centred, the odd space going to the right.
     */
    public static String headerCell(String name, int width) {
        String text = lines(name).get(0);
        int pad = Math.max(0, width - width(text));
        return " ".repeat(pad / 2) + text + " ".repeat(pad - pad / 2);
    }

    private static void appendRow(StringBuilder out, String margin, List<List<String>> cells, int[] widths, List<String> types,
                                  boolean header) {
        int height = cells.stream().mapToInt(List::size).max().orElse(1);
        for (int l = 0; l < height; l++) {
            StringBuilder line = new StringBuilder(margin);
            for (int c = 0; c < widths.length; c++) {
                List<String> cell = cells.get(c);
                String text = l < cell.size() ? cell.get(l) : "";
                int pad = widths[c] - width(text);
                boolean right = !header && rightAligned(c < types.size() ? types.get(c) : null);
                int left = header ? pad / 2 : right ? pad : 0;
                line.append(c == 0 ? " " : "| ").append(" ".repeat(left)).append(text).append(" ".repeat(pad - left));
                line.append(l + 1 < cell.size() ? '+' : ' ');
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
