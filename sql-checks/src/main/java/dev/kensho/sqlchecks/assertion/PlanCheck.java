package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.model.CapturedPlans;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kensho.sqlchecks.model.Directives.PlanExpectations;
import dev.kensho.sqlchecks.script.SqlLexer;

import java.sql.SQLException;
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

    /**
     * What the page's database says about objects a plan names, for what the plan's own fields cannot
     * tell: the order an index returns rows in, and whether a table has values stored out of line.
     */
    public interface Catalog {
        /** The key columns of the index, in order, each as {@code name} or {@code name DESC}; null when a key is an expression. */
        List<String> indexKeys(String schema, String index) throws SQLException;

        /** Bytes of the table's out-of-line (TOAST) storage; 0 when it has none. */
        long toastBytes(String schema, String table) throws SQLException;
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
    public List<Result> check(PlanExpectations expected, IndexClaim index, TableClaim table, Catalog catalog) throws SQLException {
        List<Result> results = new ArrayList<>();
        if (table != null && table.problem() == null && !table.family().isEmpty()) {
            String other = otherOfTheName(table.written(), table.family(), "Relation Name");
            table = other == null ? table : new TableClaim(table.written(), table.family(), other);
        }
        if (index != null && index.problem() == null && !index.family().isEmpty()) {
            String other = otherOfTheName(index.written(), index.family(), "Index Name");
            index = other == null ? index : new IndexClaim(index.written(), index.family(), other);
        }
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
            results.add(new Result("no-sort", Map.of(), "no Sort node", sortProblem(catalog)));
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

    /**
     * Sort and Incremental Sort nodes, and aggregates that sort their input themselves, which no node
     * shows. An aggregate with ORDER BY, DISTINCT or WITHIN GROUP in its arguments (in the Agg node's
     * Output or, for HAVING, its Filter, read as tokens so that a string literal is no clause) sorts the
     * rows of each group itself unless the planner fed them presorted (PostgreSQL 16 and later), and it
     * presorts only through an input ordered on the aggregate's key: a Sort node (found above) or an
     * index scan in that order. A hashed aggregate never gets presorted input. Where the plan's input
     * has an order the plan does not spell out, the claim cannot be decided and fails saying so.
     */
    private String sortProblem(Catalog catalog) throws SQLException {
        for (Node node : nodes) {
            String type = text(node.json(), "Node Type");
            if (type.equals("Sort") || type.equals("Incremental Sort")) {
                List<String> keys = new ArrayList<>();
                node.json().path("Sort Key").forEach(k -> keys.add(unqualified(k.asText())));
                return "the plan has a " + type + " node (Sort Key: " + String.join(", ", keys) + ")" + where(node);
            }
        }
        for (Node node : nodes) {
            // A GroupAggregate over grouping sets sorts its input again for each further set itself: its
            // "Grouping Sets" then carry a Sort Key of their own, and no Sort node shows it.
            for (JsonNode set : node.json().path("Grouping Sets")) {
                if (set.has("Sort Key")) {
                    List<String> keys = new ArrayList<>();
                    set.path("Sort Key").forEach(k -> keys.add(unqualified(k.asText())));
                    return "the aggregate sorts its input itself for a grouping set (Sort Key: " + String.join(", ", keys)
                            + "; EXPLAIN shows no Sort node for it)" + where(node);
                }
            }
        }
        for (Node node : nodes) {
            if (!text(node.json(), "Node Type").equals("Aggregate")) {
                continue;
            }
            List<OrderedAggregate> ordered = new ArrayList<>();
            List<String> expressions = new ArrayList<>();
            node.json().path("Output").forEach(o -> expressions.add(o.asText()));
            if (node.json().has("Filter")) {
                expressions.add(text(node.json(), "Filter"));
            }
            for (String expression : expressions) {
                ordered.addAll(OrderedAggregate.in(expression));
            }
            if (ordered.isEmpty()) {
                continue;
            }
            String which = "the aggregate " + ordered.get(0).call();
            OrderedAggregate orderedSet = ordered.stream().filter(OrderedAggregate::withinGroup).findFirst().orElse(null);
            if (orderedSet != null) {
                // An ordered-set aggregate's own support functions put every row of the group into a tuplesort,
                // whatever order the rows arrive in: PostgreSQL never presorts for it.
                return "the aggregate " + orderedSet.call() + " sorts its input itself (an ordered-set aggregate sorts each "
                        + "group's rows in its own functions; EXPLAIN shows no Sort node for it)" + where(node);
            }
            if (settings().stream().anyMatch(x -> x.name().equals("enable_presorted_aggregate") && x.value().equals("off"))) {
                return which + " sorts its input itself (enable_presorted_aggregate = off: PostgreSQL feeds no aggregate presorted "
                        + "rows; EXPLAIN shows no Sort node for it)" + where(node);
            }
            String strategy = text(node.json(), "Strategy");
            if (strategy.equals("Hashed") || strategy.equals("Mixed")) {
                return which + " sorts its input itself (a hashed aggregate is never fed presorted rows; EXPLAIN shows no Sort "
                        + "node for it)" + where(node);
            }
            String presorted = presortedBy(node, ordered, catalog);
            if (presorted != null) {
                return which + presorted + where(node);
            }
        }
        return null;
    }

    /** Null when the aggregates' input arrives in their order from an index scan; else why they sort, or why the plan cannot tell. */
    private String presortedBy(Node agg, List<OrderedAggregate> ordered, Catalog catalog) throws SQLException {
        JsonNode input = agg.json().path("Plans").path(0);
        boolean throughJoin = false;
        while (ORDER_KEEPING.contains(text(input, "Node Type")) || text(input, "Node Type").equals("Nested Loop")
                || text(input, "Node Type").equals("Merge Join")) {
            throughJoin |= !ORDER_KEEPING.contains(text(input, "Node Type"));
            input = input.path("Plans").path(0); // a join keeps its outer side's order
        }
        String type = text(input, "Node Type");
        if (UNORDERED.contains(type) || (type.equals("Aggregate") && text(input, "Strategy").equals("Hashed"))) {
            return " sorts its input itself (its rows come from a " + type + ", in no order; EXPLAIN shows no Sort node for it)";
        }
        if (!type.equals("Index Scan") && !type.equals("Index Only Scan")) {
            return " may sort its input itself: its rows come from a " + (type.isEmpty() ? "node" : type) + " whose order the plan "
                    + "does not state, so whether PostgreSQL presorted them cannot be told and no-sort cannot be checked";
        }
        List<String> keys = catalog.indexKeys(text(input, "Schema"), text(input, "Index Name"));
        if (keys == null) {
            return " may sort its input itself: its rows come from " + text(input, "Index Name") + ", an index on an expression, "
                    + "whose order the plan cannot be compared with; no-sort cannot be checked";
        }
        OrderedAggregate first = ordered.get(0);
        String alias = text(input, "Alias");
        for (OrderedAggregate other : ordered) {
            // The index orders the rows of its own table: a column of another table of the join has the same name, not its order.
            if (other.qualifier() == null ? throughJoin : !other.qualifier().equals(alias)) {
                return " sorts its input itself (it orders by " + (other.qualifier() == null ? "" : other.qualifier() + ".")
                        + other.key() + ", and its rows come ordered by " + text(input, "Index Name") + " on "
                        + (alias.isEmpty() ? "another relation" : alias) + "; EXPLAIN shows no Sort node for it)";
            }
        }
        for (OrderedAggregate other : ordered) {
            if (other.key() == null || !other.key().equals(first.key()) || other.descending() != first.descending()) {
                // An index on columns orders by columns; it cannot give an expression's order, nor two orders at once.
                return " sorts its input itself (it orders by " + (other.key() == null ? "an expression" : "another key than the "
                        + "plan's other ordered aggregates") + ", an order " + text(input, "Index Name") + " does not give; EXPLAIN "
                        + "shows no Sort node for it)";
            }
        }
        List<String> wanted = new ArrayList<>();
        for (JsonNode key : agg.json().path("Group Key")) {
            List<String> tokens = stripParens(conditionTokens(key.asText()));
            if (tokens.size() != 1) {
                return " sorts its input itself (its groups are keyed by an expression, an order " + text(input, "Index Name")
                        + " does not give; EXPLAIN shows no Sort node for it)";
            }
            wanted.add(tokens.get(0));
        }
        wanted.add(first.key());
        boolean backward = text(input, "Scan Direction").equals("Backward");
        if (keys.size() >= wanted.size()) {
            List<String> leading = new ArrayList<>();
            boolean directionFits = true;
            for (int i = 0; i < wanted.size(); i++) {
                String key = keys.get(i);
                boolean descending = key.endsWith(" DESC");
                leading.add(descending ? key.substring(0, key.length() - 5) : key);
                if (i == wanted.size() - 1) {
                    // The rows come descending when the key is DESC or the scan runs backward, not both; every ordered
                    // aggregate (DISTINCT sorts ascending) is presorted only by rows in its own direction.
                    boolean rowsDescending = descending != backward;
                    directionFits = ordered.stream().allMatch(o -> o.descending() == rowsDescending);
                }
            }
            if (new LinkedHashSet<>(leading.subList(0, wanted.size() - 1)).equals(new LinkedHashSet<>(wanted.subList(0, wanted.size() - 1)))
                    && leading.get(wanted.size() - 1).equals(first.key()) && directionFits) {
                return null;
            }
        }
        return " sorts its input itself (" + text(input, "Index Name") + " does not return rows ordered by "
                + String.join(", ", wanted) + (first.descending() ? " DESC" : "") + "; EXPLAIN shows no Sort node for it)";
    }

    /** Nodes whose output keeps the order of their (first) input, as the planner's path keys do. */
    private static final Set<String> ORDER_KEEPING = Set.of("Limit", "Result", "Gather Merge", "Materialize", "Unique",
            "Subquery Scan", "LockRows", "Memoize");
    /** Nodes whose output has no order the planner relies on (their paths have no path keys). */
    private static final Set<String> UNORDERED = Set.of("Seq Scan", "Sample Scan", "Bitmap Heap Scan", "Tid Scan", "Tid Range Scan",
            "Hash Join", "Gather", "Values Scan");

    /**
     * An aggregate call whose arguments carry ORDER BY, DISTINCT or WITHIN GROUP, found in an expression as
     * EXPLAIN VERBOSE prints it.
     *
     * @param key the single column it orders by, unqualified; null when it orders by an expression or several keys
     */
    record OrderedAggregate(String call, String qualifier, String key, boolean descending, boolean distinct, boolean withinGroup) {

        static List<OrderedAggregate> in(String expression) {
            List<SqlLexer.Token> tokens = SqlLexer.tokens(expression).stream().filter(SqlLexer.Token::significant).toList();
            List<OrderedAggregate> found = new ArrayList<>();
            for (int i = 1; i < tokens.size(); i++) {
                SqlLexer.Token token = tokens.get(i);
                if (token.kind() != SqlLexer.Kind.OPEN_PAREN || tokens.get(i - 1).kind() != SqlLexer.Kind.WORD) {
                    continue;
                }
                int close = closing(tokens, i);
                boolean withinGroup = tokens.get(i - 1).word().equals("group") && i >= 2 && tokens.get(i - 2).word().equals("within");
                int start = withinGroup ? callStart(tokens, i - 2) : i - 1;
                boolean distinct = i + 1 < close && tokens.get(i + 1).word().equals("distinct");
                int orderBy = -1;
                int depth = 0;
                for (int j = i + 1; j < close; j++) {
                    if (tokens.get(j).kind() == SqlLexer.Kind.OPEN_PAREN) {
                        depth++;
                    } else if (tokens.get(j).kind() == SqlLexer.Kind.CLOSE_PAREN) {
                        depth--;
                    } else if (depth == 0 && tokens.get(j).word().equals("order") && j + 1 < close && tokens.get(j + 1).word().equals("by")) {
                        orderBy = j;
                        break;
                    }
                }
                if (!distinct && orderBy < 0) {
                    continue;
                }
                List<String> keyTokens = new ArrayList<>();
                int from = orderBy >= 0 ? orderBy + 2 : i + 2;
                for (int j = from; j < close; j++) {
                    keyTokens.add(tokens.get(j).text());
                }
                List<String> key = stripParens(conditionTokens(String.join(" ", keyTokens)));
                boolean descending = !key.isEmpty() && key.get(key.size() - 1).equals("desc");
                if (!key.isEmpty() && (key.get(key.size() - 1).equals("desc") || key.get(key.size() - 1).equals("asc"))) {
                    key = stripParens(key.subList(0, key.size() - 1));
                }
                String call = expression.substring(tokens.get(start).start(), close < tokens.size() ? tokens.get(close).end() : expression.length());
                // EXPLAIN VERBOSE qualifies a column with its relation's alias: "b.x" names b's x, not the x of a.
                String qualifier = null;
                List<SqlLexer.Token> keyStart = tokens.subList(Math.min(from, close), close);
                if (key.size() == 1 && keyStart.size() >= 3 && keyStart.get(1).text().equals(".")
                        && keyStart.get(0).kind() == SqlLexer.Kind.WORD) {
                    qualifier = keyStart.get(0).word();
                }
                found.add(new OrderedAggregate(unqualified(call), qualifier, key.size() == 1 ? key.get(0) : null, descending, distinct,
                        withinGroup));
            }
            return found;
        }

        /** The function name before "name(args) WITHIN GROUP". */
        private static int callStart(List<SqlLexer.Token> tokens, int within) {
            int depth = 0;
            for (int j = within - 1; j >= 0; j--) {
                if (tokens.get(j).kind() == SqlLexer.Kind.CLOSE_PAREN) {
                    depth++;
                } else if (tokens.get(j).kind() == SqlLexer.Kind.OPEN_PAREN) {
                    depth--;
                    if (depth == 0) {
                        return Math.max(0, j - 1);
                    }
                }
            }
            return within;
        }

        private static int closing(List<SqlLexer.Token> tokens, int open) {
            int depth = 0;
            for (int j = open; j < tokens.size(); j++) {
                if (tokens.get(j).kind() == SqlLexer.Kind.OPEN_PAREN) {
                    depth++;
                } else if (tokens.get(j).kind() == SqlLexer.Kind.CLOSE_PAREN && --depth == 0) {
                    return j;
                }
            }
            return tokens.size();
        }
    }

    /** Drops parentheses that enclose the whole list: ((unique1)) → unique1. */
    private static List<String> stripParens(List<String> tokens) {
        List<String> out = tokens;
        while (out.size() >= 2 && out.get(0).equals("(") && out.get(out.size() - 1).equals(")")) {
            int depth = 0;
            boolean encloses = true;
            for (int i = 0; i < out.size() - 1; i++) {
                depth += out.get(i).equals("(") ? 1 : out.get(i).equals(")") ? -1 : 0;
                if (depth == 0) {
                    encloses = false;
                    break;
                }
            }
            if (!encloses) {
                break;
            }
            out = out.subList(1, out.size() - 1);
        }
        return out;
    }

    /**
     * Why an unqualified name cannot be checked when the plan reads a relation of that name in another schema than the one
     * the name was resolved to, or null: the name was looked up after the snippet ran, and a statement may change the
     * search_path it was planned under (red team helper-97: {@code set_config('search_path', 'public', false)} in the
     * claimed SELECT itself made {@code no-seq-scan=t} judge public.t while the plan scanned s.t).
     */
    private String otherOfTheName(String written, List<Relation> family, String field) {
        if (written == null || written.contains(".")) {
            return null;
        }
        Set<String> resolved = new LinkedHashSet<>();
        family.forEach(r -> resolved.add(r.toString()));
        String bare = family.get(0).name();
        for (Node node : nodes) {
            String name = text(node.json(), field);
            if (name.equals(bare) && !resolved.contains(node.schema() + "." + name)) {
                return "the claim names " + written + ", which the page's session resolves to " + family.get(0) + ", and the plan "
                        + "reads " + node.schema() + "." + name + ": the name meant another relation when the statement was planned; "
                        + "write it with its schema (" + node.schema() + "." + name + ") to claim that one";
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
    public List<Result> checkWork(PlanExpectations expected, Catalog catalog) throws SQLException {
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
        if (expected.maxBuffers() != null && uncountedOutput(catalog) != null) {
            results.add(new Result("max-buffers", Map.of("limit", expected.maxBuffers().toString(), "measured", "?"),
                    "touches at most " + expected.maxBuffers() + " shared buffers", uncountedOutput(catalog)));
        } else if (expected.maxBuffers() != null) {
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

    /**
     * Why the buffers of sending the result are work no plan node counts, or null when there is none:
     * PostgreSQL fetches a value stored out of line (TOAST) only when it writes the row to the client,
     * after the plan's nodes are done (a 512 kB text sent reads some 140 buffers the plan never shows).
     * When the statement returns rows and it, or a function it calls, reads a table with out-of-line
     * values, the count may not be the statement's whole work, and a bound on it cannot be checked.
     */
    private String uncountedOutput(Catalog catalog) throws SQLException {
        CapturedPlans.ParsedPlan own = captured.plans().stream().filter(CapturedPlans.ParsedPlan::ownPlan).findFirst().orElse(null);
        if (own == null || own.root().path("Output").isEmpty() || own.root().path("Actual Rows").asDouble(0) == 0) {
            return null;
        }
        for (Node node : nodes) {
            String relation = text(node.json(), "Relation Name");
            if (relation.isEmpty()) {
                continue;
            }
            // Also the tables a function the statement calls reads: a value it returns may still be stored out of line.
            long toast = catalog.toastBytes(node.schema(), relation);
            if (toast > 0) {
                return "the rows it returns are read from " + (node.schema().isEmpty() ? "" : node.schema() + ".") + relation
                        + ", which holds values stored out of line (TOAST, " + (toast >> 10) + " kB); PostgreSQL reads those while "
                        + "sending the rows, after every plan node is done, so no plan counts those buffers and the bound cannot be "
                        + "checked. Claim max-buffers on a statement over tables without out-of-line values";
            }
        }
        return null;
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
