package dev.kensho.sqlchecks.assertion;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.sqlchecks.Directives.PlanExpectations;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks plan claims against the JSON of {@code EXPLAIN (FORMAT JSON, COSTS OFF, SETTINGS, VERBOSE)}
 * (VERBOSE names each relation's schema),
 * walking every node of the tree, and work claims against {@code EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)}.
 */
public final class PlanCheck {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<JsonNode> nodes;
    private final JsonNode top;
    private final Map<String, String> settings;

    private PlanCheck(List<JsonNode> nodes, JsonNode top, Map<String, String> settings) {
        this.nodes = nodes;
        this.top = top;
        this.settings = settings;
    }

    public static PlanCheck of(String explainJson) {
        try {
            JsonNode root = JSON.readTree(explainJson).get(0);
            List<JsonNode> nodes = new ArrayList<>();
            collect(root.get("Plan"), nodes);
            Map<String, String> settings = new LinkedHashMap<>();
            root.path("Settings").fields().forEachRemaining(e -> settings.put(e.getKey(), e.getValue().asText()));
            return new PlanCheck(nodes, root.get("Plan"), settings);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("EXPLAIN printed JSON Kensho cannot read: " + e.getMessage(), e);
        }
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        into.add(node);
        JsonNode children = node.get("Plans");
        if (children != null) {
            children.forEach(child -> collect(child, into));
        }
    }

    /** Planner settings in effect that differ from PostgreSQL's built-in defaults (EXPLAIN's SETTINGS). */
    public Map<String, String> settings() {
        return settings;
    }

    /** A relation named in a claim, as the page's database resolved it. */
    public record Relation(String schema, String name) {
        @Override
        public String toString() {
            return schema + "." + name;
        }
    }

    /**
     * The table a {@code no-seq-scan} claim names, resolved in the page's database.
     *
     * @param family  the table, its partitions and inheritance children; empty when it could not be resolved
     * @param problem why the name cannot be checked (no such table, a view), or null
     */
    public record TableClaim(String written, List<Relation> family, String problem) {
    }

    /** The index a {@code uses-index} claim names: null relation with a problem when it could not be resolved. */
    public record IndexClaim(String written, Relation index, String problem) {
    }

    /** One checked claim: what was asserted and, when it did not hold, why. */
    public record Result(String kind, Map<String, String> facts, String assertion, String problem) {
        public boolean passed() {
            return problem == null;
        }
    }

    /**
     * Every claim the expectations make about the plan's shape, in a fixed order, each with its result.
     *
     * @param written the same plan without VERBOSE, whose Index Cond reads as the author wrote the query
     *                (VERBOSE qualifies every column)
     */
    public List<Result> check(PlanExpectations expected, IndexClaim index, TableClaim table, PlanCheck written) {
        List<Result> results = new ArrayList<>();
        if (expected.usesIndex() != null) {
            String problem = index.problem();
            if (problem == null) {
                // A Bitmap Index Scan names no schema; its index name is then matched alone.
                boolean used = nodes.stream().anyMatch(n -> index.index().name().equals(text(n, "Index Name"))
                        && (text(n, "Schema").isEmpty() || index.index().schema().equals(text(n, "Schema"))));
                problem = used ? null : "the plan uses no index " + index.index() + describeScans();
            }
            results.add(new Result("uses-index", Map.of("index", expected.usesIndex()), "uses index " + expected.usesIndex(), problem));
        }
        if (!expected.scanIn().isEmpty()) {
            List<String> others = new ArrayList<>();
            for (JsonNode node : nodes) {
                String type = text(node, "Node Type");
                // A Bitmap Heap Scan only fetches what its Bitmap Index Scan child found; the child is judged.
                if (type.endsWith("Scan") && !type.equals("Bitmap Heap Scan") && !expected.scanIn().contains(type)) {
                    others.add(describe(node));
                }
            }
            String allowed = String.join(", ", new TreeSet<>(expected.scanIn()));
            results.add(new Result("scan-in", Map.of("nodes", allowed), "scans only with " + allowed,
                    others.isEmpty() ? null : "the plan scans with " + String.join(", ", others)));
        }
        if (expected.noSort()) {
            List<String> sorts = nodes.stream().map(n -> text(n, "Node Type"))
                    .filter(t -> t.equals("Sort") || t.equals("Incremental Sort")).toList();
            results.add(new Result("no-sort", Map.of(), "no Sort node", sorts.isEmpty() ? null
                    : "the plan has a " + sorts.get(0) + " node (Sort Key: " + written.sortKeys() + ")"));
        }
        if (expected.noSeqScanOn() != null) {
            results.add(new Result("no-seq-scan", Map.of("table", expected.noSeqScanOn()), "no Seq Scan on " + expected.noSeqScanOn(),
                    seqScanProblem(table)));
        }
        if (expected.indexCondContains() != null) {
            String wanted = normalize(expected.indexCondContains());
            List<String> conditions = written.nodes.stream().map(n -> text(n, "Index Cond")).filter(c -> !c.isEmpty()).toList();
            boolean found = conditions.stream().anyMatch(c -> normalize(c).contains(wanted));
            results.add(new Result("index-cond", Map.of("text", expected.indexCondContains()),
                    "Index Cond contains " + expected.indexCondContains(), found ? null
                    : conditions.isEmpty() ? "the plan has no Index Cond" : "no Index Cond contains it; the plan's: " + String.join("; ", conditions)));
        }
        return results;
    }

