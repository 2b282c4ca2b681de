package dev.kensho.sqlchecks.script;

/**
 * One statement cut out of a snippet.
 *
 * @param text   the statement as sent to the server, without the terminating semicolon
 * @param offset index of the statement's first character within the snippet, so that the
 *               server's error position can be mapped back to the author's file
 */
public record SqlStatement(String text, int offset) {
}
