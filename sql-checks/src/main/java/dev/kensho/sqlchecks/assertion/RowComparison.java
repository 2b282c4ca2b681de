package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.RowOrder;
import dev.kensho.sqlchecks.script.PsqlFormat;

import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.ResultTable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares the rows a statement returned with the rows the author wrote, in psql's terms: each
 * actual value is turned into what psql would print (see {@link PsqlFormat}) and compared with the
 * written cell, ignoring only what psql's padding hides (trailing spaces; leading spaces of
 * right-aligned numbers). {@value PsqlFormat#NULL} matches NULL and nothing else. Order counts only
 * when the statement sorts its result, as the server parsed it ({@link RowOrder}); otherwise rows
 * compare as a multiset, as sqllogictest's rowsort does. Rows that tie on every sort key compare as
 * a multiset within their run of ties. A mismatch shows both tables, then the missing and extra rows.
 */
public final class RowComparison {

    /** Stands for NULL among compared cells; no text value can contain U+0000. */
    private static final String NULL_CELL = "\u0000NULL";

    private RowComparison() {
    }

    /** Returns null when the rows agree, else a multi-line description of the difference. */
    public static String compare(ExpectedRows expected, ResultTable actual, RowOrder order) {
        List<String> types = actual.types();
        List<List<String>> actualRows = actual.rows().stream().map(row -> actualCells(row, types)).toList();
        List<List<String>> expectedRows = expected.rows().stream().map(row -> expectedCells(row, types)).toList();
        boolean ordered = order.ordered();
        List<String> problems = new ArrayList<>();
        if (!columnsAgree(expected, actual)) {
            problems.add("columns differ: expected " + expected.columns() + ", got " + actual.columns());
        }
        List<List<String>> missing = difference(expectedRows, actualRows);
        List<List<String>> extra = difference(actualRows, expectedRows);
        if (!missing.isEmpty() || !extra.isEmpty()) {
            problems.add("rows differ (" + (!order.known() ? "in the order the server returned them, because the order the statement "
                    + "promises cannot be known: " + order.basis() : ordered ? "in order, because the query has ORDER BY"
                    : "as a multiset, because the query has no ORDER BY") + ")");
        } else if (ordered && !sameOrder(expectedRows, actualRows, actual.rows(), types, order)) {
            problems.add(order.known() ? "the same rows came back in another order, and the query has ORDER BY"
                    : "the same rows came back in another order, and the order the statement promises cannot be known: " + order.basis());
        }
        if (problems.isEmpty()) {
            return null;
        }
        StringBuilder out = new StringBuilder(String.join("; ", problems));
        out.append("\nexpected:\n").append(PsqlFormat.format(expected.columns(), types, shown(expectedRows),
                ordered ? marks(expectedRows, actualRows) : unmatchedMarks(expectedRows, missing)));
        out.append("\nactual (as psql prints it; NULL is written ").append(PsqlFormat.NULL).append("):\n")
                .append(PsqlFormat.format(actual.columns(), types, actual.rows(),
                        ordered ? marks(actualRows, expectedRows) : unmatchedMarks(actualRows, extra)));
        for (List<String> row : missing) {
            out.append("\nmissing: ").append(String.join(" | ", printable(row)));
        }
        for (List<String> row : extra) {
            out.append("\nextra:   ").append(String.join(" | ", printable(row)));
        }
        return out.toString();
    }

    /**
     * True when rows that print the same on every key column are sure to tie, so that a comparison by
     * text alone (the browser's) may take them in any order; false when a key's printed value may be
     * rounded (float), and such rows must keep their order.
     */
    public static boolean tiesByText(RowOrder order, List<String> types) {
        return order.tiesKnown() && order.keyColumns().stream().allMatch(c -> KeyEquality.exactOutput(type(types, c)));
    }

    /**
     * Whether the written header is the one psql prints for the actual column names. Where the header
     * was written as psql lays it out, each cell must be the actual name centred as psql centres it, so
     * that spaces of a name's own ({@code "  bunch o blanks  "}) count: a name's trailing spaces show
     * in the column's width when they are the last column's (an editor trims the line), and as text
     * before a {@code |} otherwise. A table laid out by hand (other widths than psql's, or names not
     * centred) compares names as text, which is only sound for names without spaces at their edges.
     */
    private static boolean columnsAgree(ExpectedRows expected, ResultTable actual) {
        List<String> names = actual.columns();
        if (expected.columns().size() != names.size()) {
            return false;
        }
        for (int c = 0; c < names.size(); c++) {
            String name = names.get(c);
            boolean last = c == names.size() - 1;
            if (expected.headerCells() == null) {
                if (!expected.columns().get(c).equals(name)) {
                    return false;
                }
                continue;
            }
            String cell = expected.headerCells().get(c);
            int written = expected.widths().get(c);
            int psql = PsqlFormat.columnWidth(name, actual.rows(), c);
            String printed = PsqlFormat.headerCell(name, written);
            boolean asPrinted = last ? printed.stripTrailing().equals(cell.stripTrailing()) : printed.equals(cell);
            boolean edgeSpaces = !name.equals(name.strip());
            if (edgeSpaces) {
                // Only psql's own layout says where the name's spaces end: its width must be psql's.
                if (!asPrinted || written != psql) {
                    return false;
                }
            } else if (!asPrinted && !byHand(name, cell, written)) {
                return false;
            }
        }
        return true;
    }

    /** A name typed by hand into a column: its text, left-aligned or indented no further than psql centres it. */
    private static boolean byHand(String name, String cell, int width) {
        int leading = cell.length() - cell.stripLeading().length();
        return cell.strip().equals(name) && leading <= Math.max(0, width - PsqlFormat.width(name)) / 2;
    }

    private static List<String> actualCells(List<String> row, List<String> types) {
        List<String> cells = new ArrayList<>();
        for (int c = 0; c < row.size(); c++) {
            String value = row.get(c);
            cells.add(value == null ? NULL_CELL : visible(String.join("\n", PsqlFormat.lines(value)), type(types, c)));
        }
        return cells;
    }

    private static List<String> expectedCells(List<String> row, List<String> types) {
        List<String> cells = new ArrayList<>();
        for (int c = 0; c < row.size(); c++) {
            String cell = visible(row.get(c), type(types, c));
            cells.add(cell.equals(PsqlFormat.NULL) ? NULL_CELL : cell);
        }
        return cells;
    }

    /** What psql's padding leaves visible of a cell: no trailing spaces, and no leading ones before a number. */
    private static String visible(String text, String type) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String trimmed = line.stripTrailing();
            lines.add(PsqlFormat.rightAligned(type) ? trimmed.stripLeading() : trimmed);
        }
        return String.join("\n", lines);
    }

    private static String type(List<String> types, int column) {
        return column < types.size() ? types.get(column) : null;
    }

    private static List<List<String>> shown(List<List<String>> rows) {
        return rows.stream().map(row -> row.stream().map(v -> v.equals(NULL_CELL) ? null : v).toList()).toList();
    }

    private static List<String> printable(List<String> row) {
        return row.stream().map(v -> v.equals(NULL_CELL) ? PsqlFormat.NULL : v.replace("\n", "\\n")).toList();
    }

    /**
     * True when the expected rows follow the actual order: exactly, or, when the sort keys are known
     * result columns, with rows that tie on every key in any order within their run of ties. Rows tie
     * when each key's equality operator holds them equal ({@link KeyEquality}), as the sort decided.
     *
     * @param raw the actual rows as the server sent them: ties are decided on the values, not on what psql's padding shows
     */
    private static boolean sameOrder(List<List<String>> expected, List<List<String>> actual, List<List<String>> raw,
                                     List<String> types, RowOrder order) {
        if (!order.tiesKnown()) {
            return expected.equals(actual);
        }
        int start = 0;
        while (start < actual.size()) {
            int end = start + 1;
            while (end < actual.size() && ties(raw.get(end - 1), raw.get(end), types, order)) {
                end++;
            }
            List<List<String>> group = actual.subList(start, end);
            List<List<String>> written = expected.subList(start, end);
            if (!difference(written, group).isEmpty()) {
                return false;
            }
            start = end;
        }
        return true;
    }

    /** Adjacent rows tie when every key's equality holds them equal (sorted input: equality runs are contiguous). */
    private static boolean ties(List<String> a, List<String> b, List<String> types, RowOrder order) {
        for (int k = 0; k < order.keyColumns().size(); k++) {
            int column = order.keyColumns().get(k);
            if (column >= a.size() || column >= b.size()
                    || !KeyEquality.equal(type(types, column), order.keyEquality().get(k), a.get(column), b.get(column))) {
                return false;
            }
        }
        return true;
    }

    /** Rows of {@code left} not matched by a row of {@code right}, counting duplicates. */
    private static List<List<String>> difference(List<List<String>> left, List<List<String>> right) {
        Map<List<String>, Integer> available = new HashMap<>();
        right.forEach(row -> available.merge(row, 1, Integer::sum));
        List<List<String>> unmatched = new ArrayList<>();
        for (List<String> row : left) {
            Integer count = available.get(row);
            if (count == null || count == 0) {
                unmatched.add(row);
            } else {
                available.put(row, count - 1);
            }
        }
        return unmatched;
    }

    /** Marks rows that differ from the other table at the same position. */
    private static List<Boolean> marks(List<List<String>> rows, List<List<String>> other) {
        List<Boolean> marks = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            marks.add(i >= other.size() || !rows.get(i).equals(other.get(i)));
        }
        return marks;
    }

    /** Marks the rows listed in {@code unmatched} (each occurrence once). */
    private static List<Boolean> unmatchedMarks(List<List<String>> rows, List<List<String>> unmatched) {
        Map<List<String>, Integer> left = new HashMap<>();
        unmatched.forEach(row -> left.merge(row, 1, Integer::sum));
        List<Boolean> marks = new ArrayList<>();
        for (List<String> row : rows) {
            Integer count = left.get(row);
            boolean marked = count != null && count > 0;
            if (marked) {
                left.put(row, count - 1);
            }
            marks.add(marked);
        }
        return marks;
    }
}
