package dev.kensho.sqlchecks;

import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Runs a page's snippets one after another on one connection, like psql running a script. */
final class ScriptRunner {

    /** Rows kept per result; a lesson never shows more, and a runaway SELECT must not fill memory. */
    static final int MAX_ROWS_KEPT = 1000;
    private static final String TIMEOUT_SQLSTATE = "57014";
    private static final String LOCK_TIMEOUT_SQLSTATE = "55P03";

    private final Connection connection;
    private final VerifierSettings settings;

    ScriptRunner(Connection connection, VerifierSettings settings) {
        this.connection = connection;
        this.settings = settings;
    }

    List<Outcome> run(List<Snippet> snippets) {
        List<Outcome> outcomes = new ArrayList<>();
        Outcome failed = null;
        for (Snippet snippet : snippets) {
            if (failed != null) {
                Failure reason = new Failure("not run: the snippet at " + failed.snippet().location()
                        + " failed and this one builds on it", null, snippet.location(), snippet.lineAt(0), null, null);
                outcomes.add(new Outcome(snippet, Outcome.Status.SKIPPED, reason, List.of(), Duration.ZERO));
                continue;
            }
            Outcome outcome = runSnippet(snippet);
            outcomes.add(outcome);
            if (!outcome.passed()) {
                failed = outcome;
            }
        }
        return outcomes;
    }

    private Outcome runSnippet(Snippet snippet) {
        List<ResultTable> results = new ArrayList<>();
        long t0 = System.nanoTime();
        for (SqlStatement statement : SqlSplitter.split(snippet.sql())) {
            try {
                ResultTable table = execute(statement.text());
                if (table != null) {
                    results.add(table);
                }
            } catch (SQLException e) {
                Duration duration = Duration.ofNanos(System.nanoTime() - t0);
                return new Outcome(snippet, Outcome.Status.FAILED, describe(e, snippet, statement), results, duration);
            }
        }
        return new Outcome(snippet, Outcome.Status.PASSED, null, results, Duration.ofNanos(System.nanoTime() - t0));
    }

    private ResultTable execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setEscapeProcessing(false);
            // Backstop for a snippet that lowers its own statement_timeout: the driver cancels it.
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

    private Failure describe(SQLException e, Snippet snippet, SqlStatement statement) {
        rollbackIfAborted();
        ServerErrorMessage server = e instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
        if (server == null) {
            int at = statement.offset();
            return new Failure(e.getMessage(), e.getSQLState(), snippet.locate(at), snippet.lineAt(at), null, null);
        }
        int at = statement.offset() + (server.getPosition() > 0 ? server.getPosition() - 1 : 0);
        String hint = server.getHint();
        String state = server.getSQLState();
        if (TIMEOUT_SQLSTATE.equals(state)) {
            hint = "Kensho stops every statement after " + seconds(settings.statementTimeout())
                    + " so that a runaway snippet cannot hang the build";
        } else if (LOCK_TIMEOUT_SQLSTATE.equals(state)) {
            hint = "Kensho stops a statement that waits more than " + seconds(settings.lockTimeout())
                    + " for a lock; is another transaction on the page still open?";
        }
        return new Failure(server.getMessage(), state, snippet.locate(at), snippet.lineAt(at), server.getDetail(), hint);
    }

    private static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /** Leaves no failed transaction behind, so that dropping the database is not held up. */
    private void rollbackIfAborted() {
        try (Statement statement = connection.createStatement()) {
            statement.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // Outside a transaction ROLLBACK only warns; a broken connection is dropped with the database.
        }
    }
}
