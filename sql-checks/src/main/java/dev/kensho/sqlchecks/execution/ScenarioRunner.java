package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.RowOrder;

import dev.kensho.sqlchecks.model.Scenario;
import dev.kensho.sqlchecks.model.ScenarioTranscript;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.assertion.RowComparison;
import dev.kensho.sqlchecks.model.ExpectedRows;
import org.postgresql.util.PSQLException;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a scenario the way PostgreSQL's isolation tester does: each session on its own connection,
 * steps issued in the permutation's order. A step is "waiting" when the server says so
 * ({@code pg_isolation_test_session_is_blocked}), never because some time passed; the runner then
 * issues the next step, and after every step it lets each waiting step either finish or be seen
 * waiting again before going on, which makes the transcript the same on every run.
 *
 * <p>What the server decides by timing is refused rather than recorded: when one step releases two or
 * more sessions that waited for the same session, which of them the server wakes first decides what
 * each does, so the permutation fails at that step (see {@link #racedRelease}). Sessions start from a
 * stock session ({@link StockSession}), and a scenario never runs inside a transaction an earlier
 * snippet left open on the page's connection: it fails at its first line instead.
 */
public final class ScenarioRunner {

    /** Whether the page's database holds a sequence, read as the page's role (so by pg_catalog's names: CatalogSql). */
    static final String HAS_SEQUENCES = "SELECT EXISTS (SELECT FROM pg_catalog.pg_class WHERE relkind" + CatalogSql.EQ + "'S')";

    /** Words in a step that may draw sequence numbers outside its transaction (nextval, setval, serial defaults). */
    private static final java.util.regex.Pattern SEQUENCE_DRAW = java.util.regex.Pattern.compile("\\b(nextval|setval|insert|merge|copy)\\b");
    /** Statements that read: a step made only of these, outside a transaction block, leaves nothing for another to see. */
    private static final Set<String> READING = Set.of("select", "table", "values");

    private static boolean readsOnly(Scenario.Step step) {
        for (SqlStatement statement : SqlSplitter.split(step.sql())) {
            String text = statement.text().strip().toLowerCase(java.util.Locale.ROOT);
            String first = text.split("[^a-z_]", 2)[0];
            if (!READING.contains(first) || text.matches("(?s).*\\b(update|delete|into)\\b.*")) {
                return false;
            }
        }
        return true;
    }

    /** Opens a scenario's session: another connection to the page's database as the page's role, one of the reader's. */
    @FunctionalInterface
    public interface SessionFactory {
        Connection open() throws SQLException;
    }

    private final Connection monitor;
    private final SessionFactory sessions;
    /** Null on the real run: nothing of Kensho's connects to its database (see {@link KenshoConnections}). */
    private final KenshoConnections kensho;
    private final StatementGuard guard;
    /**
     * On a capture run asking a sequence question ({@link CaptureRun.Question}): which of the scenario's questions (1 for
     * the first) is answered by a look; 0 when none is. Every other question is gone past as the real run goes past it,
     * without a look, so that up to its own question the replay has nothing of Kensho's the real run did not have.
     */
    private final int lookAt;
    /** Of the last {@link #run}: how many releases needed to know if the database holds a sequence, and the look's answer. */
    private int sequenceQuestions;
    private boolean foundSequence;

    /**
     * @param monitor  the page's own connection: runs the scenario's setup and teardown
     * @param sessions opens the scenario's sessions (the reader's)
     * @param kensho   connections of Kensho's own, on a capture run only; null on the real run
     * @param lookAt   with {@code kensho}: the question (1 for the first of the scenario) a look answers; 0: none
     * @param guard    Kensho's limit per statement; its server control (outside the page's reach) says which sessions wait
     */
    ScenarioRunner(Connection monitor, SessionFactory sessions, KenshoConnections kensho, int lookAt, StatementGuard guard) {
        this.monitor = monitor;
        this.sessions = sessions;
        this.kensho = kensho;
        this.lookAt = kensho == null ? 0 : lookAt;
        this.guard = guard;
    }

    /**
     * How many releases of the last {@link #run} needed to know if the page's database then held a sequence (two inserting
     * steps released at once, no sequence named in the scenario). The real run does not look (it has no connection of
     * Kensho's) and goes on as if there were none; each question is asked on a replay of its own that stops there
     * ({@link CaptureRun}), and {@link CaptureRun#answered} fails the scenario when one found a sequence, or did not reach
     * its question as the real run did.
     */
    int sequenceQuestions() {
        return sequenceQuestions;
    }

    /** Whether the last {@link #run}'s look (a capture run's, at question {@code lookAt}) found a sequence. */
    boolean foundSequence() {
        return foundSequence;
    }

    public Outcome run(Snippet snippet) {
        sequenceQuestions = 0;
        foundSequence = false;
        long started = System.nanoTime();
        Scenario scenario = snippet.scenario();
        List<ScenarioTranscript.PermutationRun> runs = new ArrayList<>();
        List<Assertion> assertions = new ArrayList<>();
        Failure failure = null;
        for (Scenario.Permutation permutation : scenario.permutations()) {
            PermutationRunner runner = new PermutationRunner(snippet, scenario, permutation, assertions);
            failure = runner.run();
            runs.add(new ScenarioTranscript.PermutationRun(permutation.steps(), runner.events));
            if (failure != null) {
                break;
            }
        }
        ScenarioTranscript transcript = new ScenarioTranscript(
                scenario.sessions().stream().map(Scenario.Session::name).toList(), runs);
        Duration duration = Duration.ofNanos(System.nanoTime() - started);
        return new Outcome(snippet, failure == null ? Outcome.Status.PASSED : Outcome.Status.FAILED, failure, List.of(),
                assertions, null, transcript, duration);
    }

    /**
     * What a step's statements produced: every row-returning result in order, each with the order the
     * server's parse of its own statement promises, or the error that stopped it.
     */
    private record StepResult(List<ResultTable> results, List<RowOrder> orders, SQLException error, SqlExecution.LiveNotices.Taken taken) {
        StepResult {
            results = results == null ? List.of() : List.copyOf(results);
            orders = orders == null ? List.of() : List.copyOf(orders);
            taken = taken == null ? new SqlExecution.LiveNotices.Taken(List.of(), 0) : taken;
        }

        StepResult(List<ResultTable> results, SQLException error) {
            this(results, null, error, null);
        }

        /** The NOTICE, WARNING and INFO messages the step raised, as far as kept ({@link SqlExecution.LiveNotices#MAX_KEPT}). */
        List<String> notices() {
            return taken.kept();
        }

        /** The last statement's rows, as the tester shows them last, or null when no statement returned rows. */
        ResultTable rows() {
            return results.isEmpty() ? null : results.get(results.size() - 1);
        }
    }

    /** Each session's cursors and prepared statements as the server's parse trees showed them. */
    private final Map<Connection, SessionOrders> sessionOrders = new java.util.concurrent.ConcurrentHashMap<>();

    private final class PermutationRunner {
        private final Snippet snippet;
        private final Scenario scenario;
        private final Scenario.Permutation permutation;
        private final List<Assertion> assertions;
        private final List<ScenarioTranscript.Event> events = new ArrayList<>();
        private final Map<String, Connection> connections = new LinkedHashMap<>();
        private final Map<String, Integer> pids = new LinkedHashMap<>();
        private final Map<String, ExecutorService> executors = new LinkedHashMap<>();
        /** Steps Kensho cancelled at the watchdog's deadline: whatever they report, no claim is satisfied. */
        private final Set<String> stoppedByKensho = new HashSet<>();
        /** Waiting steps by session, in the order they started waiting. */
        private final Map<String, Running> waiting = new LinkedHashMap<>();
        /** For each waiting session, the sessions it waited for when last seen waiting. */
        private final Map<String, List<String>> waitedFor = new LinkedHashMap<>();
        /** For each waiting session, the lock it waited to be granted when last seen waiting (null: none known). */
        private final Map<String, String> awaitedLock = new LinkedHashMap<>();
        /** For each step seen waiting, every session it was seen waiting for over its wait, in order. */
        private final Map<String, Set<String>> seenWaitingFor = new LinkedHashMap<>();
        /** Sessions whose wait ended since the step now being issued, with whom they had waited for. */
        private final List<Release> released = new ArrayList<>();
        private final long deadline;

        PermutationRunner(Snippet snippet, Scenario scenario, Scenario.Permutation permutation, List<Assertion> assertions) {
            this.snippet = snippet;
            this.scenario = scenario;
            this.permutation = permutation;
            this.assertions = assertions;
            // The watchdog: however the scenario is written, it ends within this.
            this.deadline = System.nanoTime() + guard.limit().multipliedBy(3).toNanos();
        }

        /** A step issued and not yet reported complete, with the markers of its entry in the permutation. */
        private record Running(Scenario.Step step, Future<StepResult> result, Scenario.Markers markers, int[] noticeTargets) {
        }

        /** Each session's NOTICE, WARNING and INFO messages, counted as they arrive. */
        private final Map<String, SqlExecution.LiveNotices> sessionNotices = new java.util.concurrent.ConcurrentHashMap<>();

        private SqlExecution.LiveNotices noticesOf(String session) {
            return sessionNotices.computeIfAbsent(session, s -> new SqlExecution.LiveNotices());
        }

        /**
         * The step issued in this round that is reported waiting: as the tester does (run_permutation),
         * it joins the waiting steps only after the others have been given their chance to finish, so
         * its own completion is looked for from the next round on.
         */
        private Running justIssued;
        /** The last step issued: a {@code <... completed>} line follows its line (completes-after). */
        private String lastIssued;

        /** A waiting step that finished, or was woken and now waits for a session it did not wait for before. */
        /**
         * @param result        what it returned, when it has been reported complete; null while it waits again
         * @param inTransaction whether its session was still inside a transaction block once it finished
         */
        private record Release(Scenario.Step step, List<String> waitedFor, StepResult result, boolean inTransaction) {
            Release {
                waitedFor = waitedFor == null ? List.of() : waitedFor;
            }

            Release(Scenario.Step step, List<String> waitedFor) {
                this(step, waitedFor, null, false);
            }
        }

        Failure run() {
            try {
                if (inTransaction(monitor)) {
                    return failAt(0, "the scenario starts inside a transaction an earlier snippet left open on the page's "
                            + "connection: its setup and teardown would run in that transaction, unseen by the scenario's "
                            + "sessions and holding its locks; end it (COMMIT or ROLLBACK) before the scenario");
                }
                for (String setup : scenario.setup()) {
                    runOn(monitor, setup);
                }
                for (Scenario.Session session : scenario.sessions()) {
                    Connection connection = sessions.open();
                    connections.put(session.name(), connection);
                    StockSession.reset(connection);
                    pids.put(session.name(), pidOf(connection));
                    executors.put(session.name(), Executors.newSingleThreadExecutor(r -> {
                        Thread thread = new Thread(r, "kensho-session-" + session.name());
                        thread.setDaemon(true);
                        return thread;
                    }));
                    runOn(connection, session.setup());
                }
                for (int index = 0; index < permutation.steps().size(); index++) {
                    String name = permutation.steps().get(index);
                    Scenario.Step step = scenario.step(name).orElseThrow();
                    Running blocked = waiting.get(step.session());
                    released.clear();
                    if (blocked != null) {
                        // As the isolation tester does: the session's earlier step must end first (a
                        // deadlock error or a lock timeout ends it too), within the watchdog's deadline.
                        Failure failure = awaitCompletion(blocked, name);
                        if (failure != null) {
                            return failure;
                        }
                    }
                    Failure failure = issue(step, permutation.markers().get(index));
                    if (failure == null) {
                        failure = settleWaitingSteps();
                    }
                    if (justIssued != null) {
                        waiting.put(justIssued.step().session(), justIssued);
                        justIssued = null;
                    }
                    if (failure == null) {
                        failure = racedRelease(step);
                    }
                    if (failure != null) {
                        return failure;
                    }
                }
                // As the isolation tester does, a step still waiting at the end is waited for: a lock_timeout
                // the scenario set may end it; otherwise Kensho's limit does, and that is a failure.
                while (!waiting.isEmpty()) {
                    // In the order they started waiting, the first whose report no marker holds back.
                    Running stuck = waiting.values().stream().filter(r -> heldBy(r) == null).findFirst().orElse(null);
                    if (stuck == null) {
                        Running first = waiting.values().iterator().next();
                        return failAt(first.step().line(), "step " + first.step().name() + " is held back until "
                                + heldBy(first) + ", and nothing left in the permutation can make that happen (the "
                                + "permutation's markers block each other, or wait for notices no step raises)");
                    }
                    List<String> holders = blockers(stuck.step().session());
                    StepResult done = get(stuck.result());
                    if (done.error() instanceof KenshoLimitException) {
                        waiting.remove(stuck.step().session());
                        return failAt(stuck.step().line(), "step " + stuck.step().name() + " is still waiting for "
                                + String.join(", ", holders) + " at the end of the permutation; no later step releases it");
                    }
                    Failure failure = complete(stuck, done);
                    if (failure != null) {
                        return failure;
                    }
                }
                assertions.add(Assertion.held("permutation", Map.of("steps", String.join(" ", permutation.steps())),
                        "permutation " + String.join(" ", permutation.steps()) + " runs as stated"));
                return null;
            } catch (SQLException e) {
                return failAt(0, "scenario setup failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return failAt(0, "interrupted");
            } finally {
                tearDown();
            }
        }

        /**
         * Issues a step and records whether it finished or waits. As the tester does, a step marked
         * {@code (*)} is reported waiting at once, and one a marker holds back is reported waiting
         * though the server has finished it.
         */
        private Failure issue(Scenario.Step step, Scenario.Markers markers) throws InterruptedException, SQLException {
            Connection connection = connections.get(step.session());
            // As the tester counts them for a "notices N" marker: from this step's issue on.
            int[] targets = markers.afterNotices().stream()
                    .mapToInt(n -> n.count() + noticesOf(scenario.step(n.step()).orElseThrow().session()).raised()).toArray();
            SqlExecution.LiveNotices raised = noticesOf(step.session());
            Future<StepResult> result = executors.get(step.session()).submit(() -> execute(connection, step.sql(), raised));
            Running running = new Running(step, result, markers, targets);
            lastIssued = step.name();
            if (markers.reportWaiting()) {
                events.add(event(step, ScenarioTranscript.Kind.WAITING, List.of(), null));
                justIssued = running;
                waitedFor.put(step.session(), List.of());
                return null;
            }
            if (settle(running)) {
                if (heldBy(running) != null) {
                    events.add(event(step, ScenarioTranscript.Kind.WAITING, List.of(), null));
                    justIssued = running;
                    waitedFor.put(step.session(), List.of());
                    return null;
                }
                StepResult done = get(result);
                events.add(event(step, ScenarioTranscript.Kind.COMPLETED, List.of(), done));
                if (step.waits()) {
                    return failAt(step.line(), "step " + step.name() + " was to wait for " + claimedWait(step)
                            + ", but it finished without waiting");
                }
                if (step.completesAfter() != null) {
                    return failAt(step.line(), "step " + step.name() + " was to complete after " + step.completesAfter()
                            + ", but it finished without waiting");
                }
                return checkResult(step, done);
            }
            List<String> blockers = blockers(step.session());
            events.add(event(step, ScenarioTranscript.Kind.WAITING, blockers, null));
            justIssued = running;
            waitedFor.put(step.session(), blockers);
            awaitedLock.put(step.session(), guard.control().awaitedLock(pids.get(step.session())));
            seenWaitingFor.put(step.name(), new java.util.LinkedHashSet<>(blockers));
            if (!step.waits()) {
                return failAt(step.line(), "step " + step.name() + " waits for " + String.join(", ", blockers)
                        + ", but the scenario does not say so; add waits-for=" + String.join(",", blockers) + " (or waits-for=*) "
                        + "if that is the point");
            }
            // Whom it waits for is checked when it finishes: a step may wait for one session, then another.
            return null;
        }

        private static boolean anySession(Scenario.Step step) {
            return step.waitsFor().equals(List.of(Scenario.ANY_SESSION));
        }

        private static String claimedWait(Scenario.Step step) {
            return anySession(step) ? "another session" : String.join(" and ", step.waitsFor());
        }

        /** Notes whom a waiting step is seen waiting for now (a step may wait for one session, then another). */
        private void observeWait(Scenario.Step step, List<String> blockers) {
            // Between being woken and running, a step has no blocker; that moment names no one.
            List<String> sessionsSeen = blockers.stream().filter(pids::containsKey).toList();
            seenWaitingFor.computeIfAbsent(step.name(), k -> new java.util.LinkedHashSet<>()).addAll(sessionsSeen);
        }

        /**
         * A step that waited, once it has finished: each session its waits-for names was among those it
         * was seen waiting for at some point of its wait ({@code *}: anyone). A step queued behind two
         * sessions waits for both at once; DROP INDEX CONCURRENTLY waits for one, then the other.
         */
        private Failure checkWait(Scenario.Step step) {
            Set<String> seenAtAll = seenWaitingFor.remove(step.name());
            if (!step.waits()) {
                return null;
            }
            if ((seenAtAll == null || seenAtAll.isEmpty()) && !anySession(step)) {
                // Reported waiting only because a marker held its report back: the server never showed it waiting.
                return failAt(step.line(), "step " + step.name() + " was to wait for " + claimedWait(step)
                        + ", but the server never showed it waiting (a marker of the permutation only held back its report)");
            }
            Set<String> seen = seenAtAll == null ? Set.of() : seenAtAll;
            List<String> never = step.waitsFor().stream().filter(name -> !anySession(step) && !seen.contains(name)).toList();
            if (!never.isEmpty()) {
                return failAt(step.line(), "step " + step.name() + " waited for " + String.join(", ", seen)
                        + ", never for " + String.join(", ", never));
            }
            assertions.add(Assertion.held("step-waits", Map.of("step", step.name(), "session", String.join(",", step.waitsFor())),
                    step.name() + " waits for " + claimedWait(step)));
            return null;
        }

        private Failure awaitCompletion(Running blocked, String next) throws InterruptedException, SQLException {
            String session = blocked.step().session();
            while (waiting.get(session) == blocked) {
                boolean done = blocked.result().isDone();
                if (System.nanoTime() > deadline) {
                    return failAt(permutation.line(), "step " + next + " cannot be issued: session " + session
                            + " is still waiting in step " + blocked.step().name() + (done
                            ? " (its report is held back until " + heldBy(blocked) + ")"
                            : " (for " + String.join(", ", blockers(session)) + ")"));
                }
                if (!done) {
                    observeWait(blocked.step(), blockers(session));
                    try {
                        blocked.result().get(5, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException | ExecutionException stillWaiting) {
                        // Checked again above.
                    }
                } else if (heldBy(blocked) == null) {
                    Failure failure = complete(blocked, get(blocked.result()));
                    return failure != null ? failure : settleWaitingSteps();
                } else {
                    // As the tester does, the other waiting steps are polled: the one holding it back may finish.
                    Failure failure = settleWaitingSteps();
                    if (failure != null) {
                        return failure;
                    }
                    if (waiting.get(session) == blocked) {
                        Thread.sleep(5);
                    }
                }
            }
            return null;
        }

        /**
         * What a marker of this entry still waits for, as the tester's step_has_blocker decides: a step it
         * names that is its session's active step (issued, not yet reported complete), or notices the
         * named step's session has not yet raised; else null.
         */
        private String heldBy(Running running) {
            for (String after : running.markers().afterSteps()) {
                String session = scenario.step(after).orElseThrow().session();
                Running active = waiting.get(session);
                if (active == null && justIssued != null && justIssued.step().session().equals(session)) {
                    active = justIssued;
                }
                if (active != null && active.step().name().equals(after)) {
                    return after + " completes";
                }
            }
            for (int i = 0; i < running.markers().afterNotices().size(); i++) {
                Scenario.NoticeCount notices = running.markers().afterNotices().get(i);
                String session = scenario.step(notices.step()).orElseThrow().session();
                if (noticesOf(session).raised() < running.noticeTargets()[i]) {
                    return "session " + session + " (of " + notices.step() + ") has raised " + notices.count() + " notice(s) "
                            + "since it was issued";
                }
            }
            return null;
        }

        private boolean stillInTransaction(String session) {
            try {
                return inTransaction(connections.get(session));
            } catch (SQLException e) {
                return false;
            }
        }

        /** Reports a waiting step complete ({@code <... completed>}) and checks what it states. */
        private Failure complete(Running running, StepResult done) {
            Scenario.Step step = running.step();
            waiting.remove(step.session());
            awaitedLock.remove(step.session());
            released.add(new Release(step, waitedFor.remove(step.session()), done, stillInTransaction(step.session())));
            events.add(event(step, ScenarioTranscript.Kind.COMPLETED_AFTER_WAIT, List.of(), done));
            if (step.completesAfter() != null && !step.completesAfter().equals(lastIssued)) {
                return failAt(step.line(), "step " + step.name() + " completed after " + lastIssued + ", not after "
                        + step.completesAfter() + " (its <... completed> follows " + lastIssued + "'s line)");
            }
            if (step.completesAfter() != null) {
                assertions.add(Assertion.held("step-completes-after", Map.of("step", step.name(), "after", step.completesAfter()),
                        step.name() + " completes after " + step.completesAfter()));
            }
            return checkResult(step, done);
        }

        /** Lets each waiting step finish or be seen waiting again, until nothing changes. */
        private Failure settleWaitingSteps() throws InterruptedException, SQLException {
            boolean changed = true;
            while (changed) {
                changed = false;
                for (Running running : new ArrayList<>(waiting.values())) {
                    if (waiting.get(running.step().session()) != running) {
                        continue;
                    }
                    if (settle(running) && heldBy(running) == null) {
                        Failure failure = complete(running, get(running.result()));
                        if (failure != null) {
                            return failure;
                        }
                        changed = true;
                    }
                }
            }
            // A step still waiting may have been woken and lost a race: it now waits for the winner.
            for (Running running : waiting.values()) {
                String session = running.step().session();
                if (running.result().isDone()) {
                    // Finished, its report held back by a marker: its wait ended now.
                    List<String> before = waitedFor.put(session, List.of());
                    if (before != null && !before.isEmpty()) {
                        released.add(new Release(running.step(), before));
                    }
                    continue;
                }
                List<String> now = blockers(session);
                String lockNow = guard.control().awaitedLock(pids.get(session));
                observeWait(running.step(), now);
                List<String> before = waitedFor.put(session, now);
                String lockBefore = awaitedLock.put(session, lockNow);
                // Still waiting for the very lock it waited for (a backend woken is granted it, and would wait
                // for another): it was never woken, though the sessions ahead of it changed (a lock granted
                // before it when the deadlock detector reordered the queue, say).
                boolean sameWait = lockBefore != null && lockBefore.equals(lockNow);
                if (before != null && !before.containsAll(now) && !sameWait) {
                    released.add(new Release(running.step(), before));
                }
            }
            return null;
        }

        /**
         * The rule for simultaneous release: when the step just issued (with everything it caused)
         * ended the waits of two or more steps that waited for the same session, the server woke them
         * together, and which runs first is decided by scheduling, not by the scenario (measured by
         * hand: one of two such sessions won 25 of 30 runs). The permutation is accepted only when
         * nothing can depend on that order ({@link #orderFree}); otherwise it fails here rather than pass
         * on some runs. A session woken and queued behind the other counts as released; one still
         * waiting for whom it waited for before does not.
         */
        private Failure racedRelease(Scenario.Step releaser) {
            // Released steps by the session each waited for, in the permutation's order.
            Map<String, Map<String, Release>> byHolder = new LinkedHashMap<>();
            for (Release release : released) {
                for (String holder : release.waitedFor()) {
                    byHolder.computeIfAbsent(holder, h -> new java.util.TreeMap<>(Comparator.comparingInt(permutation.steps()::indexOf)))
                            .merge(release.step().name(), release, (before, after) -> after.result() != null ? after : before);
                }
            }
            released.clear();
            for (Map.Entry<String, Map<String, Release>> holder : byHolder.entrySet()) {
                Map<String, Release> steps = holder.getValue();
                // Only sessions of the scenario: "a session outside the scenario" names no one in particular.
                if (steps.size() >= 2 && pids.containsKey(holder.getKey())) {
                    String why = orderFree(steps.values());
                    if (why != null) {
                        return failAt(releaser.line(), "step " + releaser.name() + " releases " + String.join(" and ", steps.keySet())
                                + " at once (each waited for " + holder.getKey() + "), and " + why + ": which the server "
                                + "wakes first is not determined, so what they do can differ from run to run; release them one "
                                + "at a time (for example, issue one of them only after the other has finished)");
                    }
                    assertions.add(Assertion.held("release-order-free", Map.of("step", releaser.name(), "released",
                            String.join(",", steps.keySet())), releaser.name() + " releases " + String.join(" and ", steps.keySet())
                            + ", and nothing they do depends on which wakes first"));
                }
            }
            return null;
        }

        /**
         * Steps woken together cannot depend on which runs first when each has finished without an
         * error and nothing one did is visible to another: each session is still inside its transaction
         * block (its writes are seen by no one before its own COMMIT, later in the permutation's fixed
         * order), or the step only reads. Locks are what they share then, and a lock conflict between
         * them would have left one waiting; conflicts are symmetric, so in the other order none would
         * either. What a transaction cannot hide is refused: sequence numbers (nextval, setval, and the
         * serial or identity defaults an INSERT, MERGE or COPY may draw) are drawn in wake order.
         *
         * @return why the order can matter, or null when it cannot
         */
        private String orderFree(java.util.Collection<Release> releases) {
            // What the steps say comes first, then what the server did; a step named is the same on every
            // run (which of them lost the race is not, so that is said of "one of them").
            Boolean sequences = null; // one question per release, however many of its steps insert
            for (Release release : releases) {
                java.util.regex.Matcher drawn = SEQUENCE_DRAW.matcher(release.step().sql().toLowerCase(java.util.Locale.ROOT));
                if (drawn.find() && (drawn.group(1).endsWith("val") || (sequences == null ? sequences = mayHaveSequences() : sequences))) {
                    return release.step().name() + " may draw sequence numbers (" + drawn.group(1) + "), which are taken in wake order";
                }
            }
            for (Release release : releases) {
                if (release.result() == null || waiting.containsKey(release.step().session())) {
                    return "one of them waits again, now for another";
                }
            }
            for (Release release : releases) {
                if (release.result().error() != null) {
                    return "one of them failed";
                }
            }
            for (Release release : releases) {
                if (!release.inTransaction() && !readsOnly(release.step())) {
                    return release.step().name() + " ended its transaction, so what it wrote may be seen by the other";
                }
            }
            return null;
        }
        private Boolean written;

        /**
         * Whether a statement of the scenario could draw from a sequence without naming nextval: true when the
         * scenario's SQL could make one (serial, identity, a sequence), as a session's open transaction may have done
         * unseen by other connections, or the page's database has a sequence now. Asked anew at each release (a step
         * before it may have made one with dynamic SQL). The database is asked only on a capture run, on a connection of
         * Kensho's there, and only at the one question that replay is for ({@link #lookAt}); the real run, which has none,
         * counts the question and goes on as if there were no sequence ({@link #sequenceQuestions}): the answer cannot
         * be read from the parse trees (a default's nextval or an identity is added by the rewriter, after the tree the
         * server reports, and a trigger's function is not in it at all).
         */
        private boolean mayHaveSequences() {
            if (written == null) {
                java.util.regex.Pattern making = java.util.regex.Pattern.compile(
                        "(?i)\\b((small|big)?serial[248]?|sequence|identity|nextval)\\b"); // not SERIALIZABLE
                written = scenario.setup().stream().anyMatch(sql -> making.matcher(sql).find())
                        || scenario.sessions().stream().anyMatch(session -> making.matcher(session.setup()).find()
                        || session.steps().stream().anyMatch(step -> making.matcher(step.sql()).find()));
            }
            if (written) {
                return true;
            }
            sequenceQuestions++;
            if (sequenceQuestions != lookAt) {
                return false; // the real run, or a replay for another question: no look, as on the real run
            }
            foundSequence = databaseHasSequences();
            return foundSequence;
        }

        private boolean databaseHasSequences() {
            // As the page's role: its names resolve here (CatalogSql).
            try (Connection look = kensho.asPageRole(); Statement statement = look.createStatement();
                 ResultSet rs = statement.executeQuery(HAS_SEQUENCES)) {
                rs.next();
                return rs.getBoolean(1);
            } catch (SQLException e) {
                return true;
            }
        }

        /**
         * Waits until the step finishes (true) or the server reports it blocked (false). Past the
         * watchdog's deadline the step is cancelled and reported as finished with that error.
         */
        private boolean settle(Running running) throws InterruptedException, SQLException {
            int pid = pids.get(running.step().session());
            int[] others = pids.entrySet().stream().filter(e -> !e.getKey().equals(running.step().session()))
                    .mapToInt(Map.Entry::getValue).toArray();
            while (true) {
                try {
                    running.result().get(2, TimeUnit.MILLISECONDS);
                    return true;
                } catch (TimeoutException notYet) {
                    // Ask the server below.
                } catch (ExecutionException e) {
                    return true;
                }
                if (guard.control().isBlockedBy(pid, others)) {
                    return false;
                }
                if (System.nanoTime() > deadline) {
                    stoppedByKensho.add(running.step().name());
                    guard.control().cancel(pid);
                    try {
                        running.result().get(5, TimeUnit.SECONDS);
                    } catch (ExecutionException | TimeoutException e) {
                        // Reported through the step's result below.
                    }
                    return true;
                }
            }
        }

        /** Sessions of this scenario holding what the session waits for. */
        private List<String> blockers(String session) {
            List<String> names = new ArrayList<>();
            try {
                for (int blocker : guard.control().blockingPids(pids.get(session))) {
                    pids.forEach((name, pid) -> {
                        if (pid == blocker && !names.contains(name)) {
                            names.add(name);
                        }
                    });
                }
            } catch (SQLException e) {
                names.add("(unknown: " + e.getMessage() + ")");
            }
            if (names.isEmpty()) {
                names.add("a session outside the scenario");
            }
            return names;
        }

        /** Notices as a failure names them: the first few, and how many there were. */
        private static String listed(List<String> notices) {
            if (notices.isEmpty()) {
                return "no notice";
            }
            int shown = 5;
            return String.join(" / ", notices.subList(0, Math.min(shown, notices.size())))
                    + (notices.size() > shown ? " / … (" + notices.size() + " in all)" : "");
        }

        private Failure checkResult(Scenario.Step step, StepResult result) {
            Failure wait = checkWait(step);
            if (wait != null) {
                return wait;
            }
            if (step.expectNotices() != null && !stoppedByKensho.contains(step.name())) {
                if (result.taken().dropped() > 0) {
                    return failAt(step.line(), "step " + step.name() + " raised " + (result.notices().size() + result.taken().dropped())
                            + " notices, more than the " + SqlExecution.LiveNotices.MAX_KEPT + " Kensho keeps of a step or longer than "
                            + SqlExecution.LiveNotices.MAX_CHARS + " characters; a claim about them cannot be checked: raise fewer");
                }
                if (!step.expectNotices().equals(result.notices())) {
                    return failAt(step.line(), "step " + step.name() + " raised " + listed(result.notices()) + ", not "
                            + listed(step.expectNotices()));
                }
                assertions.add(Assertion.held("step-notices", Map.of("step", step.name(), "count",
                        Integer.toString(step.expectNotices().size())), step.name() + " raises the stated notices"));
            }
            SQLException error = result.error();
            if (stoppedByKensho.contains(step.name())) {
                return failAt(step.line(), "Kensho stopped step " + step.name() + ": the scenario ran past its deadline ("
                        + guard.limit().multipliedBy(3).toSeconds() + " s) and the step was cancelled; a limit of Kensho's never "
                        + "satisfies a claim");
            }
            if (error != null && KenshoLimits.ownLimit(error) != null) {
                return failAt(step.line(), "step " + step.name() + ": " + KenshoLimits.ownLimit(error));
            }
            if (step.expectError() != null || step.expectMessage() != null) {
                // The tester's expected output shows the message only; a step may state it, the SQLSTATE, or both.
                String stated = step.expectError() != null ? "SQLSTATE " + step.expectError() : "\"" + step.expectMessage() + "\"";
                if (error == null) {
                    return failAt(step.line(), "step " + step.name() + " was to fail with " + stated + ", but it succeeded");
                }
                if (step.expectError() != null && !step.expectError().equals(error.getSQLState())) {
                    return failAt(step.line(), "step " + step.name() + " was to fail with SQLSTATE " + step.expectError()
                            + ", but the server reported " + error.getSQLState() + ": " + serverMessage(error));
                }
                if (step.expectMessage() != null && !step.expectMessage().equals(serverMessage(error))) {
                    return failAt(step.line(), "step " + step.name() + " failed" + (step.expectError() != null
                            ? " with SQLSTATE " + step.expectError() + " as stated, but" : "") + " with the message \""
                            + serverMessage(error) + "\", not \"" + step.expectMessage() + "\"");
                }
                if (step.expectMessage() != null) {
                    assertions.add(Assertion.held("step-error-message", Map.of("step", step.name(), "message", step.expectMessage()),
                            step.name() + " fails with: " + step.expectMessage()));
                }
                if (step.expectError() != null) {
                    assertions.add(Assertion.held("step-fails-with", Map.of("step", step.name(), "sqlstate", step.expectError()),
                            step.name() + " fails with SQLSTATE " + step.expectError()));
                }
                return null;
            }
            if (error != null) {
                Failure failure = failAt(step.line(), "step " + step.name() + ": " + serverMessage(error));
                return new Failure(failure.message(), error.getSQLState(), failure.location(), failure.sourceLine(), null,
                        hintFor(error));
            }
            List<ExpectedRows> stated = step.expectedRows();
            if (stated.isEmpty()) {
                return null;
            }
            List<ResultTable> results = result.results();
            if (results.isEmpty()) {
                return failAt(step.line(), "step " + step.name() + " states rows, but none of its statements returned rows");
            }
            if (stated.size() > 1 && stated.size() != results.size()) {
                return failAt(step.line(), "step " + step.name() + " states " + stated.size() + " results, but its statements "
                        + "returned " + results.size() + " (several rows blocks state every result, in order)");
            }
            int first = stated.size() == 1 ? results.size() - 1 : 0;
            for (int i = 0; i < stated.size(); i++) {
                ExpectedRows expected = stated.get(i);
                ResultTable actual = results.get(first + i);
                String which = stated.size() == 1 ? "" : " (result " + (i + 1) + " of " + stated.size() + ")";
                RowOrder order = result.orders().get(first + i);
                String difference = RowComparison.compare(expected, actual, order);
                if (difference != null) {
                    int newline = difference.indexOf('\n');
                    Failure failure = failAt(step.line(), "step " + step.name() + which + ": "
                            + (newline < 0 ? difference : difference.substring(0, newline)));
                    return new Failure(failure.message(), null, failure.location(), failure.sourceLine(),
                            newline < 0 ? null : difference.substring(newline + 1), null);
                }
                assertions.add(Assertion.held("step-rows", Map.of("step", step.name(), "count", Integer.toString(expected.rows().size())),
                        step.name() + which + " returns the " + expected.rows().size() + " expected row(s)"));
            }
            return null;
        }

        private String hintFor(SQLException error) {
            return switch (String.valueOf(error.getSQLState())) {
                case "55P03" -> "the step waited longer than the lock_timeout the scenario set; does the permutation release "
                        + "the lock it waits for?";
                case "40P01" -> "PostgreSQL found a deadlock; add expect-error=40P01 to the step if that is the point";
                default -> null;
            };
        }

        private ScenarioTranscript.Event event(Scenario.Step step, ScenarioTranscript.Kind kind, List<String> blockers, StepResult result) {
            ResultTable rows = result == null ? null : result.rows();
            SQLException error = result == null ? null : result.error();
            return new ScenarioTranscript.Event(step.name(), step.session(), step.sql(), kind, blockers, rows,
                    error == null ? null : error.getSQLState(), error == null ? null : serverMessage(error),
                    result == null ? List.of() : result.results());
        }

        private Failure failAt(int line, String message) {
            int index = snippet.indexOfLine(line);
            return new Failure(message, null, snippet.locate(index), snippet.lineAt(index), null, null);
        }

        private void cancel(int pid) throws SQLException {
            guard.control().cancel(pid);
        }

        private void tearDown() {
            if (justIssued != null) {
                // Issued this round and not yet among the waiting steps (an error cut the round short): cancelled like them.
                waiting.putIfAbsent(justIssued.step().session(), justIssued);
                justIssued = null;
            }
            for (Running running : waiting.values()) {
                try {
                    cancel(pids.get(running.step().session()));
                } catch (SQLException ignored) {
                    // Closing the connection below ends the session anyway.
                }
            }
            for (Scenario.Session session : scenario.sessions()) {
                Connection connection = connections.get(session.name());
                if (connection == null) {
                    continue;
                }
                try {
                    if (waiting.get(session.name()) == null) {
                        runOn(connection, session.teardown());
                    }
                } catch (SQLException ignored) {
                    // The connection is closed next; its transaction ends with it.
                }
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // Already gone.
                }
                sessionOrders.remove(connection);
            }
            executors.values().forEach(ExecutorService::shutdownNow);
            try {
                runOn(monitor, scenario.teardown());
            } catch (SQLException ignored) {
                // A teardown that fails leaves tables behind in a database dropped with the page.
            }
        }
    }

    private static StepResult get(Future<StepResult> result) {
        try {
            return result.get();
        } catch (ExecutionException e) {
            return new StepResult(null, e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new StepResult(null, new SQLException("interrupted"));
        }
    }

    /** A step goes to the server as one query string, as the isolation tester sends it (see {@link SqlExecution#executeAll}). */
    private StepResult execute(Connection connection, String sql, SqlExecution.LiveNotices notices) {
        List<SqlStatement> statements = SqlSplitter.split(sql);
        ParseCapture parsed = capture(statements);
        try {
            List<ResultTable> results = SqlExecution.executeAll(connection, sql, statements, guard, parsed, notices);
            return new StepResult(results, follow(connection, statements, parsed, results), null, notices.take());
        } catch (SQLException e) {
            orders(connection).forget();
            return new StepResult(null, null, e, notices.take());
        }
    }

    /**
     * One statement: its first tree is its own (a PREPARE's second, the prepared one's). Several in one
     * string: each top-level tree in turn is the next statement's, read only when they pair one to one.
     */
    private ParseCapture capture(List<SqlStatement> statements) {
        ParseCapture capture = statements.size() <= 1 ? new ParseCapture(statements.isEmpty() ? null : statements.get(0).text())
                : ParseCapture.ofEachStatement(statements.size());
        parsed.add(capture);
        return capture;
    }

    /** What the server parsed on every session since the last call, setup and teardown included ({@link RunTrace}). */
    List<ParseCapture> parsed() {
        synchronized (parsed) {
            List<ParseCapture> since = List.copyOf(parsed);
            parsed.clear();
            return since;
        }
    }

    private final List<ParseCapture> parsed = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    /**
     * Each result's order, from the parse of the statement of the string that returned it, taking in
     * turn what each statement did to the session's cursors and prepared statements; when the results
     * or trees cannot be paired with the statements, no order is known and nothing is remembered.
     */
    private List<RowOrder> follow(Connection connection, List<SqlStatement> statements, ParseCapture parsed, List<ResultTable> results) {
        SessionOrders memory = orders(connection);
        if (statements.size() <= 1) {
            List<RowOrder> orders = results.stream().map(r -> memory.of(parsed, r.columns().size())).toList();
            memory.ran(parsed, true);
            return orders;
        }
        List<ParseCapture> each = parsed.perStatement(statements.stream().map(SqlStatement::text).toList());
        // Results are named by the statement that returned them (SqlExecution.executeAll), one at most each, in order.
        int[] positions = new int[results.size()];
        int next = 0;
        for (int r = 0; r < results.size() && each != null; r++) {
            while (next < statements.size() && !statements.get(next).text().equals(results.get(r).statement())) {
                next++;
            }
            if (next == statements.size()) {
                each = null;
            } else {
                positions[r] = next++;
            }
        }
        if (each == null) {
            memory.forget();
            return results.stream().map(r -> RowOrder.unknown("the server's parse trees of the step's statements could not be "
                    + "paired with them one to one")).toList();
        }
        List<RowOrder> orders = new ArrayList<>();
        int r = 0;
        for (int p = 0; p < statements.size(); p++) {
            while (r < results.size() && positions[r] == p) {
                orders.add(memory.of(each.get(p), results.get(r).columns().size()));
                r++;
            }
            memory.ran(each.get(p), true);
        }
        return orders;
    }

    /** A setup or teardown block, likewise one query string. */
    private void runOn(Connection connection, String sql) throws SQLException {
        if (sql.isBlank()) {
            return;
        }
        List<SqlStatement> statements = SqlSplitter.split(sql);
        ParseCapture parsed = capture(statements);
        try {
            follow(connection, statements, parsed, SqlExecution.executeAll(connection, sql, statements, guard, parsed, null));
        } catch (SQLException e) {
            orders(connection).forget();
            throw e;
        }
    }

    private SessionOrders orders(Connection connection) {
        return sessionOrders.computeIfAbsent(connection, c -> new SessionOrders());
    }

    private static boolean inTransaction(Connection connection) throws SQLException {
        return connection.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState()
                != org.postgresql.core.TransactionState.IDLE;
    }

    /** The driver has the backend's pid from the server's start-up message: nothing is sent on the session to ask. */
    private static int pidOf(Connection connection) throws SQLException {
        return connection.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    private static String serverMessage(SQLException error) {
        if (error instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
            return MessageScrubber.scrub(psql.getServerErrorMessage().getMessage());
        }
        return MessageScrubber.scrub(error.getMessage());
    }
}
