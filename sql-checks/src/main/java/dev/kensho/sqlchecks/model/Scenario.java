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
     */
    public record Step(String name, String session, String sql, int line, List<String> waitsFor, String expectError,
                       String expectMessage, List<ExpectedRows> expectedRows, List<String> expectNotices) {
        public Step {
            waitsFor = List.copyOf(waitsFor);
            expectedRows = List.copyOf(expectedRows);
            expectNotices = expectNotices == null ? null : List.copyOf(expectNotices);
        }

        public boolean waits() {
            return !waitsFor.isEmpty();
        }
    }

    /** @param line where the permutation is written (0-based within the scenario text) */
    public record Permutation(List<String> steps, int line) {
        public Permutation {
            steps = List.copyOf(steps);
        }
    }

    public Optional<Step> step(String name) {
        return sessions.stream().flatMap(s -> s.steps().stream()).filter(s -> s.name().equals(name)).findFirst();
    }
}
