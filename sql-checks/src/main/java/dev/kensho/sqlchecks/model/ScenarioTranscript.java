package dev.kensho.sqlchecks.model;


import java.util.List;

/**
 * What happened, step by step, in the order the runner saw it; printed in the isolation tester's
 * style by {@link #toString()} so the two can be read side by side.
 */
public record ScenarioTranscript(List<String> sessions, List<PermutationRun> permutations, StateAfter after) {

    public ScenarioTranscript {
        sessions = List.copyOf(sessions);
        permutations = List.copyOf(permutations);
    }

    public ScenarioTranscript(List<String> sessions, List<PermutationRun> permutations) {
        this(sessions, permutations, null);
    }

    /** The same run, with what it left in the page's database (null: not recorded, and the browser cannot restore it). */
    public ScenarioTranscript withAfter(StateAfter state) {
        return new ScenarioTranscript(sessions, permutations, state);
    }

    public record PermutationRun(List<String> order, List<Event> events) {
        public PermutationRun {
            order = List.copyOf(order);
            events = List.copyOf(events);
        }
    }

    /**
     * @param kind      what the line reports
     * @param waitsFor  sessions the step waited for (WAITING only)
     * @param rows      rows the step's last statement returned, or null
     * @param sqlState  the error's SQLSTATE when the step failed, else null
     * @param message   the server's message when the step failed, else null
     * @param results   every result the step's statements returned, in order (the tester prints each)
     */
    public record Event(String step, String session, String sql, Kind kind, List<String> waitsFor, ResultTable rows,
                        String sqlState, String message, List<ResultTable> results) {
        public Event {
            waitsFor = List.copyOf(waitsFor);
            results = results == null ? (rows == null ? List.of() : List.of(rows)) : List.copyOf(results);
        }

        public Event(String step, String session, String sql, Kind kind, List<String> waitsFor, ResultTable rows,
                     String sqlState, String message) {
            this(step, session, sql, kind, waitsFor, rows, sqlState, message, null);
        }
    }

    public enum Kind {
        /** Issued and finished without waiting. */
        COMPLETED,
        /** Issued and found waiting for a lock held by another session. */
        WAITING,
        /** A step that was waiting has finished. */
        COMPLETED_AFTER_WAIT
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (PermutationRun run : permutations) {
            out.append("starting permutation: ").append(String.join(" ", run.order())).append('\n');
            for (Event event : run.events()) {
                out.append("step ").append(event.step()).append(": ");
                switch (event.kind()) {
                    case COMPLETED -> out.append(event.sql());
                    case WAITING -> out.append(event.sql()).append(" <waiting ...>");
                    case COMPLETED_AFTER_WAIT -> out.append("<... completed>");
                }
                out.append('\n');
                if (event.message() != null) {
                    out.append("ERROR:  ").append(event.message()).append('\n');
                }
                for (ResultTable result : event.results()) {
                    out.append(String.join("|", result.columns())).append('\n');
                    for (List<String> row : result.rows()) {
                        out.append(String.join("|", row.stream().map(v -> v == null ? "" : v).toList())).append('\n');
                    }
                }
            }
            out.append('\n');
        }
        return out.toString();
    }
}
