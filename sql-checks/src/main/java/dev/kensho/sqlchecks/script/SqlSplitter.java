package dev.kensho.sqlchecks.script;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a snippet into statements at top-level semicolons, the way psql does: semicolons inside
 * single-quoted strings (standard and {@code E''}), double-quoted identifiers, dollar-quoted bodies
 * and comments of both styles (block comments nest) do not end a statement. Leading whitespace and
 * comments are kept in no statement; a piece holding only whitespace and comments is dropped.
 */
public final class SqlSplitter {

    private SqlSplitter() {
    }

    public static List<SqlStatement> split(String sql) {
        List<SqlStatement> statements = new ArrayList<>();
        int start = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'') {
                boolean backslashEscapes = i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
                        && (i < 2 || !isIdentifierChar(sql.charAt(i - 2)));
                i = skipQuoted(sql, i, '\'', backslashEscapes);
            } else if (c == '"') {
                i = skipQuoted(sql, i, '"', false);
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                i = skipBlockComment(sql, i);
            } else if (c == '$' && (i == 0 || !isIdentifierChar(sql.charAt(i - 1)))) {
                String tag = dollarTag(sql, i);
                if (tag == null) {
                    i++;
                } else {
                    int close = sql.indexOf(tag, i + tag.length());
                    i = close < 0 ? n : close + tag.length();
                }
            } else if (c == ';') {
                add(statements, sql, start, i);
                i++;
                start = i;
            } else {
                i++;
            }
        }
        add(statements, sql, start, n);
        return statements;
    }

    private static int skipQuoted(String sql, int open, char quote, boolean backslashEscapes) {
        int i = open + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2; // doubled quote stands for itself
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    private static int skipBlockComment(String sql, int open) {
        int depth = 0;
        int i = open;
        while (i < sql.length()) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    /** Returns {@code $tag$} starting at {@code i}, or null when the dollar sign opens no quote ($1, say). */
    private static String dollarTag(String sql, int i) {
        int j = i + 1;
        while (j < sql.length() && sql.charAt(j) != '$') {
            char c = sql.charAt(j);
            boolean valid = Character.isLetter(c) || c == '_' || (j > i + 1 && Character.isDigit(c));
            if (!valid) {
                return null;
            }
            j++;
        }
        return j < sql.length() ? sql.substring(i, j + 1) : null;
    }

    private static boolean isIdentifierChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    private static void add(List<SqlStatement> statements, String sql, int from, int to) {
        int begin = skipInsignificant(sql, from, to);
        if (begin >= to) {
            return;
        }
        int end = to;
        while (end > begin && Character.isWhitespace(sql.charAt(end - 1))) {
            end--;
        }
        statements.add(new SqlStatement(sql.substring(begin, end), begin));
    }

    /** Skips whitespace and comments so that the offset points at the statement's first token. */
    private static int skipInsignificant(String sql, int from, int to) {
        int i = from;
        while (i < to) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (sql.startsWith("--", i)) {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 || eol > to ? to : eol + 1;
            } else if (sql.startsWith("/*", i)) {
                i = Math.min(skipBlockComment(sql, i), to);
            } else {
                break;
            }
        }
        return i;
    }
}
