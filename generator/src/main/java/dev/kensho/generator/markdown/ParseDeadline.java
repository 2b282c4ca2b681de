package dev.kensho.generator.markdown;

/**
 * A page's Markdown as flexmark reads it, with a deadline. Some inline constructs cost flexmark time quadratic in a
 * paragraph's length (red team helper-98: {@code ![a](} written 80,000 times, 400 KB, ran past five minutes; within the
 * page limit of 4 MiB, hours): every match of its inline parser copies the rest of the paragraph. Whatever construct it
 * is, the parser reads the text through this sequence, so its reads are counted and, every 65,536 of them, the clock
 * is looked at; past the deadline the parse ends with {@link Exceeded}. Disarmed once the parse is done: the document's
 * nodes keep reading this text while the page is rendered.
 */
final class ParseDeadline implements CharSequence {

    /** Thrown out of flexmark when the parse ran past its deadline. */
    static final class Exceeded extends RuntimeException {
        /** Where in the text the parser was last reading: the paragraph it was stuck in. */
        final int at;

        Exceeded(int at) {
            super(null, null, false, false);
            this.at = at;
        }
    }

    private final String text;
    /** Where {@link #text} starts in the page's text. */
    private final int offset;
    private final Clock clock;

    /** The deadline, shared by the sequences cut from this one. */
    private static final class Clock {
        volatile long deadline;
        int lastRead;
        /** Reads since the clock was last looked at, by this sequence and those cut from it (one parse, one thread). */
        int reads;

        Clock(long deadline) {
            this.deadline = deadline;
        }
    }

    private ParseDeadline(String text, int offset, Clock clock) {
        this.text = text;
        this.offset = offset;
        this.clock = clock;
    }

    ParseDeadline(String text, java.time.Duration budget) {
        this(text, 0, new Clock(System.nanoTime() + budget.toNanos()));
    }

    /** The clock of the page being read on this thread: its components' Markdown shares the page's budget. */
    private static final ThreadLocal<Clock> PAGE = new ThreadLocal<>();

    /** Starts the page's budget on this thread; its components' fragments ({@link #fragment}) count against it. */
    static void startPage(java.time.Duration budget) {
        PAGE.set(new Clock(System.nanoTime() + budget.toNanos()));
    }

    /** Ends the page's budget: what was parsed under it is read freely from now on (the page is rendered later). */
    static void endPage() {
        Clock page = PAGE.get();
        if (page != null) {
            page.deadline = Long.MAX_VALUE;
        }
        PAGE.remove();
    }

    /** A fragment's text under the page's budget when a page is being read on this thread, else under one of its own. */
    static ParseDeadline fragment(String text, java.time.Duration budget) {
        Clock page = PAGE.get();
        return page == null ? new ParseDeadline(text, budget) : new ParseDeadline(text, 0, page);
    }

    /** A disarmed fragment leaves the page's clock running: only the page's own parse ends its budget. */
    void disarmFragment() {
        if (PAGE.get() != clock) {
            disarm();
        }
    }

    /** No deadline from now on (the parse is done). */
    void disarm() {
        clock.deadline = Long.MAX_VALUE;
    }

    private void count(int weight, int at) {
        clock.lastRead = offset + at;
        clock.reads += weight;
        if (clock.reads >= 65_536) {
            clock.reads = 0;
            if (clock.deadline != Long.MAX_VALUE && System.nanoTime() > clock.deadline) {
                throw new Exceeded(clock.lastRead);
            }
        }
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public char charAt(int index) {
        count(1, index);
        return text.charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        count(end - start, start);
        return new ParseDeadline(text.substring(start, end), offset + start, clock);
    }

    @Override
    public String toString() {
        count(text.length(), 0);
        return text;
    }
}
