package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.CapturedPlans;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Locale;

/**
 * The captured plans of one execution written the way {@code EXPLAIN (ANALYZE, BUFFERS)} writes its
 * text form, for readers: the statement's plan first, then each statement it caused under its own
 * heading. Everything shown comes from the execution the claims were checked on.
 */
public final class PlanText {

    private static final List<String> DETAILS = List.of("Index Cond", "Recheck Cond", "Hash Cond", "Merge Cond", "Join Filter",
            "Filter", "Sort Key", "Group Key", "Cache Key", "One-Time Filter", "Rows Removed by Index Recheck",
            "Rows Removed by Join Filter", "Rows Removed by Filter", "Sort Method", "Heap Fetches");

    private PlanText() {
    }

    public static String render(CapturedPlans captured) {
        StringBuilder out = new StringBuilder();
        List<CapturedPlans.ParsedPlan> plans = captured.plans();
        for (int pass = 0; pass < 2; pass++) {
            for (CapturedPlans.ParsedPlan plan : plans) {
                if (plan.ownPlan() != (pass == 0)) {
                    continue;
                }
                if (!out.isEmpty()) {
                    out.append('\n');
                }
                if (!plan.ownPlan()) {
                    out.append("-- ").append(plan.origin()).append('\n');
                }
                node(plan.root(), 0, true, out);
                if (!Double.isNaN(plan.durationMs())) {
                    out.append(String.format(Locale.ROOT, "Execution Time: %.3f ms%n", plan.durationMs()));
                }
            }
        }
        return out.toString().stripTrailing();
    }

    private static void node(JsonNode node, int depth, boolean top, StringBuilder out) {
        // EXPLAIN's own layout: a child's arrow two spaces in, each level six further, details six past the arrow.
        String indent = depth == 0 ? "" : " ".repeat(2 + 6 * (depth - 1));
        String subplan = node.path("Subplan Name").asText("");
        if (!subplan.isEmpty()) {
            out.append(indent).append(subplan).append('\n');
        }
        StringBuilder line = new StringBuilder(node.path("Node Type").asText());
        if (node.has("Operation") && node.path("Node Type").asText().equals("ModifyTable")) {
            line = new StringBuilder(node.path("Operation").asText());
        }
        if (node.has("Index Name")) {
            line.append(" using ").append(node.path("Index Name").asText());
        }
        if (node.has("Relation Name")) {
            line.append(" on ").append(node.path("Schema").asText("").isEmpty() ? "" : node.path("Schema").asText() + ".")
                    .append(node.path("Relation Name").asText());
            String alias = node.path("Alias").asText("");
            if (!alias.isEmpty() && !alias.equals(node.path("Relation Name").asText())) {
                line.append(' ').append(alias);
            }
        }
        line.append(String.format(Locale.ROOT, "  (actual %srows=%.2f loops=%d)",
                node.has("Actual Total Time") ? String.format(Locale.ROOT, "time=%.3f..%.3f ",
                        node.path("Actual Startup Time").asDouble(), node.path("Actual Total Time").asDouble()) : "",
                node.path("Actual Rows").asDouble(0), node.path("Actual Loops").asLong(0)));
        out.append(indent).append(top ? "" : "->  ").append(line).append('\n');
        String detailIndent = top ? "  " : indent + "      ";
        for (String detail : DETAILS) {
            JsonNode value = node.get(detail);
            if (value == null) {
                continue;
            }
            String shown = value.isArray() ? join(value) : value.asText();
            if (detail.startsWith("Rows Removed") && shown.equals("0")) {
                continue;
            }
            out.append(detailIndent).append(detail).append(": ").append(shown).append('\n');
        }
        long hit = node.path("Shared Hit Blocks").asLong(0);
        long read = node.path("Shared Read Blocks").asLong(0);
        long dirtied = node.path("Shared Dirtied Blocks").asLong(0);
        long written = node.path("Shared Written Blocks").asLong(0);
        if (hit + read + dirtied + written > 0) {
            out.append(detailIndent).append("Buffers: shared").append(hit > 0 ? " hit=" + hit : "").append(read > 0 ? " read=" + read : "")
                    .append(dirtied > 0 ? " dirtied=" + dirtied : "").append(written > 0 ? " written=" + written : "").append('\n');
        }
        for (JsonNode child : node.path("Plans")) {
            node(child, depth + 1, false, out);
        }
    }

    private static String join(JsonNode array) {
        StringBuilder out = new StringBuilder();
        for (JsonNode item : array) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            out.append(item.asText());
        }
        return out.toString();
    }
}
