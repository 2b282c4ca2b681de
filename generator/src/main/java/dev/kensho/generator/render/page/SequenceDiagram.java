package dev.kensho.generator.render.page;

import dev.kensho.generator.render.theme.UiStrings;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.script.PsqlFormat;
import dev.kensho.sqlchecks.model.Scenario;
import dev.kensho.sqlchecks.model.ScenarioTranscript.Event;
import dev.kensho.sqlchecks.model.ScenarioTranscript.Kind;
import dev.kensho.sqlchecks.model.ScenarioTranscript;
import org.jsoup.nodes.Entities;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scenario's verified transcript drawn as a sequence diagram at build time: one lifeline per session,
 * named as the lesson names it, time running down the page, one row per event in the order the server
 * produced them. A step that had to wait gets a wait bar from the row where the server reported it
 * blocked to the row where it finished, and a dotted arrow from the step that released it; a wait the
 * server ended itself (lock_timeout, a cancel, the deadlock detector) gets no arrow and says so. Errors
 * and returned rows are written under each step; the step's SQL is its tooltip and in the scenario's
 * source below the figure.
 *
 * <p>The diagram is an HTML table (a row per moment, a column per session), not a picture: its words
 * are set in the page's font at the page's size at every width and wrap inside their column, so no label
 * is ever cut, and a screen reader reads each moment with its session's name.
 */
final class SequenceDiagram {

    /** SQLSTATEs with which the server ends a statement that is still waiting: the lock it waited for was never granted. */
    private static final Map<String, String> WAIT_ENDED_BY_SERVER = Map.of(
            "55P03", "scenario.lockTimeout", // lock_not_available: lock_timeout expired
            "57014", "scenario.canceled",    // query_canceled: statement_timeout or a cancel request
            "40P01", "scenario.deadlock");   // deadlock_detected: this statement was chosen to break the cycle

    private SequenceDiagram() {
    }

    static String draw(ScenarioTranscript.PermutationRun run, List<Scenario.Session> sessions, UiStrings ui) {
        Map<String, Integer> column = new HashMap<>();
        for (int i = 0; i < sessions.size(); i++) {
            column.put(sessions.get(i).name(), i);
        }
        List<Event> events = run.events();
        StringBuilder html = new StringBuilder("<table class=\"sequence-table\"><caption class=\"visually-hidden\">")
                .append(text(ui.get("scenario.caption"))).append("</caption><thead><tr>");
        for (Scenario.Session session : sessions) {
            html.append("<th scope=\"col\"><span class=\"seq-session\">").append(text(session.label())).append("</span></th>");
        }
        html.append("</tr></thead><tbody>");
        // Session → the WAITING event it is in, while it waits.
        Map<String, Event> waiting = new HashMap<>();
        for (int row = 0; row < events.size(); row++) {
            Event event = events.get(row);
            int at = column.get(event.session());
            Integer releasedFrom = null;
            if (event.kind() == Kind.COMPLETED_AFTER_WAIT && !endedByServer(event) && row > 0
                    && !events.get(row - 1).session().equals(event.session())) {
                releasedFrom = column.get(events.get(row - 1).session());
            }
            html.append("<tr");
            if (releasedFrom != null) {
                html.append(" class=\"seq-released ").append(releasedFrom < at ? "arrow-right" : "arrow-left").append('"');
            }
            html.append('>');
            for (int c = 0; c < sessions.size(); c++) {
                // The wait bar runs from the waiting step's box to the box of its end (the boxes cover it).
                boolean waitBar = waiting.containsKey(sessions.get(c).name()) || (c == at && event.kind() == Kind.WAITING);
                String cell = cellClass(c, at, releasedFrom, waitBar);
                html.append(cell.isEmpty() ? "<td>" : "<td class=\"" + cell + "\">");
                if (c == at) {
                    step(html, event, note(event, waiting.get(event.session()), sessions, ui));
                }
                html.append("</td>");
            }
            html.append("</tr>");
            if (event.kind() == Kind.WAITING) {
                waiting.put(event.session(), event);
            } else {
                waiting.remove(event.session());
            }
        }
        return html.append("</tbody></table>").toString();
    }

