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
 * holds a sequence when a scenario releases two inserting steps at once): on runs of their own, never in the real run
 * whose outcomes are the page's evidence. The real run's database hands out no connection of Kensho's at all
 * ({@link KenshoConnections}).
 *
 * <p>Any read in the page's database between its snippets is something the page can observe, however it is made:
 * pg_stat_database counts the reading connection and its transactions (sessions, xact_commit, xact_rollback), the read
 * sets hint bits on the scenario's fresh tuples and pulls their pages into shared buffers (a later
 * {@code EXPLAIN (ANALYZE, BUFFERS)} shows other {@code dirtied} and {@code read} counts), pg_stat_activity shows the
 * backend, pg_stat_sys_tables counts its catalog scans.
 *
 * <p>So once the real run is over, the page runs again on a fresh database (as {@link RestoreProof}'s run does, under the
 * same limits per page), named as the real run's was, its role too ({@link Verifier}): once for the states wanted, reading
 * each after its scenario, and once per question of the real run ({@link #questions}), which runs the page with nothing of
 * Kensho's beside it up to that question, asks it there and stops. An answer therefore never comes from a database a page
 * could have told from the real run's by anything Kensho did: the only differences left are the page's own (the clock,
 * random(), the order the server wakes sessions in), which the outcomes show, and an answer is used only when its replay
 * reached the question as the real run did ({@link RestoreProof#same}, {@link #ranAlike}). A state is accepted only when
 * its run reached its scenario exactly as the real run did; a scenario that ends otherwise (a step returning
 * {@code clock_timestamp()} or {@code random()}) gets no state, and the snippets after it keep their "cannot run in the
 * browser" note, as when nothing could be read. The restore is then proven by {@link RestoreProof} as before.
 *
 * <p>"Ended alike" does not prove the replay ran the real run's DDL: a function or dynamic SQL can take a branch, or build
 * a name, from the clock, random(), a backend's number or an OID, and end alike either way. So a question's answer also
 * needs the server to have parsed the same statements on the replay as on the real run in every snippet up to it
 * ({@link RunTrace}); otherwise the claim fails at its line. Left open (RunTrace says why): a statement parsed on both
 * runs that acts otherwise on one inside a function (a WHERE reading the clock, DDL an exception block rolls back on one
 * run only). Where chance decides it, the page's claims meet a second draw ({@link SecondDraw}), which catches what
 * any claim or shown row reveals, with the probability a second draw gives.
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
     * A question the real run could not ask (it has no connection of Kensho's): a plan claim's catalog look-up right after
     * snippet {@code snippet} ({@code plan}), the {@code release}-th look for sequences of scenario {@code snippet} (1 for
     * its first; {@code plan} null), or ({@code cases}) what the model answer at {@code snippet} returns on each of its
     * exercise's data sets. Each is asked on a replay of its own that stops right after the snippet.
     */
    record Question(int snippet, PlanVerdict.Pending plan, int release, boolean cases) {

        Question(int snippet, PlanVerdict.Pending plan, int release) {
            this(snippet, plan, release, false);
        }
    }

    /**
     * A case as the real run leaves it: not run. A reader's run never runs a case before the snippets after it, so the real
     * run runs none; its replay ({@link #questions}) gives its outcome, or {@link #answered} says why it could not.
     */
    static Outcome caseWaiting(Snippet dataSet) {
        return caseNotRun(dataSet, "case \"" + dataSet.directives().caseName() + "\" was not run: a case runs on a replay of the "
                + "page of its own, and none answered");
    }

    /** A case that did not run, and why, at its line. */
    static Outcome caseNotRun(Snippet dataSet, String why) {
        return new Outcome(dataSet, Outcome.Status.SKIPPED, new Failure(why, null, dataSet.location(), dataSet.lineAt(0), null, null),
                List.of(), List.of(), null, null, java.time.Duration.ZERO);
    }

    /**
     * A question's replay ({@code replay}: its outcomes, null past where it stopped; null as a whole when it could not run)
     * and what it answered there: a plan claim's {@code verdict} (null when not reached), or whether the look {@code found}
     * a sequence. {@code unasked}: why the question got no replay of its own, or null when it did ({@link #unasked}).
     */
    record Answer(Question question, List<Outcome> replay, RunTrace trace, PlanVerdict verdict, boolean found, String unasked) {

        /** A question whose replay ran (or could not run because its database could not be made: null {@code replay}). */
        Answer(Question question, List<Outcome> replay, RunTrace trace, PlanVerdict verdict, boolean found) {
            this(question, replay, trace, verdict, found, null);
        }
    }

    /**
     * Why a question got no replay: the page's replays together ran past the page's limit. A page of n plan claims runs its
     * earlier snippets n(n+1)/2 times over its replays, each under the page's limit; without a limit together, a page whose
     * snippets take just under the limit holds the build for n times that, and a page of hundreds of claims for hours.
     */
    static Answer unasked(Question question, java.time.Duration limit) {
        return new Answer(question, null, null, null, false, "the page's replays, one per question, took longer than "
                + StatementGuard.seconds(limit) + " together, its limit per page (--page-timeout)");
    }

    /**
     * The real run's questions, in run order, one replay each. Why not one replay for all: whatever Kensho does to answer a
     * question (a connection, its catalog scans, a backend's statistics) is there for the replay's later snippets to see,
     * and the real run has none of it, so from the first answer on a page could tell the replay from the real run and do
     * otherwise, unseen, inside a statement whose output is the same either way (store an out-of-line value, add a serial
     * column or a partition, shadow an index's name). "Ended alike" cannot prove two catalogs equal; a replay with nothing of
     * Kensho's before its one question makes it unnecessary.
     */
    static List<Question> questions(List<Outcome> real, Map<Integer, PlanVerdict.Pending> plans, Map<Integer, Integer> sequences,
                                    Set<Integer> caseAnswers) {
        List<Question> questions = new ArrayList<>();
        for (int index : RunOrder.of(RestoreProof.snippets(real))) {
            if (caseAnswers.contains(index)) {
                questions.add(new Question(index, null, 0, true));
            }
            if (plans.containsKey(index)) {
                questions.add(new Question(index, plans.get(index), 0));
            }
            for (int release = 1; release <= sequences.getOrDefault(index, 0); release++) {
                questions.add(new Question(index, null, release));
            }
        }
        return questions;
    }

    /**
     * The real run's outcomes ({@code into}: as {@link #recorded} left them) with the questions the real run could not ask
     * answered, each by its own replay ({@link #questions}). An answer is used only when its replay reached the asking
     * snippet as the real run did: every snippet before it ended alike ({@link RestoreProof#same}), and it too (a scenario,
     * unless its look found a sequence, which fails it), or but for its values ({@link #ranAlike}: a plan claim's snippet);
     * otherwise the claim fails at its line, saying it could not be checked. The comparison is with {@code real}, the real
     * run's outcomes as they ran (plan claims waiting count as passed on both), and with {@code realTrace}, what the server
     * parsed in each of its snippets: "ended alike" does not prove the replay ran the real run's DDL ({@link RunTrace}).
     */
    static List<Outcome> answered(List<Outcome> real, RunTrace realTrace, List<Outcome> into, List<Answer> answers) {
        List<Outcome> answered = new ArrayList<>(into);
        Map<Integer, List<Answer>> byScenario = new java.util.LinkedHashMap<>();
        for (Answer answer : answers) {
            int index = answer.question().snippet();
            Outcome o = into.get(index);
            if (answer.question().cases()) {
                casesAnswered(real, realTrace, answered, answer);
            } else if (answer.question().plan() != null) {
                if (!real.get(index).passed()) {
                    continue; // a claim the real run failed after its plan (a gate) stays failed for that reason, on every run
                }
                String apart = answer.unasked() != null ? answer.unasked() : apart(real, realTrace, answer, index, true);
                PlanVerdict verdict = answer.verdict();
                if (apart == null && verdict != null) {
                    List<Assertion> assertions = new ArrayList<>(o.assertions());
                    assertions.addAll(verdict.assertions());
                    answered.set(index, verdict.problem() == null
                            ? new Outcome(o.snippet(), o.status(), o.failure(), o.results(), assertions, o.plan(), o.transcript(), o.duration())
                            : failed(o, assertions, verdict.problem(), verdict.sqlState(), verdict.detail()));
                } else {
                    answered.set(index, failed(o, o.assertions(), "plan claims cannot be checked: the names and keys they rest on "
                            + "(uses-index=, no-seq-scan=, an index's keys, a table's TOAST size) are read from the page's catalog on a "
                            + "replay of the page on a fresh database, never beside the reader's statements, and the replay did not "
                            + "reach this snippet as the real run did (" + (apart == null ? "the replay stopped before it" : apart)
                            + "); make the snippets before it end the same on every run", null, null));
                }
            } else {
                byScenario.computeIfAbsent(index, i -> new ArrayList<>()).add(answer);
            }
        }
        for (Map.Entry<Integer, List<Answer>> scenario : byScenario.entrySet()) {
            int index = scenario.getKey();
            if (!real.get(index).passed()) {
                continue; // a scenario the real run failed stays failed for its own reason (true of the real run either way)
            }
            Outcome o = into.get(index);
            String apart = null;
            Outcome found = null;
            for (Answer answer : scenario.getValue()) {
                Outcome captured = answer.replay() == null ? null : answer.replay().get(index);
                String before = answer.unasked() != null ? answer.unasked() : apart(real, realTrace, answer, index, null);
                if (before == null && answer.found() && captured != null && captured.failure() != null) {
                    found = captured; // the release's look found a sequence: its replay says which step may draw from it
                    break;
                }
                String reached = before != null ? before : apart(real, realTrace, answer, index, false);
                apart = apart != null ? apart : reached;
            }
            if (found != null) {
                answered.set(index, new Outcome(o.snippet(), Outcome.Status.FAILED, found.failure(), o.results(), found.assertions(),
                        null, o.transcript() == null ? null : o.transcript().withAfter(null), o.duration()));
            } else if (apart != null) {
                answered.set(index, failed(o, o.assertions(), "this scenario cannot be checked: it releases inserting steps at once, "
                        + "and whether the page's database then held a sequence (whose numbers are drawn in wake order) is asked "
                        + "on a replay of the page on a fresh database, never beside the reader's sessions; the replay did not "
                        + "reach the scenario as the real run did (" + apart + ")", null, null));
            }
        }
        return answered;
    }

    /**
     * An exercise's cases as their replay ran them ({@code answer}), into {@code answered}: the replay's outcome of each case
     * when it reached the model answer as the real run did; otherwise each case fails, saying why. The replay ran the
     * answer again after its cases, as a reader's browser does before it compares the reader's result with the verified
     * one: when the answer's own claim no longer held there, a case left something a rollback does not undo, and the last
     * case fails saying so (a reader typing the model answer would be told it is wrong). A backstop: the case's own checks
     * (ScriptRunner's session state and session-effect functions) refuse every such leftover found so far.
     */
    private static void casesAnswered(List<Outcome> real, RunTrace realTrace, List<Outcome> answered, Answer answer) {
        int index = answer.question().snippet();
        List<Integer> cases = new ArrayList<>();
        for (int c = index + 1; c < real.size() && real.get(c).snippet().directives().caseName() != null; c++) {
            cases.add(c);
        }
        if (!real.get(index).passed()) {
            for (int c : cases) {
                answered.set(c, caseNotRun(real.get(c).snippet(), "not run: its model answer at " + real.get(index).snippet().location()
                        + " failed"));
            }
            return;
        }
        // Reached as the real run did when every snippet before the answer ended alike and parsed the same statements (a
        // hidden DO block creating a trigger on random() ends alike either way: red team helper-85).
        String apart = answer.unasked() != null ? answer.unasked() : apart(real, realTrace, answer, index, null);
        if (apart != null) {
            for (int c : cases) {
                Outcome o = real.get(c);
                answered.set(c, failed(o, List.of(), "case \"" + o.snippet().directives().caseName() + "\" cannot be checked: a case "
                        + "runs on a replay of the page that stops after its model answer, never in the run whose marks the page "
                        + "shows, and the replay did not reach the answer as that run did (" + apart + "); make the snippets before "
                        + "it end the same on every run", null, null));
            }
            return;
        }
        Outcome caseFailed = null;
        for (int c : cases) {
            Outcome ran = answer.replay().get(c);
            Snippet dataSet = real.get(c).snippet();
            answered.set(c, ran != null ? ran : caseFailed != null
                    ? caseNotRun(dataSet, "not run: the case at " + caseFailed.snippet().location() + " failed")
                    : failed(real.get(c), List.of(), "case \"" + dataSet.directives().caseName() + "\" cannot be checked: its replay "
                            + "stopped before it", null, null));
            caseFailed = caseFailed == null && ran != null && ran.status() == Outcome.Status.FAILED ? ran : caseFailed;
        }
        Outcome after = answer.replay().get(index);
        boolean casesPassed = cases.stream().allMatch(c -> answered.get(c).passed());
        if (casesPassed && !cases.isEmpty() && (after == null || !after.passed())) {
            int last = cases.get(cases.size() - 1);
            Outcome o = answered.get(last);
            String why = after == null ? "it did not run" : after.failure() == null ? "it did not pass" : after.failure().message();
            answered.set(last, failed(o, o.assertions(), "case \"" + o.snippet().directives().caseName() + "\": after the cases, "
                    + "the model answer no longer holds its claim (" + why + "); a reader's browser runs the answer after its cases, "
                    + "so a reader typing the model answer would be told it is wrong: a case may leave nothing a rollback does not "
                    + "undo (a sequence's value, a prepared statement, a cursor's position, the seed of random())", null, null));
        }
    }

    /**
     * Null when {@code replay} reached snippet {@code index} as the real run did: every snippet before it in run order ended
     * alike, and (unless {@code valuesMayDiffer} is null) it too, alike ({@code false}) or but for its values ({@code
     * true}); otherwise why not. The asking snippet's own values may differ (a now() in its rows) without its catalog
     * differing: a plan claim's statement is a query or DML, so its statements ran alike when they ended alike and returned
     * the same columns and as many rows. What it cannot tell apart is DDL whose effect depends on such a value.
     */
    private static String apart(List<Outcome> real, RunTrace realTrace, Answer answer, int index, Boolean valuesMayDiffer) {
        List<Outcome> replay = answer.replay();
        if (replay == null) {
            return "the replay could not run";
        }
        for (int i : RunOrder.of(RestoreProof.snippets(real))) {
            Outcome captured = replay.get(i);
            if (i == index) {
                if (valuesMayDiffer == null) {
                    return null;
                }
                return captured == null ? "the replay stopped before it"
                        : !(valuesMayDiffer ? ranAlike(real.get(i), captured) : RestoreProof.same(real.get(i), captured))
                        ? "it ended otherwise on the replay"
                        : parsedOtherwise(realTrace, answer.trace(), real.get(i), i);
            }
            if (captured == null) {
                return "the replay stopped before it";
            }
            if (!RestoreProof.same(real.get(i), captured)) {
                return "the snippet at " + real.get(i).snippet().location() + " ended otherwise on the replay";
            }
            String parsed = parsedOtherwise(realTrace, answer.trace(), real.get(i), i);
            if (parsed != null) {
                return parsed;
            }
        }
        return "the replay stopped before it";
    }

    /**
     * Null when the server parsed the same statements in snippet {@code i} on both runs ({@link RunTrace}); otherwise why
     * the replay's catalog cannot be taken for the real run's.
     */
    private static String parsedOtherwise(RunTrace realTrace, RunTrace replayTrace, Outcome real, int i) {
        if (realTrace == null || replayTrace == null || !realTrace.of(i).equals(replayTrace.of(i))) {
            return "the snippet at " + real.snippet().location() + " ended alike, but the server parsed other statements in it on "
                    + "the replay: a function or dynamic SQL ran other statements, or built other names, than on the real run (from "
                    + "the clock, random(), a backend's number, an OID), so its DDL may differ";
        }
        return null;
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
