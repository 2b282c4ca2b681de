package dev.kensho.sqlchecks.execution;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The backstop of the text gates ({@link KenshoSettingsReaders}, {@link ServerWideReaders}): what the server itself says a
 * page's statements read. {@code debug_print_parse} (a session setting of Kensho's) makes the server report the parse tree
 * of every statement it parses on the page's session, those of functions and dynamic SQL included (SPI, SQL functions and
 * inlining all go through {@code pg_rewrite_query}), so a name the text never spells out ({@code 'pg_' || 'database'},
 * a regclass cast of computed text, a view or function the page made from computed text) still shows there: as the OID of
 * a relation ({@code :relid}) or function ({@code :funcid}, {@code :aggfnoid}, {@code :winfnoid}) in an analysed tree, as a
 * name in the raw statement a utility command carries ({@code RANGEVAR :relname}, {@code :funcname}, a column reference),
 * or as a system column ({@code VAR :varattno} -2 for xmin, -4 for xmax). A view's query is in no parse tree (CREATE VIEW
 * keeps it raw, a later SELECT names the view): {@code debug_print_rewritten} reports the tree after rewriting, where a
 * view stands expanded; those that expand one are kept for {@link ParseTreeGate} alone.
 *
 * <p>Trees are scanned as text, never read into nodes, so a tree of any size is scanned whole: a tree too large for
 * {@link ParseCapture} to read still shows what it reads. Strings in a tree escape blanks ({@code outToken}) and digits
 * that start them, so no string a page writes can forge or hide a field.
 */
final class TreeReads {

    private static final Pattern RELATION = Pattern.compile(":relid\\s+(\\d+)");
    /** The nodes of a TABLESAMPLE clause, raw (RANGETABLESAMPLE) and analysed (TABLESAMPLECLAUSE), as node output names them. */
    private static final String SAMPLE_NODE = "TABLESAMPLE";
    /** VACUUM and ANALYZE: ANALYZE reads a random sample of a table's rows past 300 × its statistics target. */
    private static final String ANALYZE_NODE = "{VACUUMSTMT";
    private static final Pattern FUNCTION = Pattern.compile(":(?:funcid|aggfnoid|winfnoid)\\s+(\\d+)");
    /** current_role, current_user, user, session_user, current_catalog as 14 and 15 write them (16 on: calls of current_user, current_database). */
    private static final Pattern RUN_NAME_VALUE = Pattern.compile("\\{SQLVALUEFUNCTION\\s+:op\\s+(?:9|1[0-3])\\s");
    private static final Pattern ROLE_SPEC = Pattern.compile("\\{ROLESPEC\\s+:roletype\\s+\\d+\\s+:rolename\\s+(\\S+)");
    private static final Pattern RANGE_VAR = Pattern.compile("\\{RANGEVAR\\s+:catalogname\\s+\\S+\\s+:schemaname\\s+(\\S+)\\s+:relname\\s+(\\S+)");
    /** A SET or RESET statement's setting name (PostgreSQL 16 on write utility statements out; 14 and 15 write "?"). */
    private static final Pattern VARIABLE_SET = Pattern.compile("\\{VARIABLESETSTMT\\s+:kind\\s+(\\d+)\\s+:name\\s+(\\S+)");
    private static final Pattern NAME_LIST = Pattern.compile(":(?:funcname|fields)\\s+\\(([^()]*)\\)");
    private static final Pattern SYSTEM_COLUMN = Pattern.compile("\\{VAR\\s+:varno\\s+\\d+\\s+:varattno\\s+(-2|-4)\\s");
    /** The innermost frame of a context when a statement runs inside a SQL function. */
    private static final Pattern SQL_FUNCTION = Pattern.compile("SQL function \"([^\"]+)\"");
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    /**
     * A view expanded into a subquery (its relid and relkind are kept on the subquery's entry from PostgreSQL 16 on; 14 and
     * 15 keep them on the view query's own *OLD* entry), or a rule's action (a querySource other than the original's).
     */
    private static final Pattern VIEW = Pattern.compile(":relkind\\s+v\\s|:querySource\\s+[1-9]");
    private static final Pattern VIEW_READ = Pattern.compile(":relid\\s+(\\d+)\\s+(?::inh\\s+\\S+\\s+)?:relkind\\s+v\\s");
    private static final Pattern LIST_ITEM = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** What the trees of one statement's run referred to, in the order the server reported them. */
    static final class Seen {
        final Set<Long> relations = new LinkedHashSet<>();
        final Set<Long> functions = new LinkedHashSet<>();
        /** Names of raw statements (schema-less or pg_catalog), and xmin or xmax read as system columns. */
        final Set<String> names = new LinkedHashSet<>();
        /** The trees themselves, for {@link ParseTreeGate}; null where one was too large to keep. */
        final java.util.List<String> trees = new java.util.ArrayList<>();
        /** Each tree's context as the server reported it (null at top level; "SQL function "f" ..." in a function's body). */
        final java.util.List<String> contexts = new java.util.ArrayList<>();
        private long kept;

