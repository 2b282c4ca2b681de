package dev.kensho.sqlchecks.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The order a page's snippets run in, as psql would run the page as a script: setup snippets first,
 * then the rest in document order. The one place that decides it: the build runs snippets in this
 * order, and the reader's browser replays them in it.
 */
public final class RunOrder {

    private RunOrder() {
    }

    /** Indexes into {@code snippets} (document order), in the order they run. */
    public static List<Integer> of(List<Snippet> snippets) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            if (snippets.get(i).directives().setup()) {
                order.add(i);
            }
        }
        for (int i = 0; i < snippets.size(); i++) {
            if (!snippets.get(i).directives().setup()) {
                order.add(i);
            }
        }
        return order;
    }
}
