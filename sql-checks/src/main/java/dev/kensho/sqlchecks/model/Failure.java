package dev.kensho.sqlchecks.model;

/**
 * Why a snippet did not hold, in the server's own words where the server said it.
 *
 * @param message    the primary message (the server's, or ours when no statement failed)
 * @param sqlState   the five-character SQLSTATE, or null when the failure did not come from the server
 * @param location   where in the author's file the failure points (the server's error position when
 *                   it gave one, else the failing statement's first character)
 * @param sourceLine the author's line at {@code location}, for the caret display
 * @param detail     the server's DETAIL, or null
 * @param hint       the server's HINT (or our advice), or null
 */
public record Failure(String message, String sqlState, SourceLocation location, String sourceLine,
                      String detail, String hint) {
}
