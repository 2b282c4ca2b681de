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

    /** Most characters of a message, detail or hint kept: a snippet may raise a message of hundreds of megabytes. */
    public static final int MAX_TEXT = 4096;

    public Failure {
        message = cut(message);
        detail = cut(detail);
        hint = cut(hint);
        sourceLine = cut(sourceLine);
    }

    /**
     * The text, or its beginning and its end with how much was cut between them: the end of a row
     * comparison says which rows are missing and which are extra.
     */
    public static String cut(String text) {
        if (text == null || text.length() <= MAX_TEXT) {
            return text;
        }
        int head = MAX_TEXT * 3 / 4;
        int tail = MAX_TEXT - head;
        return text.substring(0, head) + "… (" + (text.length() - MAX_TEXT) + " characters cut by Kensho) …"
                + text.substring(text.length() - tail);
    }
}