        /**
         * The functions the trees after rewriting call: rewriting adds what no parse tree shows (a column's default on
         * INSERT), and a function of the page's called there may be a copy of a built-in's body ({@link #callsOnlyBuiltIns}).
         */
        private final Set<Long> rewrittenFunctions = new LinkedHashSet<>();

        /** The rewritten trees (lists of queries) that expand a view of the page's, for {@link ParseTreeGate}. */
        final java.util.List<String> rewritten = new java.util.ArrayList<>();

        /**
         * Keeps a statement's tree after rewriting when it expands a view (a page's view is a relation of kind v in the
         * parse tree, its query only here), holds a rule's action, or holds a counter-typed value (rewriting adds the
         * columns' defaults to an INSERT); a tree too large to keep is kept as null, which no claim passes.
         */
        void rewritten(String tree) {
            samples |= tree.contains(SAMPLE_NODE);
            Matcher m = FUNCTION.matcher(tree);
            while (m.find()) {
                rewrittenFunctions.add(Long.parseLong(m.group(1)));
            }
            if (!VIEW.matcher(tree).find() && !COUNTER_TYPED.matcher(tree).find()) {
                return;
            }
            boolean keep = kept + tree.length() <= ParseCapture.MAX_TREE_CHARS;
            rewritten.add(keep ? tree : null);
            kept += keep ? tree.length() : 0;
        }

        /** Every function the trees call, before and after rewriting (a column's default on INSERT). */
        Set<Long> allFunctions() {
            Set<Long> all = new LinkedHashSet<>(functions);
            all.addAll(rewrittenFunctions);
            return all;
        }

        /**
         * Whether a tree, raw, analysed or rewritten, samples a table ({@code TABLESAMPLE}, REPEATABLE or not; {@code
         * ANALYZE}, whose statistics of a large table come from a random sample; a plain VACUUM's node is the same), as
         * {@link SecondDraw} asks; a page's string holding the word counts too. Too wide costs only a second run.
         */
        boolean samples;
        /** Whether a tree was let go unread ({@link #unread}): what it called is unknown. */
        boolean unreadSome;

        /** Adds a tree that was reported in the context {@code where} and not read: no claim resting on the trees passes. */
        void unread(String where) {
            unreadSome = true;
            trees.add(null);
            contexts.add(where);
        }

        /** Adds what the tree {@code tree} (its text as the server sent it, in the context {@code where}) refers to. */
        void scan(String tree, String where) {
            boolean keep = kept + tree.length() <= ParseCapture.MAX_TREE_CHARS;
            trees.add(keep ? tree : null);
            contexts.add(where);
            kept += keep ? tree.length() : 0;
            samples |= tree.contains(SAMPLE_NODE) || tree.contains(ANALYZE_NODE);
            Matcher m = RELATION.matcher(tree);
            while (m.find()) {
                relations.add(Long.parseLong(m.group(1)));
            }
            m = FUNCTION.matcher(tree);
            while (m.find()) {
                functions.add(Long.parseLong(m.group(1)));
            }
            // A SET (or RESET) the server parsed: the setting it names, which the text may never spell (SQL built at run time).
            m = VARIABLE_SET.matcher(tree);
            while (m.find()) {
                String name = unescape(m.group(2));
                // RESET SESSION AUTHORIZATION (VAR_RESET) and SET SESSION AUTHORIZATION DEFAULT (VAR_SET_DEFAULT) keep the
                // session's own role, the page's at build and kensho_reader in the playground (KenshoSettingsReaders).
                boolean backToItsOwn = name.equals("session_authorization") && (m.group(1).equals("1") || m.group(1).equals("4"));
                if (!backToItsOwn) {
                    names.add(name);
                }
            }
            // A role a utility statement names (GRANT … TO, OWNER TO, SET ROLE), which SQL built at run time may name unspelled.
            m = ROLE_SPEC.matcher(tree);
            while (m.find()) {
                names.add(unescape(m.group(1)));
            }
            m = RANGE_VAR.matcher(tree);
            while (m.find()) {
                String schema = unescape(m.group(1));
                if (m.group(1).equals("<>") || schema.equals("pg_catalog")) {
                    names.add(unescape(m.group(2)));
                }
            }
            m = NAME_LIST.matcher(tree);
            while (m.find()) {
                Matcher item = LIST_ITEM.matcher(m.group(1));
                String last = null;
                String first = null;
                while (item.find()) {
                    last = unescape(item.group(1));
                    first = first == null ? last : first;
                }
                if (last != null && (first == last || first.equals("pg_catalog") || last.equals("xmin") || last.equals("xmax"))) {
                    names.add(last);
                }
            }
            m = SYSTEM_COLUMN.matcher(tree);
            while (m.find()) {
                names.add(m.group(1).equals("-2") ? "xmin" : "xmax");
            }
        }

