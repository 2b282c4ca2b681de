package dev.kensho.sqlchecks.script;

/**
 * One statement cut out of a snippet.
 *
 * @param text   the statement without the terminating semicolon (what Kensho's checks read and name)
 * @param offset index of the statement's first character within the snippet, so that the
 *               server's error position can be mapped back to the author's file
 * @param sent   the query string psql sends for it: the text up to and including its semicolon (psql keeps the
 *               semicolon, and what stands before it, in the query buffer it sends), so that the server sees
 *               the reader's query string ({@code pg_prepared_statements.statement}, {@code current_query()},
 *               {@code pg_stat_activity.query}); without a semicolon, the text
 */
public record SqlStatement(String text, int offset, String sent) {

    /** A statement with no terminating semicolon: psql sends its text as it is. */
    public SqlStatement(String text, int offset) {
        this(text, offset, text);
    }
}
