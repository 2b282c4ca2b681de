package dev.kensho.sqlchecks.model;

import dev.kensho.sqlchecks.script.PsqlFormat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rows an author expects a statement to return, written exactly as psql prints them in its aligned
 * format (see {@link PsqlFormat}):
 *
 * <pre>
 *  order_id | amount_minor | note
 * ----------+--------------+--------
 *  a1       |         2800 | (null)
 * (1 row)
 * </pre>
 *
 * Cells are read by the column positions of the dashed line, so a {@code |} inside a value, a
 * multi-line value ({@code +} at the cell's edge), leading spaces and a row of empty cells all mean
 * what psql meant. A table whose lines do not line up (typed by hand) is split at {@code |} instead.
 * {@value PsqlFormat#NULL} stands for NULL; an empty cell is the empty string. Trailing spaces of
 * values are never significant (psql's padding hides them). The {@code (N rows)} footer is optional
 * but must agree with the rows. A result without columns is written as psql prints it, {@code --}
 * and the footer (which is then required: nothing else says how many rows there are).
 *
 * @param columns     column names from the header (for display; see {@link #headerCells})
 * @param rows        cell texts as written, without psql's padding; a multi-line value joined with \n
 * @param headerCells when the header is one line laid out as psql prints it, each column's header cell
 *                    exactly as written between the border spaces (the last one as an editor may have
 *                    trimmed it), so that a name is compared as psql printed it, spaces included; else null
 * @param widths      with headerCells, each column's width from the dashed line (its dashes less the two
 *                    border spaces); else null
 */
public record ExpectedRows(List<String> columns, List<List<String>> rows, List<String> headerCells, List<Integer> widths) {

    public ExpectedRows(List<String> columns, List<List<String>> rows) {
        this(columns, rows, null, null);
    }

    private static final Pattern SEPARATOR = Pattern.compile("-[-+]*");
    private static final Pattern FOOTER = Pattern.compile("\\((\\d+) rows?\\)");

    public ExpectedRows {
        columns = List.copyOf(columns);
        rows = rows.stream().map(List::copyOf).toList();
        headerCells = headerCells == null ? null : List.copyOf(headerCells);
        widths = widths == null ? null : List.copyOf(widths);
    }

    /**
     * Parses a psql-style table.
     *
     * @throws InvalidDirectiveException naming the 1-based line of the table at fault
     */
    public static ExpectedRows parse(String text) throws InvalidDirectiveException {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int first = 0;
        while (first < lines.size() && lines.get(first).isBlank()) {
            first++;
        }
        int separator = -1;
        for (int i = first; i < lines.size(); i++) {
            if (SEPARATOR.matcher(lines.get(i).strip()).matches()) {
                separator = i;
                break;
            }
        }
        if (separator == first && lines.get(separator).strip().equals("--")) {
            return withoutColumns(lines, separator);
        }
        if (separator <= first) {
            throw new InvalidDirectiveException("expected rows must be a psql-style table: a header line, a line of '-' "
                    + "(and '+'), then one line per row");
        }
        int end = lines.size();
        while (end > separator + 1 && lines.get(end - 1).isBlank()) {
            end--;
        }
        // Read as a BigInteger: '(99999999999 rows)' is a footer that disagrees with the rows, not an int that overflows.
        BigInteger footer = null;
        if (end > separator + 1) {
            Matcher matcher = FOOTER.matcher(lines.get(end - 1).strip());
            if (matcher.matches()) {
                footer = new BigInteger(matcher.group(1));
                end--;
            }
        }
        for (int i = separator + 1; i < end; i++) {
            if (FOOTER.matcher(lines.get(i).strip()).matches()) {
                throw new InvalidDirectiveException("line " + (i + 1) + ": the '(N rows)' footer must be the table's last line");
            }
        }
        if (footer == null) {
            // Without a footer a trailing blank line cannot be told from the fence's end.
            while (end > separator + 1 && lines.get(end - 1).isBlank()) {
                end--;
            }
        }
        Layout layout = Layout.of(lines.get(separator));
        List<String> header = layout.read(lines, first, separator, true);
        List<List<String>> rows = new ArrayList<>();
        int i = separator + 1;
        while (i < end) {
            Layout.Row row = layout.row(lines, i, end);
            rows.add(row.cells());
            i = row.next();
        }
        List<String> columns = new ArrayList<>();
        for (int c = 0; c < header.size(); c++) {
            columns.add(layout.columnName(c, header.get(c), rows, layout.aligned(lines.get(first)) != null));
        }
        if (footer != null && !footer.equals(BigInteger.valueOf(rows.size()))) {
            throw new InvalidDirectiveException("the footer says (" + footer + " rows) but the table has " + rows.size());
        }
        List<String> headerCells = separator == first + 1 ? layout.rawCells(lines.get(first)) : null;
        List<Integer> widths = headerCells == null ? null : layout.widths();
        return new ExpectedRows(columns, rows, headerCells, widths);
    }

    /**
     * psql prints a result without columns (SELECT;) as {@code --} and the footer, with no header and
     * no line per row: the footer is what says how many rows came back.
     */
    private static ExpectedRows withoutColumns(List<String> lines, int separator) throws InvalidDirectiveException {
        int next = separator + 1;
        while (next < lines.size() && lines.get(next).isBlank()) {
            next++;
        }
        Matcher matcher = next < lines.size() ? FOOTER.matcher(lines.get(next).strip()) : null;
        if (matcher == null || !matcher.matches()) {
            throw new InvalidDirectiveException("line " + (separator + 1) + ": '--' with no header is how psql prints a result "
                    + "without columns, and then the '(N rows)' footer must come right after it (psql prints no line per row)");
        }
        for (int i = next + 1; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                throw new InvalidDirectiveException("line " + (i + 1) + ": the '(N rows)' footer must be the table's last line");
            }
        }
        int count = Integer.parseInt(matcher.group(1));
        List<List<String>> rows = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            rows.add(List.of());
        }
        return new ExpectedRows(List.of(), rows, List.of(), List.of());
    }

    /** Column positions taken from the dashed line, in display columns. */
    private record Layout(int[] starts, int[] ends) {

        static Layout of(String separator) {
            List<int[]> spans = new ArrayList<>();
            int start = 0;
            for (int i = 0; i <= separator.length(); i++) {
                if (i == separator.length() || separator.charAt(i) == '+') {
                    spans.add(new int[]{start, i});
                    start = i + 1;
                }
            }
            int[] starts = new int[spans.size()];
            int[] ends = new int[spans.size()];
            for (int c = 0; c < spans.size(); c++) {
                starts[c] = spans.get(c)[0];
                ends[c] = spans.get(c)[1];
            }
            return new Layout(starts, ends);
        }

        int columns() {
            return starts.length;
        }

        List<Integer> widths() {
            List<Integer> widths = new ArrayList<>();
            for (int c = 0; c < columns(); c++) {
                widths.add(ends[c] - starts[c] - 2);
            }
            return widths;
        }

        /** A header line's cells exactly as written between the border spaces, or null when it does not line up. */
        List<String> rawCells(String line) {
            Cell[] cells = aligned(line);
            if (cells == null) {
                return null;
            }
            List<String> raw = new ArrayList<>();
            for (Cell cell : cells) {
                if (cell.continues()) {
                    return null; // a name of several lines: compared by its text only
                }
                raw.add(cell.raw());
            }
            return raw;
        }

        /** The header's column names (lines first … separator-1, continued with '+'). */
        List<String> read(List<String> lines, int first, int separator, boolean header) throws InvalidDirectiveException {
            Row row = row(lines, first, separator);
            if (row.next() != separator) {
                throw new InvalidDirectiveException("line " + (row.next() + 1) + ": the header takes one line (or continues "
                        + "with '+'), and the dashed line comes right after it");
            }
            return row.cells();
        }

        /**
         * A column's name from its header cell, as psql printed it: psql centres a name in its column,
         * so the padding around it is not part of it, except where the name itself is what sets the
         * column's width (wider than every value): psql then pads nothing, and the whole cell is the
         * name, its spaces included ({@code SELECT 1 AS "  bunch o blanks  "}); trailing spaces an
         * editor trimmed from the line's end are given back by the column's width. (This is the name
         * shown in messages; {@code RowComparison} compares names by the header psql would print.)
         */
        String columnName(int column, String cell, List<List<String>> rows, boolean aligned) {
            String name = cell.strip();
            int width = ends[column] - starts[column] - 2;
            if (!aligned || cell.contains("\n") || PsqlFormat.width(cell) > width) {
                return name;
            }
            int widest = 0;
            for (List<String> row : rows) {
                for (String line : PsqlFormat.lines(row.get(column))) {
                    widest = Math.max(widest, PsqlFormat.width(line.strip()));
                }
            }
            return widest < width ? cell + " ".repeat(width - PsqlFormat.width(cell)) : name;
        }

        record Row(List<String> cells, int next) {
        }

        /** Reads the row starting at line {@code at}, with its continuation lines. */
        Row row(List<String> lines, int at, int end) throws InvalidDirectiveException {
            int n = columns();
            List<StringBuilder> values = new ArrayList<>();
            boolean[] open = new boolean[n];
            int i = at;
            boolean continued;
            do {
                String line = lines.get(i);
                Cell[] cells = aligned(line);
                if (cells == null) {
                    if (i > at) {
                        throw new InvalidDirectiveException("line " + (i + 1) + ": a continued value ('+' at the cell's "
                                + "edge) needs the table's columns to line up as psql prints them");
                    }
                    cells = splitAtBars(line, i);
                }
                continued = false;
                for (int c = 0; c < n; c++) {
                    if (i == at) {
                        values.add(new StringBuilder(cells[c].text()));
                    } else if (open[c]) {
                        values.get(c).append('\n').append(cells[c].text());
                    } else if (!cells[c].text().isEmpty()) {
                        throw new InvalidDirectiveException("line " + (i + 1) + ": column " + (c + 1)
                                + " has text on a continuation line, but its value above does not end in '+'");
                    }
                    open[c] = (i == at || open[c]) && cells[c].continues();
                    continued |= open[c];
                }
                i++;
            } while (continued && i < end);
            if (continued) {
                throw new InvalidDirectiveException("line " + i + ": the value ends in '+' but the table ends");
            }
            return new Row(values.stream().map(StringBuilder::toString).toList(), i);
        }

        private record Cell(String text, boolean continues, String raw) {
        }

        /** Cells by position, or null when the line's bars are not where the dashed line puts them. */
        private Cell[] aligned(String line) {
            int n = columns();
            if (!line.isEmpty() && line.charAt(0) != ' ') {
                return null; // psql starts every line with a space; this one was typed another way
            }
            // Display column -> char index; a wide character takes two display columns.
            List<Integer> index = new ArrayList<>();
            for (int i = 0; i < line.length(); ) {
                int cp = line.codePointAt(i);
                int w = PsqlFormat.width(cp);
                for (int k = 0; k < Math.max(1, w); k++) {
                    index.add(k == 0 ? i : -1);
                }
                i += Character.charCount(cp);
            }
            int width = index.size();
            Cell[] cells = new Cell[n];
            for (int c = 0; c < n; c++) {
                int barAt = ends[c];
                boolean last = c == n - 1;
                if (!last && (barAt >= width || index.get(barAt) < 0 || line.charAt(index.get(barAt)) != '|')) {
                    return null;
                }
                // The border spaces around a bar belong to no value: psql prints a space there (before a bar, '+'
                // when the value goes on). Anything else there is text a reader sees (" key-cx| …" typed over a
                // border), so the line does not line up and is read by its bars instead, never with a character dropped.
                if (c > 0 && !margin(line, index, starts[c], " ")) {
                    return null;
                }
                if (!last && !margin(line, index, barAt - 1, " +")) {
                    return null;
                }
                int from = starts[c] + 1;
                int to = last ? width : barAt - 1;
                String content = slice(line, index, from, to);
                if (content == null) {
                    return null;
                }
                boolean continues = false;
                if (!last) {
                    String marker = slice(line, index, barAt - 1, barAt);
                    continues = "+".equals(marker);
                } else if (width == ends[c] && content.endsWith("+")) {
                    continues = true;
                    content = content.substring(0, content.length() - 1);
                }
                cells[c] = new Cell(content.stripTrailing(), continues, content);
            }
            return cells;
        }

        /** Whether the display column holds one of {@code allowed} (or lies past the line's end). */
        private static boolean margin(String line, List<Integer> index, int column, String allowed) {
            if (column >= index.size()) {
                return true;
            }
            int at = index.get(column);
            return at >= 0 && allowed.indexOf(line.charAt(at)) >= 0;
        }

        /** Text between two display columns; null when a wide character straddles either edge. */
        private static String slice(String line, List<Integer> index, int from, int to) {
            int width = index.size();
            if (from >= width || from >= to) {
                return "";
            }
            if (index.get(from) < 0 || (to < width && index.get(to) < 0)) {
                return null;
            }
            int start = index.get(from);
            int end = to >= width ? line.length() : index.get(to);
            return line.substring(start, end);
        }

        private Cell[] splitAtBars(String line, int lineIndex) throws InvalidDirectiveException {
            String[] parts = line.split("\\|", -1);
            if (parts.length != columns()) {
                throw new InvalidDirectiveException("line " + (lineIndex + 1) + " has " + parts.length + " cell(s) but the header has "
                        + columns() + " column(s), and its '|' are not where the dashed line puts them: " + line.strip());
            }
            Cell[] cells = new Cell[parts.length];
            for (int c = 0; c < parts.length; c++) {
                String part = parts[c].startsWith(" ") ? parts[c].substring(1) : parts[c];
                cells[c] = new Cell(part.stripTrailing(), false, part);
            }
            return cells;
        }
    }
}
