package dev.kensho.sqlchecks;

import java.util.List;

/** The rows one statement returned, as text the way psql prints them (null stays null). */
public record ResultTable(String statement, List<String> columns, List<List<String>> rows) {

    public ResultTable {
        columns = List.copyOf(columns);
        rows = rows.stream().map(row -> java.util.Collections.unmodifiableList(new java.util.ArrayList<>(row))).toList();
    }
}
