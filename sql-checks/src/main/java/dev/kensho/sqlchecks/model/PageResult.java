package dev.kensho.sqlchecks.model;

import java.time.Duration;
import java.util.List;

/**
 * The outcomes of one page's snippets, in document order.
 *
 * @param page          the page's name as the caller gave it
 * @param outcomes      one per snippet
 * @param databaseSetup time to create and drop the page's throw-away database and role
 */
public record PageResult(String page, List<Outcome> outcomes, Duration databaseSetup) {

    public PageResult {
        outcomes = List.copyOf(outcomes);
    }

    public boolean passed() {
        return outcomes.stream().allMatch(Outcome::passed);
    }
}