    /** A cell's classes: the wait bar of a waiting session, and its part of a release arrow. */
    private static String cellClass(int c, int at, Integer releasedFrom, boolean waitBar) {
        String arrow = "";
        if (releasedFrom != null) {
            int low = Math.min(releasedFrom, at);
            int high = Math.max(releasedFrom, at);
            arrow = c == releasedFrom ? "arrow-start" : c == at ? "arrow-end" : c > low && c < high ? "arrow-through" : "";
        }
        return ((waitBar ? "seq-wait " : "") + arrow).strip();
    }

    private static void step(StringBuilder html, Event event, String note) {
        boolean failed = event.sqlState() != null;
        html.append("<div class=\"seq-step seq-").append(event.kind().name().toLowerCase(Locale.ROOT)).append(failed ? " seq-failed" : "")
                .append('"');
        if (event.sql() != null && !event.sql().isBlank()) {
            html.append(" title=\"").append(attr(event.sql().strip())).append('"');
        }
        html.append("><code>").append(text(event.step())).append("</code></div>");
        if (!note.isEmpty()) {
            html.append("<div class=\"seq-note").append(failed ? " seq-failed" : "").append("\">").append(text(note)).append("</div>");
        }
    }

    /** Whether the server ended this waiting statement itself, rather than another session releasing the lock. */
    private static boolean endedByServer(Event event) {
        return event.kind() == Kind.COMPLETED_AFTER_WAIT && event.sqlState() != null && WAIT_ENDED_BY_SERVER.containsKey(event.sqlState());
    }

    /**
     * What the reader should know of the event, in a few words under its box: what it waits for, or how its
     * wait ended and what it returned. {@code waited} is the WAITING event a completion ends (null otherwise).
     */
    static String note(Event event, Event waited, List<Scenario.Session> sessions, UiStrings ui) {
        return switch (event.kind()) {
            // A step a permutation's marker reports waiting ((*) or (STEP)) may be waiting for no session.
            case WAITING -> event.waitsFor().isEmpty() ? ui.get("scenario.reportedWaiting")
                    : ui.format("scenario.waitsFor", holders(event, sessions));
            case COMPLETED, COMPLETED_AFTER_WAIT -> {
                if (endedByServer(event)) {
                    yield ui.format(WAIT_ENDED_BY_SERVER.get(event.sqlState()), event.sqlState(),
                            waited == null ? "" : holders(waited, sessions));
                }
                String prefix = event.kind() == Kind.COMPLETED_AFTER_WAIT ? ui.get("scenario.unblocked") : "";
                if (event.sqlState() != null) {
                    yield prefix + ui.format("scenario.error", event.sqlState());
                }
                yield event.rows() == null ? (prefix.isEmpty() ? "" : prefix + ui.get("scenario.done")) : prefix + rows(event.rows(), ui);
            }
        };
    }

    private static String holders(Event waiting, List<Scenario.Session> sessions) {
        return String.join(", ", waiting.waitsFor().stream().map(name -> label(name, sessions)).toList());
    }

    private static String rows(ResultTable rows, UiStrings ui) {
        if (rows.totalRows() == 0) {
            return ui.format("scenario.rows", 0);
        }
        List<String> first = rows.rows().get(0);
        String values = String.join(", ", first.stream().map(v -> v == null ? PsqlFormat.NULL : v).toList());
        return ui.format("scenario.rowsFirst", rows.totalRows(), values);
    }

    private static String label(String name, List<Scenario.Session> sessions) {
        for (Scenario.Session session : sessions) {
            if (session.name().equals(name)) {
                return session.label();
            }
        }
        return name;
    }

    private static String text(String value) {
        return Entities.escape(value);
    }

    private static String attr(String value) {
        return Entities.escape(value).replace("\"", "&quot;");
    }
}
