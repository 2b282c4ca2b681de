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
 *                  {@code SqlExecution.ROWS_KEPT} once it is stored in an outcome
 * @param totalRows how many rows the statement returned in all
 */
public record ResultTable(String statement, List<String> columns, List<String> types, List<List<String>> rows, long totalRows) {

    public ResultTable {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        rows = rows.stream().map(row -> Collections.unmodifiableList(new ArrayList<>(row))).toList();
    }

    public ResultTable withStatement(String text) {
        return new ResultTable(text, columns, types, rows, totalRows);
    }

    /**
     * The same table keeping only the first {@code limit} rows (the total stays), each value cut as
     * {@link Failure#cut} cuts text, saying so: what is kept is shown and cached, never compared.
     */
    public ResultTable truncated(int limit) {
        List<List<String>> kept = rows.size() <= limit ? rows : rows.subList(0, limit);
        boolean longValue = kept.stream().anyMatch(row -> row.stream().anyMatch(v -> v != null && v.length() > Failure.MAX_TEXT));
        if (rows.size() <= limit && !longValue) {
            return this;
        }
        List<List<String>> cut = kept.stream().map(row -> row.stream().map(Failure::cut).toList()).toList();
        return new ResultTable(statement, columns, types, cut, totalRows);
    }

    public boolean complete() {
        return rows.size() == totalRows;
    }
}
