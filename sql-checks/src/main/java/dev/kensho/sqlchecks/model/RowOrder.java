package dev.kensho.sqlchecks.model;

import java.util.List;

/**
 * What order a statement's rows are guaranteed to come in, as the server parsed the statement (not
 * as its text reads): none, or sorted by keys. Rows that tie on every key may come in any order;
 * whether two rows tie is decided by each key's equality operator, the one the sort itself uses.
 *
 * @param ordered     the statement's result is sorted (a top-level ORDER BY of the query the server
 *                    parsed), or its order cannot be known and is taken as the server returned it
 * @param keyColumns  the result columns (0-based) the sort keys are, in order; null when a key is not
 *                    among the result's columns, so that tied rows cannot be told apart
 * @param keyEquality for each key column, the OID of the equality operator the sort pairs with its
 *                    ordering operator ({@code SortGroupClause.eqop}); empty when keyColumns is null
 * @param known       false when the server's parse of the statement could not be had (a cursor opened
 *                    inside a function, say): rows then compare in the order the server returned them,
 *                    and a claim that differs only in order fails saying the order cannot be known
 * @param basis       how it was decided, for the evidence ("the server's parse of the query", …)
 */
public record RowOrder(boolean ordered, List<Integer> keyColumns, List<Long> keyEquality, boolean known, String basis) {

    public RowOrder {
        keyColumns = keyColumns == null ? null : List.copyOf(keyColumns);
        keyEquality = keyEquality == null ? List.of() : List.copyOf(keyEquality);
        if (keyColumns != null && !keyColumns.isEmpty() && keyEquality.size() != keyColumns.size()) {
            throw new IllegalArgumentException("one equality operator per key column");
        }
    }

    public static RowOrder unordered(String basis) {
        return new RowOrder(false, List.of(), List.of(), true, basis);
    }

    /** Sorted on result columns, each with the equality operator that decides its ties. */
    public static RowOrder sorted(List<Integer> keyColumns, List<Long> keyEquality, String basis) {
        return new RowOrder(true, keyColumns, keyEquality, true, basis);
    }

    /** Sorted, but on a key that is not a result column: the whole order counts. */
    public static RowOrder sortedOnHiddenKey(String basis) {
        return new RowOrder(true, null, List.of(), true, basis);
    }

    /** Lines of one text (a plan, a setting) in the order the server prints them. */
    public static RowOrder lines(String basis) {
        return new RowOrder(true, null, List.of(), true, basis);
    }

    /** The server's parse could not be had: rows compare as the server returned them. */
    public static RowOrder unknown(String why) {
        return new RowOrder(true, null, List.of(), false, why);
    }

    /** Ordered, with tied rows compared as a multiset within their group (known keys). */
    public boolean tiesKnown() {
        return ordered && known && keyColumns != null;
    }
}
