package dev.kensho.generator.report;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a long build is doing. On a terminal, a line that rewrites itself (pages verified, snippets,
 * pages rendered, time so far) once the build has run for a second; in CI and other logs, a plain
 * line at the end of each stage that took longer than a second.
 */
public final class Progress implements AutoCloseable {

    public final AtomicInteger pagesVerified = new AtomicInteger();
    public final AtomicInteger snippetsVerified = new AtomicInteger();
    public final AtomicInteger pagesRendered = new AtomicInteger();
    private volatile int pagesToVerify;
    private volatile int pagesToRender;
    private final long started = System.nanoTime();
    private final PrintStream out;
    private final boolean terminal;
    private final Thread ticker;
    private volatile boolean drawn;

    private Progress(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
        this.ticker = terminal ? new Thread(this::tick, "kensho-progress") : null;
        if (ticker != null) {
            ticker.setDaemon(true);
            ticker.start();
        }
    }

    /** A progress line on stderr when it is a terminal and not CI; plain stage lines otherwise. */
    public static Progress onStandardError() {
        boolean terminal = System.console() != null && System.getenv("CI") == null;
        return new Progress(System.err, terminal);
    }

    /** Reports to {@code out}, as on a terminal or as in a log. */
    public static Progress to(PrintStream out, boolean terminal) {
        return new Progress(out, terminal);
    }

    /** Reports nothing (tests, the preview). */
    public static Progress silent() {
        return new Progress(null, false);
    }

    public void expect(int verify, int render) {
        pagesToVerify = verify;
        pagesToRender = render;
    }

    /** A plain line for logs, printed only when the build has already taken more than a second. */
    public void stageDone(String what) {
        if (out != null && !terminal && seconds() > 1) {
            out.printf(Locale.ROOT, "Kensho: %s after %.1f s%n", what, seconds());
        }
    }

    private double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    private void tick() {
        try {
            Thread.sleep(1000);
            while (!Thread.currentThread().isInterrupted()) {
                out.printf(Locale.ROOT, "\r[kensho] %d/%d pages verified, %d snippets, %d/%d pages rendered, %.1f s ",
                        pagesVerified.get(), pagesToVerify, snippetsVerified.get(), pagesRendered.get(), pagesToRender, seconds());
                out.flush();
                drawn = true;
                Thread.sleep(250);
            }
        } catch (InterruptedException done) {
            // The build is over.
        }
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (drawn) {
                out.print("\r\033[K");
                out.flush();
            }
        }
    }
}
