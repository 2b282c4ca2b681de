package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.CapturedPlans;
import org.postgresql.util.PSQLWarning;
import org.postgresql.util.ServerErrorMessage;

import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the plans PostgreSQL's own {@code auto_explain} reports for one execution of a statement:
 * the statement's plan and the plan of every statement it caused (foreign-key checks, triggers,
 * functions), each measured on that very execution with ANALYZE and BUFFERS. Plans arrive as NOTICEs
 * on the page's connection ({@code auto_explain.log_level = notice}); a NOTICE counts as a plan only
 * when the server says auto_explain's own C function raised it, which no SQL, PL/pgSQL {@code RAISE}
 * included, can claim. The other auto_explain settings are fixed on the page's role by Kensho's
 * superuser connection and cannot be changed by a page (see {@link PageDatabase}).
 */
public final class PlanCapture {

    /** The routine and file PostgreSQL names for auto_explain's report; a page cannot raise a message from C code. */
    private static final String ROUTINE = "explain_ExecutorEnd";
    private static final String FILE = "auto_explain.c";
    private static final String PLAN_MARK = "plan:\n";

    private static final long MAX_CHARS = 32L << 20;
    /** One report at most (below the JSON reader's own limits); a larger one counts as more than Kensho accounts for. */
    private static final int MAX_REPORT_CHARS = 4 << 20;

    /**
     * auto_explain's settings, fixed on a page's role by the superuser connection: every plan
     * measured (ANALYZE, BUFFERS, timing), nested statements and triggers included, as JSON with the
     * settings that shaped it, sent to the page's own connection as a NOTICE. The page cannot change
     * any of them (they are superuser settings and the role holds no SET privilege on them); only
     * {@link Switch} turns capture on and off, for the claimed statement.
     */
    private static final List<String> SETTINGS = List.of(
            "session_preload_libraries = 'auto_explain'",
            "auto_explain.log_min_duration = -1",
            "auto_explain.log_analyze = on",
            "auto_explain.log_buffers = on",
            "auto_explain.log_timing = on",
            "auto_explain.log_nested_statements = on",
            "auto_explain.log_triggers = on",
            "auto_explain.log_settings = on",
            "auto_explain.log_verbose = on",
            "auto_explain.log_format = json",
            "auto_explain.log_level = notice",
            "auto_explain.log_parameter_max_length = 0",
            "auto_explain.sample_rate = 1");

    static List<String> roleStatements(String role, int major) {
        List<String> statements = new ArrayList<>();
        for (String setting : SETTINGS) {
            if (!ParametersByVersion.exists(setting.substring(0, setting.indexOf(' ')), major)) {
                continue;
            }
            statements.add("ALTER ROLE " + role + " SET " + setting);
        }
        return statements;
    }

    /**
     * The one way to switch capture: a SECURITY DEFINER function owned by the superuser, which sets
     * {@code auto_explain.log_min_duration} only for a caller that knows this build's random key. Its
     * body holds the key's SHA-256, never the key, so a page that reads the function's source learns
     * nothing it can call it with. The function has no SET clause (that would undo the change on
     * return); every name in it is schema-qualified instead.
     */
    static final class Switch {
        private final String key = java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16));

        String installSql() {
            String digest;
            try {
                digest = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            return "CREATE OR REPLACE FUNCTION kensho_guard.capture_plans(key text, capture boolean) RETURNS void"
                    + " LANGUAGE plpgsql SECURITY DEFINER AS $switch$ BEGIN"
                    + " IF pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(key, 'UTF8')), 'hex') OPERATOR(pg_catalog.<>) '"
                    + digest + "' THEN RAISE EXCEPTION 'Kensho: only Kensho switches plan capture' USING ERRCODE = '42501'; END IF;"
                    + " PERFORM pg_catalog.set_config('auto_explain.log_min_duration', CASE WHEN capture THEN '0' ELSE '-1' END, false);"
                    + " END $switch$; GRANT USAGE ON SCHEMA kensho_guard TO PUBLIC;"
                    + " GRANT EXECUTE ON FUNCTION kensho_guard.capture_plans(text, boolean) TO PUBLIC";
        }

        String on() {
            return "SELECT kensho_guard.capture_plans('" + key + "', true)";
        }

        String off() {
            return "SELECT kensho_guard.capture_plans('" + key + "', false)";
        }
    }

    private final List<CapturedPlans.Plan> plans = new ArrayList<>();
    private long chars;
    private boolean overflowed;

    /** Takes one NOTICE of the running statement; anything but auto_explain's report is let go. */
    synchronized void offer(SQLWarning warning) {
        if (!(warning instanceof PSQLWarning psql)) {
            return;
        }
        ServerErrorMessage server = psql.getServerErrorMessage();
        if (server == null || !ROUTINE.equals(server.getRoutine()) || server.getFile() == null || !server.getFile().endsWith(FILE)) {
            return;
        }
        String message = String.valueOf(server.getMessage());
        int mark = message.indexOf(PLAN_MARK);
        if (mark < 0) {
            return;
        }
        if (overflowed || plans.size() >= CapturedPlans.MAX_PLANS || chars + message.length() > MAX_CHARS
                || message.length() > MAX_REPORT_CHARS) {
            overflowed = true;
            return;
        }
        chars += message.length();
        plans.add(new CapturedPlans.Plan(message.substring(mark + PLAN_MARK.length()), durationOf(message.substring(0, mark))));
    }

    /** "duration: 0.832 ms  " → 0.832; NaN when it cannot be read. */
    private static double durationOf(String head) {
        String text = head.replace("duration:", "").replace("ms", "").strip();
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** Everything captured, in the order the server finished the statements (the statement itself last). */
    synchronized CapturedPlans result(String sentText) {
        return CapturedPlans.of(plans, sentText, overflowed);
    }
}
