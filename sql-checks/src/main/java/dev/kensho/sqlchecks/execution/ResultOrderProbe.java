package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ResultTable;

import dev.kensho.sqlchecks.model.RowOrder;
import dev.kensho.sqlchecks.assertion.SqlText;
import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlLexer.Kind;
import dev.kensho.sqlchecks.script.SqlLexer.Token;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a statement's rows come sorted, and by which result columns, from the query the
 * server parsed rather than from its text: the query (the statement itself, the query a cursor was
 * declared with, or the one a prepared statement runs) is made a temporary view inside a transaction
 * or savepoint that is rolled back at once, and the server's own deparse of it
 * ({@code pg_get_viewdef}) is read. Nothing runs: a view is only parsed. Parentheses, comments,
 * string settings and literals that merely look like ORDER BY cannot mislead it.
 */
public final class ResultOrderProbe {

    private static final String VIEW = "kensho_order_probe";
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
    private static final Set<String> QUERY_STARTS = Set.of("select", "with", "values", "table");
    private static final Set<String> CLAUSE_ENDS = Set.of("limit", "offset", "fetch", "for");
    private static final Set<String> SELECT_LIST_ENDS = Set.of("from", "where", "group", "having", "window", "order", "limit",
            "offset", "fetch", "for", "union", "intersect", "except", "into");

    private ResultOrderProbe() {
    }

    /**
     * @param statement the statement as sent, which has just returned {@code columns} columns
     */
    public static RowOrder decide(Connection connection, String statement, int columns, StatementGuard guard) throws SQLException {
        boolean conforming = connection.unwrap(BaseConnection.class).getStandardConformingStrings();
        List<Token> tokens = significant(statement, conforming);
        if (tokens.isEmpty()) {
            return RowOrder.unordered("no query");
        }
        String first = firstWord(tokens);
        String query;
        String basis;
        if (first.equals("explain") || first.equals("show")) {
            // Their rows are lines of one text (a plan, a setting list) in the order the server prints them.
            return new RowOrder(true, null, "EXPLAIN and SHOW print their lines in order");
        }
        if (QUERY_STARTS.contains(first)) {
            query = statement;
            basis = "the server's parse of the query";
        } else if (first.equals("fetch") || first.equals("move")) {
            query = cursorQuery(connection, tokens.get(tokens.size() - 1), conforming);
            basis = "the server's parse of the cursor's query";
            if (query == null) {
                return RowOrder.unordered("the cursor's query is unknown");
            }
        } else if (first.equals("execute")) {
            query = preparedQuery(connection, tokens, conforming);
            basis = "the server's parse of the prepared statement";
            if (query == null) {
                return RowOrder.unordered("the prepared statement is unknown");
            }
        } else {
            // INSERT/UPDATE/DELETE/MERGE … RETURNING cannot sort what they return.
            return RowOrder.unordered("a data-modifying statement's RETURNING has no order");
        }
        String definition = deparse(connection, query, columns, guard);
        if (definition == null) {
            // A query a view cannot hold (a data-modifying WITH, say): only its text can be read.
            boolean ordered = SqlText.hasTopLevelOrderBy(query, conforming);
            return new RowOrder(ordered, ordered ? null : List.of(), "the statement's text (the server cannot make it a view)");
        }
        return fromDefinition(definition, conforming, basis);
    }

