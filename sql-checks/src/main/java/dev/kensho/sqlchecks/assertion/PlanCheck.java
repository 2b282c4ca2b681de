package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.CapturedPlans;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kensho.sqlchecks.model.Directives.PlanExpectations;
import dev.kensho.sqlchecks.script.SqlLexer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks plan and work claims against every plan of one execution of a statement (see
 * {@link CapturedPlans}): the statement's own plan and the plans of the statements it caused, each
 * node of each tree, so that a foreign-key check's or a trigger's Seq Scan counts as the statement's.
 * Every node is reported with the plan it came from.
 */
public final class PlanCheck {

    /** A plan node and the plan it belongs to. */
    private record Node(JsonNode json, String origin, String schema) {
    }

    /** The origin CapturedPlans gives the statement's own plan. */
    private static final String OWN = "the statement";

    private final CapturedPlans captured;
    private final List<Node> nodes;

    private PlanCheck(CapturedPlans captured, List<Node> nodes) {
        this.captured = captured;
        this.nodes = nodes;
    }

    public static PlanCheck of(CapturedPlans captured) {
        List<Node> nodes = new ArrayList<>();
        for (CapturedPlans.ParsedPlan plan : captured.plans()) {
            collect(plan.root(), plan.origin(), "", nodes);
        }
        return new PlanCheck(captured, nodes);
    }

    /**
     * @param heapSchema the schema of the nearest Bitmap Heap Scan above, which is its Bitmap Index
     *                   Scan's schema too (an index always lives in its table's schema)
     */
    private static void collect(JsonNode node, String origin, String heapSchema, List<Node> into) {
        if (node == null || node.isMissingNode()) {
            return;
        }
        String schema = text(node, "Schema");
        if (schema.isEmpty() && text(node, "Node Type").equals("Bitmap Index Scan")) {
            schema = heapSchema;
        }
        into.add(new Node(node, origin, schema));
        String below = text(node, "Node Type").equals("Bitmap Heap Scan") ? text(node, "Schema") : heapSchema;
        JsonNode children = node.get("Plans");
        if (children != null) {
            children.forEach(child -> collect(child, origin, below, into));
        }
    }

    /** A setting in effect that differs from PostgreSQL's built-in default, as a plan reported it. */
    public record Setting(String name, String value, String origin) {
    }

