package dev.kensho.generator.content;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.constructor.StandardConstructor;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionEndEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.parser.Parser;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Bounds on contributor YAML (site.yml, front matter), checked in one streaming pass over the parser's
 * events before anything is built from them: nesting depth, aliases, and the number of entries the
 * document holds once every alias is expanded (fifty aliases of aliases are a billion entries). Each
 * bound is a clear error at the line where it is crossed, never an out-of-memory error or a stack
 * overflow; what stays under them is read in time linear in its size.
 */
public final class YamlLimits {

    static final int MAX_DEPTH = 64;
    static final int MAX_ALIASES = 100;
    static final long MAX_ENTRIES = 1_000_000;

    private YamlLimits() {
    }

    /** A bound crossed: the message, and the line and column (from 1) in the YAML text where it was. */
    public static final class Exceeded extends Exception {
        public final int line;
        public final int column;

        Exceeded(String message, Optional<Mark> mark) {
            super(message);
            this.line = mark.map(m -> m.getLine() + 1).orElse(1);
            this.column = mark.map(m -> m.getColumn() + 1).orElse(1);
        }
    }

    /** Settings for reading contributor YAML: the same alias bound, and no more code points than a page may have. */
    private static LoadSettings settings(String label) {
        return LoadSettings.builder().setLabel(label).setMaxAliasesForCollections(MAX_ALIASES)
                .setCodePointLimit((int) ContentFiles.MAX_PAGE_BYTES).build();
    }

    /**
     * Contributor YAML checked against the bounds ({@link Exceeded} at the line where one is crossed) and then loaded
     * from the very events the check read: one parse instead of two (the second was half of a page's front matter time).
     * Malformed YAML is handed to a plain load, which reports the syntax error at its line; what the loader reports
     * for well-formed YAML (an undefined alias, say) it reports from the same events as from the text.
     *
     * @throws org.snakeyaml.engine.v2.exceptions.YamlEngineException what loading the text itself would throw
     */
    public static Object load(String yaml, String label) throws Exceeded {
        LoadSettings settings = settings(label);
        List<Event> events = new ArrayList<>();
        if (!check(new Parse(settings).parseString(yaml), events)) {
            return new Load(settings).loadFromString(yaml);
        }
        Composer composer = new Composer(settings, new Replay(events));
        return new StandardConstructor(settings).constructSingleDocument(composer.getSingleNode());
    }

    /** The events of one parse, handed to the composer again. */
    private static final class Replay implements Parser {
        private final List<Event> events;
        private int next;

        Replay(List<Event> events) {
            this.events = events;
        }

        @Override
        public boolean checkEvent(Event.ID choice) {
            return next < events.size() && events.get(next).getEventId() == choice;
        }

        @Override
        public Event peekEvent() {
            if (next >= events.size()) {
                throw new NoSuchElementException("No more Events found.");
            }
            return events.get(next);
        }

        @Override
        public Event next() {
            Event event = peekEvent();
            next++;
            return event;
        }

        @Override
        public boolean hasNext() {
            return next < events.size();
        }
    }

    /**
     * Checks the bounds over {@code parsed}'s events, adding each to {@code read}; false when the YAML is malformed (the
     * events stop there).
     */
    private static boolean check(Iterable<Event> parsed, List<Event> read) throws Exceeded {
        Map<Anchor, Long> sizes = new HashMap<>();
        Deque<long[]> open = new ArrayDeque<>();
        Deque<Optional<Anchor>> anchors = new ArrayDeque<>();
        long entries = 0;
        int aliases = 0;
        try {
            for (Event event : parsed) {
                read.add(event);
                long size;
                if (event instanceof CollectionStartEvent start) {
                    if (open.size() >= MAX_DEPTH) {
                        throw new Exceeded("YAML nested deeper than " + MAX_DEPTH + " levels", event.getStartMark());
                    }
                    open.push(new long[]{1});
                    anchors.push(start.getAnchor());
                    continue;
                } else if (event instanceof CollectionEndEvent) {
                    size = open.pop()[0];
                    long total = size;
                    anchors.pop().ifPresent(anchor -> sizes.put(anchor, total));
                } else if (event instanceof ScalarEvent scalar) {
                    size = 1;
                    scalar.getAnchor().ifPresent(anchor -> sizes.put(anchor, 1L));
                } else if (event instanceof AliasEvent alias) {
                    if (++aliases > MAX_ALIASES) {
                        throw new Exceeded("more than " + MAX_ALIASES + " YAML aliases (*name)", event.getStartMark());
                    }
                    size = sizes.getOrDefault(alias.getAlias(), 1L);
                } else {
                    continue;
                }
                entries += event instanceof CollectionEndEvent ? 1 : size;
                if (entries > MAX_ENTRIES) {
                    throw new Exceeded("more than " + MAX_ENTRIES + " YAML entries once aliases are expanded", event.getStartMark());
                }
                if (!open.isEmpty()) {
                    open.peek()[0] = Math.min(MAX_ENTRIES + 1, open.peek()[0] + size);
                }
            }
        } catch (YamlEngineException | StackOverflowError malformed) {
            return false; // reported by the loader, at its line
        }
        return true;
    }
}
