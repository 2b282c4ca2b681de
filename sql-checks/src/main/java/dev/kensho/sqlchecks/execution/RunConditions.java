package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Snippet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a reader who runs the page's visible SQL on a stock server would not have: session settings
 * and role or database settings the page changed, functions, operators and types that shadow a
 * {@code pg_catalog} name on the search path, and statistics targets or storage options altered on
 * the page's tables. Each is attributed to the snippet whose run made it appear; conditions made by
 * hidden or setup snippets are the ones a reader cannot see.
 *
 * <p>The probe runs on the page's own connection (settings are per session) with every catalog,
 * function, operator and type named in full, so nothing the page defined can change its answers.
 * It runs at the page's start and after each hidden or setup snippet, and after every snippet while
 * any condition stands (so that a visible RESET is seen) — but only between the page's transactions:
 * a read inside the reader's transaction would take its snapshot (a later {@code SET TRANSACTION}
 * would then fail), and its catalog locks would last to the transaction's end. Outside a transaction
 * it is a read-only query of its own: no transaction ID, no lock or snapshot left behind, no
 * temporary schema ({@code pg_my_temp_schema()} only reads which one the session has). While a
 * transaction is open, what the snippet changed stays unread and is stated so (plan claims then fail).
 */
final class RunConditions {

    /** Settings that say nothing about results or plans. */
    private static final Set<String> IGNORED = Set.of("application_name", "auto_explain.log_min_duration", "client_min_messages",
            "debug_print_parse", "debug_print_rewritten", "debug_pretty_print");

    /** Settings that shape plans but not what a statement returns; named by EXPLAIN (SETTINGS). */
    static final Set<String> PLAN_NEUTRAL = Set.of("jit", "jit_above_cost", "jit_inline_above_cost", "jit_optimize_above_cost",
            "search_path", "effective_io_concurrency", "maintenance_io_concurrency", "io_combine_limit", "temp_tablespaces",
            "max_parallel_workers");

    private static final String EQ = CatalogSql.EQ;
    private static final String NE = CatalogSql.NE;
    private static final String CAT = CatalogSql.CAT;
    private static final String USER_SCHEMA = "n.nspname" + NE + "'pg_catalog' AND n.nspname" + NE + "'information_schema'"
            + " AND n.nspname" + CatalogSql.NOT_LIKE + "E'pg\\\\_toast%' AND n.nspname" + CatalogSql.NOT_LIKE + "E'pg\\\\_temp%'";
    /**
     * Whether PostgreSQL itself counts a setting among the planner's inputs: the settings it flags
     * GUC_EXPLAIN, the ones EXPLAIN (SETTINGS) and auto_explain report with a plan (enable_*, *_cost,
     * work_mem, jit, …), and default_statistics_target, which shapes the statistics ANALYZE makes.
     * Display settings (DateStyle, IntervalStyle, TimeZone, timezone_abbreviations, extra_float_digits,
     * bytea_output) only change how constants read and print, and are stated, never a plan's input.
     */
    private static String plannerSetting(String name) {
        return "(COALESCE('EXPLAIN'" + EQ + "ANY (pg_catalog.pg_settings_get_flags(" + name + ")), false) OR " + name + EQ
                + "'default_statistics_target')::pg_catalog.text";
    }

