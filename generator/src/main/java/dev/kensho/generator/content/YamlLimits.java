package dev.kensho.generator.content;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionEndEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
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

    /**
     * The settings of the event pass, made once: they are immutable, and making them (a schema and its tables) was a
     * third of the pass for a page's few lines of front matter.
     */
    private static final LoadSettings EVENT_SETTINGS = LoadSettings.builder().setCodePointLimit((int) ContentFiles.MAX_PAGE_BYTES).build();

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
    public static Load loader(String label) {
        return new Load(LoadSettings.builder().setLabel(label).setMaxAliasesForCollections(MAX_ALIASES)
                .setCodePointLimit((int) ContentFiles.MAX_PAGE_BYTES).build());
    }

    /**
     * Checks the bounds; malformed YAML passes (loading it then reports the syntax error at its line).
     */
    public static void check(String yaml) throws Exceeded {
        Map<Anchor, Long> sizes = new HashMap<>();
        Deque<long[]> open = new ArrayDeque<>();
        Deque<Optional<Anchor>> anchors = new ArrayDeque<>();
        long entries = 0;
        int aliases = 0;
        try {
            for (Event event : new Parse(EVENT_SETTINGS).parseString(yaml)) {
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
            // Reported by the loader, at its line.
        }
    }
}
