package dev.kensho.sqlchecks.assertion;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs an author's regular expression with a time limit: Java's regex engine backtracks, and a
 * pattern such as {@code (a+)+$} can take longer than the universe on a short message. The text is
 * wrapped so that every character read checks the clock.
 */
public final class BoundedMatch {

    static final Duration LIMIT = Duration.ofSeconds(1);

    private BoundedMatch() {
    }

    /** The pattern took longer than {@link #LIMIT}; the message says how to fix it. */
    public static final class TooSlow extends Exception {
        TooSlow(String what, String pattern, String on) {
            super(what + " /" + pattern + "/ took longer than " + LIMIT.toSeconds() + " s on " + on + " (catastrophic "
                    + "backtracking); write a simpler pattern, such as a plain part of the text");
        }
    }

    /** A deadline {@link #LIMIT} from now. */
    public static long deadline() {
        return System.nanoTime() + LIMIT.toNanos();
    }

    public static boolean find(Pattern pattern, String text) throws TooSlow {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        try {
            return pattern.matcher(new Clocked(text, deadline)).find();
        } catch (Expired e) {
            throw new TooSlow("error-matches", pattern.pattern(), "the message");
        }
    }

    /**
     * Every match in the text, as [start, end) pairs: the first capturing group's span where the
     * pattern has one, else the whole match; empty matches are skipped.
     *
     * @param what     how the author named the pattern, for the message
     * @param deadline {@link System#nanoTime()} by which all matching must end: several patterns may share one
     *                 budget (see {@link #deadline()})
     */
    public static List<int[]> findAll(Pattern pattern, String text, String what, long deadline) throws TooSlow {
        List<int[]> spans = new ArrayList<>();
        try {
            Matcher matcher = pattern.matcher(new Clocked(text, deadline));
            while (matcher.find()) {
                int group = matcher.groupCount() > 0 && matcher.start(1) >= 0 ? 1 : 0;
                if (matcher.end(group) > matcher.start(group)) {
                    spans.add(new int[] {matcher.start(group), matcher.end(group)});
                }
            }
            return spans;
        } catch (Expired e) {
            throw new TooSlow(what, pattern.pattern(), "the code block");
        }
    }

    private static final class Expired extends RuntimeException {
        Expired() {
            super(null, null, false, false);
        }
    }

    /** The text, checking the clock every few thousand reads (one read per backtracking step). */
    private static final class Clocked implements CharSequence {
        private final String text;
        private final long deadline;
        private int reads;

        Clocked(String text, long deadline) {
            this.text = text;
            this.deadline = deadline;
        }

        @Override
        public char charAt(int index) {
            if ((++reads & 0xfff) == 0 && System.nanoTime() > deadline) {
                throw new Expired();
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Clocked(text.substring(start, end), deadline);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