    static final String PROBE = String.join(" UNION ALL ",
            "SELECT 'setting', s.name, s.setting, " + plannerSetting("s.name") + " FROM pg_catalog.pg_settings s WHERE s.source" + EQ + "'session'",
            "SELECT 'role or database setting', pg_catalog.split_part(c.cfg, '=', 1), pg_catalog.substr(c.cfg,"
                    + " pg_catalog.strpos(c.cfg, '=') OPERATOR(pg_catalog.+) 1), " + plannerSetting("pg_catalog.split_part(c.cfg, '=', 1)")
                    + " FROM pg_catalog.pg_db_role_setting d,"
                    + " pg_catalog.unnest(d.setconfig) AS c(cfg) WHERE (d.setdatabase" + EQ + "(SELECT oid FROM pg_catalog.pg_database"
                    + " WHERE datname" + EQ + "pg_catalog.current_database()) AND d.setrole" + EQ + "0) OR d.setrole" + EQ
                    + "(SELECT oid FROM pg_catalog.pg_roles WHERE rolname" + EQ + "CURRENT_USER)",
            "SELECT 'shadowing function', p.oid::pg_catalog.regprocedure::pg_catalog.text, '', '' FROM pg_catalog.pg_proc p"
                    + " JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "p.pronamespace WHERE n.nspname" + EQ
                    + "ANY (pg_catalog.current_schemas(false)) AND n.nspname" + NE + "'pg_catalog' AND EXISTS (SELECT FROM"
                    + " pg_catalog.pg_proc b WHERE b.pronamespace" + EQ + "'pg_catalog'::pg_catalog.regnamespace AND b.proname" + EQ + "p.proname)",
            "SELECT 'shadowing operator', o.oid::pg_catalog.regoperator::pg_catalog.text, '', '' FROM pg_catalog.pg_operator o"
                    + " JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "o.oprnamespace WHERE n.nspname" + EQ
                    + "ANY (pg_catalog.current_schemas(false)) AND n.nspname" + NE + "'pg_catalog' AND EXISTS (SELECT FROM"
                    + " pg_catalog.pg_operator b WHERE b.oprnamespace" + EQ + "'pg_catalog'::pg_catalog.regnamespace AND b.oprname" + EQ + "o.oprname)",
            "SELECT 'shadowing type', t.oid::pg_catalog.regtype::pg_catalog.text, '', '' FROM pg_catalog.pg_type t"
                    + " JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "t.typnamespace WHERE n.nspname" + EQ
                    + "ANY (pg_catalog.current_schemas(false)) AND n.nspname" + NE + "'pg_catalog' AND EXISTS (SELECT FROM"
                    + " pg_catalog.pg_type b WHERE b.typnamespace" + EQ + "'pg_catalog'::pg_catalog.regnamespace AND b.typname" + EQ + "t.typname)",
            "SELECT 'statistics target', c.oid::pg_catalog.regclass::pg_catalog.text" + CAT + "'.'" + CAT + "pg_catalog.quote_ident(a.attname),"
                    + " a.attstattarget::pg_catalog.text, '' FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid" + EQ
                    + "a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "c.relnamespace WHERE a.attstattarget IS NOT NULL"
                    // Before PostgreSQL 17 a column's default target is stored as -1 and a system column's as 0 (since 17
                    // both as NULL): neither is a setting.
                    + " AND a.attstattarget" + NE + "-1 AND a.attnum OPERATOR(pg_catalog.>) 0 AND "
                    + USER_SCHEMA,
            "SELECT 'column options', c.oid::pg_catalog.regclass::pg_catalog.text" + CAT + "'.'" + CAT + "pg_catalog.quote_ident(a.attname),"
                    + " pg_catalog.array_to_string(a.attoptions, ', '), '' FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid" + EQ
                    + "a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "c.relnamespace WHERE a.attoptions IS NOT NULL AND "
                    + USER_SCHEMA,
            // Options of vacuuming (autovacuum's thresholds and scale factors, vacuum_…, log_autovacuum_min_duration) are not
            // read by the planner: Kensho's run without autovacuum (AutovacuumActivity) plans alike. autovacuum_enabled is
            // kept: on PostgreSQL 18 a table with it off does not get CREATE INDEX's page and row counts.
            "SELECT * FROM (SELECT 'storage options', c.oid::pg_catalog.regclass::pg_catalog.text,"
                    + " pg_catalog.array_to_string(ARRAY(SELECT o FROM pg_catalog.unnest(c.reloptions) AS o WHERE NOT ("
                    + "(pg_catalog.starts_with(o, 'autovacuum_') AND NOT pg_catalog.starts_with(o, 'autovacuum_enabled='))"
                    + " OR pg_catalog.starts_with(o, 'toast.autovacuum_')"
                    + " OR pg_catalog.starts_with(o, 'vacuum_') OR pg_catalog.starts_with(o, 'toast.vacuum_')"
                    + " OR pg_catalog.starts_with(o, 'log_autovacuum_min_duration='))), ', '), ''"
                    + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "c.relnamespace"
                    + " WHERE c.reloptions IS NOT NULL AND " + USER_SCHEMA + ") AS options (kind, name, value, planner)"
                    + " WHERE options.value" + NE + "''",
            // Statistics ANALYZE at the built-in default target (100) cannot have made: a column of an analyzed table
            // with none (its target was 0 when ANALYZE ran), more common values or histogram bounds than that target
            // keeps (a higher one). How they look afterwards shows these; statistics written by pg_restore_*_stats
            // look like any others and are found by the statements that wrote them (PlannerInputs).
            "SELECT * FROM (SELECT 'statistics', c.oid::pg_catalog.regclass::pg_catalog.text, pg_catalog.concat_ws('; ',"
                    + " (SELECT 'no statistics for ' OPERATOR(pg_catalog.||) pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', '"
                    + " ORDER BY a.attnum) FROM pg_catalog.pg_attribute a WHERE a.attrelid" + EQ + "c.oid AND a.attnum OPERATOR(pg_catalog.>) 0"
                    + " AND NOT a.attisdropped AND NOT EXISTS (SELECT FROM pg_catalog.pg_stats s WHERE s.schemaname" + EQ + "n.nspname"
                    + " AND s.tablename" + EQ + "c.relname AND s.attname" + EQ + "a.attname)),"
                    + " (SELECT 'more statistics than the default target keeps for ' OPERATOR(pg_catalog.||)"
                    + " pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(s.attname), ', ') FROM pg_catalog.pg_stats s WHERE s.schemaname"
                    + EQ + "n.nspname AND s.tablename" + EQ + "c.relname AND (COALESCE(pg_catalog.cardinality(s.most_common_freqs), 0)"
                    + " OPERATOR(pg_catalog.>) 100 OR COALESCE(pg_catalog.array_length(s.histogram_bounds, 1), 0) OPERATOR(pg_catalog.>) 101))), ''"
                    + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "c.relnamespace"
                    + " WHERE c.relkind OPERATOR(pg_catalog.=) ANY ('{r,m,p}'::pg_catalog.\"char\"[]) AND " + USER_SCHEMA
                    + " AND EXISTS (SELECT FROM pg_catalog.pg_stats s WHERE s.schemaname" + EQ + "n.nspname AND s.tablename" + EQ + "c.relname))"
                    + " AS made (kind, name, oddities, planner) WHERE made.oddities" + NE + "''",
            // Extended statistics (CREATE STATISTICS) are an input of the plans of their table's queries.
            "SELECT 'extended statistics', x.stxrelid::pg_catalog.regclass::pg_catalog.text" + CAT + "'.'" + CAT
                    + "pg_catalog.quote_ident(x.stxname), pg_catalog.array_to_string(x.stxkind, ', '), '' FROM pg_catalog.pg_statistic_ext x"
                    + " JOIN pg_catalog.pg_class c ON c.oid" + EQ + "x.stxrelid JOIN pg_catalog.pg_namespace n ON n.oid" + EQ
                    + "c.relnamespace WHERE " + USER_SCHEMA,
            // The session's temporary schema comes first on the search path for tables and types: a temporary
            // object shadows the page's own of that name.
            "SELECT 'temporary relation', c.relname::pg_catalog.text, c.relkind::pg_catalog.text, '' FROM pg_catalog.pg_class c"
                    + " WHERE c.relnamespace" + EQ + "pg_catalog.pg_my_temp_schema() AND c.relkind OPERATOR(pg_catalog.=) ANY"
                    + " ('{r,v,m,p,f}'::pg_catalog.\"char\"[])");

