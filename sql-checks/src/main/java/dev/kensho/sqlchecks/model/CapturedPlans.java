package dev.kensho.sqlchecks.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The plans of one execution of a statement, as auto_explain reported them: the statement's own and
 * those of every statement it caused (foreign-key checks, triggers, functions), in the order the
 * server finished them, so the statement's own plan comes last.
 *
 * @param plans      every plan, parsed
 * @param overflowed more nested statements ran than Kensho accounts for; the work cannot be stated whole
 */
public record CapturedPlans(List<ParsedPlan> plans, boolean overflowed) {

    /** Plans Kensho accounts for in one execution; beyond it the work cannot be stated whole. */
    public static final int MAX_PLANS = 2000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int QUERY_SHOWN = 240;

    /** One report as it arrived: auto_explain's JSON and the duration it printed. */
    public record Plan(String json, double durationMs) {
    }

    /**
     * @param ownPlan true for the plan of the statement itself, false for a statement it caused
     * @param origin  where the plan came from, for messages: "the statement" or "nested statement: …"
     */
    public record ParsedPlan(String queryText, JsonNode root, JsonNode settings, double durationMs, boolean ownPlan, String origin) {
    }

    public CapturedPlans {
        plans = List.copyOf(plans);
    }

    /**
     * @param sentText the statement as Kensho sent it; the last plan whose query text is this statement
     *                 (or, for EXECUTE, the PREPARE it runs) is the statement's own
     */
    public static CapturedPlans of(List<Plan> reports, String sentText, boolean overflowed) {
        List<ParsedPlan> parsed = new ArrayList<>();
        int own = -1;
        List<JsonNode> roots = new ArrayList<>();
        for (Plan report : reports) {
            try {
                roots.add(JSON.readTree(report.json()));
            } catch (IOException e) {
                throw new IllegalStateException("auto_explain printed JSON Kensho cannot read: " + e.getMessage(), e);
            }
        }
        String sent = sentText.strip();
        for (int i = roots.size() - 1; i >= 0 && own < 0; i--) {
            String text = roots.get(i).path("Query Text").asText("").strip();
            if (text.equals(sent) || (sent.regionMatches(true, 0, "EXECUTE ", 0, 8) && text.regionMatches(true, 0, "PREPARE ", 0, 8))) {
                own = i;
            }
        }
        int nested = 0;
        for (int i = 0; i < roots.size(); i++) {
            JsonNode root = roots.get(i);
            String text = root.path("Query Text").asText("");
            String origin = i == own ? "the statement" : "nested statement " + (++nested) + " (" + shorten(text) + ")";
            parsed.add(new ParsedPlan(text, root.path("Plan"), root.path("Settings"), reports.get(i).durationMs(), i == own, origin));
        }
        return new CapturedPlans(parsed, overflowed);
    }

    public boolean isEmpty() {
        return plans.isEmpty();
    }

    private static String shorten(String text) {
        String line = text.replaceAll("\\s+", " ").strip();
        return line.length() <= QUERY_SHOWN ? line : line.substring(0, QUERY_SHOWN - 1) + "…";
    }
}
