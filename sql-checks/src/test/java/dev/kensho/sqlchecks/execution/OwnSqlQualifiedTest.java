package dev.kensho.sqlchecks.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kensho.sqlchecks.script.SqlLexer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Kensho's own statements that run where the page's names resolve (the page's session, or a session as the page's role)
 * name every function, operator and type by its pg_catalog name ({@link CatalogSql}): an unqualified one could run the
 * page's code inside Kensho's read.
 */
class OwnSqlQualifiedTest {

    /** Every statement Kensho sends where the page's names resolve. */
    private static final Map<String, String> WHERE_PAGE_NAMES_RESOLVE = Map.ofEntries(
            Map.entry("RunConditions.PROBE", RunConditions.PROBE),
            Map.entry("ScriptRunner.PAGE_SESSION_STATE", ScriptRunner.PAGE_SESSION_STATE),
            Map.entry("ScenarioRunner.HAS_SEQUENCES", ScenarioRunner.HAS_SEQUENCES),
            Map.entry("StockSession.QUERY", StockSession.QUERY),
            Map.entry("SessionSettings.PLANNER_DEFAULTS_CHANGED", SessionSettings.PLANNER_DEFAULTS_CHANGED),
            Map.entry("PlanCatalog.SEES", PlanCatalog.SEES),
            Map.entry("PlanCatalog.INDEX_KEYS", PlanCatalog.INDEX_KEYS),
            Map.entry("PlanCatalog.TOAST_BYTES", PlanCatalog.TOAST_BYTES),
            Map.entry("PlanCatalog.RESOLVE", PlanCatalog.RESOLVE),
            Map.entry("PlanCatalog.FAMILY", PlanCatalog.FAMILY));

    /** Words before a parenthesis that are SQL's own syntax, not a function looked up by name. */
    private static final Set<String> SYNTAX = Set.of("exists", "any", "all", "values", "coalesce", "nullif", "greatest", "least",
            "operator", "select", "from", "join", "on", "and", "or", "not", "where", "in", "as", "array", "row", "over", "filter");
    /** Operators spelled as words, resolved by name like any other operator. */
    private static final Set<String> OPERATOR_WORDS = Set.of("like", "ilike", "similar", "between", "in");
    private static final String OPERATOR_CHARACTERS = "+-*/<>=~!@#%^&|`?";

    @Test
    void everyFunctionOperatorAndTypeIsPgCatalogs() {
        List<String> found = new ArrayList<>();
        WHERE_PAGE_NAMES_RESOLVE.forEach((name, sql) -> unqualified(sql).forEach(problem -> found.add(name + ": " + problem)));
        assertEquals(List.of(), found);
    }

    @Test
    void theCheckFindsWhatTheRedTeamUsed() {
        // helper-94's page shadowed format() and =, and set search_path = public, pg_catalog
        assertEquals(List.of("function format( not pg_catalog's", "operator = outside OPERATOR(pg_catalog.…)"),
                unqualified("SELECT format('%s', name) FROM pg_catalog.pg_cursors WHERE name = 'x'"));
        assertEquals(List.of("operator word like", "type float8 not pg_catalog's", "operator word in",
                        "operator word distinct (IS DISTINCT FROM)"),
                unqualified("SELECT 1 WHERE 'a' LIKE 'b' AND 1::float8 IN (1) AND 1 IS DISTINCT FROM 2"));
        assertEquals(List.of("operator - outside OPERATOR(pg_catalog.…)"), unqualified("SELECT 1 - 1"));
        assertEquals(List.of(), unqualified("SELECT pg_catalog.count(*), t.* FROM pg_catalog.pg_class AS t(a) WHERE 1 OPERATOR(pg_catalog.=) -1"
                + " AND 'x'::pg_catalog.\"char\" OPERATOR(pg_catalog.=) ANY ('{r}'::pg_catalog.\"char\"[])"));
    }

    static List<String> unqualified(String sql) {
        List<SqlLexer.Token> tokens = SqlLexer.tokens(sql).stream().filter(SqlLexer.Token::significant).toList();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token token = tokens.get(i);
            String previous = i > 0 ? tokens.get(i - 1).text() : "";
            if (token.kind() == SqlLexer.Kind.SYMBOL && OPERATOR_CHARACTERS.contains(token.text())) {
                if (operatorQualified(tokens, i) || token.text().equals("*") && (previous.equals("(") || previous.equals(".")
                        || previous.equalsIgnoreCase("select")) || token.text().equals("?") /* a JDBC parameter */
                        || negativeConstant(tokens, i)) {
                    continue;
                }
                problems.add("operator " + token.text() + " outside OPERATOR(pg_catalog.…)");
                while (i + 1 < tokens.size() && OPERATOR_CHARACTERS.contains(tokens.get(i + 1).text())) {
                    i++; // one problem per operator, however many characters it has
                }
                continue;
            }
            if (token.kind() != SqlLexer.Kind.WORD) {
                continue;
            }
            String word = token.word();
            boolean qualified = i >= 2 && previous.equals(".") && tokens.get(i - 2).word().equals("pg_catalog");
            if (OPERATOR_WORDS.contains(word)) {
                problems.add("operator word " + word);
            } else if (word.equals("distinct") && (previous.equalsIgnoreCase("is") || previous.equalsIgnoreCase("not"))) {
                problems.add("operator word distinct (IS DISTINCT FROM)");
            } else if (i >= 2 && previous.equals(":") && tokens.get(i - 2).text().equals(":") && !word.equals("pg_catalog")) {
                problems.add("type " + word + " not pg_catalog's");
            } else if (i + 1 < tokens.size() && tokens.get(i + 1).kind() == SqlLexer.Kind.OPEN_PAREN && !qualified
                    && !word.equals("pg_catalog") && !SYNTAX.contains(word) && !previous.equalsIgnoreCase("as")
                    && !previous.equalsIgnoreCase("recursive")) {
                problems.add("function " + word + "( not pg_catalog's");
            }
        }
        return problems;
    }

    /**
     * A minus sign before a number right after an operator or a parenthesis: the grammar folds it into a negative constant
     * (gram.y's doNegate), with no operator looked up.
     */
    private static boolean negativeConstant(List<SqlLexer.Token> tokens, int at) {
        return tokens.get(at).text().equals("-") && at + 1 < tokens.size() && tokens.get(at + 1).text().matches("[0-9]+")
                && at > 0 && (tokens.get(at - 1).text().equals(")") || tokens.get(at - 1).text().equals("("));
    }

    /** Whether the operator at {@code at} is inside {@code OPERATOR(pg_catalog.…)}. */
    private static boolean operatorQualified(List<SqlLexer.Token> tokens, int at) {
        int i = at - 1;
        while (i >= 0 && OPERATOR_CHARACTERS.contains(tokens.get(i).text())) {
            i--;
        }
        return i >= 3 && tokens.get(i).text().equals(".") && tokens.get(i - 1).word().equals("pg_catalog")
                && tokens.get(i - 2).kind() == SqlLexer.Kind.OPEN_PAREN && tokens.get(i - 3).word().equals("operator");
    }
}