    /** One condition: what it is, its value, and the snippet that made it (null: the page's start, i.e. the server). */
    record Condition(String kind, String name, String value, Snippet origin, boolean plannerSetting) {

        boolean hidden() {
            return origin == null || origin.directives().hidden() || origin.directives().setup();
        }

        /** Settings and table options change what the planner sees; a shadowing name changes what SQL means. */
        boolean plannerInput() {
            return switch (kind) {
                case "setting", "role or database setting" -> plannerSetting && !PLAN_NEUTRAL.contains(name);
                case "statistics target", "column options", "storage options", "temporary relation", "extended statistics" -> true;
                case "statistics" -> !value.isEmpty();
                default -> false;
            };
        }

        /** The table a statistics target or storage option is on, without schema ("orders"); "" for other kinds. */
        String table() {
            if (!plannerInput() || kind.contains("setting")) {
                return "";
            }
            String[] parts = name.replace("\"", "").split("\\.");
            boolean column = !kind.equals("storage options") && !kind.equals("statistics");
            return parts.length >= 2 && column ? parts[parts.length - 2] : parts[parts.length - 1];
        }

        /** The condition itself, in SQL's words ("transform_null_equals = on", "lower(character varying)"). */
        String what() {
            return switch (kind) {
                case "setting" -> name + " = " + value;
                case "role or database setting" -> name + " = " + value + " (on the page's role or database)";
                case "shadowing function", "shadowing operator", "shadowing type" -> name;
                case "statistics target" -> "statistics target of " + name + " = " + value;
                case "statistics" -> "statistics of " + name + " that ANALYZE at the default target does not make (" + value + ")";
                case "extended statistics" -> "extended statistics " + name + " (" + value + ")";
                case "temporary relation" -> "pg_temp." + name + " (a temporary relation, found before the page's own tables)";
                default -> kind + " of " + name + ": " + value;
            };
        }

        /** For the evidence: what, the line of the snippet that made it ("" for the server), and whether readers see that snippet. */
        String fact() {
            return what() + "\t" + (origin == null ? "" : Integer.toString(origin.location().line())) + "\t"
                    + (origin == null ? "server" : hidden() ? "hidden" : "visible") + "\t" + kind;
        }

