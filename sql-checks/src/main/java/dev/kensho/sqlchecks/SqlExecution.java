package dev.kensho.sqlchecks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Sends one statement of an author's snippet or scenario step, the way every runner does. */
public final class SqlExecution {

    /** Rows kept per result; a lesson never shows more, and a runaway SELECT must not fill memory. */
    public static final int MAX_ROWS_KEPT = 1000;

    private SqlExecution() {
    }

    /**
     * Runs the statement as written (no JDBC escape processing), with the driver cancelling it a
     * little after {@code statement_timeout}, in case the snippet lowered its own timeout.
     *
     * @return the rows it returned as text, or null when it returns none
     */
    public static ResultTable execute(Connection connection, String sql, VerifierSettings settings) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setEscapeProcessing(false);
            statement.setQueryTimeout((int) settings.statementTimeout().plusSeconds(5).toSeconds());
            statement.setMaxRows(MAX_ROWS_KEPT);
            if (!statement.execute(sql)) {
                return null;
            }
            try (ResultSet rs = statement.getResultSet()) {
                ResultSetMetaData meta = rs.getMetaData();
                List<String> columns = new ArrayList<>();
                for (int c = 1; c <= meta.getColumnCount(); c++) {
                    columns.add(meta.getColumnLabel(c));
                }
                List<List<String>> rows = new ArrayList<>();
                while (rs.next()) {
                    List<String> row = new ArrayList<>(columns.size());
                    for (int c = 1; c <= columns.size(); c++) {
                        row.add(rs.getString(c));
                    }
                    rows.add(row);
                }
                return new ResultTable(sql, columns, rows);
            }
        }
    }
}
