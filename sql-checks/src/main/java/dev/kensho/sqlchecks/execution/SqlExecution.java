package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ResultTable;

import org.postgresql.core.BaseConnection;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends one statement of an author's snippet or scenario step, the way every runner does: as
 * written (no JDBC escape processing), run to completion as psql would run it (no row limit), under
 * Kensho's {@link StatementGuard}. Results are bounded by the driver's {@code maxResultBuffer}
 * instead, which fails the statement loudly rather than cutting it short.
 */
public final class SqlExecution {

    /** Rows an outcome keeps for display and the cache once they have been compared in full. */
    public static final int ROWS_KEPT = 1000;

    /**
     * Characters of values an outcome keeps of one result (each value cut at {@code Failure.MAX_TEXT}): more
     * than a page shows or the browser's run plan holds of a snippet, and little enough that a page of ten
     * results of a thousand wide rows costs the build megabytes, not gigabytes.
     */
    public static final long CHARS_KEPT = 256 * 1024;

    private SqlExecution() {
    }

    /**
     * @return the rows of the last result the statement produced (a rule may turn an INSERT into a
     * SELECT), or null when it produced none
     */
    public static ResultTable execute(Connection connection, String sql, StatementGuard guard) throws SQLException {
        return execute(connection, sql, guard, null, true);
    }

    /**
     * @param plans when not null, receives the auto_explain reports among the statement's NOTICEs
     * @param whole every row is kept, as read (a claim compares them); else at most {@link #ROWS_KEPT} rows and
     *              {@link #CHARS_KEPT} characters, the rest counted without being read
     */
    public static ResultTable execute(Connection connection, String sql, StatementGuard guard, PlanCapture plans, boolean whole)
            throws SQLException {
        return guard.run(connection, () -> {
            try (Statement statement = connection.createStatement()) {
                statement.setEscapeProcessing(false);
                // The driver keeps every NOTICE of a running statement; a snippet raising millions would
                // fill the heap. They are taken as they come: plans go to the capture, the rest is let go.
                NoticeDrain notices = new NoticeDrain(statement, plans);
                ScheduledFuture<?> drain = StatementGuard.every(NOTICE_DRAIN, notices::drain);
                ResultTable last = null;
                boolean isResultSet;
                try {
                    isResultSet = statement.execute(sql);
                } finally {
                    drain.cancel(false);
                    notices.finish();
                    dropNotifications(connection);
                }
                while (true) {
                    if (isResultSet) {
                        try (ResultSet rs = statement.getResultSet()) {
                            last = read(sql, rs, whole);
                        }
                    } else if (statement.getUpdateCount() == -1) {
                        return last;
                    }
                    isResultSet = statement.getMoreResults();
                }
            } catch (PSQLException e) {
                throw clientSideLimits(e);
            }
        });
    }

    /**
     * The driver keeps every LISTEN notification until asked; Kensho shows none, so they go at once.
     * The query executor's own list is taken: PGConnection.getNotifications would first wait on the
     * socket for more (about 3 ms a statement).
     */
    private static void dropNotifications(Connection connection) {
        try {
            connection.unwrap(BaseConnection.class).getQueryExecutor().getNotifications();
        } catch (SQLException closed) {
            // A connection the driver closed (it refuses some settings) has none; the statement's own error stands.
        }
    }

    private static final Duration NOTICE_DRAIN = Duration.ofMillis(50);

    /**
     * Takes a running statement's NOTICEs without losing one. The driver appends each to the chain the
     * statement holds, and clearing replaces that chain; a NOTICE appended to the old chain just as it
     * was cleared is still reachable from it, so each chain is walked once more on the next round
     * before it is let go. A lost plan would under-count a statement's work.
     */
    private static final class NoticeDrain {
        private final Statement statement;
        private final PlanCapture plans;
        private SQLWarning detachedLast;

        NoticeDrain(Statement statement, PlanCapture plans) {
            this.statement = statement;
            this.plans = plans;
        }

        synchronized void drain() {
            SQLWarning first;
            try {
                first = statement.getWarnings();
                statement.clearWarnings();
            } catch (SQLException closed) {
                return;
            }
            if (detachedLast != null) {
                take(detachedLast.getNextWarning());
            }
            detachedLast = first == null ? null : take(first);
        }

        /** Called on the statement's own thread once it has returned: nothing is appended any more. */
        synchronized void finish() {
            drain();
            drain();
        }

        /** Offers every warning from {@code from} on; returns the last one seen. */
        private SQLWarning take(SQLWarning from) {
            SQLWarning last = null;
            for (SQLWarning warning = from; warning != null; warning = warning.getNextWarning()) {
                if (plans != null) {
                    plans.offer(warning);
                }
                last = warning;
            }
            return last;
        }
    }

    private static ResultTable read(String sql, ResultSet rs, boolean whole) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        List<String> columns = new ArrayList<>();
        List<String> types = new ArrayList<>();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
            columns.add(meta.getColumnLabel(c));
            types.add(meta.getColumnTypeName(c));
        }
        if (whole) {
            List<List<String>> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(row(rs, columns.size()));
            }
            return new ResultTable(sql, columns, types, rows, rows.size());
        }
        ResultTable.Kept kept = new ResultTable.Kept(sql, columns, types, ROWS_KEPT, CHARS_KEPT);
        long total = 0;
        while (rs.next()) {
            total++;
            if (!kept.full()) {
                kept.add(row(rs, columns.size()));
            }
        }
        return kept.table(total);
    }

    private static List<String> row(ResultSet rs, int columns) throws SQLException {
        List<String> row = new ArrayList<>(columns);
        for (int c = 1; c <= columns; c++) {
            row.add(rs.getString(c));
        }
        return row;
    }

    /** Errors the driver raises itself, said in terms an author can act on; never a server error a claim could expect. */
    private static SQLException clientSideLimits(PSQLException e) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("CopyManager")) {
            // The server's 57014 here is only the driver refusing to feed the COPY: never the lesson's error.
            return new KenshoLimitException("COPY … FROM STDIN and COPY … TO STDOUT exchange data with psql itself, which a "
                    + "snippet cannot do; insert the rows with INSERT … VALUES, or show them with SELECT", e);
        }
        if (e.getServerErrorMessage() != null) {
            return e;
        }
        if (message.contains("maxResultBuffer")) {
            return new KenshoLimitException("the result is larger than Kensho holds in memory (" + PageDatabase.MAX_RESULT_BUFFER
                    + "); return fewer rows, e.g. count(*) or LIMIT, and state those", e);
        }
        if (message.contains("DateStyle")) {
            return new KenshoLimitException("Kensho reads results through the PostgreSQL JDBC driver, which needs DateStyle to "
                    + "begin with ISO (SET DateStyle = 'ISO, DMY' is fine); to show another date format, use to_char()", e);
        }
        return e;
    }
}
