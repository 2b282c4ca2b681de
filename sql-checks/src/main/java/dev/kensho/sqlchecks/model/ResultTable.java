package dev.kensho.sqlchecks.model;


import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The rows one statement returned, as the text the server sent (NULL stays null).
 *
 * @param statement the statement as the author wrote it
 * @param columns   column names
 * @param types     each column's type name, as the server names it ({@code int4}, {@code text}, …)
 * @param rows      the rows kept: all of them while the table is compared, at most
 *                  {@code SqlExecution.ROWS_KEPT} rows and {@code SqlExecution.CHARS_KEPT} characters once it is
 *                  stored in an outcome, or is not compared
 * @param totalRows how many rows the statement returned in all
 * @param order     the order the server's parse of the statement promises its rows (null: not decided, as for a
 *                  scenario's step); the browser compares a reader's run of the statement under it, so that the
 *                  page need not ask the reader's session how a verified statement sorts
 */
public record ResultTable(String statement, List<String> columns, List<String> types, List<List<String>> rows, long totalRows,
        RowOrder order) {

    public ResultTable {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        rows = rows.stream().map(row -> Collections.unmodifiableList(new ArrayList<>(row))).toList();
    }

    /** A table whose order is not decided. */
    public ResultTable(String statement, List<String> columns, List<String> types, List<List<String>> rows, long totalRows) {
        this(statement, columns, types, rows, totalRows, null);
    }

    public ResultTable withStatement(String text) {
        return new ResultTable(text, columns, types, rows, totalRows, order);
    }

    public ResultTable withOrder(RowOrder decided) {
        return new ResultTable(statement, columns, types, rows, totalRows, decided);
    }

    /**
     * The same table keeping only its first rows within the bounds (the total stays), each value cut as
     * {@link Failure#cut} cuts text, saying so: what is kept is shown and cached, never compared.
     */
    public ResultTable truncated(int maxRows, long maxChars) {
        Kept kept = new Kept(statement, columns, types, maxRows, maxChars);
        for (List<String> row : rows) {
            if (kept.full()) {
                break;
            }
            kept.add(row);
        }
        ResultTable cut = kept.table(totalRows);
        return cut.rows.equals(rows) ? this : cut.withOrder(order);
    }

    /**
     * The first rows of a result, kept as they come within a number of rows and of characters (each value cut
     * by {@link Failure#cut}), so that a result of a million rows costs the build no more than its first ones:
     * the rows after the bound are counted, not read. A row is kept whole or not at all.
     */
    public static final class Kept {
        private final String statement;
        private final List<String> columns;
        private final List<String> types;
        private final int maxRows;
        private final long maxChars;
        private final List<List<String>> rows = new ArrayList<>();
        private long chars;
        private boolean full;

        public Kept(String statement, List<String> columns, List<String> types, int maxRows, long maxChars) {
            this.statement = statement;
            this.columns = columns;
            this.types = types;
            this.maxRows = maxRows;
            this.maxChars = maxChars;
            this.full = maxRows <= 0;
        }

        /** No later row will be kept: the caller need not read its values. */
        public boolean full() {
            return full;
        }

        public void add(List<String> row) {
            if (full) {
                return;
            }
            List<String> cut = new ArrayList<>(row.size());
            long size = 0;
            for (String value : row) {
                String kept = Failure.cut(value);
                size += kept == null ? 0 : kept.length();
                cut.add(kept);
            }
            if (chars + size > maxChars) {
                full = true;
                return;
            }
            chars += size;
            rows.add(cut);
            full = rows.size() >= maxRows;
        }

        /** The table of the rows kept, of {@code totalRows} the statement returned. */
        public ResultTable table(long totalRows) {
            return new ResultTable(statement, columns, types, rows, totalRows);
        }
    }

    public boolean complete() {
        return rows.size() == totalRows;
    }
}