    /** Reads a view definition's top-level ORDER BY and maps each key to a result column where it is one. */
    static RowOrder fromDefinition(String definition, boolean conforming, String basis) {
        List<Token> tokens = significant(definition, conforming);
        int orderAt = -1;
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0 && tokens.get(i).word().equals("order") && tokens.get(i + 1).word().equals("by")) {
                orderAt = i + 2;
            }
        }
        if (orderAt < 0) {
            return RowOrder.unordered(basis);
        }
        List<List<String>> keys = new ArrayList<>();
        List<String> key = new ArrayList<>();
        for (int i = orderAt; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.depth() == 0 && (CLAUSE_ENDS.contains(token.word()) || token.kind() == Kind.SEMICOLON)) {
                break;
            }
            if (token.depth() == 0 && token.text().equals(",")) {
                keys.add(key);
                key = new ArrayList<>();
            } else {
                key.add(token.kind() == Kind.WORD ? token.word() : token.text());
            }
        }
        keys.add(key);
        List<List<String>> items = selectList(tokens);
        List<Integer> columns = new ArrayList<>();
        for (List<String> written : keys) {
            List<String> expression = stripDirection(written);
            if (isConstant(expression)) {
                continue; // a constant sorts nothing: every row ties on it
            }
            int column = columnOf(expression, items);
            if (column < 0) {
                return new RowOrder(true, null, basis);
            }
            if (!columns.contains(column)) {
                columns.add(column);
            }
        }
        if (columns.isEmpty()) {
            return RowOrder.unordered(basis + ": every ORDER BY key is a constant");
        }
        return new RowOrder(true, columns, basis);
    }

    /** The top-level select list's items, each without its {@code AS name}. */
    private static List<List<String>> selectList(List<Token> tokens) {
        int start = -1;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0 && tokens.get(i).word().equals("select")) {
                start = i + 1;
                break;
            }
        }
        List<List<String>> items = new ArrayList<>();
        if (start < 0) {
            return items;
        }
        if (start < tokens.size() && (tokens.get(start).word().equals("distinct") || tokens.get(start).word().equals("all"))) {
            start++;
            if (start < tokens.size() && tokens.get(start).word().equals("on")) {
                start++;
                int depth = tokens.get(start).depth();
                start++;
                while (start < tokens.size() && tokens.get(start).depth() > depth) {
                    start++;
                }
                start++;
            }
        }
        List<String> item = new ArrayList<>();
        for (int i = start; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.depth() == 0 && (SELECT_LIST_ENDS.contains(token.word()) || token.kind() == Kind.SEMICOLON)) {
                break;
            }
            if (token.depth() == 0 && token.text().equals(",")) {
                items.add(withoutAlias(item));
                item = new ArrayList<>();
            } else {
                item.add(token.kind() == Kind.WORD ? token.word() : token.text());
            }
        }
        items.add(withoutAlias(item));
        return items;
    }

    private static List<String> withoutAlias(List<String> item) {
        int n = item.size();
        if (n >= 3 && item.get(n - 2).equals("as")) {
            return item.subList(0, n - 2);
        }
        return item;
    }

    /** Drops ASC, DESC, NULLS FIRST|LAST and USING op from the end of a key, and parentheses around all of it. */
    private static List<String> stripDirection(List<String> key) {
        List<String> out = new ArrayList<>(key);
        int using = out.indexOf("using");
        if (using > 0) {
            out = new ArrayList<>(out.subList(0, using));
        }
        while (!out.isEmpty()) {
            String last = out.get(out.size() - 1);
            if (last.equals("asc") || last.equals("desc") || last.equals("first") || last.equals("last") || last.equals("nulls")) {
                out.remove(out.size() - 1);
            } else {
                break;
            }
        }
        while (out.size() >= 2 && out.get(0).equals("(") && out.get(out.size() - 1).equals(")") && balancedInside(out)) {
            out = new ArrayList<>(out.subList(1, out.size() - 1));
        }
        return out;
    }

    private static boolean balancedInside(List<String> tokens) {
        int depth = 0;
        for (int i = 1; i < tokens.size() - 1; i++) {
            depth += tokens.get(i).equals("(") ? 1 : tokens.get(i).equals(")") ? -1 : 0;
            if (depth < 0) {
                return false;
            }
        }
        return depth == 0;
    }

    /** A number or a string, perhaps cast: ORDER BY 1::integer in a deparse is a constant, not a position. */
    private static boolean isConstant(List<String> expression) {
        if (expression.isEmpty()) {
            return false;
        }
        String head = expression.get(0);
        boolean literal = head.startsWith("'") || (Character.isDigit(head.charAt(0)) && expression.size() > 1);
        if (!literal) {
            return false;
        }
        for (int i = 1; i < expression.size(); i++) {
            if (!expression.get(i).equals(":") && !(i > 1 && expression.get(i - 1).equals(":"))
                    && !expression.get(i).matches("[a-z_ ]+")) {
                return false;
            }
        }
        return true;
    }

    /** The result column a key is: a position, or the same expression as a select-list item; -1 when neither. */
    private static int columnOf(List<String> key, List<List<String>> items) {
        if (key.size() == 1 && key.get(0).matches("\\d+")) {
            int position = Integer.parseInt(key.get(0)) - 1;
            return position >= 0 && position < items.size() ? position : -1;
        }
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).equals(key)) {
                return i;
            }
        }
        return -1;
    }

    /** One round trip: open, parse into a view, read its definition, roll back; nothing of it survives. */
    private static String deparse(Connection connection, String query, int columns, StatementGuard guard) throws SQLException {
        boolean conforming = connection.unwrap(BaseConnection.class).getStandardConformingStrings();
        // The text is spliced into the probe: it must be one statement whose strings and comments all close, so
        // that nothing after it (the definition's read, the rollback) can be swallowed.
        List<Token> closing = significant(query + "\n;", conforming);
        if (SqlSplitter.split(query, conforming).size() != 1 || closing.isEmpty()
                || closing.get(closing.size() - 1).kind() != Kind.SEMICOLON || closing.get(closing.size() - 1).depth() != 0) {
            return null;
        }
        TransactionState before = connection.unwrap(BaseConnection.class).getTransactionState();
        boolean inTransaction = before != TransactionState.IDLE;
        // A name the page cannot have taken already.
        String view = VIEW + "_" + Long.toHexString(RANDOM.nextLong() & Long.MAX_VALUE);
        StringBuilder names = new StringBuilder();
        for (int c = 1; c <= columns; c++) {
            names.append(c > 1 ? ", " : "").append('c').append(c);
        }
        String open = inTransaction ? "SAVEPOINT kensho_order_probe" : "BEGIN";
        String close = inTransaction ? "ROLLBACK TO SAVEPOINT kensho_order_probe; RELEASE SAVEPOINT kensho_order_probe" : "ROLLBACK";
        // Parsing takes a share lock on the tables; a scenario's other session may hold a stronger one.
        String probe = open + "; SET LOCAL lock_timeout = '200ms'; CREATE TEMPORARY VIEW " + view
                + (columns > 0 ? " (" + names + ")" : "") + " AS " + query
                + "\n; SELECT pg_catalog.pg_get_viewdef('pg_temp." + view + "'::pg_catalog.regclass); " + close;
        try {
            ResultTable definition = SqlExecution.execute(connection, probe, guard);
            if (connection.unwrap(BaseConnection.class).getTransactionState() != before) {
                throw new SQLException("the order probe left the session in another transaction state");
            }
            return definition == null || definition.rows().isEmpty() ? null : definition.rows().get(0).get(0);
        } catch (SQLException e) {
            if (e instanceof KenshoLimitException) {
                throw e;
            }
            try {
                SqlExecution.execute(connection, close, guard);
            } catch (SQLException ignored) {
                // The probe failed before it opened anything.
            }
            return null;
        }
    }

    private static String cursorQuery(Connection connection, Token name, boolean conforming) throws SQLException {
        String declared = lookUp(connection, "SELECT statement FROM pg_catalog.pg_cursors WHERE name OPERATOR(pg_catalog.=) ?", name(name));
        if (declared == null) {
            return null;
        }
        // DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query
        List<Token> tokens = SqlLexer.tokens(declared, conforming).stream().filter(Token::significant).toList();
        boolean cursor = false;
        for (Token token : tokens) {
            if (token.depth() == 0 && token.word().equals("cursor")) {
                cursor = true;
            } else if (cursor && token.depth() == 0 && token.word().equals("for")) {
                return trimSemicolon(declared.substring(token.end()));
            }
        }
        return null;
    }

    private static String preparedQuery(Connection connection, List<Token> tokens, boolean conforming) throws SQLException {
        if (tokens.size() < 2) {
            return null;
        }
        String name = name(tokens.get(1));
        String prepared = null;
        String[] types = new String[0];
        try (PreparedStatement statement = connection.prepareStatement("SELECT statement, pg_catalog.array_to_string("
                + "parameter_types::pg_catalog.text[], '|') FROM pg_catalog.pg_prepared_statements WHERE name OPERATOR(pg_catalog.=) ?")) {
            statement.setString(1, name);
            try (ResultSet rs = statement.executeQuery()) {
                if (rs.next()) {
                    prepared = rs.getString(1);
                    String list = rs.getString(2);
                    types = list == null || list.isEmpty() ? new String[0] : list.split("\\|");
                }
            }
        }
        if (prepared == null) {
            return null;
        }
        // PREPARE name [(type, …)] AS statement
        List<Token> all = SqlLexer.tokens(prepared, conforming);
        int bodyStart = -1;
        for (Token token : all) {
            if (token.depth() == 0 && token.word().equals("as")) {
                bodyStart = token.end();
                break;
            }
        }
        if (bodyStart < 0) {
            return null;
        }
        StringBuilder body = new StringBuilder();
        for (Token token : SqlLexer.tokens(prepared.substring(bodyStart), conforming)) {
            if (token.kind() == Kind.PARAMETER) {
                int index = Integer.parseInt(token.text().substring(1)) - 1;
                body.append(index < types.length ? "(NULL::" + types[index] + ")" : "NULL");
            } else {
                body.append(token.text());
            }
        }
        String query = trimSemicolon(body.toString());
        List<Token> queryTokens = significant(query, conforming);
        return queryTokens.isEmpty() || !QUERY_STARTS.contains(firstWord(queryTokens)) ? null : query;
    }

    private static String lookUp(Connection connection, String sql, String value) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, value);
            try (ResultSet rs = statement.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** An identifier as the server stores it: unquoted folds to lower case, quoted keeps its text. */
    private static String name(Token token) {
        if (token.kind() == Kind.QUOTED_IDENTIFIER) {
            return token.text().substring(1, token.text().length() - 1).replace("\"\"", "\"");
        }
        return token.word().isEmpty() ? token.text() : token.word();
    }

    private static String firstWord(List<Token> tokens) {
        for (Token token : tokens) {
            if (token.kind() == Kind.WORD) {
                return token.word();
            }
            if (token.kind() != Kind.OPEN_PAREN) {
                return "";
            }
        }
        return "";
    }

    private static List<Token> significant(String sql, boolean conforming) {
        return SqlLexer.tokens(sql, conforming).stream().filter(Token::significant).toList();
    }

    private static String trimSemicolon(String sql) {
        String trimmed = sql.strip();
        while (trimmed.endsWith(";")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1).strip();
        }
        return trimmed;
    }
}
