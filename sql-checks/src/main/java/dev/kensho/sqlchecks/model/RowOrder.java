package dev.kensho.sqlchecks.model;

import java.util.List;

/**
 * What order a statement's rows are guaranteed to come in, as the server parsed the statement (not
 * as its text reads): none, or sorted by keys. Rows that tie on every key may come in any order.
 *
 * @param ordered    the statement's result is sorted (a top-level ORDER BY of the query the server parsed)
 * @param keyColumns the result columns (0-based) the sort keys are, in order; null when a key is not
 *                   among the result's columns, so that tied rows cannot be told apart
 * @param basis      how it was decided, for the evidence ("the server's parse of the query", …)
 */
public record RowOrder(boolean ordered, List<Integer> keyColumns, String basis) {

    public RowOrder {
        keyColumns = keyColumns == null ? null : List.copyOf(keyColumns);
    }

    public static RowOrder unordered(String basis) {
        return new RowOrder(false, List.of(), basis);
    }

    /** Ordered, with tied rows compared as a multiset within their group (known keys). */
    public boolean tiesKnown() {
        return ordered && keyColumns != null;
    }
}
