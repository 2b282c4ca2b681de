package dev.kensho.sqlchecks.assertion;

import java.util.List;

/** Prints rows the way psql's aligned format does, with a marker column for rows that differ. */
final class PsqlTable {

    private PsqlTable() {
    }

    static String format(List<String> columns, List<List<String>> rows, List<Boolean> marked) {
        int[] widths = new int[columns.size()];
        for (int c = 0; c < columns.size(); c++) {
            widths[c] = columns.get(c).length();
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], c < row.size() ? row.get(c).length() : 0);
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("   ").append(line(columns, widths)).append('\n');
        out.append("   ");
        for (int c = 0; c < widths.length; c++) {
            out.append(c == 0 ? "" : "+").append("-".repeat(widths[c] + 2));
        }
        out.append('\n');
        for (int r = 0; r < rows.size(); r++) {
            out.append(marked.get(r) ? " > " : "   ").append(line(rows.get(r), widths)).append('\n');
        }
        out.append("   (").append(rows.size()).append(rows.size() == 1 ? " row)\n" : " rows)\n");
        return out.toString();
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder out = new StringBuilder();
        for (int c = 0; c < widths.length; c++) {
            String cell = c < cells.size() ? cells.get(c) : "";
            out.append(c == 0 ? " " : " | ").append(cell).append(" ".repeat(widths[c] - cell.length()));
        }
        return out.toString().stripTrailing();
    }
}
