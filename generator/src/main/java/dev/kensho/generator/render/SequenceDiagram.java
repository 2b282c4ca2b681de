package dev.kensho.generator.render;

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
 * A scenario's verified transcript drawn as a sequence diagram (SVG) at build time: one lifeline per
 * session, named as the lesson names it, time running down the page, one row per event in the order
 * the server produced them. A step that had to wait gets a wait bar from the moment the server
 * reported it blocked to the row where it finished, and a dotted arrow from the step that released
 * it. Errors and returned rows are written under each step; the step's SQL is its tooltip and in the
 * scenario's source below the figure. Drawn in currentColor, so it follows light and dark mode;
 * vertical, so it stays legible on a phone.
 */
final class SequenceDiagram {

    private static final int COLUMN = 160;
    private static final int TOP = 44;
    private static final int ROW = 64;
    private static final int BOX_WIDTH = 136;
    private static final int BOX_HEIGHT = 26;
    /** Display columns (CJK characters count two) an annotation may take inside its column. */
    private static final int NOTE_WIDTH = 24;

    private SequenceDiagram() {
    }

    static String draw(ScenarioTranscript.PermutationRun run, List<Scenario.Session> sessions, String idPrefix, UiStrings ui) {
        Map<String, Integer> column = new HashMap<>();
        for (int i = 0; i < sessions.size(); i++) {
            column.put(sessions.get(i).name(), i);
        }
        List<Event> events = run.events();
        int width = COLUMN * sessions.size();
        int height = TOP + ROW * events.size() + 16;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence-svg\" viewBox=\"0 0 ").append(width).append(' ')
                .append(height).append("\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"")
                .append(attr(description(run, sessions, ui))).append("\">");
        svg.append("<defs><marker id=\"").append(idPrefix).append("arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\""
                + " markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"currentColor\"/></marker></defs>");
        for (int i = 0; i < sessions.size(); i++) {
            int x = center(i);
            svg.append("<rect class=\"box\" x=\"").append(x - BOX_WIDTH / 2).append("\" y=\"4\" width=\"").append(BOX_WIDTH)
                    .append("\" height=\"28\" rx=\"6\" fill=\"none\" stroke=\"currentColor\"/>");
            svg.append("<text x=\"").append(x).append("\" y=\"23\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"currentColor\">")
                    .append(text(clip(sessions.get(i).label(), 18))).append("</text>");
            svg.append("<line x1=\"").append(x).append("\" y1=\"32\" x2=\"").append(x).append("\" y2=\"").append(height - 8)
                    .append("\" stroke=\"currentColor\" stroke-dasharray=\"3 4\"/>");
        }
        Map<String, Integer> waitingSince = new HashMap<>();
        for (int row = 0; row < events.size(); row++) {
            Event event = events.get(row);
            int x = center(column.get(event.session()));
            int y = TOP + row * ROW;
            if (event.kind() == Kind.COMPLETED_AFTER_WAIT) {
                Integer since = waitingSince.remove(event.session());
                if (since != null) {
                    int from = TOP + since * ROW + BOX_HEIGHT + 22; // below the waiting step's note
                    svg.append("<line class=\"wait-bar\" x1=\"").append(x).append("\" y1=\"").append(from).append("\" x2=\"").append(x)
                            .append("\" y2=\"").append(y).append("\" stroke=\"currentColor\" stroke-width=\"5\" stroke-dasharray=\"2 3\"/>");
                }
                if (row > 0 && !events.get(row - 1).session().equals(event.session())) {
                    int fromX = center(column.get(events.get(row - 1).session()));
                    int arrowY = y - ROW + BOX_HEIGHT + 8;
                    int toX = fromX < x ? x - 6 : x + 6;
                    svg.append("<line x1=\"").append(fromX).append("\" y1=\"").append(arrowY).append("\" x2=\"").append(toX)
                            .append("\" y2=\"").append(arrowY).append("\" stroke=\"currentColor\" stroke-dasharray=\"1 3\" marker-end=\"url(#")
                            .append(idPrefix).append("arrow)\"/>");
                }
            }
            boolean failed = event.sqlState() != null;
            svg.append("<g class=\"step step-").append(event.kind().name().toLowerCase(Locale.ROOT)).append("\"><title>")
                    .append(text(event.step() + (event.sql() == null || event.sql().isBlank() ? "" : ": " + event.sql()))).append("</title>");
            svg.append("<rect class=\"box\" x=\"").append(x - BOX_WIDTH / 2).append("\" y=\"").append(y).append("\" width=\"").append(BOX_WIDTH)
                    .append("\" height=\"").append(BOX_HEIGHT).append("\" rx=\"4\" fill=\"none\" stroke=\"currentColor\"")
                    .append(failed ? " stroke-width=\"2.5\"" : "").append(event.kind() == Kind.WAITING ? " stroke-dasharray=\"5 3\"" : "")
                    .append("/>");
            svg.append("<text x=\"").append(x).append("\" y=\"").append(y + 17).append("\" text-anchor=\"middle\" fill=\"currentColor\">")
                    .append(text(clip(event.step(), 20))).append("</text></g>");
            String note = note(event, sessions, ui);
            if (!note.isEmpty()) {
                svg.append("<text class=\"note\" x=\"").append(x).append("\" y=\"").append(y + BOX_HEIGHT + 16)
                        .append("\" text-anchor=\"middle\" font-size=\"11\" fill=\"currentColor\"").append(failed ? " font-weight=\"bold\"" : "")
                        .append(">").append(text(clip(note, NOTE_WIDTH))).append("</text>");
            }
            if (event.kind() == Kind.WAITING) {
                waitingSince.put(event.session(), row);
            }
        }
        return svg.append("</svg>").toString();
    }

