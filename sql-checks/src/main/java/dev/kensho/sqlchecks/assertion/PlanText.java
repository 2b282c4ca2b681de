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

    /**
     * A plan {@link #render} wrote, less what changes from one run to the next on the same server: the actual times of
     * each node, the execution time and the buffer counts. Row counts, loops, filters and the plan's shape stay. Buffer
     * counts are left out because a run's background decides them too: autovacuum's VACUUM of a table the page just
     * filled updates the index's statistics in place, which drops the B-tree metapage the session had cached, and the
     * next scan reads it again (one more "shared hit"; PostgreSQL 14's keyset lesson showed 1152 against 1151 once
     * under load), and whether a page is a hit or a read depends on what else the server did.
     */
    public static String withoutRunFigures(String rendered) {
        return rendered.replaceAll("\\(actual time=[0-9.]+\\.\\.[0-9.]+ ", "(actual ")
                .replaceAll("(?m)^Execution Time: [0-9.]+ ms\\R?", "")
                .replaceAll("(?m)^ *Buffers: shared[ a-z=0-9]*\\R?", "")
                // How many heap pages an index-only scan still read depends on the visibility map, which autovacuum's timing
                // on the build's server decides as much as the page's own VACUUM (CI, PostgreSQL 14: 50,003 against 0).
                .replaceAll("(?m)^ *Heap Fetches: [0-9]+\\R?", "").stripTrailing();
    }

    private static void node(JsonNode node, int depth, boolean top, StringBuilder out) {
        // EXPLAIN's own layout: a child's arrow two spaces in, each level six further, details six past the arrow.
        String indent = depth == 0 ? "" : " ".repeat(2 + 6 * (depth - 1));
        String subplan = node.path("Subplan Name").asText("");
        if (!subplan.isEmpty()) {
            out.append(indent).append(subplan).append('\n');
        }
        StringBuilder line = new StringBuilder(label(node));
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

    /**
     * The node's first words as EXPLAIN's text format prints them (explain.c's ExplainNode), from the
     * fields its JSON format gives: "Parallel Index Only Scan Backward using idx on public.t a",
     * "Partial HashAggregate", "Hash Left Join", "HashSetOp Except", "Insert on public.t". The direction
     * of an index scan is part of the plan: a reader's EXPLAIN prints "Backward", and so does the page.
     */
    static String label(JsonNode node) {
        String type = node.path("Node Type").asText();
        String name = switch (type) {
            case "ModifyTable" -> node.path("Operation").asText(type);
            case "Aggregate" -> switch (node.path("Strategy").asText("Plain")) {
                case "Sorted" -> "GroupAggregate";
                case "Hashed" -> "HashAggregate";
                case "Mixed" -> "MixedAggregate";
                default -> "Aggregate";
            };
            case "SetOp" -> node.path("Strategy").asText("").equals("Hashed") ? "HashSetOp" : "SetOp";
            case "Merge Join" -> "Merge";
            case "Hash Join" -> "Hash";
            case "Foreign Scan" -> switch (node.path("Operation").asText("Select")) {
                case "Select" -> "Foreign Scan";
                default -> "Foreign " + node.path("Operation").asText();
            };
            case "Custom Scan" -> node.has("Custom Plan Provider") ? "Custom Scan (" + node.path("Custom Plan Provider").asText() + ")" : type;
            default -> type;
        };
        String partial = node.path("Partial Mode").asText("Simple");
        StringBuilder line = new StringBuilder();
        if (node.path("Parallel Aware").asBoolean(false)) {
            line.append("Parallel ");
        }
        if (node.path("Async Capable").asBoolean(false)) {
            line.append("Async ");
        }
        line.append(type.equals("Aggregate") && !partial.equals("Simple") ? partial + " " + name : name);
        switch (type) {
            case "Index Scan", "Index Only Scan" -> {
                if (node.path("Scan Direction").asText("").equals("Backward")) {
                    line.append(" Backward");
                }
                line.append(" using ").append(quoted(node.path("Index Name").asText()));
            }
            case "Bitmap Index Scan" -> line.append(" on ").append(quoted(node.path("Index Name").asText()));
            case "Nested Loop", "Merge Join", "Hash Join" -> {
                String join = node.path("Join Type").asText("Inner");
                if (!join.equals("Inner")) {
                    line.append(' ').append(join).append(" Join");
                } else if (!type.equals("Nested Loop")) {
                    line.append(" Join");
                }
            }
            case "SetOp" -> line.append(' ').append(node.path("Command").asText());
            default -> {
            }
        }
        String target = firstPresent(node, "Relation Name", "Function Name", "Table Function Name", "CTE Name", "Tuplestore Name");
        String alias = node.path("Alias").asText("");
        if (!target.isEmpty()) {
            String schema = node.path("Schema").asText("");
            line.append(" on ").append(schema.isEmpty() ? "" : quoted(schema) + ".").append(quoted(target));
            if (!alias.isEmpty() && !alias.equals(target)) {
                line.append(' ').append(quoted(alias));
            }
        } else if (!alias.isEmpty()) {
            line.append(" on ").append(quoted(alias)); // a Subquery Scan or Values Scan names only its alias
        }
        return line.toString();
    }

    /** As PostgreSQL's quote_identifier quotes a name that is not a plain lower-case identifier ("*VALUES*"). */
    private static String quoted(String name) {
        return name.matches("[a-z_][a-z0-9_$]*") ? name : '"' + name.replace("\"", "\"\"") + '"';
    }

    private static String firstPresent(JsonNode node, String... fields) {
        for (String field : fields) {
            if (node.has(field)) {
                return node.path(field).asText();
            }
        }
        return "";
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
