package dev.kensho.sqlchecks.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Judges, on the parse trees the server reported for a page's statements ({@link TreeReads}), what the text gate
 * ({@link ServerWideReaders}) can only guess from tokens: whether a read of one of the server's shared lists is
 * restricted to the page's own database or session, whether a read of a list that holds Kensho's own objects is
 * restricted to the page's own, and whether a result derives from a counter the whole server shares. Tokens are fooled
 * by what the page defines: an alias column list that renames the list's columns, an {@code =} operator of the page's
 * schema, a {@code current_database()} or {@code pg_backend_pid()} of the page's earlier on search_path, an OID cast to
 * bigint or text. The tree names none of those by spelling: a column is a relation's attribute number, an operator or a
 * function is its OID, compared with pg_catalog's own (read once per server, {@link TreeReads.Catalog}; a page cannot
 * create objects in pg_catalog). The text gate still refuses what it can see early, with a message at the read; a read
 * it lets pass is decided here, never by the text alone.
 *
 * <p>Kensho's own objects: the extension guard ({@link ExtensionGuard}) must live in the page's database (an event trigger
 * belongs to one database and runs only there), so its event trigger and function are rows of pg_event_trigger, pg_proc,
 * pg_depend and of information_schema's routine lists, which a reader's database does not have. They cannot be hidden
 * from the page's catalogs, so what a claim rests on is judged instead: a read of one of those lists (or of an object's
 * definition or description by OID) is Kensho's unless restricted, at the top of its WHERE clause with the built-in
 * {@code =}, to objects the page names ({@code proname = 'f'} other than the guard's, {@code oid = 'f'::regproc} other
 * than the guard's own OIDs, read once from the page template, {@code pronamespace = 'public'::regnamespace}); a describer
 * given the oid column of such a restricted row, or of a list that holds no functions or event triggers, shows the page's.
 * The class cannot recur through a new object of Kensho's in pg_catalog: every list that shows functions or event
 * triggers is gated, whatever is in it. A name looked up at run time (to_regproc, has_function_privilege or a text cast
 * to regclass given a text built by the statement) is one neither gate can read, so no claim rests on it.
 *
 * <p>Counters: a value of a counter type (oid, xid, ...) anywhere in the tree, not only in its result, may only be compared
 * with the built-in {@code =} to another of its kind, given to a function that finds the object by it, shown as a name
 * (reg*), tested for NULL or counted ({@link #misused}); any other use shows how far the server's counter had run. A row,
 * an array or a whole catalog row holding one carries it ({@link #carries}), and so does a view of the page's: its query
 * is judged where a later statement uses it, in the tree after rewriting ({@link #rewrittenJudged}), and so is a rule's action. A plain SELECT
 * that only shows a counter fails its own claim and no later one ({@link Found#shownOnly}).
 */
final class ParseTreeGate {

    /** What restricts a list to the page's own rows, by the kind of value compared with the column. */
    enum Own { NAME, OID, PID, RELATION, NOT_GUARD_NAME, NOT_CATALOG_NAMESPACE, NAMED_OBJECT }

    /** The first OID of an object made after initdb: a relation at or above it was made in this database. */
    private static final long FIRST_NORMAL_OID = 16384;
    /** pg_catalog's namespace OID (fixed by initdb), where the guard's function lives. */
    private static final long CATALOG_NAMESPACE = 11;
    private static final String GUARD_NAME = "kensho_refuse_extensions";

    private static final long BOOL = 16, NAME = 19, REGCLASS = 2205, REGNAMESPACE = 4089;
    /** Types whose values are OIDs: an OID shown as a name (its output function) reads nothing; its number does. */
    private static final Set<Long> REG_TYPES = Set.of(24L, 2202L, 2203L, 2204L, 2205L, 2206L, 3734L, 3769L, 4089L, 4096L, 4191L);
    /**
     * oid, xid, xid8, cid, tid, pg_lsn, pg_snapshot, txid_snapshot: values the server's shared counters gave; oidvector is
     * OIDs (a function's argument types, an index's operator classes), one of the page's among them as well.
     */
    private static final Set<Long> COUNTER_TYPES = Set.of(26L, 28L, 5069L, 29L, 27L, 3220L, 5038L, 2970L, 30L);
    /** Arrays of those types. */
    private static final Set<Long> COUNTER_ARRAYS = Set.of(1028L, 1011L, 271L, 1012L, 1010L, 3221L, 5039L, 2949L, 1013L);
    /** Both, for the catalog's query of the relations whose rows hold one ({@link TreeReads.Catalog#counterRows}). */
    static final String COUNTER_TYPE_LIST = java.util.stream.Stream.concat(COUNTER_TYPES.stream(), COUNTER_ARRAYS.stream()).sorted()
            .map(String::valueOf).collect(java.util.stream.Collectors.joining(", "));
    private static final Set<String> TYPE_FIELDS = Set.of("vartype", "consttype", "funcresulttype", "resulttype", "opresulttype",
            "aggtype", "wintype", "minmaxtype", "coalescetype", "casetype", "array_typeid", "row_typeid", "paramtype", "refrestype");

    /** Lists holding Kensho's guard (event trigger, function, their dependency), and what pins each to the page's objects. */
    private static final Map<String, Map<String, Own>> GUARD_LISTS = Map.of(
            "pg_proc", Map.of("proname", Own.NOT_GUARD_NAME, "oid", Own.NAMED_OBJECT, "pronamespace", Own.NOT_CATALOG_NAMESPACE),
            "pg_event_trigger", Map.of(),
            "pg_depend", Map.of("objid", Own.NAMED_OBJECT, "refobjid", Own.NAMED_OBJECT),
            "pg_description", Map.of("objoid", Own.NAMED_OBJECT),
            "routines", Map.of(),
            "routine_privileges", Map.of(),
            "role_routine_grants", Map.of());
    /** Functions that show any object's definition, identity or comment given its OID: the guard's as well as the page's. */
    private static final Set<String> DESCRIBERS = Set.of("pg_get_functiondef", "pg_get_function_arguments", "pg_get_function_result",
            "pg_get_function_identity_arguments", "pg_get_function_sqlbody", "pg_describe_object", "pg_identify_object",
            "pg_identify_object_as_address", "obj_description");

    /**
     * pg_catalog's functions that take an OID only to find the object it names and show something of that object (its
     * statistics, size, privileges, definition or comment): their value is not the OID's number. Any other function or
     * operator given an OID (a cast, arithmetic, concat, format) shows what the number is.
     */
    private static final List<String> LOOKUPS = List.of("pg_stat_get_", "pg_get_", "has_", "pg_has_", "pg_database_size",
            "pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size", "pg_tablespace_size",
            "obj_description", "col_description", "shobj_description", "format_type", "pg_describe_object", "pg_identify_object",
            "pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_sequence_last_value");

    /** Functions that turn a value into a number or text: given an OID, they show it. */
    private static final Set<String> NUMBERS = Set.of("int8", "int4", "int2", "numeric", "float4", "float8", "text", "oid", "oidout",
            "textin", "to_char", "to_hex", "concat", "concat_ws", "format", "abs", "mod", "div", "hashoid", "hashoidextended");

    /**
     * Functions whose value is the name of the run's role or database: Kensho's making at build ({@code kensho_<pid>_…},
     * a new one each run), {@code kensho_reader} and {@code postgres} in the playground. From PostgreSQL 16 on {@code current_role}, {@code user}
     * and {@code current_catalog} are written as calls of {@code current_user} and {@code current_database}.
     */
    private static final Set<String> RUN_NAMES = Set.of("current_user", "session_user", "current_database", "getpgusername",
            "pg_get_userbyid");
    /** The same on 14 and 15, where the server writes them as an SQLValueFunction by its op: CURRENT_ROLE 9 to CURRENT_CATALOG 13. */
    private static final Map<Long, String> RUN_NAME_OPS = Map.of(9L, "current_role", 10L, "current_user", 11L, "user",
            12L, "session_user", 13L, "current_catalog");
    /** Casts that keep a name what it is (name, text, varchar, char): the next use of their result is judged instead. */
    private static final Set<String> NAME_CASTS = Set.of("text", "name", "varchar", "bpchar");
    /**
     * Functions (and the {@code ||} operators' functions) that put a name into a text as it is: {@code format('GRANT … TO
     * %I', current_user)} builds a page's DDL; what the text is then used for is judged instead.
     */
    private static final Set<String> NAME_TEXTS = Set.of("format", "concat", "concat_ws", "quote_ident", "quote_literal",
            "quote_nullable", "textcat", "anytextcat", "textanycat");

    /** Functions that print each argument through its type's output function: a reg* value prints as its name. */
    private static final Set<String> PRINTS = Set.of("concat", "concat_ws", "format");

    private final TreeReads.Catalog catalog;

    ParseTreeGate(TreeReads.Catalog catalog) {
        this.catalog = catalog;
    }

    /**
     * What one refusal found: the name read and what of the server it reads. {@code shownOnly}: a counter that a plain
     * SELECT only shows in its result (or orders its result by); it stores nothing, so it fails that snippet's own claim
     * and no later one.
     */
    record Found(String what, ServerWideReaders.Shared shared, boolean shownOnly) {
        Found(String what, ServerWideReaders.Shared shared) {
            this(what, shared, false);
        }
    }

    /** The first thing the tree {@code top} reads that no claim may rest on, or null. */
    Found judge(NodeTree.Node top) {
        Found found = walk(top, null, List.of(), this::reads);
        if (found != null) {
            // What a plain SELECT reads it only shows: that snippet's claim fails, and no later one.
            return onlyShows(top) ? new Found(found.what(), found.shared(), true) : found;
        }
        // The statement's own results and what it stores (INSERT, UPDATE), and the query of CREATE TABLE AS or DECLARE.
        List<NodeTree.Node> results = new ArrayList<>(List.of(top));
        NodeTree.Node utility = top.node("utilityStmt");
        if (utility != null && utility.node("query") != null && utility.node("query").type().equals("QUERY")) {
            results.add(utility.node("query"));
        }
        boolean shownOnly = onlyShows(top);
        Found[] shown = {null};
        for (NodeTree.Node query : results) {
            for (Object entry : query.list("targetList")) {
                if (shown[0] == null && entry instanceof NodeTree.Node target && !"true".equals(target.text("resjunk"))) {
                    String derived = derived(target.get("expr"), query, List.of(query), true);
                    if (derived != null) {
                        shown[0] = new Found("a result derived from " + derived + " as the server parsed it",
                                ServerWideReaders.Shared.COUNTERS, shownOnly);
                    }
                }
            }
        }
        if (shown[0] != null && !shownOnly) {
            return shown[0];
        }
        // A use that only changes what a plain SELECT shows is remembered; one that may last is looked for to the end.
        // CREATE VIEW and CREATE RULE hold their query as written (not yet analyzed): it is judged where a later statement
        // uses the view or fires the rule, in the tree after rewriting (rewrittenJudged).
        String utilityType = utility == null ? "" : utility.type();
        boolean judgedWhenUsed = utilityType.equals("VIEWSTMT") || utilityType.equals("RULESTMT");
        Found lasting = walk(top, null, List.of(), (node, parent, scope) -> {
            Found use = misused(node, parent, scope, results);
            use = use != null || judgedWhenUsed ? use : runNameMisused(node, parent, scope);
            if (use != null && shownOnly) {
                shown[0] = shown[0] != null ? shown[0] : new Found(use.what(), use.shared(), true);
                return null;
            }
            return use;
        });
        return lasting != null ? lasting : shown[0];
    }

    /**
     * Whether the statement only shows rows: a plain SELECT (no utility, no data-modifying CTE) calling only pg_catalog's
     * functions that are not volatile (a volatile one, nextval or set_config, or a function of the page's, may keep what it
     * is given). What such a statement shows, a later snippet cannot read: it fails its own claim and no other.
     */
    boolean onlyShows(NodeTree.Node top) {
        if (top.node("utilityStmt") != null) {
            return false;
        }
        return walk(top, null, List.of(), (node, parent, scope) -> {
            boolean modifies = node.type().equals("QUERY") && node.number("commandType", -1) != 1
                    // A value of a type of the page's (a domain, an array or row of one) may run the page's code: a
                    // domain's CHECK, through a cast or a type's input function; no tree shows it.
                    || TYPE_FIELDS.stream().anyMatch(field -> node.number(field, 0) >= FIRST_NORMAL_OID);
            for (String field : FUNCTION_FIELDS) {
                if (node.text(field) != null && !catalog.steady().contains(node.number(field, -1))) {
                    modifies = true;
                }
            }
            return modifies ? new Found("", null) : null;
        }) == null;
    }

    /** The fields that name a function a node calls. */
    private static final List<String> FUNCTION_FIELDS = List.of("funcid", "opfuncid", "aggfnoid", "winfnoid");

    /**
     * A query after rewriting ({@code debug_print_rewritten}) as this gate judges it, or null when rewriting added nothing
     * of the page's to it: a view the page made is there as the subquery it stands for (or, for a view INSERT, UPDATE or
     * DELETE write through, as the relation whose query was merged into the statement), so what its query shows is judged
     * where the later statement uses it; a rule's action (its querySource is not the original's) is judged as a statement
     * of its own, and so is an INSERT, UPDATE or MERGE, which rewriting gives the columns' defaults it stores; a built-in view (pg_locks, information_schema's) goes back to the relation the parse tree names, judged as
     * there and not by its own query. The page's views the query holds are added to {@code covered}: a view the parse
     * trees read that no rewritten query covers was never judged ({@link TreeReads#judged}). A utility statement (CREATE
     * TABLE AS, EXPLAIN, DECLARE) is not rewritten by the report: the server rewrites its query later, unreported.
     */
    NodeTree.Node rewrittenJudged(NodeTree.Node query, Set<Long> covered) {
        if (query.get("utilityStmt") != null) {
            return null;
        }
        Set<Long> pages = new java.util.HashSet<>();
        NodeTree.Node copy = (NodeTree.Node) viewsAsRelations(query, pages);
        covered.addAll(pages);
        // UPDATE 2, INSERT 3, MERGE 5 (a utility is 5 on 14, left above): rewriting adds the columns' defaults to what
        // they store, expressions no parse tree shows.
        long command = query.number("commandType", -1);
        boolean defaults = command == 2 || command == 3 || command == 5;
        return !pages.isEmpty() || defaults || query.number("querySource", 0) != 0 ? copy : null;
    }

    /**
     * The OID of the view a range entry stands for after rewriting, or 0: from PostgreSQL 16 on an expanded view's subquery
     * entry keeps the view's relid; 14 and 15 clear it, and the view's stored query starts with its {@code *OLD*} entry (a
     * relation of kind v aliased old), which names it. A relation of kind v is a view INSERT, UPDATE or DELETE writes
     * through (or 14's and 15's {@code *OLD*} and {@code *NEW*} themselves).
     */
    private static long viewOf(NodeTree.Node rte) {
        long kind = rte.number("rtekind", -1);
        if (kind == 0) {
            return "v".equals(rte.text("relkind")) ? rte.number("relid", 0) : 0;
        }
        if (kind != 1 || rte.node("subquery") == null) {
            return 0;
        }
        if (rte.number("relid", 0) != 0) {
            return rte.number("relid", 0);
        }
        List<Object> rtable = rte.node("subquery").list("rtable");
        if (!rtable.isEmpty() && rtable.get(0) instanceof NodeTree.Node old && old.number("rtekind", -1) == 0
                && "v".equals(old.text("relkind")) && old.node("alias") != null && "old".equals(old.node("alias").text("aliasname"))) {
            return old.number("relid", 0);
        }
        return 0;
    }

    private Object viewsAsRelations(Object value, Set<Long> pages) {
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            for (Object item : list) {
                copy.add(viewsAsRelations(item, pages));
            }
            return copy;
        }
        if (!(value instanceof NodeTree.Node node)) {
            return value;
        }
        Map<String, Object> fields = new java.util.LinkedHashMap<>();
        long view = node.type().equals("RANGETBLENTRY") ? viewOf(node) : 0;
        if (view != 0 && catalog.relations().containsKey(view)) {
            fields.putAll(node.fields());
            fields.put("rtekind", "0");
            fields.put("relid", String.valueOf(view));
            fields.remove("subquery");
            return new NodeTree.Node(node.type(), fields);
        }
        if (view != 0) {
            pages.add(view);
        }
        node.fields().forEach((field, child) -> fields.put(field, viewsAsRelations(child, pages)));
        return new NodeTree.Node(node.type(), fields);
    }

    /** What a visit of one node finds, given its parent and the queries that enclose it (innermost last, itself if a query). */
    private interface Visit {
        Found at(NodeTree.Node node, NodeTree.Node parent, List<NodeTree.Node> scope);
    }

    /** Visits every node under {@code value} (lists included), a node before its children, until one visit finds something. */
    private static Found walk(Object value, NodeTree.Node parent, List<NodeTree.Node> scope, Visit visit) {
        if (value instanceof List<?> list) {
            for (Object item : list) {
                Found found = walk(item, parent, scope, visit);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (!(value instanceof NodeTree.Node node)) {
            return null;
        }
        List<NodeTree.Node> inner = scope;
        if (node.type().equals("QUERY")) {
            inner = new ArrayList<>(scope);
            inner.add(node);
        }
        Found found = visit.at(node, parent, inner);
        if (found != null) {
            return found;
        }
        for (Object field : node.fields().values()) {
            found = walk(field, node, inner, visit);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** Reads of shared or guard-holding lists, run-time name lookups and describers, at one node. */
    private Found reads(NodeTree.Node node, NodeTree.Node parent, List<NodeTree.Node> scope) {
        NodeTree.Node query = scope.isEmpty() ? null : scope.get(scope.size() - 1);
        if (node.type().equals("QUERY")) {
            List<Object> rtable = node.list("rtable");
            for (int i = 0; i < rtable.size(); i++) {
                if (rtable.get(i) instanceof NodeTree.Node rte && rte.number("rtekind", -1) == 0) {
                    Found found = relation(node, i + 1, rte.number("relid", -1));
                    if (found != null) {
                        return found;
                    }
                }
            }
        }
        if (node.type().equals("COERCEVIAIO") && REG_TYPES.contains(node.number("resulttype", -1)) && !constant(node.get("arg"))) {
            return new Found("a name built at run time and looked up as " + typeName(node.number("resulttype", -1))
                    + ", which the text gate cannot judge (Kensho's own objects are found by name as well)", ServerWideReaders.Shared.GUARD);
        }
        return node.type().equals("FUNCEXPR") ? function(node, query) : null;
    }

    private Found relation(NodeTree.Node query, int rtindex, long relid) {
        String name = catalog.relations().get(relid);
        if (name == null) {
            return null;
        }
        Map<String, ServerWideReaders.Own> shared = ServerWideReaders.keysOf(name);
        if (shared != null) {
            Map<String, Own> keys = new java.util.HashMap<>();
            shared.forEach((column, own) -> keys.put(column, Own.valueOf(own.name())));
            return restricted(query, rtindex, relid, keys) ? null
                    : new Found(name + ", not restricted to the page's own database or session as the server parsed it",
                    ServerWideReaders.Shared.DATABASES);
        }
        Map<String, Own> guard = GUARD_LISTS.get(name);
        if (guard != null && !restricted(query, rtindex, relid, guard)) {
            return new Found(name + ", not restricted to objects the page names as the server parsed it", ServerWideReaders.Shared.GUARD);
        }
        return null;
    }

    private Found function(NodeTree.Node call, NodeTree.Node query) {
        String name = catalog.functions().get(call.number("funcid", -1));
        if (name == null) {
            return null;
        }
        if (runTimeLookup(name) && arguments(call).stream().anyMatch(arg -> !constant(arg) && TEXT_TYPES.contains(type((NodeTree.Node) arg)))) {
            return new Found(name + " of a name built at run time, which the text gate cannot judge (Kensho's own objects are "
                    + "found by name as well)", ServerWideReaders.Shared.GUARD);
        }
        if (DESCRIBERS.contains(name) && arguments(call).stream().noneMatch(arg -> ownValue(arg, Own.NAMED_OBJECT) || ownRow(arg, query))) {
            return new Found(name + " of an object the page does not name", ServerWideReaders.Shared.GUARD);
        }
        if (ServerWideReaders.givenADatabase(name)) {
            List<Object> args = arguments(call);
            boolean own = !args.isEmpty() && (ownValue(args.get(0), Own.NAME) || ownValue(args.get(0), Own.OID));
            return own ? null : new Found(name + " of a database other than the page's own as the server parsed it",
                    ServerWideReaders.Shared.DATABASES);
        }
        return null;
    }

    /** Functions that find an object by a name given as text: given a text built at run time, no gate sees the name. */
    private static boolean runTimeLookup(String name) {
        return name.startsWith("to_reg") || name.startsWith("has_") || name.startsWith("pg_has_");
    }

    /** Text types: a name given as one of them is looked up at run time. */
    private static final Set<Long> TEXT_TYPES = Set.of(25L, 1043L, 19L, 705L, 1042L);

    private static boolean constant(Object value) {
        NodeTree.Node node = stripped(value);
        return node != null && node.type().equals("CONST");
    }

    /**
     * A use at {@code node} of a value that depends on a counter's (oid, xid, ...: in every expression, in WHERE, HAVING,
     * join conditions, RETURNING, MERGE actions, ON CONFLICT, every set-operation arm, ORDER BY, CTEs and subqueries) that
     * shows the counter, or null. Such a value may only be compared with the built-in {@code =} to another of its kind (a
     * join or lookup key, a reg* constant), given to a function that finds the object by it ({@link #LOOKUPS}), shown as a
     * name (relabelled to a reg* type), tested for NULL or counted; where it flows on unchanged (a subquery's or CTE's
     * column, a relabel, COALESCE, CASE, a row or array it is put in) its next use is judged. Anything else (an ordering
     * comparison, arithmetic, a cast to a number or text, JSON, an aggregate but count, ORDER BY, min/max, storing or showing
     * it) shows how far the server's counter had run. What depends on a counter is decided by {@link #carries}, not by the
     * names of the functions that build it. {@code exposed}: the queries whose target lists are the statement's result or
     * what it stores.
     */
    private Found misused(NodeTree.Node node, NodeTree.Node parent, List<NodeTree.Node> scope, List<NodeTree.Node> exposed) {
        String found = misuse(node, parent, scope, exposed);
        return found == null ? null : new Found(found + " as the server parsed it", ServerWideReaders.Shared.COUNTERS);
    }

    private String misuse(NodeTree.Node node, NodeTree.Node parent, List<NodeTree.Node> scope, List<NodeTree.Node> exposed) {
        if (node.type().equals("QUERY")) {
            boolean stores = exposed.stream().anyMatch(q -> q == node) || node.number("commandType", 1) != 1;
            Set<Long> sorted = new java.util.HashSet<>();
            for (Object clause : node.list("sortClause")) {
                if (clause instanceof NodeTree.Node c) {
                    sorted.add(c.number("tleSortGroupRef", 0));
                }
            }
            for (Object entry : node.list("targetList")) {
                if (entry instanceof NodeTree.Node target && carries(target.get("expr"), scope)) {
                    long ref = target.number("ressortgroupref", 0);
                    if (ref > 0 && sorted.contains(ref)) {
                        return described(target.get("expr")) + " in ORDER BY";
                    }
                    if (stores && !"true".equals(target.text("resjunk"))) {
                        return described(target.get("expr")) + " shown or stored as its number";
                    }
                }
            }
            for (Object entry : node.list("returningList")) {
                if (entry instanceof NodeTree.Node target && carries(target.get("expr"), scope)) {
                    return described(target.get("expr")) + " returned as its number";
                }
            }
        }
        if (node.type().equals("MERGEACTION") || node.type().equals("ONCONFLICTEXPR")) {
            for (Object entry : node.list(node.type().equals("MERGEACTION") ? "targetList" : "onConflictSet")) {
                if (entry instanceof NodeTree.Node target && carries(target.get("expr"), scope)) {
                    return described(target.get("expr")) + " stored as its number";
                }
            }
        }
        if (node.type().equals("AGGREF") && !"count".equals(catalog.functions().get(node.number("aggfnoid", -1)))) {
            for (Object entry : node.list("args")) {
                if (entry instanceof NodeTree.Node target && carries(target.get("expr"), scope)) {
                    return described(target.get("expr")) + " aggregated by "
                            + catalog.functions().getOrDefault(node.number("aggfnoid", -1), "an aggregate");
                }
            }
        }
        if (parent != null && carries(node, scope) && !allowedUse(node, parent)) {
            return described(node) + " " + use(parent);
        }
        return null;
    }

    /**
     * A use at {@code node} of the run's role or database name ({@link #RUN_NAMES}) that shows more of it than the name
     * itself, or null. The name is Kensho's making and new every run, so a result that shows it never matches twice and
     * cannot be claimed; what can is what is derived from it with a constant: {@code current_user = 'postgres'},
     * {@code length(current_database())}, {@code current_user LIKE 'kensho%'}, which the build and a reader's session
     * answer differently. It may flow on unchanged (a cast to text, COALESCE, CASE, a subquery's column: judged where used
     * next), be shown or stored as it is, be tested for NULL, be compared with the built-in {@code =} to another such name
     * or to a column of a built-in catalog ({@code datname = current_database()}), or be given to a privilege test
     * ({@code has_table_privilege(current_user, …)}); any other use is refused.
     */
    private Found runNameMisused(NodeTree.Node node, NodeTree.Node parent, List<NodeTree.Node> scope) {
        // Uses that compare the name without an operator of their own: an aggregate (max, count DISTINCT), a sort, group or
        // DISTINCT key, a set operation's duplicate removal.
        if (node.type().equals("AGGREF")) {
            for (Object entry : node.list("args")) {
                if (entry instanceof NodeTree.Node target && carriesRunName(target.get("expr"), scope)) {
                    return runNameFound(runName(target.get("expr"), scope), "aggregated");
                }
            }
        }
        if (node.type().equals("QUERY")) {
            for (Object entry : node.list("targetList")) {
                if (entry instanceof NodeTree.Node target && carriesRunName(target.get("expr"), scope)
                        && (target.number("ressortgroupref", 0) > 0 || node.get("setOperations") != null)) {
                    return runNameFound(runName(target.get("expr"), scope), "sorted, grouped, made distinct or set against another query");
                }
            }
        }
        if (parent == null || parent.type().equals("QUERY") || !carriesRunName(node, scope) || carriesRunName(parent, scope)) {
            return null;
        }
        String name = runName(node, scope);
        switch (parent.type()) {
            case "TARGETENTRY", "NULLTEST", "CASEWHEN", "RANGETBLFUNCTION", "RANGETBLENTRY", "CONSTRAINT" -> {
                // Shown or stored as it is (a row of VALUES, a column's DEFAULT), tested for NULL, a CASE's result, a column of FROM.
                return null;
            }
            case "OPEXPR" -> {
                if (catalog.equalities().contains(parent.number("opno", -1))
                        && parent.list("args").stream().allMatch(arg -> arg == node || carriesRunName(arg, scope) || catalogColumn(arg, scope))) {
                    return null;
                }
            }
            case "FUNCEXPR" -> {
                // A function given the page's own database by its name (pg_database_size(current_database())). Not a
                // look-up or privilege test by a role's name: the page could give one of its objects the playground's
                // name (pg_get_viewdef(current_user) finds a view the page named kensho_reader there, none at build).
                String function = catalog.functions().get(parent.number("funcid", -1));
                if (function != null && ServerWideReaders.givenADatabase(function)) {
                    return null;
                }
            }
            default -> {
            }
        }
        return runNameFound(name, runNameUse(parent));
    }

    private static Found runNameFound(String name, String use) {
        return new Found("the name of the run's role or database (" + name + ") " + use + " as the server parsed it",
                ServerWideReaders.Shared.ENVIRONMENT);
    }

    private static String runNameUse(NodeTree.Node parent) {
        return switch (parent.type()) {
            case "OPEXPR", "SCALARARRAYOPEXPR", "DISTINCTEXPR", "NULLIFEXPR", "ROWCOMPAREEXPR" ->
                    "compared or computed with other than = to another such name or a catalog's column";
            case "FUNCEXPR", "COERCEVIAIO" -> "given to a function";
            default -> "used in a " + parent.type().toLowerCase(Locale.ROOT);
        };
    }

    /**
     * Whether the value is a database's name in a built-in catalog (datname): each server has exactly one row of the page's
     * own database, so {@code datname = current_database()} picks the same row in both. Any other catalog column may hold
     * a name the page chose, the playground's among them ({@code CREATE SCHEMA kensho_reader}).
     */
    private boolean catalogColumn(Object value, List<NodeTree.Node> scope) {
        NodeTree.Node var = stripped(value);
        ReadBy read = var == null || !var.type().equals("VAR") ? null : readBy(var, scope);
        if (read == null || read.rte().number("rtekind", -1) != 0 || read.rte().number("relid", FIRST_NORMAL_OID) >= FIRST_NORMAL_OID) {
            return false;
        }
        return "datname".equals(column(var, (int) var.number("varno", -1), read.rte().number("relid", -1)));
    }

    /**
     * Types whose text is a role's name: regrole and regrole[] print it, aclitem and aclitem[] print grantee and grantor
     * (relacl::text, format('%s', relowner::regrole)). The roles a page sees are the run's (red team helper-74).
     */
    private static final Map<Long, String> ROLE_NAMED_TYPES = Map.of(4096L, "a regrole value", 4097L, "a regrole[] value",
            1033L, "an aclitem value", 1034L, "an aclitem[] value");

    /** The name of the run-name function {@code value} calls, or what else holds a run's role name as text, or null. */
    private String runNameCall(Object value) {
        if (!(value instanceof NodeTree.Node node)) {
            return null;
        }
        String roleNamed = ROLE_NAMED_TYPES.get(type(node));
        if (roleNamed != null && !node.type().equals("CONST")) {
            return roleNamed;
        }
        if (node.type().equals("FUNCEXPR")) {
            String name = catalog.functions().get(node.number("funcid", -1));
            return name != null && RUN_NAMES.contains(name) ? name : null;
        }
        return node.type().equals("SQLVALUEFUNCTION") ? RUN_NAME_OPS.get(node.number("op", -1)) : null;
    }

    private boolean carriesRunName(Object value, List<NodeTree.Node> scope) {
        return runName(value, scope) != null;
    }

    /**
     * The run-name function whose value {@code value} is, or null: a call of one of {@link #RUN_NAMES}, a cast of one to a
     * text type, a COALESCE, CASE, GREATEST or LEAST that may give one, or a column of a subquery, CTE, join, grouping,
     * VALUES list or FROM function that is one.
     */
    private String runName(Object value, List<NodeTree.Node> scope) {
        if (!(value instanceof NodeTree.Node node)) {
            return null;
        }
        String call = runNameCall(node);
        if (call != null) {
            return call;
        }
        return switch (node.type()) {
            case "RELABELTYPE", "COERCEVIAIO" -> runName(node.get("arg"), scope);
            case "FUNCEXPR" -> {
                String name = catalog.functions().get(node.number("funcid", -1));
                if (name != null && NAME_TEXTS.contains(name)) {
                    yield first(node.list("args"), scope);
                }
                yield node.number("funcformat", 0) != 0 && name != null && NAME_CASTS.contains(name) && node.list("args").size() == 1
                        ? runName(node.list("args").get(0), scope) : null;
            }
            case "OPEXPR" -> {
                String function = catalog.functions().get(node.number("opfuncid", -1));
                yield function != null && NAME_TEXTS.contains(function) ? first(node.list("args"), scope) : null;
            }
            case "COALESCEEXPR" -> first(node.list("args"), scope);
            case "CASEEXPR" -> {
                List<Object> results = new ArrayList<>();
                results.add(node.get("defresult"));
                node.list("args").forEach(w -> results.add(w instanceof NodeTree.Node when ? when.get("result") : null));
                yield first(results, scope);
            }
            case "SUBLINK" -> {
                NodeTree.Node sub = node.node("subselect");
                if (node.number("subLinkType", -1) != 4 || sub == null) {
                    yield null;
                }
                List<NodeTree.Node> inner = new ArrayList<>(scope);
                inner.add(sub);
                yield first(targets(sub), inner);
            }
            case "VAR" -> varRunName(node, scope);
            default -> null;
        };
    }

    private String first(List<Object> values, List<NodeTree.Node> scope) {
        for (Object value : values) {
            String name = runName(value, scope);
            if (name != null) {
                return name;
            }
        }
        return null;
    }

    /** Built-in columns that hold a role's or the database's name, beside those ending in owner or _catalog. */
    private static final Set<String> RUN_NAME_COLUMNS = Set.of("grantor", "grantee", "catalog_name", "role_name",
            "authorization_identifier", "usename", "rolname", "datname", "defaultuser", "grantee_name");

    static boolean namesTheRun(String column) {
        return column.endsWith("owner") || column.endsWith("_catalog") || RUN_NAME_COLUMNS.contains(column);
    }

    /** A Var reading a column of a subquery, CTE, join, grouping, VALUES list or FROM function that is the run's role or database name. */
    private String varRunName(NodeTree.Node var, List<NodeTree.Node> scope) {
        ReadBy read = readBy(var, scope);
        long attno = var.number("varattno", 0);
        if (read == null || attno <= 0) {
            return null;
        }
        NodeTree.Node rte = read.rte();
        List<NodeTree.Node> outer = read.outer();
        long kind = rte.number("rtekind", -1);
        NodeTree.Node sub = kind == 1 ? rte.node("subquery") : kind == 6 ? cteQuery(rte, outer) : null;
        if (sub != null) {
            List<NodeTree.Node> inner = new ArrayList<>(outer);
            inner.add(sub);
            List<Object> columns = targets(sub);
            return attno <= columns.size() ? runName(columns.get((int) attno - 1), inner) : null;
        }
        if (kind == 3) { // RTE_FUNCTION: a column of what a run-name function returns (FROM current_database() AS d)
            List<Object> calls = new ArrayList<>();
            rte.list("functions").forEach(f -> calls.add(f instanceof NodeTree.Node call ? call.get("funcexpr") : null));
            return first(calls, outer);
        }
        if (kind == 0 && rte.number("relid", FIRST_NORMAL_OID) < FIRST_NORMAL_OID) {
            // A built-in catalog's or view's column that holds the run's role or database name (information_schema's
            // grantor and table_catalog, pg_tables.tableowner): its query is not expanded where the gate reads.
            Map<Long, String> attributes = catalog.attributes().get(rte.number("relid", -1));
            String column = attributes == null ? null : attributes.get(attno);
            return column != null && namesTheRun(column) ? "the column " + column : null;
        }
        if (kind == 5) { // RTE_VALUES: the column in any of its rows
            List<Object> cells = new ArrayList<>();
            rte.list("values_lists").forEach(row -> cells.add(row instanceof List<?> items && attno <= items.size() ? items.get((int) attno - 1) : null));
            return first(cells, outer);
        }
        List<Object> aliases = kind == 2 ? rte.list("joinaliasvars") : kind == 9 ? rte.list("groupexprs") : List.of();
        return attno <= aliases.size() ? runName(aliases.get((int) attno - 1), outer) : null;
    }

    /** A counter-typed value by its type; a row, array or JSON value built from one as such. */
    private static String described(Object value) {
        long type = counterType(value);
        return COUNTER_TYPES.contains(type) ? "a value of type " + typeName(type)
                : "a value built from a counter (" + (value instanceof NodeTree.Node n ? n.type().toLowerCase(Locale.ROOT) : "?") + ")";
    }

    /**
     * Whether the value of {@code value} depends on a counter's: it is of a counter type or an array of one, or it is a row,
     * an array, a CASE or COALESCE holding such a value, a whole row (or column) of a relation, subquery or CTE that holds
     * one, or an ARRAY(…) or scalar subquery of one. A function's or operator's result does not carry its arguments: the
     * argument's use is judged where it is given ({@link #allowedUse}).
     */
    private boolean carries(Object value, List<NodeTree.Node> scope) {
        if (!(value instanceof NodeTree.Node node)) {
            return false;
        }
        long type = counterType(node);
        if (node.type().equals("CONST")) {
            // A literal the page wrote ('12:13:'::pg_snapshot, '3'::xid): the page's value, not one a counter gave. (A name
            // cast to regclass is a Const of a reg* type, which this does not hold: its number is the counter's.)
            return false;
        }
        if (COUNTER_TYPES.contains(type) || COUNTER_ARRAYS.contains(type)) {
            return true;
        }
        return switch (node.type()) {
            case "RELABELTYPE", "COERCETODOMAIN" -> !REG_TYPES.contains(type) && carries(node.get("arg"), scope);
            case "ROWEXPR", "COALESCEEXPR", "MINMAXEXPR" -> node.list("args").stream().anyMatch(a -> carries(a, scope));
            case "ARRAYEXPR" -> node.list("elements").stream().anyMatch(a -> carries(a, scope));
            case "CASEEXPR" -> carries(node.get("defresult"), scope)
                    || node.list("args").stream().anyMatch(w -> w instanceof NodeTree.Node when && carries(when.get("result"), scope));
            case "SUBLINK" -> {
                long kind = node.number("subLinkType", -1);
                NodeTree.Node sub = node.node("subselect");
                if ((kind != 4 && kind != 6) || sub == null) {
                    yield false;
                }
                List<NodeTree.Node> inner = new ArrayList<>(scope);
                inner.add(sub);
                yield targets(sub).stream().anyMatch(t -> carries(t, inner));
            }
            case "VAR" -> carriesVar(node, scope);
            // A function whose result row holds a counter (pg_get_object_address()'s objid): the row shows it.
            case "FUNCEXPR" -> catalog.counterResults().contains(node.number("funcid", -1));
            default -> false;
        };
    }

    /** A Var: a whole row of a relation holding a counter column, or a column (or whole row) of a subquery, CTE, join or grouping that carries one. */
    private boolean carriesVar(NodeTree.Node var, List<NodeTree.Node> scope) {
        ReadBy read = readBy(var, scope);
        if (read == null) {
            return false;
        }
        NodeTree.Node rte = read.rte();
        List<NodeTree.Node> outer = read.outer();
        long attno = var.number("varattno", 0);
        long kind = rte.number("rtekind", -1);
        NodeTree.Node sub = kind == 1 ? rte.node("subquery") : kind == 6 ? cteQuery(rte, outer) : null;
        if (sub != null) {
            List<NodeTree.Node> inner = new ArrayList<>(outer);
            inner.add(sub);
            List<Object> columns = targets(sub);
            return attno == 0 ? columns.stream().anyMatch(c -> carries(c, inner))
                    : attno <= columns.size() && carries(columns.get((int) attno - 1), inner);
        }
        List<Object> aliases = kind == 2 ? rte.list("joinaliasvars") : kind == 9 ? rte.list("groupexprs") : List.of();
        if (kind == 2 || kind == 9) {
            return attno == 0 ? aliases.stream().anyMatch(a -> carries(a, outer))
                    : attno <= aliases.size() && carries(aliases.get((int) attno - 1), outer);
        }
        if (kind == 3 && attno == 0) { // RTE_FUNCTION: a whole row of what its functions return
            return rte.list("functions").stream().anyMatch(f -> f instanceof NodeTree.Node call && carries(call.get("funcexpr"), outer));
        }
        return kind == 0 && attno == 0 && catalog.counterRows().contains(rte.number("relid", -1));
    }

    /** The range entry a Var reads, and the queries that enclose the query owning it (that query last). */
    private record ReadBy(NodeTree.Node rte, List<NodeTree.Node> outer) {
    }

    /** Where {@code var} reads from: its range entry in the query {@code varlevelsup} levels out, or null. */
    private static ReadBy readBy(NodeTree.Node var, List<NodeTree.Node> scope) {
        int level = scope.size() - 1 - (int) var.number("varlevelsup", 0);
        if (level < 0) {
            return null;
        }
        List<Object> rtable = scope.get(level).list("rtable");
        int varno = (int) var.number("varno", -1);
        if (varno < 1 || varno > rtable.size() || !(rtable.get(varno - 1) instanceof NodeTree.Node rte)) {
            return null;
        }
        return new ReadBy(rte, scope.subList(0, level + 1));
    }

    /** The query of the CTE a range entry reads, or null. */
    private static NodeTree.Node cteQuery(NodeTree.Node rte, List<NodeTree.Node> scope) {
        int at = scope.size() - 1 - (int) rte.number("ctelevelsup", 0);
        String name = rte.text("ctename");
        if (at < 0 || name == null) {
            return null;
        }
        for (Object c : scope.get(at).list("cteList")) {
            if (c instanceof NodeTree.Node common && name.equals(common.text("ctename"))) {
                return common.node("ctequery");
            }
        }
        return null;
    }

    /** The expressions of a query's result columns (not its junk ones), in order. */
    private static List<Object> targets(NodeTree.Node query) {
        List<Object> columns = new ArrayList<>();
        for (Object t : query.list("targetList")) {
            if (t instanceof NodeTree.Node target && !"true".equals(target.text("resjunk"))) {
                columns.add(target.get("expr"));
            }
        }
        return columns;
    }

    /** A node's type, or for a scalar subquery the type of its one column. */
    private static long counterType(Object value) {
        if (!(value instanceof NodeTree.Node node)) {
            return -1;
        }
        if (node.type().equals("SUBLINK") && node.number("subLinkType", -1) == 4 && node.node("subselect") != null) {
            for (Object t : node.node("subselect").list("targetList")) {
                if (t instanceof NodeTree.Node target && !"true".equals(target.text("resjunk"))) {
                    return counterType(target.get("expr"));
                }
            }
            return -1;
        }
        return type(node);
    }

    /** Whether {@code parent} uses the counter-typed {@code value} without showing its number. */
    private boolean allowedUse(NodeTree.Node value, NodeTree.Node parent) {
        long parentType = counterType(parent);
        switch (parent.type()) {
            case "RELABELTYPE", "COALESCEEXPR", "CASEEXPR", "CASEWHEN", "NULLTEST", "TARGETENTRY", "RANGETBLENTRY",
                 "RANGETBLFUNCTION", "FROMEXPR", "JOINEXPR", "QUERY", "COMMONTABLEEXPR", "SUBLINK", "INFERENCEELEM",
                 "LIST", "ROWEXPR", "ARRAYEXPR", "SETTOREF", "SORTGROUPCLAUSE" -> {
                // Flows on unchanged (judged where it is used next), is tested for NULL, or is a column of a range entry.
                return !parent.type().equals("RELABELTYPE") || COUNTER_TYPES.contains(parentType) || REG_TYPES.contains(parentType);
            }
            case "OPEXPR", "SCALARARRAYOPEXPR" -> {
                if (!catalog.equalities().contains(parent.number("opno", -1))) {
                    return false;
                }
                for (Object arg : parent.list("args")) {
                    if (arg != value && !sameKind(arg)) {
                        return false;
                    }
                }
                return true;
            }
            case "FUNCEXPR" -> {
                String name = catalog.functions().get(parent.number("funcid", -1));
                return REG_TYPES.contains(parentType) && parent.number("funcformat", 0) != 0
                        || name != null && LOOKUPS.stream().anyMatch(name::startsWith);
            }
            case "COERCEVIAIO" -> {
                return REG_TYPES.contains(parentType);
            }
            case "FIELDSELECT" -> {
                return true; // one field of a row: judged by its own type where it is used
            }
            case "SUBSCRIPTINGREF" -> {
                // An element of an array: judged by its own type; a counter used as a subscript shows its number.
                return parent.get("refexpr") == value;
            }
            default -> {
                return false;
            }
        }
    }

    /** Whether an operand compared with an OID is another value of its kind: a key, a reg* constant, a catalog's fixed OID. */
    private static boolean sameKind(Object other) {
        NodeTree.Node node = other instanceof NodeTree.Node n ? n : null;
        while (node != null && node.type().equals("RELABELTYPE")) {
            if (node.node("arg") != null && node.node("arg").type().equals("CONST") && REG_TYPES.contains(type(node.node("arg")))) {
                return true;
            }
            node = node.node("arg");
        }
        if (node == null) {
            return false;
        }
        long type = counterType(node);
        if (node.type().equals("CONST")) {
            // A number written as an OID is of its kind only below the first OID the counter gives (0, a catalog's fixed OID).
            return REG_TYPES.contains(type) || (type == 26 || type == 23) && oidOf(node) >= 0 && oidOf(node) < FIRST_NORMAL_OID;
        }
        return COUNTER_TYPES.contains(type) || REG_TYPES.contains(type) || node.type().equals("ARRAYEXPR") || type == 1028;
    }

    private static String use(NodeTree.Node parent) {
        return switch (parent.type()) {
            case "OPEXPR", "SCALARARRAYOPEXPR", "DISTINCTEXPR", "NULLIFEXPR", "ROWCOMPAREEXPR" -> "compared or computed with other than = to a value of its kind";
            case "MINMAXEXPR" -> "ordered by GREATEST or LEAST";
            case "FUNCEXPR", "COERCEVIAIO" -> "converted to a number or text";
            default -> "used as its number (" + parent.type().toLowerCase(Locale.ROOT) + ")";
        };
    }

    private static String typeName(long type) {
        return switch ((int) type) {
            case 26 -> "oid";
            case 30 -> "oidvector";
            case 28 -> "xid";
            case 5069 -> "xid8";
            case 29 -> "cid";
            case 27 -> "tid";
            case 3220 -> "pg_lsn";
            case 5038 -> "pg_snapshot";
            case 2970 -> "txid_snapshot";
            case 24 -> "regproc";
            case 2202 -> "regprocedure";
            case 2205 -> "regclass";
            case 2206 -> "regtype";
            case 4089 -> "regnamespace";
            case 4096 -> "regrole";
            default -> "reg* (an OID shown as a name)";
        };
    }

    /**
     * Whether {@code value} is the OID of a row of this query's own catalog list that cannot be Kensho's: the oid column of
     * pg_proc where the query keeps only the page's functions ({@link #restricted}), or of a catalog list that holds
     * neither functions nor event triggers (pg_class, pg_type, pg_namespace, ...). A describer given it shows the page's.
     */
    private boolean ownRow(Object value, NodeTree.Node query) {
        NodeTree.Node var = stripped(value);
        if (query == null || var == null || !var.type().equals("VAR") || var.number("varlevelsup", -1) != 0) {
            return false;
        }
        int varno = (int) var.number("varno", -1);
        List<Object> rtable = query.list("rtable");
        if (varno < 1 || varno > rtable.size() || !(rtable.get(varno - 1) instanceof NodeTree.Node rte) || rte.number("rtekind", -1) != 0) {
            return false;
        }
        long relid = rte.number("relid", -1);
        String relation = catalog.relations().get(relid);
        if (relation == null || !"oid".equals(column(var, varno, relid))) {
            return false;
        }
        Map<String, Own> guard = GUARD_LISTS.get(relation);
        return guard == null || relation.equals("pg_proc") && restricted(query, varno, relid, guard);
    }

    private static List<Object> arguments(NodeTree.Node call) {
        return call.list("args");
    }

    /**
     * Whether the query keeps only the page's own rows of the relation at {@code rtindex}: a condition of its WHERE clause
     * (the clause itself or one of its top-level ANDs) is the built-in {@code =} between that relation's own column, by
     * attribute number, and the page's own value of the kind the column takes.
     */
    private boolean restricted(NodeTree.Node query, int rtindex, long relid, Map<String, Own> keys) {
        if (keys.isEmpty()) {
            return false;
        }
        NodeTree.Node jointree = query.node("jointree");
        Object quals = jointree == null ? null : jointree.get("quals");
        for (Object condition : conjuncts(quals)) {
            if (!(condition instanceof NodeTree.Node op) || !op.type().equals("OPEXPR")
                    || !catalog.equalities().contains(op.number("opno", -1))) {
                continue;
            }
            List<Object> args = op.list("args");
            if (args.size() != 2) {
                continue;
            }
            for (int side = 0; side < 2; side++) {
                String column = column(args.get(side), rtindex, relid);
                Own kind = column == null ? null : keys.get(column);
                if (kind != null && ownValue(args.get(1 - side), kind)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<Object> conjuncts(Object quals) {
        if (quals instanceof NodeTree.Node and && and.type().equals("BOOLEXPR") && "and".equals(and.text("boolop"))) {
            List<Object> all = new ArrayList<>();
            for (Object arg : and.list("args")) {
                all.addAll(conjuncts(arg));
            }
            return all;
        }
        return quals == null ? List.of() : List.of(quals);
    }

    /** The name of the relation's own column {@code value} reads (a Var of this query's range entry), or null. */
    private String column(Object value, int rtindex, long relid) {
        NodeTree.Node var = stripped(value);
        if (var == null || !var.type().equals("VAR") || var.number("varno", -1) != rtindex || var.number("varlevelsup", -1) != 0) {
            return null;
        }
        Map<Long, String> attributes = catalog.attributes().get(relid);
        long attno = var.number("varattno", 0);
        return attributes == null || attno <= 0 ? null : attributes.get(attno);
    }

    private static NodeTree.Node stripped(Object value) {
        NodeTree.Node node = value instanceof NodeTree.Node n ? n : null;
        while (node != null && node.type().equals("RELABELTYPE")) {
            node = node.node("arg");
        }
        return node;
    }

    /** Whether {@code value} is the page's own value of that kind, as the server parsed it. */
    private boolean ownValue(Object value, Own kind) {
        NodeTree.Node node = stripped(value);
        if (node == null) {
            return false;
        }
        return switch (kind) {
            case NAME -> builtin(node, "current_database")
                    || node.type().equals("SQLVALUEFUNCTION") && node.number("op", -1) == 13; // SVFOP_CURRENT_CATALOG
            case PID -> builtin(node, "pg_backend_pid");
            case OID -> {
                // (SELECT oid FROM pg_database WHERE datname = current_database())
                if (!node.type().equals("SUBLINK") || node.number("subLinkType", -1) != 4 || node.node("subselect") == null) {
                    yield false;
                }
                NodeTree.Node q = node.node("subselect");
                List<Object> targets = q.list("targetList");
                NodeTree.Node first = targets.isEmpty() || !(targets.get(0) instanceof NodeTree.Node t) ? null : stripped(t.get("expr"));
                if (first == null || !first.type().equals("VAR")) {
                    yield false;
                }
                int rtindex = (int) first.number("varno", -1);
                List<Object> rtable = q.list("rtable");
                if (rtindex < 1 || rtindex > rtable.size() || !(rtable.get(rtindex - 1) instanceof NodeTree.Node rte)) {
                    yield false;
                }
                long relid = rte.number("relid", -1);
                yield "pg_database".equals(catalog.relations().get(relid)) && "oid".equals(column(first, rtindex, relid))
                        && restricted(q, rtindex, relid, Map.of("datname", Own.NAME));
            }
            case RELATION -> node.type().equals("CONST") && node.number("consttype", -1) == REGCLASS && oidOf(node) >= FIRST_NORMAL_OID;
            case NOT_GUARD_NAME -> node.type().equals("CONST") && node.number("consttype", -1) == NAME
                    && !"true".equals(node.text("constisnull")) && !GUARD_NAME.equals(nameOf(node));
            case NOT_CATALOG_NAMESPACE -> node.type().equals("CONST") && node.number("consttype", -1) == REGNAMESPACE
                    && oidOf(node) != CATALOG_NAMESPACE && oidOf(node) > 0;
            case NAMED_OBJECT -> node.type().equals("CONST") && REG_TYPES.contains(node.number("consttype", -1))
                    && oidOf(node) >= FIRST_NORMAL_OID && !catalog.guard().contains(oidOf(node));
        };
    }

    private boolean builtin(NodeTree.Node node, String function) {
        return node.type().equals("FUNCEXPR") && function.equals(catalog.functions().get(node.number("funcid", -1)))
                && arguments(node).isEmpty();
    }

    /** The bytes of a by-value or fixed-length Const ({@code 4 [ 0 64 0 0 0 0 0 0 ]}). */
    private static List<Integer> bytes(NodeTree.Node constant) {
        String datum = constant.text("constvalue");
        List<Integer> bytes = new ArrayList<>();
        if (datum == null) {
            return bytes;
        }
        int open = datum.indexOf('[');
        int close = datum.lastIndexOf(']');
        if (open < 0 || close < open) {
            return bytes;
        }
        for (String b : datum.substring(open + 1, close).trim().split("\\s+")) {
            try {
                bytes.add(Integer.parseInt(b) & 0xff);
            } catch (NumberFormatException e) {
                return new ArrayList<>();
            }
        }
        return bytes;
    }

    /** An OID Const's value (little-endian, as the server writes a by-value datum), or -1. */
    private static long oidOf(NodeTree.Node constant) {
        List<Integer> bytes = bytes(constant);
        if (bytes.size() < 4) {
            return -1;
        }
        return bytes.get(0) | bytes.get(1) << 8 | bytes.get(2) << 16 | (long) bytes.get(3) << 24;
    }

    /** A name Const's text (NUL-padded to 64 bytes). */
    private static String nameOf(NodeTree.Node constant) {
        StringBuilder name = new StringBuilder();
        List<Integer> bytes = bytes(constant);
        byte[] raw = new byte[bytes.size()];
        int n = 0;
        for (int b : bytes) {
            if (b == 0) {
                break;
            }
            raw[n++] = (byte) b;
        }
        name.append(new String(raw, 0, n, java.nio.charset.StandardCharsets.UTF_8));
        return name.toString();
    }

    /**
     * What a result expression's value derives from that a shared counter gave, as "the column relation.column" or "the
     * function f()", or null. {@code shown}: the value is what the reader sees (the expression itself, or the input of a
     * type's output function): an OID shown as a name (regclass and the like) reads no counter; the number behind it does.
     * A boolean reads only whether (a comparison, a test), and count() only how many.
     */
    private String derived(Object value, NodeTree.Node query, List<NodeTree.Node> outer, boolean shown) {
        if (value instanceof List<?> list) {
            for (Object item : list) {
                String found = derived(item, query, outer, shown);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (!(value instanceof NodeTree.Node node) || node.type().equals("QUERY")) {
            return null;
        }
        long type = type(node);
        if (type == BOOL || Set.of("NULLTEST", "BOOLEANTEST", "BOOLEXPR").contains(node.type())
                || node.type().equals("SUBLINK") && node.number("subLinkType", 4) < 4) {
            return null; // only whether: a comparison, a test, EXISTS, IN
        }
        if (REG_TYPES.contains(type)) {
            if (shown) {
                return null;
            }
        }
        if (node.type().equals("VAR")) {
            return variable(node, query, outer, shown, type);
        }
        if (node.type().equals("CONST") && !REG_TYPES.contains(type)) {
            return null; // a literal of the page's ('12:13:'::pg_snapshot); a reg* one is the OID its name had
        }
        if (COUNTER_TYPES.contains(type) || REG_TYPES.contains(type)) {
            return described(node, type);
        }
        if (node.type().equals("FUNCEXPR")) {
            String name = catalog.functions().get(node.number("funcid", -1));
            if (name != null && ServerWideReaders.readsACounter(name)) {
                return "the function " + name + "()";
            }
            if (name != null && LOOKUPS.stream().anyMatch(name::startsWith)) {
                return null; // an OID given to find an object by: its statistics, size or definition, not the OID's number
            }
            if (node.number("funcformat", 0) == 0 && (name == null || !NUMBERS.contains(name) || PRINTS.contains(name))) {
                // Called by name, a function given an object as regclass (nextval('s'), pg_relation_size('t')) finds it by
                // its OID; a function of the page's (no name among pg_catalog's) is judged by what it is given; only a cast (funcformat 1 or 2, or int8(…) and the like written as a call) shows the number.
                for (Object arg : node.list("args")) {
                    NodeTree.Node given = arg instanceof NodeTree.Node a ? a : null;
                    if (given != null && REG_TYPES.contains(type(given))) {
                        continue;
                    }
                    String found = derived(arg, query, outer, false);
                    if (found != null) {
                        return found;
                    }
                }
                return null;
            }
        }
        if (node.type().equals("AGGREF") && "count".equals(catalog.functions().get(node.number("aggfnoid", -1)))) {
            return null;
        }
        if (node.type().equals("SUBLINK")) {
            NodeTree.Node sub = node.node("subselect");
            if (sub != null) {
                List<Object> targets = sub.list("targetList");
                List<NodeTree.Node> nested = new ArrayList<>(outer);
                nested.add(sub);
                for (Object t : targets) {
                    if (t instanceof NodeTree.Node target && !"true".equals(target.text("resjunk"))) {
                        String found = derived(target.get("expr"), sub, nested, shown);
                        if (found != null) {
                            return found;
                        }
                    }
                }
            }
            return null;
        }
        boolean io = node.type().equals("COERCEVIAIO");
        for (Map.Entry<String, Object> field : node.fields().entrySet()) {
            if (field.getKey().equals("aggfilter") || field.getKey().equals("aggorder") || field.getKey().equals("aggdistinct")) {
                continue;
            }
            Object child = field.getValue();
            if (child instanceof NodeTree.Node target && target.type().equals("TARGETENTRY")) {
                child = target.get("expr");
            }
            // An array's or a row's output prints each element through its own type's: a reg* element shows a name.
            boolean container = node.type().equals("TARGETENTRY") || node.type().equals("ARRAYEXPR") || node.type().equals("ROWEXPR");
            String found = derived(child, query, outer, io || (shown && container));
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** A Var: a counter-typed column, or what the subquery, CTE, join or grouping it reads through derives from. */
    private String variable(NodeTree.Node var, NodeTree.Node query, List<NodeTree.Node> outer, boolean shown, long type) {
        int up = (int) var.number("varlevelsup", 0);
        int level = outer.size() - 1 - up;
        NodeTree.Node owner = level >= 0 && level < outer.size() ? outer.get(level) : query;
        List<Object> rtable = owner.list("rtable");
        int varno = (int) var.number("varno", -1);
        long attno = var.number("varattno", 0);
        NodeTree.Node rte = varno >= 1 && varno <= rtable.size() && rtable.get(varno - 1) instanceof NodeTree.Node r ? r : null;
        if (REG_TYPES.contains(type) && shown) {
            return null;
        }
        if (rte != null && attno > 0) {
            long kind = rte.number("rtekind", -1);
            List<NodeTree.Node> scope = outer.subList(0, Math.max(level + 1, 1));
            if (kind == 1 && rte.node("subquery") != null) { // RTE_SUBQUERY
                return fromTargets(rte.node("subquery"), attno, scope, shown);
            }
            if (kind == 2 && attno <= rte.list("joinaliasvars").size()) { // RTE_JOIN
                return derived(rte.list("joinaliasvars").get((int) attno - 1), owner, scope, shown);
            }
            if (kind == 9 && attno <= rte.list("groupexprs").size()) { // RTE_GROUP (18)
                return derived(rte.list("groupexprs").get((int) attno - 1), owner, scope, shown);
            }
            if (kind == 3 || kind == 5) { // RTE_FUNCTION, RTE_VALUES: whatever their functions or rows derive from
                return derived(kind == 3 ? rte.get("functions") : rte.get("values_lists"), owner, scope, false);
            }
            if (kind == 6) { // RTE_CTE
                String cte = rte.text("ctename");
                long levels = rte.number("ctelevelsup", 0);
                int at = level - (int) levels;
                NodeTree.Node holder = at >= 0 && at < outer.size() ? outer.get(at) : owner;
                for (Object c : holder.list("cteList")) {
                    if (c instanceof NodeTree.Node common && cte != null && cte.equals(common.text("ctename"))
                            && common.node("ctequery") != null) {
                        return fromTargets(common.node("ctequery"), attno, outer.subList(0, Math.max(at + 1, 1)), shown);
                    }
                }
            }
        }
        if (COUNTER_TYPES.contains(type) || REG_TYPES.contains(type)) {
            return described(var, type);
        }
        return null;
    }

    private String fromTargets(NodeTree.Node sub, long attno, List<NodeTree.Node> scope, boolean shown) {
        List<Object> targets = sub.list("targetList");
        if (attno > targets.size() || !(targets.get((int) attno - 1) instanceof NodeTree.Node target)) {
            return null;
        }
        List<NodeTree.Node> nested = new ArrayList<>(scope);
        nested.add(sub);
        return derived(target.get("expr"), sub, nested, shown);
    }

    private String described(NodeTree.Node node, long type) {
        String typeName = typeName(type);
        if (node.type().equals("FUNCEXPR")) {
            String name = catalog.functions().get(node.number("funcid", -1));
            if (name != null) {
                return "the function " + name + "() of type " + typeName;
            }
        }
        return "a value of type " + typeName;
    }

    private static long type(NodeTree.Node node) {
        for (String field : TYPE_FIELDS) {
            String text = node.text(field);
            if (text != null) {
                try {
                    return Long.parseLong(text);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** Whether a name the text spells is one this gate judges, so that a statement of it without a tree cannot be judged. */
    static boolean judges(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return GUARD_LISTS.containsKey(lower) || DESCRIBERS.contains(lower) || ServerWideReaders.keysOf(lower) != null
                || ServerWideReaders.givenADatabase(lower);
    }

    /** The names of the lists and functions this gate judges, for finding the trees worth reading. */
    static boolean relevant(String name) {
        return judges(name) || ServerWideReaders.readsACounter(name) || runTimeLookup(name) || RUN_NAMES.contains(name);
    }
}
