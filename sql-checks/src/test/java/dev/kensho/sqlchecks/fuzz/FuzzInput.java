package dev.kensho.sqlchecks.fuzz;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

/**
 * What every fuzz target of Kensho's parsers shares: the input as the text a contributor's file
 * would hold, and the bound on the work one input may cost. A parser that reads contributor text
 * must answer every input, however hostile, in time about linear in its size; a quadratic path on a
 * page is a way to hang the build machine. The bound is CPU time of the fuzzing thread, so that a
 * loaded machine (or a collector running in another thread) does not count, and an input over it
 * is run a second time before it fails, so that code the JIT has not compiled yet does not count
 * either. Hangs that never return are libFuzzer's {@code -timeout} (set in the poms).
 */
public final class FuzzInput {

    /** CPU time one input may take; a linear parser reads the largest fuzzed input in milliseconds. */
    public static final long BOUND_MILLIS = 500;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private FuzzInput() {
    }

    /** A parser's run on one input; its own diagnostic exception is caught inside, anything else escapes. */
    @FunctionalInterface
    public interface Run {
        void run() throws Exception;
    }

    /** The bytes as a contributor's UTF-8 file reads (malformed sequences become U+FFFD, as a lenient reader makes them). */
    public static String text(byte[] input) {
        return new String(input, StandardCharsets.UTF_8);
    }

    /**
     * Runs the target and fails when it takes more than {@link #BOUND_MILLIS} of CPU time twice in a row.
     *
     * @param what what the input is, for the failure message
     */
    public static void withinBound(String what, int length, Run run) throws Exception {
        long spent = cpuMillis(run);
        if (spent > BOUND_MILLIS) {
            long again = cpuMillis(run);
            if (again > BOUND_MILLIS) {
                throw new AssertionError("reading " + what + " of " + length + " bytes took " + again + " ms of CPU time (first run "
                        + spent + " ms), over the bound of " + BOUND_MILLIS + " ms: a path slower than linear in the input?");
            }
        }
    }

    private static long cpuMillis(Run run) throws Exception {
        long start = THREADS.getCurrentThreadCpuTime();
        run.run();
        return (THREADS.getCurrentThreadCpuTime() - start) / 1_000_000;
    }

    /**
     * Lines of a text as an editor shows them ("a\nb" has two; "" has one): \n, \r\n and a lone \r each end
     * a line, as in YAML and CommonMark, so a diagnostic may name any line an author can go to.
     */
    public static int lineCount(String text) {
        int lines = 1;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || (c == '\r' && (i + 1 == text.length() || text.charAt(i + 1) != '\n'))) {
                lines++;
            }
        }
        return lines;
    }
}