        /**
         * Whether every function the statement's trees call is pg_catalog's. Only then is a body reported under the name of a
         * pg_catalog SQL function that function's ({@link Catalog#builtInBody}): the context names a function by name
         * alone, and a function of the page's may be a copy of a built-in's body under the built-in's name.
         */
        boolean callsOnlyBuiltIns(Catalog catalog) {
            return catalog.functions().keySet().containsAll(functions) && catalog.functions().keySet().containsAll(rewrittenFunctions);
        }

        private static String unescape(String atom) {
            return atom.replaceAll("\\\\(.)", "$1");
        }
    }

    /**
     * The names of pg_catalog's relations and functions by OID, read once per server on Kensho's own admin connection (the
     * maintenance database; every database of the cluster, page templates included, is a copy of template1 or template0,
     * whose pg_catalog objects carry the same OIDs), never on the page's. {@code extensionFunctions}: the names of the
     * volatile functions of the site's allowed extensions (gen_random_bytes, normal_rand, pgp_sym_encrypt…), by their
     * OIDs in the page template (copied with it to every page's database, so the same in each), read by
     * {@link #withTemplate}.
     */
    record Catalog(Map<Long, String> relations, Map<Long, String> functions, Map<Long, Map<Long, String>> attributes,
                   Set<Long> equalities, Set<Long> counterRows, Set<Long> counterResults, Set<Long> steady,
                   Map<String, List<String>> bodies, int major, Set<Long> guard, Map<Long, String> extensionFunctions) {

        static final Catalog NONE = new Catalog(Map.of(), Map.of(), Map.of(), Set.of(), Set.of(), Set.of(), Set.of(), Map.of(), 0,
                Set.of(), Map.of());

        /**
         * The same catalog knowing, from {@code template} (the database every page's is copied from), the OIDs of Kensho's
         * guard (its function and event trigger) and the names of the allowed extensions' volatile functions.
         */
        Catalog withTemplate(Connection template) throws SQLException {
            Map<Long, String> names = new HashMap<>();
            try (java.sql.Statement statement = template.createStatement();
                 java.sql.ResultSet rs = statement.executeQuery("SELECT p.oid::bigint, p.proname::text FROM pg_catalog.pg_proc p"
                         + " JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid"
                         + " AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'"
                         + " WHERE p.provolatile = 'v'")) {
                while (rs.next()) {
                    names.put(rs.getLong(1), rs.getString(2));
                }
            }
            return new Catalog(relations, functions, attributes, equalities, counterRows, counterResults, steady, bodies, major,
                    Set.copyOf(ExtensionGuard.oids(template)), Map.copyOf(names));
        }

        /**
         * Also information_schema's views (their OIDs are as fixed as pg_catalog's), the columns of them all by attribute
         * number, pg_catalog's {@code =} operators, and the relations whose rows hold a counter-typed column (a whole row of
         * one, as {@code to_jsonb(c)}, shows the counter), pg_catalog's functions whose result rows hold one (their OUT or
         * TABLE columns, or the columns of the composite type they return: {@code to_jsonb(x) FROM pg_get_object_address(…) x}
         * shows it), and pg_catalog's functions that are not volatile (they keep nothing of what they are given): what
         * {@link ParseTreeGate} compares a tree's numbers with.
         */
        static Catalog read(Connection admin) throws SQLException {
            Map<Long, String> relations = new HashMap<>();
            Map<Long, String> functions = new HashMap<>();
            Map<Long, Map<Long, String>> attributes = new HashMap<>();
            Set<Long> equalities = new java.util.HashSet<>();
            Set<Long> counterRows = new java.util.HashSet<>();
            Set<Long> counterResults = new java.util.HashSet<>();
            Set<Long> steady = new java.util.HashSet<>();
            String builtIn = " IN ('pg_catalog'::pg_catalog.regnamespace, 'information_schema'::pg_catalog.regnamespace)";
            synchronized (admin) {
                try (Statement statement = admin.createStatement();
                     ResultSet rs = statement.executeQuery("SELECT 'r', oid::bigint, relname::text, 0 FROM pg_catalog.pg_class"
                             + " WHERE relnamespace" + builtIn + " UNION ALL SELECT 'f', oid::bigint, proname::text,"
                             + " CASE provolatile WHEN 'v' THEN 0 ELSE 1 END"
                             + " FROM pg_catalog.pg_proc WHERE pronamespace = 'pg_catalog'::pg_catalog.regnamespace"
                             + " UNION ALL SELECT 'a', a.attrelid::bigint, a.attname::text, a.attnum FROM pg_catalog.pg_attribute a"
                             + " JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE a.attnum > 0 AND c.relnamespace" + builtIn
                             + " UNION ALL SELECT 'o', oid::bigint, oprname::text, 0 FROM pg_catalog.pg_operator"
                             + " WHERE oprname = '=' AND oprnamespace = 'pg_catalog'::pg_catalog.regnamespace"
                             + " UNION ALL SELECT DISTINCT 'c', a.attrelid::bigint, '', 0 FROM pg_catalog.pg_attribute a"
                             + " JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE a.attnum > 0 AND c.relnamespace" + builtIn
                             + " AND a.atttypid::pg_catalog.int8 IN (" + ParseTreeGate.COUNTER_TYPE_LIST + ")"
                             + " UNION ALL SELECT 'x', p.oid::bigint, '', 0 FROM pg_catalog.pg_proc p"
                             + " WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND (EXISTS (SELECT FROM"
                             + " pg_catalog.generate_subscripts(p.proallargtypes, 1) AS i WHERE p.proargmodes[i] IN ('o', 'b', 't')"
                             + " AND p.proallargtypes[i]::pg_catalog.int8 IN (" + ParseTreeGate.COUNTER_TYPE_LIST + ")) OR EXISTS (SELECT FROM"
                             + " pg_catalog.pg_type y JOIN pg_catalog.pg_attribute a ON a.attrelid = y.typrelid"
                             + " WHERE y.oid = p.prorettype AND a.attnum > 0"
                             + " AND a.atttypid::pg_catalog.int8 IN (" + ParseTreeGate.COUNTER_TYPE_LIST + ")))")) {
                    while (rs.next()) {
                        switch (rs.getString(1)) {
                            case "r" -> relations.put(rs.getLong(2), rs.getString(3));
                            case "f" -> {
                                functions.put(rs.getLong(2), rs.getString(3));
                                if (rs.getInt(4) == 1) {
                                    steady.add(rs.getLong(2));
                                }
                            }
                            case "c" -> counterRows.add(rs.getLong(2));
                            case "x" -> counterResults.add(rs.getLong(2));
                            case "a" -> attributes.computeIfAbsent(rs.getLong(2), k -> new HashMap<>()).put(rs.getLong(4), rs.getString(3));
                            default -> equalities.add(rs.getLong(2));
                        }
                    }
                }
            }
            attributes.replaceAll((k, v) -> Map.copyOf(v));
            return new Catalog(Map.copyOf(relations), Map.copyOf(functions), Map.copyOf(attributes), Set.copyOf(equalities),
                    Set.copyOf(counterRows), Set.copyOf(counterResults), Set.copyOf(steady), bodies(admin),
                    admin.getMetaData().getDatabaseMajorVersion(), Set.of(), Map.of());
        }

        /**
         * pg_catalog's SQL functions' stored bodies by name (PostgreSQL 14 on keeps them parsed, as node strings), blanks
         * folded. The server reports a body's trees when the function runs (obj_description reads pg_description by its
         * argument): the call is judged where the page makes it ({@link ParseTreeGate}), never the body a page cannot change.
         */
        private static Map<String, List<String>> bodies(Connection admin) throws SQLException {
            Map<String, List<String>> bodies = new HashMap<>();
            synchronized (admin) {
                if (admin.getMetaData().getDatabaseMajorVersion() < 14) {
                    return Map.of();
                }
                try (Statement statement = admin.createStatement();
                     ResultSet rs = statement.executeQuery("SELECT proname::text, prosqlbody::text FROM pg_catalog.pg_proc"
                             + " WHERE pronamespace = 'pg_catalog'::pg_catalog.regnamespace AND prosqlbody IS NOT NULL")) {
                    while (rs.next()) {
                        bodies.computeIfAbsent(rs.getString(1), k -> new java.util.ArrayList<>()).add(folded(rs.getString(2)));
                    }
                }
            }
            bodies.replaceAll((k, v) -> List.copyOf(v));
            return Map.copyOf(bodies);
        }

        /**
         * Whether {@code tree}, reported in the context {@code where}, is (part of) the body of the pg_catalog SQL function
         * running there, which the statement's trees call ({@code called}: the built-in is called where it is judged).
         */
        boolean builtInBody(String tree, String where, Set<Long> called) {
            Matcher frame = where == null ? null : SQL_FUNCTION.matcher(where);
            if (frame == null || !frame.lookingAt() || called.stream().noneMatch(id -> frame.group(1).equals(functions.get(id)))) {
                return false;
            }
            String folded = folded(tree);
            return bodies.getOrDefault(frame.group(1), List.of()).stream().anyMatch(body -> body.contains(folded));
        }
    }

