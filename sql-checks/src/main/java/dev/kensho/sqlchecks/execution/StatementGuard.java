package dev.kensho.sqlchecks.execution;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.postgresql.PGConnection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kensho's time limit on one statement. At the limit the statement is cancelled; a statement that
 * survives the cancel (a PL/pgSQL block catching {@code query_canceled}) has its session terminated
 * a moment later. Either way the statement fails with {@link KenshoLimitException}, so the limit can
 * never be what makes an {@code expect-error} claim hold.
 */
public final class StatementGuard {

    /** How long a cancelled statement gets to end before its session is terminated. */
    static final Duration TERMINATE_AFTER = Duration.ofSeconds(2);

    /**
     * Three timers are set per statement and nearly all are cancelled; removed on cancel, they do not
     * pile up in the queue until their deadline (thousands of statements pass in one statement limit).
     */
    private static final ScheduledExecutorService TIMER = timer();

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "kensho-statement-guard");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /**
     * What Kensho asks and does about a page's sessions from outside them, on the server's own
     * superuser connection: nothing a page defines (functions on its search_path, say) can change
     * the answers.
     */
    public interface ServerControl {
        void cancel(int pid) throws SQLException;

        void terminate(int pid) throws SQLException;

        /** True when the backend is waiting for a lock another session holds. */
        boolean waitsForLock(int pid) throws SQLException;

        /** {@code pg_isolation_test_session_is_blocked}: waiting for one of {@code interesting}. */
        boolean isBlockedBy(int pid, int[] interesting) throws SQLException;

        /** {@code pg_blocking_pids} and {@code pg_safe_snapshot_blocking_pids}: every session the backend waits for. */
        int[] blockingPids(int pid) throws SQLException;

        /**
         * The lock the backend waits to be granted (its one ungranted row of {@code pg_locks}: type, object and
         * mode), or null when it waits for none. A backend woken from a wait is granted that lock; were it to wait
         * again, it would wait for another.
         */
        String awaitedLock(int pid) throws SQLException;
    }

    /** A statement to run under the guard. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws SQLException;
    }

    private final Duration limit;
    private final ServerControl control;
    /** Sessions stopped from outside a statement (a page over its disk limit), with the reason. */
    private final ConcurrentHashMap<Integer, String> stops = new ConcurrentHashMap<>();

    public StatementGuard(Duration limit, ServerControl control) {
        this.limit = limit;
        this.control = control;
    }

    /** Runs {@code task} every {@code period} until the returned future is cancelled. */
    static ScheduledFuture<?> every(Duration period, Runnable task) {
        return TIMER.scheduleWithFixedDelay(task, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    public Duration limit() {
        return limit;
    }

    public ServerControl control() {
        return control;
    }

    /** Terminates a session for a limit of Kensho's; the statement it was running fails with {@code reason}. */
    public void stop(int pid, String reason) {
        stops.put(pid, reason);
        try {
            control.terminate(pid);
        } catch (SQLException ignored) {
            // The page's database is dropped WITH (FORCE) afterwards in any case.
        }
    }

    public <T> T run(Connection connection, Work<T> work) throws SQLException {
        int pid = connection.unwrap(PGConnection.class).getBackendPID();
        String earlier = stops.get(pid);
        if (earlier != null) {
            throw limitReached(earlier, null);
        }
        AtomicReference<String> stopped = new AtomicReference<>();
        ScheduledFuture<?> cancel = TIMER.schedule(() -> {
            String waiting = "";
            try {
                waiting = control.waitsForLock(pid) ? " while it waited for a lock another session holds" : "";
            } catch (SQLException ignored) {
                // Only the wording of the message depends on it.
            }
            stopped.set("Kensho stopped the statement after " + seconds(limit) + waiting
                    + " (its own limit per statement, --statement-timeout)");
            try {
                connection.unwrap(PGConnection.class).cancelQuery();
            } catch (SQLException ignored) {
                // Terminated below if it still runs.
            }
        }, limit.toMillis(), TimeUnit.MILLISECONDS);
        ScheduledFuture<?> terminate = TIMER.schedule(() -> {
            stopped.set("Kensho stopped the statement after " + seconds(limit) + ", and as it ignored the cancel "
                    + "(does it catch query_canceled?) terminated its session " + seconds(TERMINATE_AFTER) + " later");
            try {
                control.terminate(pid);
            } catch (SQLException ignored) {
                // The page's database is dropped WITH (FORCE) afterwards in any case.
            }
        }, limit.plus(TERMINATE_AFTER).toMillis(), TimeUnit.MILLISECONDS);
        // A backend may survive terminate too (a procedural language's loop that never checks for
        // interrupts): the connection is then abandoned, its socket closed, so no page holds the build.
        ScheduledFuture<?> abandon = TIMER.schedule(() -> {
            stopped.set("Kensho stopped the statement after " + seconds(limit) + "; it ignored the cancel and survived "
                    + "terminating its session, so Kensho closed its connection " + seconds(TERMINATE_AFTER.multipliedBy(2))
                    + " later (its own limit per statement, --statement-timeout)");
            try {
                connection.abort(Runnable::run);
            } catch (SQLException ignored) {
                // Closed already.
            }
        }, limit.plus(TERMINATE_AFTER.multipliedBy(2)).toMillis(), TimeUnit.MILLISECONDS);
        try {
            T result = work.run();
            if (stopped.get() != null) {
                throw limitReached(stopped.get(), null);
            }
            return result;
        } catch (SQLException e) {
            String outside = stops.get(pid);
            if (outside != null && !(e instanceof KenshoLimitException)) {
                throw limitReached(outside, e);
            }
            if (stopped.get() != null && !(e instanceof KenshoLimitException)) {
                throw limitReached(stopped.get(), e);
            }
            throw e;
        } finally {
            cancel.cancel(false);
            terminate.cancel(false);
            abandon.cancel(false);
        }
    }

    private static KenshoLimitException limitReached(String message, SQLException cause) {
        return new KenshoLimitException(message + "; a limit of Kensho's never satisfies a claim. To show a timeout, "
                + "set statement_timeout or lock_timeout in the snippet itself", cause);
    }

    static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }
}
