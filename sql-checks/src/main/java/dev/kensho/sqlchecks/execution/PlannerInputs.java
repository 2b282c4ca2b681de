package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.assertion.PlanCheck;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a plan was made with the planner's default inputs, and where each input that was not came
 * from. Plan claims are about PostgreSQL's default planner on the page's visible schema: a planner
 * setting, statistics target or storage option changed where the reader cannot see it (a hidden or
 * setup snippet, the server's or role's configuration, a function's SET clause) makes them
 * uncheckable; one a visible snippet made is stated with the plan.
 */
final class PlannerInputs {

    /**
     * @param unseen inputs changed where readers cannot see it, described with where they were changed
     * @param shown  settings a visible snippet changed, with the snippet
     */
    record Verdict(List<String> unseen, List<String> shown) {
    }

    private final RunConditions conditions;
    /** The page's snippets in the order they ran so far (shared with the runner, which appends). */
    private final List<Snippet> ran;

    PlannerInputs(RunConditions conditions, List<Snippet> ran) {
        this.conditions = conditions;
        this.ran = ran;
    }

    Verdict of(PlanCheck shape, List<RunConditions.Condition> standing) {
        List<String> unseen = new ArrayList<>();
        List<String> shown = new ArrayList<>();
        for (PlanCheck.Setting setting : shape.settings()) {
            if (RunConditions.PLAN_NEUTRAL.contains(setting.name())) {
                continue;
            }
            // A hidden or setup snippet's change is always seen by the probe after it; anything else the page
            // itself did is in a visible snippet's SQL.
            Snippet origin = conditions.originOf(setting.name());
            if (origin == null) {
                origin = visibleSetting(setting.name());
            }
            String text = setting.name() + " = " + setting.value();
            if (origin != null && !origin.directives().hidden() && !origin.directives().setup()) {
                shown.add(text + " (set by the snippet at " + origin.location() + ")");
            } else {
                unseen.add(text + " (" + (origin != null ? "set by the " + (origin.directives().setup() ? "setup" : "hidden")
                        + " snippet at " + origin.location() : "not set by a visible snippet on this page: the server's, role's"
                        + " or a function's configuration, or a hidden snippet") + "; seen in " + setting.origin() + ")");
            }
        }
        for (Snippet earlier : ran) {
            String writer = statisticsWriter(earlier);
            if (writer != null && (earlier.directives().hidden() || earlier.directives().setup())) {
                unseen.add("statistics written by " + writer + " in the " + (earlier.directives().setup() ? "setup" : "hidden")
                        + " snippet at " + earlier.location() + " (they look like ANALYZE's, but no ANALYZE of the reader's made them)");
            }
        }
        Snippet unread = conditions.unread();
        if (unread != null && (unread.directives().hidden() || unread.directives().setup())) {
            unseen.add("whatever the snippet at " + unread.location() + " changed (the session's state could not be read after it)");
        }
        Set<String> read = new LinkedHashSet<>();
        shape.relations().forEach(r -> read.add(r.substring(r.lastIndexOf('.') + 1)));
        for (RunConditions.Condition condition : standing) {
            if (condition.plannerInput() && condition.hidden() && !condition.kind().contains("setting")
                    && read.contains(condition.table())) {
                unseen.add(condition.describe());
            }
        }
        return new Verdict(unseen, shown);
    }

    /** Every planner input hidden setup left standing, for plans the page shows as a table (EXPLAIN rows). */
    List<String> hidden(List<RunConditions.Condition> standing) {
        List<String> hidden = new ArrayList<>(standing.stream().filter(c -> c.hidden() && c.plannerInput())
                .map(RunConditions.Condition::describe).toList());
        for (Snippet earlier : ran) {
            String writer = statisticsWriter(earlier);
            if (writer != null && (earlier.directives().hidden() || earlier.directives().setup())) {
                hidden.add("statistics written by " + writer + " in the " + (earlier.directives().setup() ? "setup" : "hidden")
                        + " snippet at " + earlier.location());
            }
        }
        return hidden;
    }

    /**
     * PostgreSQL 18's functions that write planner statistics directly, which make statistics no ANALYZE made
     * and which look, afterwards, like any ANALYZE's (a forged most-common-values list): they are found by
     * the statements that call them, in the snippet's SQL and in the bodies and strings it carries (a DO
     * block, a function it defines, an EXECUTE'd string).
     */
    private static final List<String> STATISTICS_WRITERS = List.of("pg_restore_relation_stats", "pg_restore_attribute_stats",
            "pg_clear_relation_stats", "pg_clear_attribute_stats");

    /** The first statistics-writing function the snippet names, or null. */
    static String statisticsWriter(Snippet snippet) {
        for (SqlLexer.Token token : SqlLexer.tokens(snippet.sql())) {
            String text = token.text().toLowerCase(Locale.ROOT);
            for (String writer : STATISTICS_WRITERS) {
                boolean named = token.kind() == SqlLexer.Kind.WORD ? text.equals(writer)
                        : (token.kind() == SqlLexer.Kind.STRING || token.kind() == SqlLexer.Kind.DOLLAR_STRING
                        || token.kind() == SqlLexer.Kind.QUOTED_IDENTIFIER) && text.contains(writer);
                if (named) {
                    return writer;
                }
            }
        }
        return null;
    }

    /**
     * The first visible snippet, in run order, that sets the setting itself: a {@code SET} or
     * {@code RESET} statement naming it, or a {@code set_config('name', …)} call. A mention in a
     * comment, a string or a {@code SHOW} is no setting.
     */
    private Snippet visibleSetting(String setting) {
        String name = setting.toLowerCase(Locale.ROOT);
        for (Snippet earlier : ran) {
            if (earlier.directives().hidden() || earlier.directives().setup()) {
                continue;
            }
            for (SqlStatement statement : SqlSplitter.split(earlier.sql())) {
                List<SqlLexer.Token> tokens = SqlLexer.tokens(statement.text()).stream().filter(SqlLexer.Token::significant).toList();
                if (tokens.isEmpty()) {
                    continue;
                }
                String first = tokens.get(0).word();
                if (first.equals("set") || first.equals("reset")) {
                    int at = tokens.size() > 1 && (tokens.get(1).word().equals("session") || tokens.get(1).word().equals("local")) ? 2 : 1;
                    if (at < tokens.size() && tokens.get(at).word().equals(name)) {
                        return earlier;
                    }
                }
                for (int i = 0; i + 2 < tokens.size(); i++) {
                    if (tokens.get(i).word().equals("set_config") && tokens.get(i + 1).kind() == SqlLexer.Kind.OPEN_PAREN
                            && tokens.get(i + 2).text().toLowerCase(Locale.ROOT).equals("'" + name + "'")) {
                        return earlier;
                    }
                }
            }
        }
        return null;
    }
}