    /**
     * What runs SQL built at run time: PL/pgSQL's EXECUTE (OPEN … FOR EXECUTE, RETURN QUERY EXECUTE) and the functions that
     * run a query given as text. Without them every statement the server runs is one the page's text spells out, which the
     * text gate reads; with one, a statement whose tree the server did not report (the page silenced it) is unknown.
     */
    private static final Set<String> RUN_TIME_SQL = Set.of("execute", "ts_stat", "query_to_xml", "query_to_xmlschema",
            "query_to_xml_and_xmlschema", "cursor_to_xml", "table_to_xml", "table_to_xmlschema", "table_to_xml_and_xmlschema",
            "schema_to_xml", "schema_to_xmlschema", "schema_to_xml_and_xmlschema", "database_to_xml", "database_to_xmlschema",
            "database_to_xml_and_xmlschema");

    private TreeReads() {
    }

    private static String folded(String tree) {
        return BLANKS.matcher(tree.strip()).replaceAll(" ");
    }

    private static final Pattern COUNTER_TYPED = Pattern.compile(
            ":(?:vartype|consttype|funcresulttype|resulttype|aggtype|opresulttype|wintype)\\s+(?:26|27|28|29|30|5069|3220|5038|2970|24|2202|2203|2204|2205|2206|3734|3769|4089|4096|4191)\\s");