        String describe() {
            String what = switch (kind) {
                case "role or database setting" -> name + " = " + value + " (set on the page's role or database: reaches every new session)";
                case "shadowing function", "shadowing operator", "shadowing type" ->
                        name + " (" + kind.substring("shadowing ".length()) + " named like one in pg_catalog, on the search path)";
                default -> what();
            };
            String where = origin == null ? "before the page's first snippet (the server's or Kensho's configuration)"
                    : (hidden() ? "by the " + (origin.directives().setup() ? "setup" : "hidden") + " snippet at " : "by the snippet at ")
                    + origin.location();
            return what + ", made " + where;
        }
    }

    private final Connection connection;
    private final StatementGuard guard;
    /** Everything the probe saw at the page's start: what every page has, so not a condition. */
    private Map<String, String[]> baseline;
    private final Map<String, Condition> standing = new LinkedHashMap<>();

    RunConditions(Connection connection, StatementGuard guard) {
        this.connection = connection;
        this.guard = guard;
    }

    /** Takes the page's starting state; call before the first snippet. */
    void start() throws SQLException {
        baseline = probe();
    }

    boolean started() {
        return baseline != null;
    }

    /** The snippet after which the state could not be read (its transaction had failed), or null. */
    private Snippet unread;

    /** The snippet whose changes could not be read yet; its conditions are stated as unknown until they can be. */
    Snippet unread() {
        return unread;
    }

    /** The last snippet that ran with no probe after it; what it changed is attributed to it before a hidden one runs. */
    private Snippet unprobed;

    /** Before a hidden or setup snippet, so that what visible snippets changed since the last probe is not laid at its door. */
    void before(Snippet snippet) {
        if (started() && unprobed != null && (snippet.directives().hidden() || snippet.directives().setup())) {
            after(unprobed);
        }
    }

    /** After every snippet: probes when it must, else remembers that the state may have moved. */
    void ran(Snippet snippet) {
        if (wantsProbeAfter(snippet)) {
            after(snippet);
        } else {
            unprobed = snippet;
        }
    }

    /** True when the probe must run after {@code snippet}. */
    boolean wantsProbeAfter(Snippet snippet) {
        return started() && (snippet.directives().hidden() || snippet.directives().setup() || !standing.isEmpty() || unread != null);
    }

    /** Re-reads the state after {@code snippet} ran and attributes what changed to it. */
    void after(Snippet snippet) {
        unprobed = null;
        Map<String, String[]> now;
        try {
            if (inTransaction()) {
                throw new SQLException("the page's transaction is open");
            }
            now = probe();
        } catch (SQLException e) {
            // An open or aborted transaction: the state is not read until the page ends it. What changed is laid at this
            // snippet's door at the next probe, which runs after every snippet until one succeeds.
            if (unread == null) {
                unread = snippet;
            }
            return;
        }
        Snippet maker = unread != null ? unread : snippet;
        unread = null;
        standing.keySet().removeIf(key -> !now.containsKey(key) || !Objects.equals(now.get(key)[2], standing.get(key).value()));
        for (Map.Entry<String, String[]> entry : now.entrySet()) {
            String[] row = entry.getValue();
            String[] before = baseline.get(entry.getKey());
            if (IGNORED.contains(row[1]) || (before != null && Objects.equals(before[2], row[2])) || standing.containsKey(entry.getKey())) {
                continue;
            }
            standing.put(entry.getKey(), new Condition(row[0], row[1], row[2], maker, "true".equals(row[3])));
        }
    }

    /** Conditions in effect now, in the order they appeared. */
    List<Condition> standing() {
        return List.copyOf(standing.values());
    }

    /** The snippet whose run last changed {@code setting}, or null when the page did not (the server's configuration). */
    Snippet originOf(String setting) {
        Condition condition = standing.get("setting\u0000" + setting);
        return condition == null ? null : condition.origin();
    }

    private boolean inTransaction() {
        try {
            return connection.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState()
                    != org.postgresql.core.TransactionState.IDLE;
        } catch (SQLException e) {
            return true;
        }
    }

    private Map<String, String[]> probe() throws SQLException {
        Map<String, String[]> rows = new LinkedHashMap<>();
        guard.run(connection, () -> {
            try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(PROBE)) {
                while (rs.next()) {
                    String[] row = {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)};
                    rows.put(row[0] + "\u0000" + row[1], row);
                }
            }
            return null;
        });
        return rows;
    }

    static List<String> describeAll(List<Condition> conditions) {
        List<String> out = new ArrayList<>();
        conditions.forEach(c -> out.add(c.describe()));
        return out;
    }
}