    /** What the reader should know of the event, in a few words under its box. */
    private static String note(Event event, List<Scenario.Session> sessions, UiStrings ui) {
        return switch (event.kind()) {
            case WAITING -> ui.format("scenario.waitsFor", label(String.join(", ", event.waitsFor()), sessions));
            case COMPLETED, COMPLETED_AFTER_WAIT -> {
                String prefix = event.kind() == Kind.COMPLETED_AFTER_WAIT ? ui.get("scenario.unblocked") : "";
                if (event.sqlState() != null) {
                    yield prefix + ui.format("scenario.error", event.sqlState());
                }
                yield event.rows() == null ? (prefix.isEmpty() ? "" : prefix + ui.get("scenario.done")) : prefix + rows(event.rows(), ui);
            }
        };
    }

    private static String rows(ResultTable rows, UiStrings ui) {
        if (rows.totalRows() == 0) {
            return ui.format("scenario.rows", 0);
        }
        List<String> first = rows.rows().get(0);
        String values = String.join(", ", first.stream().map(v -> v == null ? PsqlFormat.NULL : v).toList());
        return ui.format("scenario.rowsFirst", rows.totalRows(), values);
    }

    private static String label(String names, List<Scenario.Session> sessions) {
        for (Scenario.Session session : sessions) {
            if (session.name().equals(names)) {
                return session.label();
            }
        }
        return names;
    }

    private static String description(ScenarioTranscript.PermutationRun run, List<Scenario.Session> sessions, UiStrings ui) {
        StringBuilder out = new StringBuilder(ui.get("scenario.description"));
        for (Event event : run.events()) {
            String key = switch (event.kind()) {
                case WAITING -> "scenario.eventWaiting";
                case COMPLETED -> "scenario.eventCompleted";
                case COMPLETED_AFTER_WAIT -> "scenario.eventCompletedAfterWait";
            };
            out.append(ui.format(key, label(event.session(), sessions), event.step()))
                    .append(event.sqlState() == null ? "" : ui.format("scenario.eventError", event.sqlState())).append(ui.get("scenario.eventEnd"));
        }
        return out.toString();
    }

    private static int center(int column) {
        return COLUMN * column + COLUMN / 2;
    }

    /** At most {@code width} display columns, with an ellipsis when cut. */
    private static String clip(String text, int width) {
        String flat = text.replaceAll("\\s+", " ").strip();
        if (PsqlFormat.width(flat) <= width) {
            return flat;
        }
        StringBuilder out = new StringBuilder();
        int used = 0;
        for (int i = 0; i < flat.length(); ) {
            int cp = flat.codePointAt(i);
            int w = PsqlFormat.width(cp);
            if (used + w > width - 1) {
                break;
            }
            out.appendCodePoint(cp);
            used += w;
            i += Character.charCount(cp);
        }
        return out.append('…').toString();
    }

    private static String text(String value) {
        return Entities.escape(value);
    }

    private static String attr(String value) {
        return Entities.escape(value).replace("\"", "&quot;");
    }
}
