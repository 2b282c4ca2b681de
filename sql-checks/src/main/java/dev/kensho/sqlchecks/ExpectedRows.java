package dev.kensho.sqlchecks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Rows an author expects a snippet's last statement to return, written the way psql prints them:
 *
 * <pre>
 *  order_id | amount_minor
 * ----------+--------------
 *  a1       |         2800
 * (1 row)
 * </pre>
 *
 * Cells are compared as trimmed text; an empty cell stands for NULL or the empty string, as psql
 * shows both. The footer line is optional but, when present, must agree with the rows.
 *
 * @param columns column names from the header
 * @param rows    cell texts
 */
public record ExpectedRows(List<String> columns, List<List<String>> rows) {

    private static final Pattern SEPARATOR = Pattern.compile("[-+\\s]+");
    private static final Pattern FOOTER = Pattern.compile("\\((\\d+) rows?\\)");

    public ExpectedRows {
        columns = List.copyOf(columns);
        rows = rows.stream().map(List::copyOf).toList();
    }

    /**
     * Parses a psql-style table.
     *
     * @throws InvalidDirectiveException with the 0-based line of the problem in the message
     */
    public static ExpectedRows parse(String text) throws InvalidDirectiveException {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            if (!line.isBlank()) {
                lines.add(line);
            }
        }
        if (lines.size() < 2 || !SEPARATOR.matcher(lines.get(1).strip()).matches() || !lines.get(1).contains("-")) {
            throw new InvalidDirectiveException("expected rows must be a psql-style table: a header line, a line of '-' "
                    + "(and '+'), then one line per row");
        }
        List<String> columns = cells(lines.get(0));
        List<List<String>> rows = new ArrayList<>();
        Integer footer = null;
        for (int i = 2; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            var matcher = FOOTER.matcher(line);
            if (matcher.matches()) {
                footer = Integer.parseInt(matcher.group(1));
                if (i != lines.size() - 1) {
                    throw new InvalidDirectiveException("the '(N rows)' footer must be the table's last line");
                }
                continue;
            }
            List<String> row = cells(lines.get(i));
            if (row.size() != columns.size()) {
                throw new InvalidDirectiveException("row " + (i - 1) + " has " + row.size() + " cell(s) but the header has "
                        + columns.size() + " column(s): " + line);
            }
            rows.add(row);
        }
        if (footer != null && footer != rows.size()) {
            throw new InvalidDirectiveException("the footer says (" + footer + " rows) but the table has " + rows.size());
        }
        return new ExpectedRows(columns, rows);
    }

    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        for (String cell : line.split("\\|", -1)) {
            cells.add(cell.strip());
        }
        return cells;
    }
}
