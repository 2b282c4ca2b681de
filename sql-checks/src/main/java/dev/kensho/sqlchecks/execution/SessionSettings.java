package dev.kensho.sqlchecks.execution;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.Collections;
import java.util.LinkedHashMap;

/**
 * The session every page's SQL runs in, the same whatever the build machine, the JVM's time zone or
 * locale, and the server's configuration file: output-shaping settings fixed to stock values, and
 * planner settings at PostgreSQL's built-in defaults, so that a plan claim is about the default
 * planner. A snippet may still change any of them; a plan claim then fails naming the setting.
 */
public final class SessionSettings {

    /**
     * Set on every connection of a page after it opens: the JDBC driver sends the JVM's time zone
     * and its own extra_float_digits at start-up, which would otherwise win over role defaults.
     */
    public static final Map<String, String> OUTPUT = orderedMap(
            "TimeZone", "UTC",
            "DateStyle", "ISO, MDY",
            "IntervalStyle", "postgres",
            "extra_float_digits", "1",
            "bytea_output", "hex",
            "lc_monetary", "C",
            "lc_numeric", "C",
            "lc_time", "C",
            // How the server reports each statement's parse tree to the session itself (ParseCapture):
            // results are the same, only what reaches the client besides them differs.
            "client_min_messages", "log",
            "debug_print_parse", "on",
            // The same after rewriting: a view of the page's expanded into its query (ParseTreeGate judges what it shows).
            "debug_print_rewritten", "on",
            "debug_pretty_print", "off");

    /** What pgjdbc sends in the start-up packet itself, after the options (which it would override there). */
    private static final java.util.Set<String> SENT_BY_THE_DRIVER = java.util.Set.of("TimeZone", "DateStyle", "extra_float_digits");

    /**
     * The output settings as the session's start-up options ({@code -c name=value}): they become the values RESET,
     * RESET ALL and DISCARD ALL return to, so that a page's reset leaves the parse reports on ({@link ParseCapture}) and the
     * output as stated, just as a reader's reset returns to the reader's own start-up values. The SETs of
     * {@link #apply} still follow, for what the driver sends at start-up itself.
     */
    static String startupOptions() {
        return OUTPUT.entrySet().stream().filter(e -> !SENT_BY_THE_DRIVER.contains(e.getKey()))
                .map(e -> "-c " + e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }

    /** Stock values of the limits a lesson could otherwise lean on, set on the page's role (lc_messages needs a superuser). */
    public static final Map<String, String> ROLE = orderedMap(
            "statement_timeout", "0",
            "lock_timeout", "0",
            "idle_in_transaction_session_timeout", "0",
            "transaction_timeout", "0",
            "lc_messages", "C");

    private SessionSettings() {
    }

    /** Everything above as one line, for the cache key and the report. */
    public static String describe() {
        return OUTPUT.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "))
                + "; " + ROLE.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "))
                + "; planner settings at their built-in defaults";
    }

    /** Statements that give a new role the stock limits. */
    static List<String> roleStatements(String role, int major) {
        return ROLE.entrySet().stream().filter(e -> ParametersByVersion.exists(e.getKey(), major)).map(e -> "ALTER ROLE " + role + " SET " + e.getKey() + " = '" + e.getValue() + "'").toList();
    }

    /** Planner settings (and the memory they plan with) whose value is not the built-in one, with that value. */
    static final String PLANNER_DEFAULTS_CHANGED = "SELECT name, boot_val FROM pg_catalog.pg_settings"
            + " WHERE (category" + CatalogSql.LIKE + "'Query Tuning%' OR name" + CatalogSql.EQ
            + "ANY ('{work_mem,hash_mem_multiplier}'::pg_catalog.text[]))"
            + " AND context" + CatalogSql.EQ + "'user' AND (setting" + CatalogSql.NE + "boot_val OR (setting IS NULL)" + CatalogSql.NE
            + "(boot_val IS NULL))";

    /** Applies the output settings and resets planner settings the server's configuration changed. */
    static void apply(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            // One round trip for the SETs and the read of the planner settings (the simple protocol sends the statements
            // as one query string; SET is not LOCAL, so the implicit transaction's commit keeps them). Every session of
            // every page opens with this: a round trip saved here is one per page and per scenario session.
            statement.setEscapeProcessing(false);
            boolean isResultSet = statement.execute(OUTPUT.entrySet().stream()
                    .map(setting -> "SET " + setting.getKey() + " = '" + setting.getValue() + "'")
                    .collect(Collectors.joining("; ")) + "; " + PLANNER_DEFAULTS_CHANGED);
            while (!isResultSet) {
                if (statement.getUpdateCount() == -1) {
                    throw new SQLException("the server returned no rows for the planner settings' read");
                }
                isResultSet = statement.getMoreResults();
            }
            List<String> resets = new ArrayList<>();
            try (ResultSet rs = statement.getResultSet()) {
                while (rs.next()) {
                    resets.add("SET " + rs.getString(1) + " = '" + rs.getString(2).replace("'", "''") + "'");
                }
            }
            if (!resets.isEmpty()) {
                statement.execute(String.join("; ", resets));
            }
        }
    }

    private static Map<String, String> orderedMap(String... pairs) {
        LinkedHashMap<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return Collections.unmodifiableMap(map);
    }
}
