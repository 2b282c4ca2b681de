package dev.kensho.sqlchecks.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Carries the embedded server's output to its log file, keeping only the first part. A stock server writes every parse
 * tree Kensho's sessions ask for as a LOG line (about 25 KB a snippet), and a page looping over EXECUTEs makes it write
 * hundreds of megabytes in seconds; the cluster lives on /dev/shm, in memory. The server's settings stay initdb's: the
 * output goes through Kensho, which keeps the first {@link #KEPT_BYTES} (start-up and the first pages, what a failure to
 * start shows) and reads and lets go the rest, so the server never waits on a full pipe.
 */
final class ServerLog {

    static final long KEPT_BYTES = 4L << 20;

    private final Thread copier;

    private ServerLog(Thread copier) {
        this.copier = copier;
    }

    /** Starts copying {@code output} (the server's stdout and stderr) to {@code log}, at most {@code kept} bytes of it. */
    static ServerLog start(InputStream output, Path log, long kept) throws IOException {
        OutputStream file = Files.newOutputStream(log);
        Thread copier = new Thread(() -> copy(output, file, kept), "kensho-postgres-log");
        copier.setDaemon(true);
        copier.start();
        return new ServerLog(copier);
    }

    /** Waits up to {@code millis} for the output to end (the server has exited) and the log to be written. */
    void awaitEnd(long millis) {
        try {
            copier.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void copy(InputStream output, OutputStream file, long kept) {
        long written = 0;
        long dropped = 0;
        byte[] buffer = new byte[64 << 10];
        try (output; file) {
            int n;
            while ((n = output.read(buffer)) >= 0) {
                int keep = (int) Math.max(0, Math.min(n, kept - written));
                if (keep > 0) {
                    file.write(buffer, 0, keep);
                    file.flush(); // the start-up check reads the log's last lines while the server starts
                    written += keep;
                }
                dropped += n - keep;
            }
            if (dropped > 0) {
                file.write(("\n[kensho] the server wrote " + dropped + " more bytes, read and let go: Kensho keeps the first "
                        + kept + " bytes of its log\n").getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // The log is for people; whatever stopped it (a full disk, the server gone) must not stop the server. Keep
            // reading, so that the server never blocks on a full pipe.
            drain(output, buffer);
        }
    }

    private static void drain(InputStream output, byte[] buffer) {
        try (output) {
            while (output.read(buffer) >= 0) {
                // let go
            }
        } catch (IOException gone) {
            // The server's end is closed: nothing more to read.
        }
    }
}
