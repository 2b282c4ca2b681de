package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.postgres.RunningPostgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Drops finished page databases on a connection of its own, behind the pages: a page's result does not
 * wait for its database to go. At most a few drops are pending at a time (a page that finishes while
 * they are waits), so the disk the cluster uses stays bounded; closing waits for every drop.
 */
final class DatabaseDropper implements AutoCloseable {

    /** Databases finished but not yet dropped, at most. */
    private static final int PENDING = 2;

    private final Connection admin;
    private final Semaphore pending = new Semaphore(PENDING);
    /** Drops under way, by database name: a database of the same name is made only once its namesake is gone. */
    private final java.util.Map<String, java.util.concurrent.CountDownLatch> dropping = new java.util.concurrent.ConcurrentHashMap<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "kensho-database-dropper");
        thread.setDaemon(true);
        return thread;
    });

    DatabaseDropper(RunningPostgres server) throws SQLException {
        this.admin = server.connectAdmin();
    }

    /** Drops the page's database and role soon; blocks while {@value #PENDING} drops are already waiting. */
    void drop(String name) {
        pending.acquireUninterruptibly();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        dropping.put(name, done);
        try {
            worker.execute(() -> {
                try {
                    PageDatabase.drop(admin, name);
                } finally {
                    dropping.remove(name, done);
                    done.countDown();
                    pending.release();
                }
            });
        } catch (RuntimeException rejected) {
            pending.release();
            PageDatabase.drop(admin, name);
            dropping.remove(name, done);
            done.countDown();
        }
    }

    /** Returns once a drop of {@code name} that is under way is done (at once when none is). */
    void awaitDropped(String name) {
        java.util.concurrent.CountDownLatch done = dropping.get(name);
        if (done == null) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                done.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        worker.shutdown();
        try {
            if (!worker.awaitTermination(60, TimeUnit.SECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            worker.shutdownNow();
            Thread.currentThread().interrupt();
        }
        try {
            admin.close();
        } catch (SQLException ignored) {
            // The server is stopped next.
        }
    }
}
