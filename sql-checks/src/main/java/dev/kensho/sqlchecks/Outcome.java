package dev.kensho.sqlchecks;

import java.time.Duration;
import java.util.List;

/**
 * What happened to one snippet.
 *
 * @param snippet  the snippet
 * @param status   whether it held, failed, or was not run
 * @param failure  why it failed or was skipped; null when it passed
 * @param results  the rows each row-returning statement produced, in order
 * @param duration time spent on the server round trips of this snippet
 */
public record Outcome(Snippet snippet, Status status, Failure failure, List<ResultTable> results, Duration duration) {

    public enum Status {
        PASSED, FAILED,
        /** Not run because an earlier snippet on the same page failed and later ones build on it. */
        SKIPPED;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Outcome {
        results = List.copyOf(results);
    }

    public boolean passed() {
        return status == Status.PASSED;
    }
}
