package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.postgres.RunningPostgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Makes page databases ({@link PageDatabase#prepare}) ahead of the pages, on a thread and a connection of its own, so that a
 * page does not wait for CREATE DATABASE's checkpoints and file copy. Each database is still given to exactly one page and
 * dropped after it ({@link DatabaseDropper}); it is made as a page's own would be, and nothing connects to it before its page
 * does (on a server whose template Kensho guarded). What only the plan claims decide is added when a page takes it
 * ({@link PageDatabase#open}). Making starts at the first page, so a server that checks no page makes none.
 */
final class DatabasePool implements AutoCloseable {

    /** Databases made or being made ahead, at most: one per page runner of a two-job build. */
    static final int AHEAD = 2;

    private final RunningPostgres server;
    private final Connection admin;
    private final DatabaseDropper dropper;
    private final VerifierSettings settings;
    private final Supplier<String> names;
    private final ArrayDeque<Future<PageDatabase.Prepared>> ahead = new ArrayDeque<>();
    private final ExecutorService maker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "kensho-database-maker");
        thread.setDaemon(true);
        return thread;
    });
    private boolean closed;

    /** @param names the next page database's name on each call (also its role's) */
    DatabasePool(RunningPostgres server, DatabaseDropper dropper, VerifierSettings settings, Supplier<String> names) throws SQLException {
        this.server = server;
        this.admin = server.connectAdmin();
        this.dropper = dropper;
        this.settings = settings;
        this.names = names;
    }

    /** The next page's role and database, made ahead (or now, if none is ready), each given out once. */
    PageDatabase.Prepared take() throws SQLException {
        Future<PageDatabase.Prepared> next;
        synchronized (this) {
            if (closed) {
                throw new SQLException("the verifier is closed");
            }
            while (ahead.size() < AHEAD + 1) {
                String name = names.get();
                ahead.add(maker.submit(() -> PageDatabase.prepare(server, admin, name, settings)));
            }
            next = ahead.poll();
        }
        try {
            return next.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while a page database was made", e);
        }
    }

    /** Waits for the databases being made and has every one no page took dropped; the dropper is closed after this. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        maker.shutdown();
        try {
            maker.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Future<PageDatabase.Prepared> made : ahead) {
            if (made.isDone() && !made.isCancelled()) {
                try {
                    dropper.drop(made.get().name());
                } catch (ExecutionException | InterruptedException notMade) {
                    // Nothing to drop: prepare drops what it made when it fails.
                }
            }
        }
        ahead.clear();
        try {
            admin.close();
        } catch (SQLException ignored) {
            // The server is stopped next.
        }
    }
}
