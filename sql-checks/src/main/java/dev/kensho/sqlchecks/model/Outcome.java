package dev.kensho.sqlchecks.model;


import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What happened to one snippet.
 *
 * @param snippet    the snippet
 * @param status     whether it held, failed, or was not run
 * @param failure    why it failed or was skipped; null when it passed
 * @param results    the rows each row-returning statement produced, in order
 * @param assertions every claim checked, in order (the first is always what the run itself showed)
 * @param plan       EXPLAIN (ANALYZE, BUFFERS) text of the last statement when the author asked to show it, else null
 * @param transcript what each session did, for a scenario; null for a plain snippet
 * @param duration   time spent on the server round trips of this snippet
 */
public record Outcome(Snippet snippet, Status status, Failure failure, List<ResultTable> results,
                      List<Assertion> assertions, String plan, ScenarioTranscript transcript, Duration duration) {

    public enum Status {
        PASSED, FAILED,
        /** Not run because an earlier snippet on the same page failed and later ones build on it. */
        SKIPPED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Outcome {
        results = List.copyOf(results);
        assertions = List.copyOf(assertions);
    }

    public boolean passed() {
        return status == Status.PASSED;
    }
}
