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
 * included, can claim.
 *
 * <p>Whether a page's sessions can report plans at all is decided before they open, by the role
 * Kensho's superuser connection makes for the page ({@link #roleStatements}): a page with no plan or
 * work claim loads no auto_explain, and nothing of it is sent on its connection. On a page with one,
 * every statement is measured and nothing is sent around the claimed statement; Kensho keeps its plans.
 * (A switch the page's role could SET per statement was also one the page's own trigger could turn off
 * while the claimed statement ran, hiding its nested statements' plans. The price of measuring throughout:
 * a bulk INSERT sends a plan for every row's foreign-key check, and 10,000 rows took longer than the
 * 5 s statement limit.) Measuring changes no result, lock, snapshot or transaction state: auto_explain only
 * adds instrumentation to the executor and prints the plan at the statement's end.
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
     * auto_explain's settings, fixed on a page's role by the superuser connection: every statement
     * measured (ANALYZE, BUFFERS, timing), nested statements and triggers included, as JSON with the
     * settings that shaped it, sent to the page's own connection as a NOTICE; Kensho keeps the claimed
     * statement's. The page cannot change any of them: they are superuser settings and the role holds
     * no SET privilege on them. (A switch the role could SET around the claimed statement was also one
     * the page's own trigger could turn off while it ran, hiding its nested statements' plans.)
     */
    private static final List<String> SETTINGS = List.of(
            "session_preload_libraries = 'auto_explain'",
            "auto_explain.log_min_duration = 0",
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

    /** The names of auto_explain's settings Kensho sets. */
    static List<String> settingNames() {
        return SETTINGS.stream().map(setting -> setting.substring(0, setting.indexOf(' '))).filter(n -> n.startsWith("auto_explain"))
                .toList();
    }

    /** Statements that make a page's role report plans; only for a page that claims one (see the class comment). */
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

    private final List<CapturedPlans.Plan> plans = new ArrayList<>();
    private long chars;
    private boolean overflowed;

    /** Whether a message is auto_explain's report (raised by its C function), which a page's SQL cannot forge. */
    static boolean isReport(SQLWarning warning) {
        if (!(warning instanceof PSQLWarning psql)) {
            return false;
        }
        ServerErrorMessage server = psql.getServerErrorMessage();
        return server != null && ROUTINE.equals(server.getRoutine()) && server.getFile() != null && server.getFile().endsWith(FILE);
    }

    /** Takes one NOTICE of the running statement; anything but auto_explain's report is let go. */
    synchronized void offer(SQLWarning warning) {
        if (!isReport(warning)) {
            return;
        }
        String message = String.valueOf(((PSQLWarning) warning).getServerErrorMessage().getMessage());
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
