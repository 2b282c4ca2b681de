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
        return execute(connection, sql, guard, (PlanCapture) null);
    }

    /**
     * @param plans when not null, receives the auto_explain reports among the statement's NOTICEs
     */
    public static ResultTable execute(Connection connection, String sql, StatementGuard guard, PlanCapture plans) throws SQLException {
        return execute(connection, sql, guard, plans, null, true);
    }

    /**
     * @param plans  when not null, receives the auto_explain reports among the statement's NOTICEs
     * @param parses when not null, receives the parse trees the server reports for it
     * @param whole  every row is kept, as read (a claim compares them); else at most {@link #ROWS_KEPT} rows and
     *               {@link #CHARS_KEPT} characters, the rest counted without being read
     */
    static ResultTable execute(Connection connection, String sql, StatementGuard guard, PlanCapture plans, ParseCapture parses,
                               boolean whole) throws SQLException {
        return executeAll(connection, sql, null, guard, plans, parses, null, whole).stream().reduce((first, second) -> second).orElse(null);
    }

    /**
     * {@link #executeAll(Connection, String, List, StatementGuard, PlanCapture, ParseCapture, LiveNotices, boolean)}, every row
     * kept, for a string the caller has split already ({@code statements}, in order): it is not split again.
     */
    static List<ResultTable> executeAll(Connection connection, String sql, List<dev.kensho.sqlchecks.script.SqlStatement> statements,
                                        StatementGuard guard, ParseCapture parses, LiveNotices notices) throws SQLException {
        return executeAll(connection, sql, statements, guard, null, parses, notices, true);
    }

    /**
     * Sends {@code sql} as one query string, as the isolation tester sends a step: several statements
     * in it go out before one Sync, so that without BEGIN they run in one implicit transaction.
     *
     * @param parses  when not null, receives the parse trees the server reports for the string's statements
     * @param notices when not null, receives the server's NOTICE, WARNING and INFO messages as the
     *                isolation tester prints them ({@code NOTICE:  text}), in order, even when the string fails
     * @return every row-returning result, in order
     */
    private static List<ResultTable> executeAll(Connection connection, String sql, List<dev.kensho.sqlchecks.script.SqlStatement> split,
                                                StatementGuard guard, PlanCapture plans, ParseCapture parses, LiveNotices notices,
                                                boolean whole) throws SQLException {
        return guard.run(connection, () -> {
            try (Statement statement = connection.createStatement()) {
                statement.setEscapeProcessing(false);
                // The driver keeps every NOTICE of a running statement; a snippet raising millions would
                // fill the heap. They are taken as they come: plans and parse trees go to their captures,
                // messages to the list asked for, the rest is let go.
                NoticeDrain drainer = new NoticeDrain(statement, plans, parses, notices);
                ScheduledFuture<?> drain = StatementGuard.every(NOTICE_DRAIN, drainer::drain);
                if (notices != null) {
                    notices.drain = drainer::drain;
                }
                List<ResultTable> results = new ArrayList<>();
                List<Integer> positions = new ArrayList<>();
                int position = 0;
                boolean isResultSet;
                try {
                    isResultSet = statement.execute(sql);
                } finally {
                    drain.cancel(false);
                    drainer.finish();
                    if (notices != null) {
                        notices.drain = LiveNotices.NOTHING;
                    }
                    dropNotifications(connection);
                }
                if (parses != null) {
                    parses.completed(split == null ? List.of(sql) : split.stream().map(dev.kensho.sqlchecks.script.SqlStatement::text).toList());
                }
                while (true) {
                    if (isResultSet) {
                        try (ResultSet rs = statement.getResultSet()) {
                            results.add(read(sql, rs, whole));
                            positions.add(position);
                        }
                    } else if (statement.getUpdateCount() == -1) {
                        return bySource(sql, split, results, positions, position);
                    }
                    position++;
                    isResultSet = statement.getMoreResults();
                }
            } catch (PSQLException e) {
                throw clientSideLimits(e);
            }
        });
    }

    /**
     * Each result named by the statement of the string that produced it (the driver reports one result
     * or count per statement, in order), so that its order is looked up for that statement; when the
     * counts disagree with Kensho's lexer, results keep the whole string and an order claim fails loudly.
     */
    private static List<ResultTable> bySource(String sql, List<dev.kensho.sqlchecks.script.SqlStatement> split, List<ResultTable> results,
                                              List<Integer> positions, int reported) {
        if (reported <= 1) {
            return results; // one statement (a snippet sends each on its own): its result already names it
        }
        List<dev.kensho.sqlchecks.script.SqlStatement> statements = split != null ? split
                : dev.kensho.sqlchecks.script.SqlSplitter.split(sql);
        if (statements.size() != reported) {
            return results;
        }
        List<ResultTable> named = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            named.add(results.get(i).withStatement(statements.get(positions.get(i)).text()));
        }
        return named;
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
     * A session's NOTICE, WARNING and INFO messages as they arrive, as the isolation tester prints them
     * ({@code NOTICE:  text}), counted over all its statements; a scenario's "notices N" marker waits on the
     * count. While a statement runs, {@link #takeNow} takes what the driver has received so far (else it is
     * taken every {@link #NOTICE_DRAIN}), so that a count read after the server showed the session waiting
     * includes every message it raised before it began to wait.
     */
    static final class LiveNotices {
        static final Runnable NOTHING = () -> { };
        /**
         * How many messages of one statement are kept: a loop raising millions would fill the heap, and a claim about them
         * could not be printed. The rest are counted ({@link Taken#dropped}), and a claim about the step's notices fails.
         */
        static final int MAX_KEPT = 1_000;
        private final List<String> messages = new ArrayList<>();
        private int dropped;
        private int raised;
        private volatile Runnable drain = NOTHING;

        /** The messages of a statement: the first {@link #MAX_KEPT}, and how many more were raised and let go. */
        record Taken(List<String> kept, int dropped) { }

        /** A longer message is counted and let go unread, as those past {@link #MAX_KEPT}: a thousand of 10 MB would fill the heap. */
        static final int MAX_CHARS = 4_096;

        synchronized void add(String message) {
            if (messages.size() < MAX_KEPT && message.length() <= MAX_CHARS) {
                messages.add(message);
            } else {
                dropped++;
            }
            raised++;
        }

        /** Every message so far, and no longer counted as the next statement's. */
        synchronized Taken take() {
            Taken taken = new Taken(List.copyOf(messages), dropped);
            messages.clear();
            dropped = 0;
            return taken;
        }

        int raised() {
            takeNow();
            synchronized (this) {
                return raised;
            }
        }

        void takeNow() {
            drain.run();
        }
    }

    /**
     * Takes a running statement's NOTICEs without losing one. The driver appends each to the chain the
     * statement holds, and clearing replaces that chain; a NOTICE appended to the old chain just as it
     * was cleared is still reachable from it, so each chain is walked once more on the next round
     * before it is let go. A lost plan would under-count a statement's work.
     */
    private static final class NoticeDrain {
        private final Statement statement;
        private final PlanCapture plans;
        private final ParseCapture parses;
        private SQLWarning detachedLast;

        private final LiveNotices messages;

        NoticeDrain(Statement statement, PlanCapture plans, ParseCapture parses, LiveNotices messages) {
            this.statement = statement;
            this.plans = plans;
            this.parses = parses;
            this.messages = messages;
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
                if (parses != null) {
                    parses.offer(warning);
                }
                // auto_explain's reports are Kensho's measuring (on a page that claims a plan), never the step's notices.
                if (messages != null && !PlanCapture.isReport(warning)
                        && warning instanceof org.postgresql.util.PSQLWarning psql && psql.getServerErrorMessage() != null
                        && java.util.Set.of("NOTICE", "WARNING", "INFO").contains(psql.getServerErrorMessage().getSeverity())) {
                    String message = psql.getServerErrorMessage().getMessage();
                    messages.add(message != null && message.length() > LiveNotices.MAX_CHARS ? message // let go unread by add
                            : psql.getServerErrorMessage().getSeverity() + ":  " + MessageScrubber.scrub(message));
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
        // The type comes from the row description; getColumnTypeName would query the catalogs on this session (BuiltinTypes).
        org.postgresql.jdbc.PgResultSet described = rs.unwrap(org.postgresql.jdbc.PgResultSet.class);
        for (int c = 1; c <= meta.getColumnCount(); c++) {
            columns.add(meta.getColumnLabel(c));
            types.add(BuiltinTypes.name(described.getColumnOID(c)));
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
