package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlSplitter;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Whether the server's reports of how it parsed and rewrote each statement ({@link ParseCapture}) are known to be on at a
 * point of a page's run. They are the server's only account of a statement that ran; a statement that failed without its
 * own report failed before the report (in parsing or parse analysis, or for the rewritten report in rewriting), and so
 * ran nothing, only while the reports are known to be on. A page that switched them off ran a failed statement unseen:
 * it may have failed on a value its run read (a run name, a counter) and a reader's run of it may succeed, and keep
 * what it did.
 *
 * <p>Only the page turns them off, with one of the names {@link #NAMES}: a top-level {@code SET} or {@code RESET} does it
 * until the next statement the server reports (the report shows they are on again). Anywhere else (a function's body, a
 * {@code set_config} call, a role's or database's settings, a statement the page built at run time) the name is in code
 * that may run again unreported (PL/pgSQL keeps its statements' plans, a trigger runs unseen): from there on the page's
 * reports are never known to be on.
 */
final class ParseReports {

    /** The settings that deliver the reports ({@link SessionSettings#OUTPUT}), and the function that can set any of them. */
    static final List<String> SETTINGS = List.of("client_min_messages", "debug_print_parse", "debug_print_rewritten", "set_config");
    /** In the page's text, where a U&"…" identifier may spell any of them escaped. */
    private static final Pattern NAMES = Pattern.compile("(?i)" + String.join("|", SETTINGS) + "|u&\"");
    /**
     * In a reported tree set_config is also named by its OID (pg_proc 2078). The server's log formatter breaks a long tree's
     * lines at any blank, between a field's name and its value too. Lowercase: read in {@link #treeNames}' lowered copy,
     * since a page's own text (a quoted name, a string) may spell it {@code :FUNCID}.
     */
    private static final Pattern SET_CONFIG_OID = Pattern.compile(":funcid\\s+2078\\s");

    private static final Pattern RESETS_ALL = Pattern.compile("(?is)\\s*(?:reset|discard)\\s+all\\s*;?\\s*");

    /** A name in code: from here on the reports are never known to be on. */
    private boolean inCode;
    /** Turned off by a top-level SET of client_min_messages, debug_print_parse, debug_print_rewritten (or one not read). */
    private boolean messagesOff;
    private boolean parseOff;
    private boolean rewrittenOff;
    /** A statement ran to its end unreported with none of the above off: something this class does not know did it. */
    private boolean unexplained;
    /**
     * A SET or RESET of theirs ran inside the transaction block still open: the block's end (ROLLBACK, a COMMIT of a failed
     * block) or a ROLLBACK TO SAVEPOINT may undo it after the statement that does so was reported.
     */
    private boolean changedInBlock;

    /** Whether a statement starting now that fails without its own parse tree reported failed in parsing or parse analysis. */
    boolean parseOn() {
        return !inCode && !messagesOff && !parseOff && !unexplained;
    }

    /** Whether a statement starting now that fails without its own rewritten tree reported failed in rewriting or before. */
    boolean rewrittenOn() {
        return !inCode && !messagesOff && !rewrittenOff && !unexplained;
    }

    /**
     * Whether {@code tree} names one of {@link #SETTINGS} as {@code (?i)} would find it (ASCII letters compared without case:
     * a Kelvin sign is no k), or set_config's OID. Every statement's trees pass here: the names are looked for in an
     * ASCII-lowered copy, since a case-insensitive alternation tried each name at every character of 25 KB trees. A page's
     * quoted name or string may hold a carriage return, vertical tab or form feed unescaped (nodeToString escapes only
     * space, tab and line feed), so {@code :FUNCID\r2078\r} can stand in a tree: the OID is read in the lowered copy too.
     */
    static boolean treeNames(String tree) {
        byte[] lowered = new byte[tree.length()];
        for (int i = 0; i < lowered.length; i++) {
            char c = tree.charAt(i);
            lowered[i] = c >= 'A' && c <= 'Z' ? (byte) (c + ('a' - 'A')) : c < 0x80 ? (byte) c : (byte) 0x80;
        }
        String ascii = new String(lowered, StandardCharsets.ISO_8859_1);
        for (String name : SETTINGS) {
            if (ascii.contains(name)) {
                return true;
            }
        }
        return SET_CONFIG_OID.matcher(ascii).find(); // (?i) covered the OID's field name too: :FUNCID in a page's own text
    }

    /**
     * Takes one statement of the page's session as it ran: {@code text} as sent, its capture, whether it ran to its end.
     * Its own reports show they were on when it started; a SET of theirs turns them off after it, a RESET back on.
     */
    void ran(String text, ParseCapture capture, boolean completed, boolean inBlockBefore, boolean inBlockAfter) {
        ran(text, capture, completed);
        boolean named = text != null && NAMES.matcher(text).find() || capture.namesReportsInOwnTree();
        if (named && (inBlockBefore || inBlockAfter)) {
            changedInBlock = true;
        }
        boolean rollsBack = text != null && SqlLexer.firstWord(text, true).equals("rollback");
        if (changedInBlock && (!inBlockAfter || rollsBack)) {
            // Whatever the block's end or the rollback undid is unknown until the server reports a statement again.
            messagesOff = parseOff = rewrittenOff = true;
            changedInBlock = inBlockAfter;
        }
    }

    private void ran(String text, ParseCapture capture, boolean completed) {
        // Reports off before it explain a statement run unreported; none off, something else turned them off.
        boolean unreported = completed && !capture.ownReported() && !messagesOff && !parseOff;
        if (capture.ownReported()) {
            messagesOff = parseOff = unexplained = false;
        }
        if (capture.ownRewrittenReported()) {
            messagesOff = rewrittenOff = unexplained = false;
        }
        boolean setting = text != null && isSetOrReset(text);
        boolean named = text != null && NAMES.matcher(text).find();
        if (capture.namesReportsInCode() || (named || capture.namesReportsInOwnTree()) && !setting) {
            inCode = true;
        } else if (named || capture.namesReportsInOwnTree()) {
            String lower = text.toLowerCase(java.util.Locale.ROOT);
            boolean read = named && !lower.contains("u&\"");
            boolean on = completed && SqlLexer.firstWord(text, true).equals("reset");
            if (!read || lower.contains("client_min_messages")) {
                messagesOff = !on;
            }
            if (!read || lower.contains("debug_print_parse")) {
                parseOff = !on;
            }
            if (!read || lower.contains("debug_print_rewritten")) {
                rewrittenOff = !on;
            }
        } else if (completed && text != null && RESETS_ALL.matcher(text).matches()) {
            // Back to the session's start-up values, where Kensho's options put the reports (SessionSettings#startupOptions).
            messagesOff = parseOff = rewrittenOff = unexplained = false;
        }
        if (unreported) {
            unexplained = true;
        }
    }

    /** Takes SQL run on another path (a scenario's sessions, an exercise's case): a name in it is taken as in code. */
    void ranElsewhere(String sql) {
        if (NAMES.matcher(sql).find()) {
            inCode = true;
        }
    }

    private static boolean isSetOrReset(String statement) {
        String first = SqlLexer.firstWord(statement, true);
        return (first.equals("set") || first.equals("reset")) && SqlSplitter.split(statement, true).size() == 1;
    }
}