    /**
     * The first thing the trees {@code seen} show read that no claim may rest on, judged on the trees themselves
     * ({@link ParseTreeGate}): a shared list not restricted to the page's own, a list holding Kensho's own objects, a
     * result derived from a shared counter. Only trees that name such a list or function or hold such a value are read. A
     * counter only shown by a plain SELECT ({@link ParseTreeGate.Found#shownOnly}) is returned only when nothing lasting is.
     */
    static ParseTreeGate.Found judged(List<Seen> seen, Catalog catalog) {
        return judged(seen, catalog, true);
    }

    /**
     * As {@link #judged(List, Catalog)}; {@code viewsRan} false for a statement the rewriter refused (ScriptRunner's
     * failedInRewrite): the page's views it names were never expanded, so no query of theirs ran to be judged.
     */
    static ParseTreeGate.Found judged(List<Seen> seen, Catalog catalog, boolean viewsRan) {
        ParseTreeGate gate = new ParseTreeGate(catalog);
        ParseTreeGate.Found shown = null;
        for (Seen one : seen) {
            // The page's views the statement's parse trees read: each must be covered by a query after rewriting, judged.
            Set<Long> read = new java.util.HashSet<>();
            one.trees.stream().filter(java.util.Objects::nonNull).forEach(t -> read.addAll(pagesViews(t, catalog)));
            Set<Long> covered = new java.util.HashSet<>();
            List<String> trees = new java.util.ArrayList<>(one.trees);
            trees.addAll(one.rewritten);
            for (int t = 0; t < trees.size(); t++) {
                String tree = trees.get(t);
                boolean rewritten = t >= one.trees.size();
                if (tree != null && !rewritten && (!relevant(tree, catalog)
                        || one.callsOnlyBuiltIns(catalog) && catalog.builtInBody(tree, one.contexts.get(t), one.functions))) {
                    continue;
                }
                List<NodeTree.Node> queries;
                try {
                    queries = tree == null ? null : rewritten ? NodeTree.readList(tree.strip()) : List.of(NodeTree.read(tree.strip()));
                } catch (NodeTree.Malformed e) {
                    queries = null;
                }
                if (queries == null) {
                    return new ParseTreeGate.Found("a statement whose parse tree Kensho could not read (larger than "
                            + (ParseCapture.MAX_TREE_CHARS >> 20) + " MB together, malformed, or past the " + ParseCapture.MAX_REPORTS
                            + " parse trees or " + (ParseCapture.MAX_REPORT_CHARS >> 20) + " MB Kensho reads for one statement)",
                            ServerWideReaders.Shared.UNJUDGED);
                }
                for (NodeTree.Node query : queries) {
                    // After rewriting, only where a view of the page's was expanded or a rule added an action: built-in
                    // views stay the relations they are.
                    ParseTreeGate.Found found;
                    try {
                        NodeTree.Node judged = rewritten ? gate.rewrittenJudged(query, covered) : query;
                        found = judged == null ? null : gate.judge(judged);
                    } catch (RuntimeException | StackOverflowError e) {
                        // A tree the gate fails on (a bug of Kensho's, or a nesting deeper than its stack) is one it did not
                        // judge: the claims fail closed, at their lines, and the build goes on to say so.
                        return new ParseTreeGate.Found("a statement whose parse tree Kensho's gate failed to judge (" + e
                                + "; an error of Kensho's, please report it)", ServerWideReaders.Shared.UNJUDGED);
                    }
                    if (found != null && found.shownOnly() && !statementOnlyShows(one, gate)) {
                        // A plain SELECT the statement prepares (PREPARE) is shown by a later EXECUTE, and one a function of
                        // the page's runs (a PL/pgSQL assignment) may be kept by it: what it reads lasts.
                        found = new ParseTreeGate.Found(found.what(), found.shared());
                    }
                    if (found != null && !found.shownOnly()) {
                        return found;
                    }
                    shown = shown != null ? shown : found;
                }
            }
            if (viewsRan && !covered.containsAll(read)) {
                ParseTreeGate.Found unjudged = new ParseTreeGate.Found("a view of the page's whose query the server did not report "
                        + "after rewriting (it does not for a view CREATE TABLE AS, EXPLAIN, DECLARE or PREPARE reads, nor when the "
                        + "page turns Kensho's session setting debug_print_rewritten off), so no gate judged what it reads",
                        ServerWideReaders.Shared.DATABASES, plainExplain(one, gate));
                if (!unjudged.shownOnly()) {
                    return unjudged;
                }
                shown = shown != null ? shown : unjudged;
            }
        }
        return shown;
    }

