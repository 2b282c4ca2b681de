package dev.kensho.generator.render;

import dev.kensho.sqlchecks.scenario.ScenarioTranscript;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario's transcript laid out for the theme: one column per session, one row per event, exactly
 * in the order the build saw them.
 */
final class Timeline {

    private Timeline() {
    }

    static List<Map<String, Object>> of(ScenarioTranscript transcript) {
        List<Map<String, Object>> permutations = new ArrayList<>();
        for (ScenarioTranscript.PermutationRun run : transcript.permutations()) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (ScenarioTranscript.Event event : run.events()) {
                List<Map<String, Object>> cells = new ArrayList<>();
                for (String session : transcript.sessions()) {
                    cells.add(session.equals(event.session()) ? cell(event) : Map.of());
                }
                rows.add(Map.of("cells", cells));
            }
            permutations.add(Map.of("order", run.order(), "sessions", transcript.sessions(), "rows", rows));
        }
        return permutations;
    }

    private static Map<String, Object> cell(ScenarioTranscript.Event event) {
        Map<String, Object> cell = new HashMap<>();
        cell.put("step", event.step());
        cell.put("kind", event.kind().name().toLowerCase(java.util.Locale.ROOT));
        cell.put("sql", event.kind() == ScenarioTranscript.Kind.COMPLETED_AFTER_WAIT ? "" : event.sql());
        cell.put("waitsFor", String.join(", ", event.waitsFor()));
        cell.put("error", event.message() == null ? "" : event.message() + " [" + event.sqlState() + "]");
        if (event.rows() != null) {
            cell.put("result", ResultView.of(event.rows()));
        }
        return cell;
    }
}