    /** Settings every plan listed (auto_explain's log_settings), first report of each name kept. */
    public List<Setting> settings() {
        Map<String, Setting> settings = new LinkedHashMap<>();
        for (CapturedPlans.ParsedPlan plan : captured.plans()) {
            plan.settings().fields().forEachRemaining(e -> settings.putIfAbsent(e.getKey(),
                    new Setting(e.getKey(), e.getValue().asText(), plan.origin())));
        }
        return List.copyOf(settings.values());
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

    /**
     * The index a {@code uses-index} claim names.
     *
     * @param family the index and, for an index on a partitioned table, the indexes of its partitions;
     *               empty with a problem when it could not be resolved
     */
    public record IndexClaim(String written, List<Relation> family, String problem) {
    }

    /** One checked claim: what was asserted and, when it did not hold, why. */
    public record Result(String kind, Map<String, String> facts, String assertion, String problem) {
        public boolean passed() {
            return problem == null;
        }
    }

    /** Every claim the expectations make about the plans' shape, in a fixed order, each with its result. */
    public List<Result> check(PlanExpectations expected, IndexClaim index, TableClaim table) {
        List<Result> results = new ArrayList<>();
        if (expected.usesIndex() != null) {
            String problem = index.problem();
            String where = "";
            if (problem == null) {
                Set<String> family = new LinkedHashSet<>();
                index.family().forEach(r -> family.add(r.toString()));
                // "Uses" is about the statement itself: an index only a trigger or check uses does not make it true.
                Node used = nodes.stream().filter(n -> n.origin().equals(OWN)
                        && family.contains(n.schema() + "." + text(n.json(), "Index Name"))).findFirst().orElse(null);
                problem = used != null ? null : "the plan uses no index " + index.family().get(0) + describeScans();
                where = used == null ? "" : used.origin();
            }
            results.add(new Result("uses-index", Map.of("index", expected.usesIndex(), "plan", where),
                    "uses index " + expected.usesIndex(), problem));
        }
        if (!expected.scanIn().isEmpty()) {
            List<String> others = new ArrayList<>();
            for (Node node : nodes) {
                String type = text(node.json(), "Node Type");
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
            results.add(new Result("no-sort", Map.of(), "no Sort node", sortProblem()));
        }
        if (expected.noSeqScanOn() != null) {
            results.add(new Result("no-seq-scan", Map.of("table", expected.noSeqScanOn()), "no Seq Scan on " + expected.noSeqScanOn(),
                    seqScanProblem(table)));
        }
        if (expected.indexCondContains() != null) {
            List<String> wanted = conditionTokens(expected.indexCondContains());
            List<String> conditions = new ArrayList<>();
            boolean found = false;
            for (Node node : nodes) {
                if (!node.origin().equals(OWN)) {
                    continue; // as for uses-index: the statement's own plan
                }
                String condition = text(node.json(), "Index Cond");
                if (!condition.isEmpty()) {
                    conditions.add(unqualified(condition) + where(node));
                    found |= containsRun(conditionTokens(condition), wanted);
                }
            }
            results.add(new Result("index-cond", Map.of("text", expected.indexCondContains()),
                    "Index Cond contains " + expected.indexCondContains(), found ? null
                    : conditions.isEmpty() ? "no plan of the statement has an Index Cond"
                    : "no Index Cond holds it as whole tokens; the plans': " + String.join("; ", conditions)));
        }
        return results;
    }

    /** Sort and Incremental Sort nodes, and aggregates that sort their input themselves (no node shows those). */
    private String sortProblem() {
        for (Node node : nodes) {
            String type = text(node.json(), "Node Type");
            if (type.equals("Sort") || type.equals("Incremental Sort")) {
                List<String> keys = new ArrayList<>();
                node.json().path("Sort Key").forEach(k -> keys.add(unqualified(k.asText())));
                return "the plan has a " + type + " node (Sort Key: " + String.join(", ", keys) + ")" + where(node);
            }
        }
        for (Node node : nodes) {
            if (!text(node.json(), "Node Type").equals("Aggregate") && !text(node.json(), "Node Type").equals("WindowAgg")) {
                continue;
            }
            for (JsonNode output : node.json().path("Output")) {
                String expression = output.asText();
                String upper = expression.toUpperCase(Locale.ROOT);
                if (upper.contains(" ORDER BY ") || upper.contains("WITHIN GROUP") || upper.contains("(DISTINCT ")) {
                    return "the aggregate " + unqualified(expression) + " sorts its input itself (EXPLAIN shows no Sort node "
                            + "for it)" + where(node);
                }
            }
        }
        return null;
    }

    private String seqScanProblem(TableClaim table) {
        if (table.problem() != null) {
            return table.problem();
        }
        Set<String> family = new LinkedHashSet<>();
        table.family().forEach(r -> family.add(r.toString()));
        List<Node> reading = nodes.stream().filter(n -> family.contains(n.schema() + "." + text(n.json(), "Relation Name"))).toList();
        if (reading.isEmpty()) {
            return table.family().get(0) + " is not read by this plan (it scans " + String.join(", ", relations())
                    + "); the claim cannot be checked";
        }
        List<String> seqScans = reading.stream().filter(n -> text(n.json(), "Node Type").equals("Seq Scan")).map(PlanCheck::describe).toList();
        return seqScans.isEmpty() ? null : "the plan reads " + table.family().get(0) + " with " + String.join(", ", seqScans);
    }

    /** Work claims, on the counts of the same execution. */
    public List<Result> checkWork(PlanExpectations expected) {
        List<Result> results = new ArrayList<>();
        if (captured.overflowed() && expected.measuresWork()) {
            String problem = "the statement caused more than " + CapturedPlans.MAX_PLANS
                    + " nested statements, more than Kensho accounts for; its whole work cannot be stated";
            if (expected.maxBuffers() != null) {
                results.add(new Result("max-buffers", Map.of("limit", expected.maxBuffers().toString(), "measured", "?"),
                        "touches at most " + expected.maxBuffers() + " shared buffers", problem));
            }
            if (expected.maxRowsRemoved() != null) {
                results.add(new Result("max-rows-removed", Map.of("limit", expected.maxRowsRemoved().toString(), "measured", "?"),
                        "discards at most " + expected.maxRowsRemoved() + " rows by filter", problem));
            }
            return results;
        }
        if (expected.maxBuffers() != null) {
            long buffers = sharedBuffers();
            int nested = captured.plans().size() - (int) captured.plans().stream().filter(CapturedPlans.ParsedPlan::ownPlan).count();
            String scope = nested == 0 ? "" : " (the statement and the " + nested + " statement(s) it caused)";
            results.add(new Result("max-buffers", Map.of("limit", expected.maxBuffers().toString(), "measured", Long.toString(buffers),
                    "nested", Integer.toString(nested)),
                    "touches at most " + expected.maxBuffers() + " shared buffers (measured " + buffers + scope + ")",
                    buffers <= expected.maxBuffers() ? null : "its execution touched " + buffers + " shared buffers (hit + read)"
                            + scope + ", more than " + expected.maxBuffers() + busiest()));
        }
        if (expected.maxRowsRemoved() != null) {
            long[] removed = rowsRemoved();
            String measured = removed[0] == removed[1] ? Long.toString(removed[0]) : removed[0] + "–" + removed[1];
            String problem = null;
            if (removed[0] > expected.maxRowsRemoved()) {
                problem = "its nodes read and then discarded " + measured + " rows (Rows Removed by Filter, Join Filter and "
                        + "Index Recheck, times loops, in every plan of the execution), more than " + expected.maxRowsRemoved();
            } else if (removed[1] > expected.maxRowsRemoved()) {
                problem = "the exact count cannot be known: EXPLAIN reports rows removed as a rounded average per loop, and over "
                        + "the loops the total lies between " + removed[0] + " and " + removed[1] + ", which straddles the bound "
                        + expected.maxRowsRemoved() + "; raise the bound to " + removed[1] + " or claim it on a statement that loops less";
            }
            results.add(new Result("max-rows-removed", Map.of("limit", expected.maxRowsRemoved().toString(), "measured", measured),
                    "discards at most " + expected.maxRowsRemoved() + " rows by filter (measured " + measured + ")", problem));
        }
        return results;
    }

    /**
     * Shared buffers (hit + read) of the whole execution: each plan's top node counts its children,
     * and every plan is counted, nested ones included. A nested statement run inside a node of its
     * caller (a function in a filter, say) is counted in that node too, so the figure is an upper
     * bound: a claim passes only when the real count is within it. Data-modifying CTEs the query does
     * not read run after the top node finishes, so their nodes are added.
     */
    public long sharedBuffers() {
        long total = 0;
        for (CapturedPlans.ParsedPlan plan : captured.plans()) {
            total += buffers(plan.root());
            for (JsonNode child : plan.root().path("Plans")) {
                if (text(child, "Parent Relationship").equals("InitPlan") && text(child, "Node Type").equals("ModifyTable")) {
                    total += buffers(child);
                }
            }
        }
        return total;
    }

    private static long buffers(JsonNode node) {
        return node.path("Shared Hit Blocks").asLong(0) + node.path("Shared Read Blocks").asLong(0);
    }

    private String busiest() {
        CapturedPlans.ParsedPlan most = null;
        for (CapturedPlans.ParsedPlan plan : captured.plans()) {
            if (most == null || buffers(plan.root()) > buffers(most.root())) {
                most = plan;
            }
        }
        return most == null || captured.plans().size() < 2 ? "" : "; most of them in " + most.origin() + ": " + buffers(most.root());
    }

    /**
     * Rows read and discarded by filters across every plan, as {lowest, highest} possible totals.
     * EXPLAIN prints them per loop, rounded to a whole number: a node printing r over l loops removed
     * between (r - 0.5) * l and (r + 0.5) * l rows; with one loop the figure is exact.
     */
    public long[] rowsRemoved() {
        long low = 0;
        long high = 0;
        for (Node node : nodes) {
            long loops = Math.max(1, node.json().path("Actual Loops").asLong(1));
            for (String field : List.of("Rows Removed by Filter", "Rows Removed by Join Filter", "Rows Removed by Index Recheck")) {
                if (!node.json().has(field)) {
                    continue;
                }
                double perLoop = node.json().path(field).asDouble(0);
                if (loops == 1) {
                    low += Math.round(perLoop);
                    high += Math.round(perLoop);
                } else {
                    low += Math.max(0, (long) Math.ceil((perLoop - 0.5) * loops));
                    high += (long) Math.floor((perLoop + 0.5) * loops);
                }
            }
        }
        return new long[]{low, high};
    }

    /** Tables the plans read, schema-qualified. */
    public Set<String> relations() {
        Set<String> relations = new LinkedHashSet<>();
        for (Node node : nodes) {
            String relation = text(node.json(), "Relation Name");
            if (!relation.isEmpty()) {
                relations.add(node.schema().isEmpty() ? relation : node.schema() + "." + relation);
            }
        }
        return relations;
    }

    public boolean hasSeqScan() {
        return nodes.stream().anyMatch(n -> text(n.json(), "Node Type").equals("Seq Scan"));
    }

    private String describeScans() {
        List<String> scans = nodes.stream().filter(n -> text(n.json(), "Node Type").endsWith("Scan")).map(PlanCheck::describe).toList();
        return scans.isEmpty() ? "" : "; it scans with " + String.join(", ", scans);
    }

    private static String describe(Node node) {
        String type = text(node.json(), "Node Type");
        String relation = text(node.json(), "Relation Name");
        String index = text(node.json(), "Index Name");
        return type + (index.isEmpty() ? "" : " using " + index) + (relation.isEmpty() ? "" : " on " + relation) + where(node);
    }

    /** "" for a node of the statement's own plan; " in nested statement N (…)" for one of a statement it caused. */
    private static String where(Node node) {
        return node.origin().equals(OWN) ? "" : " in " + node.origin();
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null ? "" : value.asText();
    }

    /**
     * A condition's tokens with column qualifiers dropped ({@code orders.venue_id} → {@code venue_id}):
     * VERBOSE qualifies every column, the author writes them as in the query. Unquoted words fold to lower case.
     */
    static List<String> conditionTokens(String condition) {
        List<SqlLexer.Token> tokens = SqlLexer.tokens(condition).stream().filter(SqlLexer.Token::significant).toList();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token token = tokens.get(i);
            boolean name = token.kind() == SqlLexer.Kind.WORD || token.kind() == SqlLexer.Kind.QUOTED_IDENTIFIER;
            if (name && i + 2 < tokens.size() && tokens.get(i + 1).text().equals(".")
                    && (tokens.get(i + 2).kind() == SqlLexer.Kind.WORD || tokens.get(i + 2).kind() == SqlLexer.Kind.QUOTED_IDENTIFIER)) {
                i++; // skip the qualifier and its dot
                continue;
            }
            out.add(token.kind() == SqlLexer.Kind.WORD ? token.word() : token.text());
        }
        return out;
    }

    /** The condition as written, with VERBOSE's column qualifiers left out, for messages. */
    private static String unqualified(String condition) {
        List<SqlLexer.Token> tokens = SqlLexer.tokens(condition);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token token = tokens.get(i);
            boolean name = token.kind() == SqlLexer.Kind.WORD || token.kind() == SqlLexer.Kind.QUOTED_IDENTIFIER;
            if (name && i + 2 < tokens.size() && tokens.get(i + 1).text().equals(".")
                    && (tokens.get(i + 2).kind() == SqlLexer.Kind.WORD || tokens.get(i + 2).kind() == SqlLexer.Kind.QUOTED_IDENTIFIER)) {
                i++;
                continue;
            }
            out.append(token.text());
        }
        return out.toString();
    }

    /** True when {@code wanted} occurs in {@code tokens} as a contiguous run. */
    private static boolean containsRun(List<String> tokens, List<String> wanted) {
        if (wanted.isEmpty()) {
            return false;
        }
        for (int i = 0; i + wanted.size() <= tokens.size(); i++) {
            if (tokens.subList(i, i + wanted.size()).equals(wanted)) {
                return true;
            }
        }
        return false;
    }
}
