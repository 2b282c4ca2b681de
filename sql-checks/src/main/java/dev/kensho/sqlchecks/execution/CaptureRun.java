package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.StateAfter;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the build reads a scenario's end state ({@link StateAfter}, for the browser to restore in its place), and asks the
 * page's catalog what the real run's claims need ({@link #answered}: the names a plan claim uses, whether the database
 * holds a sequence when a scenario releases two inserting steps at once): on a run of its own, never in the real run
 * whose outcomes are the page's evidence. The real run's database hands out no connection of Kensho's at all
 * ({@link KenshoConnections}).
 *
 * <p>Any read in the page's database between its snippets is something the page can observe, however it is made:
 * pg_stat_database counts the reading connection and its transactions (sessions, xact_commit, xact_rollback), the read
 * sets hint bits on the scenario's fresh tuples and pulls their pages into shared buffers (a later
 * {@code EXPLAIN (ANALYZE, BUFFERS)} shows other {@code dirtied} and {@code read} counts), pg_stat_activity shows the
 * backend. A test of the page's text ("pg_stat" in it) caught only some spellings (not {@code U&"pg\005fstat_database"},
 * not dynamic SQL) and not the buffers at all; it is gone, as it is no longer needed: the real run has no connection or
 * statement of Kensho's beside the reader's for a capture.
 *
 * <p>Instead, once the real run is over, the page runs again on a fresh database (as {@link RestoreProof}'s run does, under
 * the same limits per page) up to the last scenario whose state is wanted, and the state is read there after each. A state
 * is accepted only when that run reached its scenario exactly as the real run did: every snippet up to and including the
 * scenario ended alike ({@link RestoreProof#same}: status, results, SQLSTATE, a scenario's steps and their results). A
 * scenario that ends otherwise (a step returning {@code clock_timestamp()} or {@code random()}) gets no state, and the
 * snippets after it keep their "cannot run in the browser" note, as when nothing could be read. The restore is then proven
 * by {@link RestoreProof} as before.
 */
final class CaptureRun {

    private CaptureRun() {
    }

    /**
     * The scenarios whose end state the browser could use, told from the real run alone: each of a run of scenarios that
     * passed and left the page's session outside a transaction ({@code endedOutsideTransaction}), followed in run order by
     * a snippet the browser could run from their restores (verified, not a scenario). A scenario right after another needs
     * the first one's state too: the browser restores each in its place. Empty: the page pays no capture run.
     */
    static Set<Integer> wanted(List<Outcome> real, Set<Integer> endedOutsideTransaction) {
        Set<Integer> wanted = new LinkedHashSet<>();
        List<Integer> pending = new ArrayList<>();
        for (int index : RunOrder.of(RestoreProof.snippets(real))) {
            Outcome outcome = real.get(index);
            Snippet snippet = outcome.snippet();
            if (snippet.directives().caseName() != null) {
                continue; // runs with the answer before it
            }
            if (snippet.scenario() != null && endedOutsideTransaction.contains(index)) {
                pending.add(index);
            } else if (snippet.scenario() == null && outcome.passed()) {
                wanted.addAll(pending);
                pending.clear();
            } else {
                pending.clear(); // the browser stops here: nothing after it needs the states before
            }
        }
        return wanted;
    }

    /**
     * The real run's outcomes with each wanted scenario's end state as the capture run read it, when the capture run (its
     * outcomes, null past where it stopped; null as a whole when it could not run) reached that scenario as the real run did.
     */
    static List<Outcome> recorded(List<Outcome> real, Set<Integer> wanted, List<Outcome> capture) {
        List<Outcome> recorded = new ArrayList<>(real);
        if (capture == null) {
            return recorded;
        }
        for (int index : RunOrder.of(RestoreProof.snippets(real))) {
            Outcome captured = capture.get(index);
            if (captured == null || !RestoreProof.same(real.get(index), captured)) {
                break; // from here on the capture run's database is not the real run's
            }
            StateAfter after = captured.transcript() == null ? null : captured.transcript().after();
            if (wanted.contains(index) && after != null) {
                Outcome o = real.get(index);
                recorded.set(index, new Outcome(o.snippet(), o.status(), o.failure(), o.results(), o.assertions(), o.plan(),
                        o.transcript().withAfter(after), o.duration()));
            }
        }
        return recorded;
    }

    /**
     * The real run's outcomes ({@code into}: as {@link #recorded} left them) with the questions the real run could not ask
     * answered by the capture run ({@code capture}, null past where it stopped; null when it could not run). An answer is
     * used only when the capture run reached the asking snippet as the real run did: every snippet before it ended alike
     * ({@link RestoreProof#same}), and it too (a scenario), or but for its values ({@link #ranAlike}: a plan claim's
     * snippet); otherwise the claim fails at its line, saying it could not be checked. The
     * comparison is with {@code real}, the real run's outcomes as they ran (plan claims waiting count as passed on both).
     *
     * @param plans     snippets whose plan claims wait for the catalog; {@code judged} their verdicts on the capture run
     * @param sequences scenarios that asked whether the database holds a sequence; {@code found} those where it did
     */
    static List<Outcome> answered(List<Outcome> real, List<Outcome> into, List<Outcome> capture, Set<Integer> plans,
                                  Map<Integer, PlanVerdict> judged, Set<Integer> sequences, Set<Integer> found) {
        List<Outcome> answered = new ArrayList<>(into);
        if (plans.isEmpty() && sequences.isEmpty()) {
            return answered;
        }
        String apart = capture == null ? "the replay could not run" : null;
        for (int index : RunOrder.of(RestoreProof.snippets(real))) {
            Outcome captured = capture == null ? null : capture.get(index);
            boolean before = apart == null;
            boolean alike = before && captured != null && RestoreProof.same(real.get(index), captured);
            // The asking snippet's own values may differ (a now() in its rows) without its catalog differing: it is a query
            // or DML (a plan claim's statement), so its statements ran alike when they ended alike and returned the same
            // columns and as many rows. What it cannot tell apart is DDL whose effect depends on such a value.
            boolean asked = before && captured != null && ranAlike(real.get(index), captured);
            String why = apart != null ? apart : captured == null ? "the replay stopped before it"
                    : "it ended otherwise on the replay";
            Outcome o = into.get(index);
            if (plans.contains(index)) {
                PlanVerdict verdict = judged.get(index);
                if (asked && verdict != null) {
                    List<Assertion> assertions = new ArrayList<>(o.assertions());
                    assertions.addAll(verdict.assertions());
                    answered.set(index, verdict.problem() == null
                            ? new Outcome(o.snippet(), o.status(), o.failure(), o.results(), assertions, o.plan(), o.transcript(), o.duration())
                            : failed(o, assertions, verdict.problem(), verdict.sqlState(), verdict.detail()));
                } else {
                    answered.set(index, failed(o, o.assertions(), "plan claims cannot be checked: the names and keys they rest on "
                            + "(uses-index=, no-seq-scan=, an index's keys, a table's TOAST size) are read from the page's catalog on a "
                            + "replay of the page on a fresh database, never beside the reader's statements, and the replay did not "
                            + "reach this snippet as the real run did (" + why + "); make the snippets before it end the same on "
                            + "every run", null, null));
                }
            }
            // A scenario the real run failed already stays failed for its own reason (true of the real run either way).
            if (sequences.contains(index) && real.get(index).passed() && !(alike && !found.contains(index))) {
                boolean sequenceFound = before && captured != null && found.contains(index) && captured.failure() != null;
                answered.set(index, sequenceFound
                        ? new Outcome(o.snippet(), Outcome.Status.FAILED, captured.failure(), o.results(), captured.assertions(), null,
                                o.transcript() == null ? null : o.transcript().withAfter(null), o.duration())
                        : failed(o, o.assertions(), "this scenario cannot be checked: it releases inserting steps at once, and "
                                + "whether the page's database then held a sequence (whose numbers are drawn in wake order) is asked "
                                + "on a replay of the page on a fresh database, never beside the reader's sessions; the replay did not "
                                + "reach the scenario as the real run did (" + why + ")", null, null));
            }
            if (apart == null && !alike) {
                apart = captured == null ? "the replay stopped before it" : "the snippet at " + o.snippet().location()
                        + " ended otherwise on the replay";
            }
        }
        return answered;
    }

    /** Ended alike but for the values: the same status and SQLSTATE, each result with the same columns, types and row count. */
    static boolean ranAlike(Outcome real, Outcome replay) {
        if (real.status() != replay.status() || !java.util.Objects.equals(RestoreProof.sqlState(real), RestoreProof.sqlState(replay))
                || real.results().size() != replay.results().size()) {
            return false;
        }
        for (int i = 0; i < real.results().size(); i++) {
            var a = real.results().get(i);
            var b = replay.results().get(i);
            if (!a.columns().equals(b.columns()) || !a.types().equals(b.types()) || a.totalRows() != b.totalRows()) {
                return false;
            }
        }
        return true;
    }

    private static Outcome failed(Outcome o, List<Assertion> assertions, String message, String sqlState, String detail) {
        Failure failure = new Failure(message, sqlState, o.snippet().location(), o.snippet().lineAt(0),
                detail == null || detail.isBlank() ? null : detail, null);
        return new Outcome(o.snippet(), Outcome.Status.FAILED, failure, o.results(), assertions, null,
                o.transcript() == null ? null : o.transcript().withAfter(null), o.duration());
    }
}
