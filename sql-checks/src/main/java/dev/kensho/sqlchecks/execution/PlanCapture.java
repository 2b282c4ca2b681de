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

    /** The role whose members may switch capture on and off; nothing else is granted to it. */
    static final String CAPTURE_ROLE = "kensho_plan_capture";

    /**
     * auto_explain's settings, fixed on a page's role by the superuser connection: every plan
     * measured (ANALYZE, BUFFERS, timing), nested statements and triggers included, as JSON with the
     * settings that shaped it, sent to the page's own connection as a NOTICE. Only
     * {@code log_min_duration} (on or off) is left to the role, through {@link #CAPTURE_ROLE}.
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

    static final String ON = "SET auto_explain.log_min_duration = 0";
    static final String OFF = "SET auto_explain.log_min_duration = -1";

    /** Once per server, on the superuser connection. */
    static String serverSetup() {
        return "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) '" + CAPTURE_ROLE
                + "') THEN CREATE ROLE " + CAPTURE_ROLE + " NOLOGIN; END IF; END$$; GRANT SET ON PARAMETER auto_explain.log_min_duration TO "
                + CAPTURE_ROLE;
    }

    static List<String> roleStatements(String role) {
        List<String> statements = new ArrayList<>();
        for (String setting : SETTINGS) {
            statements.add("ALTER ROLE " + role + " SET " + setting);
        }
        statements.add("GRANT " + CAPTURE_ROLE + " TO " + role + " WITH INHERIT TRUE, SET FALSE");
        return statements;
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
        if (overflowed || plans.size() >= CapturedPlans.MAX_PLANS || chars + message.length() > MAX_CHARS) {
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