    private String seqScanProblem(TableClaim table) {
        if (table.problem() != null) {
            return table.problem();
        }
        Set<String> family = new LinkedHashSet<>();
        table.family().forEach(r -> family.add(r.toString()));
        List<JsonNode> reading = nodes.stream().filter(n -> family.contains(text(n, "Schema") + "." + text(n, "Relation Name"))).toList();
        if (reading.isEmpty()) {
            return table.family().get(0) + " is not read by this plan (it scans " + String.join(", ", relations())
                    + "); the claim cannot be checked";
        }
        List<String> seqScans = reading.stream().filter(n -> text(n, "Node Type").equals("Seq Scan")).map(PlanCheck::describe).toList();
        return seqScans.isEmpty() ? null : "the plan reads " + table.family().get(0) + " with " + String.join(", ", seqScans);
    }

    /** Work claims, checked on the JSON of EXPLAIN (ANALYZE, BUFFERS) of the same statement. */
    public List<Result> checkWork(PlanExpectations expected) {
        List<Result> results = new ArrayList<>();
        if (expected.maxBuffers() != null) {
            long buffers = sharedBuffers();
            results.add(new Result("max-buffers", Map.of("limit", expected.maxBuffers().toString(), "measured", Long.toString(buffers)),
                    "touches at most " + expected.maxBuffers() + " shared buffers (measured " + buffers + ")",
                    buffers <= expected.maxBuffers() ? null : "EXPLAIN (ANALYZE, BUFFERS) counts " + buffers
                            + " shared buffers (hit + read), more than " + expected.maxBuffers()));
        }
        if (expected.maxRowsRemoved() != null) {
            long removed = rowsRemoved();
            results.add(new Result("max-rows-removed", Map.of("limit", expected.maxRowsRemoved().toString(), "measured", Long.toString(removed)),
                    "discards at most " + expected.maxRowsRemoved() + " rows by filter (measured " + removed + ")",
                    removed <= expected.maxRowsRemoved() ? null : "its nodes read and then discarded " + removed
                            + " rows (Rows Removed by Filter, Join Filter and Index Recheck, times loops), more than "
                            + expected.maxRowsRemoved()));
        }
        return results;
    }

    /** Shared buffers hit and read by the whole statement (the top node's counts include its children's). */
    public long sharedBuffers() {
        return top.path("Shared Hit Blocks").asLong(0) + top.path("Shared Read Blocks").asLong(0);
    }

    /** Rows read and discarded by filters across the plan; EXPLAIN gives them per loop. */
    public long rowsRemoved() {
        long removed = 0;
        for (JsonNode node : nodes) {
            long loops = Math.max(1, node.path("Actual Loops").asLong(1));
            for (String field : List.of("Rows Removed by Filter", "Rows Removed by Join Filter", "Rows Removed by Index Recheck")) {
                removed += Math.round(node.path(field).asDouble(0) * loops);
            }
        }
        return removed;
    }

    /** Tables the plan reads, schema-qualified. */
    public Set<String> relations() {
        Set<String> relations = new LinkedHashSet<>();
        for (JsonNode node : nodes) {
            String relation = text(node, "Relation Name");
            if (!relation.isEmpty()) {
                String schema = text(node, "Schema");
                relations.add(schema.isEmpty() ? relation : schema + "." + relation);
            }
        }
        return relations;
    }

    public boolean hasSeqScan() {
        return nodes.stream().anyMatch(n -> text(n, "Node Type").equals("Seq Scan"));
    }

    private String describeScans() {
        List<String> scans = nodes.stream().filter(n -> text(n, "Node Type").endsWith("Scan")).map(PlanCheck::describe).toList();
        return scans.isEmpty() ? "" : "; it scans with " + String.join(", ", scans);
    }

    private String sortKeys() {
        for (JsonNode node : nodes) {
            if (node.has("Sort Key")) {
                List<String> keys = new ArrayList<>();
                node.get("Sort Key").forEach(k -> keys.add(k.asText()));
                return String.join(", ", keys);
            }
        }
        return "";
    }

    private static String describe(JsonNode node) {
        String type = text(node, "Node Type");
        String relation = text(node, "Relation Name");
        String index = text(node, "Index Name");
        return type + (index.isEmpty() ? "" : " using " + index) + (relation.isEmpty() ? "" : " on " + relation);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null ? "" : value.asText();
    }

    static String normalize(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }
}
