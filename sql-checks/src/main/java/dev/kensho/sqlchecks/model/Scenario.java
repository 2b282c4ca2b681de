package dev.kensho.sqlchecks.model;


import java.util.List;
import java.util.Optional;

/**
 * Several sessions racing on one database, modelled on PostgreSQL's isolation tester
 * (src/test/isolation): a setup, named sessions each with named steps, and permutations giving
 * the order in which steps are issued. Each step may state what it must do.
 *
 * @param setup        setup blocks run before each permutation (on the page's own connection), in the order
 *                     written, each as one query string as the tester sends it
 * @param teardown     SQL run after each permutation, or ""
 * @param sessions     in the order written
 * @param permutations at least one
 */
public record Scenario(List<String> setup, String teardown, List<Session> sessions, List<Permutation> permutations) {

    /** {@code waits-for=*}: the step waits, whomever for (the tester's {@code <waiting ...>} names no one). */
    public static final String ANY_SESSION = "*";

    public Scenario {
        setup = List.copyOf(setup);
        sessions = List.copyOf(sessions);
        permutations = List.copyOf(permutations);
    }

    /**
     * A connection of its own, running as the page's role in the page's database.
     *
     * @param label what readers see the session called ({@code session a "再送 A"}), the name when none is given
     */
    public record Session(String name, String label, String setup, List<Step> steps, String teardown) {
        public Session {
            steps = List.copyOf(steps);
        }
    }

    /**
     * @param line          where the step is written (0-based within the scenario text)
     * @param waitsFor      the sessions this step must be seen waiting for over its wait ({@link #ANY_SESSION}
     *                      alone: it must wait, whomever for); empty when it must not wait
     * @param expectError   SQLSTATE it must fail with, or null
     * @param expectMessage the server's message it must fail with (with expectError), or null
     * @param expectedRows  one table: the rows of its last result; several: every result of its statements, in order
     * @param expectNotices the NOTICE, WARNING and INFO messages it must raise, in order ({@code NOTICE:  text}), or
     *                      null when not stated
     * @param completesAfter the step (of another session) whose line its {@code <... completed>} must follow, as the
     *                      tester's expected output shows it: the last step issued before it is reported complete; or null
     */
    public record Step(String name, String session, String sql, int line, List<String> waitsFor, String expectError,
                       String expectMessage, List<ExpectedRows> expectedRows, List<String> expectNotices,
                       String completesAfter) {
        public Step {
            waitsFor = List.copyOf(waitsFor);
            expectedRows = List.copyOf(expectedRows);
            expectNotices = expectNotices == null ? null : List.copyOf(expectNotices);
        }

        public boolean waits() {
            return !waitsFor.isEmpty();
        }
    }

    /**
     * @param steps   the steps to issue, in order
     * @param markers each step's blocking markers, as the isolation tester reads them ({@code s1a(*)}, {@code s1a(s2b)})
     * @param line    where the permutation is written (0-based within the scenario text)
     */
    public record Permutation(List<String> steps, List<Markers> markers, int line) {
        public Permutation {
            steps = List.copyOf(steps);
            markers = List.copyOf(markers);
            if (markers.size() != steps.size()) {
                throw new IllegalArgumentException("one marker list per step");
            }
        }

        public Permutation(List<String> steps, int line) {
            this(steps, steps.stream().map(s -> Markers.NONE).toList(), line);
        }
    }

    /**
     * The isolation tester's blocking markers on one entry of a permutation (README, "Dealing with race
     * conditions"; isolationtester.c, step_has_blocker): the step is reported as waiting, and its
     * completion held back, while any condition holds.
     *
     * @param reportWaiting {@code (*)}: reported {@code <waiting ...>} as soon as it is issued, whether or not the
     *                      server shows it waiting; its completion is looked for only after the next step is issued
     * @param afterSteps    {@code (s2b)}: not reported complete while step s2b is its session's active step (issued
     *                      and not yet reported complete), even if the server has finished it
     * @param afterNotices  {@code (s2b notices 3)}: not reported complete before s2b's session has raised that many
     *                      NOTICE, WARNING or INFO messages since this step was issued
     */
    public record Markers(boolean reportWaiting, List<String> afterSteps, List<NoticeCount> afterNotices) {
        public static final Markers NONE = new Markers(false, List.of(), List.of());

        public Markers {
            afterSteps = List.copyOf(afterSteps);
            afterNotices = List.copyOf(afterNotices);
        }

        public Markers(boolean reportWaiting, List<String> afterSteps) {
            this(reportWaiting, afterSteps, List.of());
        }

        public boolean any() {
            return reportWaiting || !afterSteps.isEmpty() || !afterNotices.isEmpty();
        }
    }

    /** {@code s2b notices 3}: the session of step s2b has raised three messages (counted from the marked step's issue). */
    public record NoticeCount(String step, int count) {
    }

    public Optional<Step> step(String name) {
        return sessions.stream().flatMap(s -> s.steps().stream()).filter(s -> s.name().equals(name)).findFirst();
    }
}
