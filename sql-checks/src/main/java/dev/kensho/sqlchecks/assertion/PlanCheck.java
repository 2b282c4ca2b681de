package dev.kensho.sqlchecks.assertion;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.sqlchecks.Directives.PlanExpectations;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks plan assertions against the JSON that {@code EXPLAIN (FORMAT JSON, COSTS OFF)} printed,
 * walking every node of the tree.
 */
public final class PlanCheck {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<JsonNode> nodes;

    private PlanCheck(List<JsonNode> nodes) {
        this.nodes = nodes;
    }

    public static PlanCheck of(String explainJson) {
        try {
            JsonNode root = JSON.readTree(explainJson);
            List<JsonNode> nodes = new ArrayList<>();
            collect(root.get(0).get("Plan"), nodes);
            return new PlanCheck(nodes);
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

    /** One checked claim: what was asserted and, when it did not hold, why. */
    public record Result(String assertion, String problem) {
        public boolean passed() {
            return problem == null;
        }
    }

    /** Every assertion the expectations make, in a fixed order, each with its result. */
    public List<Result> check(PlanExpectations expected) {
        List<Result> results = new ArrayList<>();
        if (expected.usesIndex() != null) {
            boolean used = nodes.stream().anyMatch(n -> expected.usesIndex().equals(text(n, "Index Name")));
            results.add(new Result("uses index " + expected.usesIndex(),
                    used ? null : "the plan uses no index named " + expected.usesIndex() + describeScans()));
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
            results.add(new Result("scans only with " + String.join(", ", new java.util.TreeSet<>(expected.scanIn())),
                    others.isEmpty() ? null : "the plan scans with " + String.join(", ", others)));
        }
        if (expected.noSort()) {
            List<String> sorts = nodes.stream().map(n -> text(n, "Node Type"))
                    .filter(t -> t.equals("Sort") || t.equals("Incremental Sort")).toList();
            results.add(new Result("no Sort node", sorts.isEmpty() ? null
                    : "the plan has a " + sorts.get(0) + " node (Sort Key: " + sortKeys() + ")"));
        }
        if (expected.noSeqScanOn() != null) {
            boolean seq = nodes.stream().anyMatch(n -> text(n, "Node Type").equals("Seq Scan")
                    && expected.noSeqScanOn().equals(text(n, "Relation Name")));
            results.add(new Result("no Seq Scan on " + expected.noSeqScanOn(),
                    seq ? "the plan reads " + expected.noSeqScanOn() + " with a Seq Scan" : null));
        }
        if (expected.indexCondContains() != null) {
            String wanted = normalize(expected.indexCondContains());
            List<String> conditions = nodes.stream().map(n -> text(n, "Index Cond")).filter(c -> !c.isEmpty()).toList();
            boolean found = conditions.stream().anyMatch(c -> normalize(c).contains(wanted));
            results.add(new Result("Index Cond contains " + expected.indexCondContains(), found ? null
                    : conditions.isEmpty() ? "the plan has no Index Cond" : "no Index Cond contains it; the plan's: " + String.join("; ", conditions)));
        }
        List<String> disabled = nodes.stream().filter(n -> n.path("Disabled").asBoolean(false)).map(PlanCheck::describe).toList();
        results.add(new Result("no node chosen against a disabled planner method", disabled.isEmpty() ? null
                : "PostgreSQL marks " + String.join(", ", disabled) + " as Disabled: an enable_* setting is off and the "
                + "planner had no other way; a plan forced like this proves nothing about the default planner"));
        return results;
    }

    /** Tables the plan reads, for the "seed more rows" advice. */
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
