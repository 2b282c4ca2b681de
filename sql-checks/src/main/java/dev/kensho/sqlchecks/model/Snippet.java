package dev.kensho.sqlchecks.model;


/**
 * A piece of SQL from a page, with where it came from.
 *
 * @param location   where the SQL's first character sits in the author's file
 * @param sql        the SQL text exactly as written
 * @param indent     columns of indentation the Markdown fence stripped from every line (inside a
 *                   list item, say), added back when columns are reported
 * @param directives   what the author stated about the snippet in the fence's meta
 * @param expectedRows rows the last statement must return, or null when none were written
 * @param scenario     when not null, {@code sql} is a multi-session scenario block, run as such
 */
public record Snippet(SourceLocation location, String sql, int indent, Directives directives, ExpectedRows expectedRows,
                      Scenario scenario) {

    public static Snippet of(SourceLocation location, String sql) {
        return new Snippet(location, sql, location.column() - 1, Directives.NONE, null, null);
    }

    public Snippet with(Directives newDirectives, ExpectedRows newExpectedRows) {
        return new Snippet(location, sql, indent, newDirectives, newExpectedRows, scenario);
    }

    public Snippet withScenario(Scenario newScenario) {
        return new Snippet(location, sql, indent, directives, expectedRows, newScenario);
    }

    /** Index in {@link #sql()} of the first character of the 0-based {@code line}. */
    public int indexOfLine(int line) {
        int index = 0;
        for (int i = 0; i < line; i++) {
            int newline = sql.indexOf('\n', index);
            if (newline < 0) {
                return sql.length();
            }
            index = newline + 1;
        }
        return index;
    }

    /** Maps a 0-based character index within {@link #sql()} to a location in the author's file. */
    public SourceLocation locate(int index) {
        int line = location.line();
        int lineStart = 0;
        int bounded = Math.max(0, Math.min(index, sql.length()));
        for (int i = 0; i < bounded; i++) {
            if (sql.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        int column = bounded - lineStart + 1 + indent;
        return new SourceLocation(location.file(), line, column);
    }

    /** The snippet's line holding the character at {@code index}, as the author wrote it. */
    public String lineAt(int index) {
        int bounded = Math.max(0, Math.min(index, sql.length()));
        int start = sql.lastIndexOf('\n', bounded - 1) + 1;
        int end = sql.indexOf('\n', bounded);
        return " ".repeat(indent) + sql.substring(start, end < 0 ? sql.length() : end);
    }
}