    /**
     * Whether the statements whose trees are {@code seen} only show rows ({@link ParseTreeGate#onlyShows}): each one's own
     * tree (reported outside any function) is a plain SELECT calling only pg_catalog's functions that keep nothing. A
     * counter the text gate finds in such a snippet fails its own claim and no later one, as the tree gate's does.
     */
    static boolean onlyShow(List<Seen> seen, Catalog catalog) {
        ParseTreeGate gate = new ParseTreeGate(catalog);
        boolean any = false;
        for (Seen one : seen) {
            for (int t = 0; t < one.trees.size(); t++) {
                if (one.contexts.get(t) != null) {
                    continue;
                }
                String tree = one.trees.get(t);
                try {
                    if (tree == null || !gate.onlyShows(NodeTree.read(tree.strip())) && !plainExplain(tree, gate)) {
                        return false;
                    }
                } catch (NodeTree.Malformed e) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    /**
     * Whether the statement is an EXPLAIN without ANALYZE of a query calling only pg_catalog's functions that keep nothing: it
     * plans its query and runs nothing, so what its plan shows (a constant the planner folded) fails its own claim and no
     * later one. (The unreported view's own query was judged when the page made it, not what it calls at plan time.)
     */
    private static boolean plainExplain(Seen one, ParseTreeGate gate) {
        return !one.trees.isEmpty() && one.trees.get(0) != null && one.contexts.get(0) == null && plainExplain(one.trees.get(0), gate);
    }

    private static boolean plainExplain(String tree, ParseTreeGate gate) {
        if (tree.contains(":defname analyze ")) {
            return false;
        }
        try {
            NodeTree.Node explain = NodeTree.read(tree.strip()).node("utilityStmt");
            NodeTree.Node query = explain == null || !explain.type().equals("EXPLAINSTMT") ? null : explain.node("query");
            // Its query calls only pg_catalog's functions that keep nothing (none the planner could fold with a side effect).
            return query != null && query.type().equals("QUERY") && gate.onlyShows(query);
        } catch (NodeTree.Malformed e) {
            return false;
        }
    }

    /**
     * Whether the statement's own tree (its first, reported outside any function) only shows rows
     * ({@link ParseTreeGate#onlyShows}): a plain SELECT calling only pg_catalog's functions that keep nothing.
     */
    private static boolean statementOnlyShows(Seen one, ParseTreeGate gate) {
        if (one.trees.isEmpty() || one.trees.get(0) == null || one.contexts.get(0) != null) {
            return false;
        }
        try {
            return gate.onlyShows(NodeTree.read(one.trees.get(0).strip()));
        } catch (NodeTree.Malformed e) {
            return false;
        }
    }

    /** The views the page made that the parse tree {@code tree} reads (relations of kind v that are not built-in ones). */
    private static Set<Long> pagesViews(String tree, Catalog catalog) {
        Set<Long> views = new java.util.HashSet<>();
        Matcher m = VIEW_READ.matcher(tree);
        while (m.find()) {
            long relid = Long.parseLong(m.group(1));
            if (!catalog.relations().containsKey(relid)) {
                views.add(relid);
            }
        }
        return views;
    }

    private static boolean relevant(String tree, Catalog catalog) {
        if (COUNTER_TYPED.matcher(tree).find() || RUN_NAME_VALUE.matcher(tree).find()) {
            return true;
        }
        Matcher m = RELATION.matcher(tree);
        while (m.find()) {
            long relid = Long.parseLong(m.group(1));
            String name = catalog.relations().get(relid);
            // A relation whose rows hold a counter: a whole row of it (to_jsonb(c)) holds one, whatever types the tree shows.
            if (name != null && (ParseTreeGate.relevant(name) || catalog.counterRows().contains(relid))) {
                return true;
            }
            // A built-in relation with a column holding the run's role or database name (information_schema's grantor).
            Map<Long, String> columns = name == null ? null : catalog.attributes().get(relid);
            if (columns != null && columns.values().stream().anyMatch(ParseTreeGate::namesTheRun)) {
                return true;
            }
        }
        m = FUNCTION.matcher(tree);
        while (m.find()) {
            long funcid = Long.parseLong(m.group(1));
            String name = catalog.functions().get(funcid);
            // A function whose result row holds a counter: a whole row of it (to_jsonb(x) FROM f() x) holds one.
            if (name != null && (ParseTreeGate.relevant(name) || catalog.counterResults().contains(funcid))) {
                return true;
            }
        }
        return false;
    }

    /** Whether a text that spells {@code spelled} can run SQL it builds at run time. */
    static boolean buildsAtRunTime(Set<String> spelled) {
        return RUN_TIME_SQL.stream().anyMatch(spelled::contains);
    }

    /**
     * The first object the trees {@code seen} show read that the text gates list and that the page's text (every name it
     * spells, strings and function bodies included: {@code spelled}) never names, so that the text gate could not judge
     * it; null when there is none. Its {@code what} is the object's name.
     */
    static KenshoSettingsReaders.Read unspelled(List<Seen> seen, Catalog catalog, Set<String> spelled, boolean claimsPlans) {
        for (Seen one : seen) {
            Set<String> names = new LinkedHashSet<>();
            one.relations.forEach(oid -> names.add(catalog.relations().get(oid)));
            one.functions.forEach(oid -> names.add(catalog.functions().get(oid)));
            names.addAll(one.names);
            for (String name : names) {
                if (name == null || spelled.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                    continue;
                }
                KenshoSettingsReaders.Read read = KenshoSettingsReaders.named(name, claimsPlans);
                if (read != null) {
                    return read;
                }
            }
        }
        return null;
    }
}
