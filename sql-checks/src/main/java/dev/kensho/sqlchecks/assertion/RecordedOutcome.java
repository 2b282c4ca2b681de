package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.RowOrder;
import dev.kensho.sqlchecks.model.Snippet;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Judges a snippet's claims, as written now, against an outcome recorded earlier (the verification
 * cache) without a server: a recorded verdict is never taken on its word. What the record holds in
 * full is judged again exactly as the run judged it: the expected rows against the recorded last
 * result in the recorded row order ({@link RowComparison}), an expected error's SQLSTATE and message
 * pattern ({@link BoundedMatch}). Plan and work claims need the captured plans and the catalog,
 * which are not recorded: for those the record must show every claim the snippet makes as judged
 * and held. Anything the record cannot show makes it unusable, and the page runs again.
 */
public final class RecordedOutcome {

    /** Claim kinds every snippet records whatever it claims; a plan claim records some other kind. */
    private static final Set<String> NOT_PLAN_CLAIMS = Set.of("runs", "rows", "conditions", "fails-with",
            "planner-defaults", "planner-settings");

    private RecordedOutcome() {
    }

    /** Null when every claim of {@code snippet} holds on {@code recorded}; else why it cannot be reused. */
    public static String problem(Snippet snippet, Outcome recorded) {
        if (recorded.status() != Outcome.Status.PASSED || recorded.failure() != null) {
            return "it did not pass";
        }
        if (recorded.assertions().isEmpty() || recorded.assertions().stream().anyMatch(a -> !a.passed())) {
            return "not every recorded claim held";
        }
        if (snippet.scenario() != null) {
            return has(recorded, "permutation") ? null : "the scenario's permutations are not recorded";
        }
        if (snippet.directives().expectError() != null) {
            String error = expectedError(snippet, recorded);
            if (error != null) {
                return error;
            }
        } else if (!has(recorded, "runs")) {
            return "the run is not recorded";
        }
        if (snippet.expectedRows() != null) {
            String rows = rows(snippet.expectedRows(), recorded);
            if (rows != null) {
                return rows;
            }
        }
        if (snippet.directives().plan() != null
                && recorded.assertions().stream().noneMatch(a -> !NOT_PLAN_CLAIMS.contains(a.kind()))) {
            return "the plan claims are not recorded";
        }
        if (snippet.directives().showPlan() && recorded.plan() == null) {
            return "the plan to show is not recorded";
        }
        return null;
    }

    private static boolean has(Outcome recorded, String kind) {
        return recorded.assertions().stream().anyMatch(a -> a.kind().equals(kind));
    }

    private static String expectedError(Snippet snippet, Outcome recorded) {
        Assertion failsWith = recorded.assertions().stream().filter(a -> a.kind().equals("fails-with")).findFirst().orElse(null);
        if (failsWith == null || !snippet.directives().expectError().equals(failsWith.facts().get("sqlstate"))) {
            return "the recorded error is not SQLSTATE " + snippet.directives().expectError();
        }
        if (snippet.directives().errorPattern() != null) {
            String message = failsWith.facts().get("message");
            try {
                if (message == null || !BoundedMatch.find(snippet.directives().errorPattern(), message)) {
                    return "the recorded error message does not match the pattern";
                }
            } catch (BoundedMatch.TooSlow slow) {
                return slow.getMessage();
            }
        }
        return null;
    }

    /** The expected rows compared again with the recorded result, in the order the server decided when it ran. */
    private static String rows(ExpectedRows expected, Outcome recorded) {
        Assertion claim = recorded.assertions().stream().filter(a -> a.kind().equals("rows")).findFirst().orElse(null);
        if (claim == null || recorded.results().isEmpty()) {
            return "the compared rows are not recorded";
        }
        ResultTable last = recorded.results().get(recorded.results().size() - 1);
        if (!last.complete()) {
            return "the recorded result is cut";
        }
        boolean ordered = Boolean.parseBoolean(claim.facts().get("ordered"));
        String sortKeys = claim.facts().get("sortKeys");
        String equality = claim.facts().getOrDefault("keyEquality", "");
        if (ordered && sortKeys == null) {
            return "the recorded order is not complete";
        }
        try {
            List<Integer> keyColumns = !ordered ? List.of() : sortKeys.equals("hidden") ? null
                    : sortKeys.isEmpty() ? List.of() : Arrays.stream(sortKeys.split(",")).map(Integer::valueOf).toList();
            List<Long> keyEquality = keyColumns == null || equality.isEmpty() ? List.of()
                    : Arrays.stream(equality.split(",")).map(Long::valueOf).toList();
            RowOrder order = new RowOrder(ordered, keyColumns, keyEquality,
                    Boolean.parseBoolean(claim.facts().getOrDefault("known", "true")), claim.facts().getOrDefault("basis", ""));
            return RowComparison.compare(expected, last, order) == null ? null : "the expected rows differ from the recorded ones";
        } catch (RuntimeException malformed) {
            return "the recorded result cannot be read";
        }
    }
}
