package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.ScenarioTranscript;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.StateAfter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The build's proof that a restored scenario state ({@link StateAfter}) stands in for the scenario: the page runs again
 * on a fresh database with each recorded scenario replaced by its restore statements (exactly what the reader's browser
 * replays in its place), and each snippet after it must end as in the real run: the same status, the same results, the
 * same error. What the restore does not bring back (a lock or setting a scenario's setup left on the page's session, a
 * temporary table, rows in another schema, an advisory lock) shows as a snippet that ends otherwise; from there on,
 * nothing after the scenario runs in the browser.
 */
final class RestoreProof {

    private RestoreProof() {
    }

    /** Whether a recorded scenario has a snippet after it that the browser could run from its restore. */
    static boolean applies(List<Outcome> outcomes) {
        boolean recorded = false;
        for (int index : RunOrder.of(snippets(outcomes))) {
            Outcome outcome = outcomes.get(index);
            if (outcome.snippet().scenario() != null) {
                recorded |= outcome.transcript() != null && outcome.transcript().after() != null;
            } else if (recorded) {
                return true;
            }
        }
        return false;
    }

    /** The page as the browser replays it: each recorded scenario replaced by a hidden snippet of its restore statements. */
    static List<Snippet> restoredPage(List<Outcome> outcomes) {
        List<Snippet> page = new ArrayList<>();
        for (Outcome outcome : outcomes) {
            Snippet snippet = outcome.snippet();
            StateAfter after = outcome.transcript() == null ? null : outcome.transcript().after();
            if (snippet.scenario() == null || after == null) {
                page.add(snippet);
                continue;
            }
            Directives hidden = new Directives(snippet.directives().setup(), true, null, null, List.of(), null, false, false, null);
            page.add(new Snippet(snippet.location(), String.join(";\n", after.restoreStatements()) + ";\n", snippet.indent(), hidden,
                    null, null));
        }
        return page;
    }

    /**
     * The real run's outcomes with each recorded scenario's {@code reproduced}: how many snippets after it, up to the next
     * scenario, ended in {@code again} (the restored run; null when it could not run) as in the real run. The first that
     * does not ends the count for every scenario after it too: the browser's state has left the build's.
     */
    static List<Outcome> judged(List<Outcome> real, List<Outcome> again) {
        List<Outcome> judged = new ArrayList<>(real);
        int scenario = -1;
        int count = 0;
        boolean apart = again == null;
        for (int index : RunOrder.of(snippets(real))) {
            Outcome outcome = real.get(index);
            if (outcome.snippet().scenario() != null) {
                close(judged, scenario, count);
                boolean recorded = outcome.transcript() != null && outcome.transcript().after() != null;
                scenario = recorded ? index : -1;
                count = 0;
                apart |= !recorded;
            } else if (scenario >= 0 && !apart && outcome.snippet().directives().caseName() == null) {
                // A model answer ends alike only with every case after it (the browser judges a reader's query on each).
                boolean alike = same(outcome, again.get(index));
                for (int c = index + 1; alike && c < real.size() && real.get(c).snippet().directives().caseName() != null; c++) {
                    alike = same(real.get(c), again.get(c));
                }
                if (alike) {
                    count++;
                } else {
                    apart = true;
                }
            }
        }
        close(judged, scenario, count);
        return judged;
    }

    private static void close(List<Outcome> judged, int scenario, int count) {
        if (scenario < 0) {
            return;
        }
        Outcome o = judged.get(scenario);
        judged.set(scenario, new Outcome(o.snippet(), o.status(), o.failure(), o.results(), o.assertions(), o.plan(),
                o.transcript().withAfter(o.transcript().after().withReproduced(count)), o.duration()));
    }

    /**
     * Ended alike, as the browser compares a run: status, every result (columns, types, rows) and the error's SQLSTATE; for
     * a scenario (compared by {@link CaptureRun}), its steps in the order they ran, each one's wait, results and error too.
     */
    static boolean same(Outcome real, Outcome restored) {
        return real.status() == restored.status() && shown(real).equals(shown(restored))
                && Objects.equals(sqlState(real), sqlState(restored))
                && Objects.equals(steps(real), steps(restored));
    }

    /** The results as the browser compares them: the order each statement's parse promises is the statement's, not its run's. */
    private static List<ResultTable> shown(Outcome outcome) {
        return outcome.results().stream().map(table -> table.withOrder(null)).toList();
    }

    /** What a scenario's sessions did, without the end state a capture run read after it. */
    private static ScenarioTranscript steps(Outcome outcome) {
        return outcome.transcript() == null ? null : outcome.transcript().withAfter(null);
    }

    static String sqlState(Outcome outcome) {
        return outcome.assertions().stream().filter(a -> a.kind().equals("fails-with")).map(Assertion::facts)
                .map(f -> f.get("sqlstate")).findFirst().orElse(null);
    }

    /** The snippets of a run's outcomes, in document order (what RunOrder orders). */
    static List<Snippet> snippets(List<Outcome> outcomes) {
        return outcomes.stream().map(Outcome::snippet).toList();
    }
}
