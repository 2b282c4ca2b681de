package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.ExpectedRows;
import dev.kensho.sqlchecks.ResultTable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares the rows a statement returned with the rows the author wrote. Order counts only when the
 * statement sorts its result (a top-level ORDER BY); otherwise rows compare as a multiset, as
 * sqllogictest's rowsort does. A mismatch is described the way pgTAP does: both tables, then the
 * missing and extra records.
 */
public final class RowComparison {

    private RowComparison() {
    }

    /** Returns null when the rows agree, else a multi-line description of the difference. */
    public static String compare(ExpectedRows expected, ResultTable actual) {
        List<List<String>> actualRows = actual.rows().stream().map(RowComparison::asPsqlShows).toList();
        boolean ordered = SqlText.hasTopLevelOrderBy(actual.statement());
        List<String> problems = new ArrayList<>();
        if (!expected.columns().equals(actual.columns())) {
            problems.add("columns differ: expected " + expected.columns() + ", got " + actual.columns());
        }
        List<List<String>> missing = difference(expected.rows(), actualRows);
        List<List<String>> extra = difference(actualRows, expected.rows());
        if (!missing.isEmpty() || !extra.isEmpty()) {
            problems.add("rows differ (" + (ordered ? "in order, because the query has ORDER BY" : "as a multiset, because the query has no ORDER BY") + ")");
        } else if (ordered && !expected.rows().equals(actualRows)) {
            problems.add("the same rows came back in another order, and the query has ORDER BY");
        }
        if (problems.isEmpty()) {
            return null;
        }
        StringBuilder out = new StringBuilder(String.join("; ", problems));
        out.append("\nexpected:\n").append(PsqlTable.format(expected.columns(), expected.rows(), ordered ? marks(expected.rows(), actualRows) : missingMarks(expected.rows(), missing)));
        out.append("actual:\n").append(PsqlTable.format(actual.columns(), actualRows, ordered ? marks(actualRows, expected.rows()) : missingMarks(actualRows, extra)));
        for (List<String> row : missing) {
            out.append("missing: ").append(String.join(" | ", row)).append('\n');
        }
        for (List<String> row : extra) {
            out.append("extra:   ").append(String.join(" | ", row)).append('\n');
        }
        return out.toString().stripTrailing();
    }

    /** psql prints NULL as an empty cell. */
    private static List<String> asPsqlShows(List<String> row) {
        return row.stream().map(v -> v == null ? "" : v).toList();
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
    private static List<Boolean> missingMarks(List<List<String>> rows, List<List<String>> unmatched) {
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
