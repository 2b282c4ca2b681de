package dev.kensho.sqlchecks.execution;

import org.postgresql.util.PSQLWarning;
import org.postgresql.util.ServerErrorMessage;

import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the parse trees the server reports for one statement sent on a page's session:
 * {@code debug_print_parse} (a session setting of Kensho's, see {@link SessionSettings#OUTPUT}) makes
 * PostgreSQL report every statement it parses as a LOG message, delivered like auto_explain's plans
 * to the connection itself. Nothing is sent to ask for them: they are the server's own account of the
 * statement as it ran. A message counts only when the server says its C routine
 * {@code elog_node_display} raised it, which no SQL, PL/pgSQL's {@code RAISE} included, can claim.
 *
 * <p>The statement's own tree comes first (it is parsed before anything it runs); a {@code PREPARE}
 * is followed by the tree of the statement it prepares. Later trees (statements of functions it
 * calls) are not needed and not kept. A capture serves one statement sent alone: with several
 * statements in one query string its first tree would be the first statement's.
 */
final class ParseCapture {

    private static final String ROUTINE = "elog_node_display";
    private static final String FILE = "print.c";
    private static final String MESSAGE = "parse tree:";
    private static final int KEPT = 2;
    /** A tree larger than this (a VALUES list of many thousand rows) is not read: its statement's order stays unknown. */
    static final int MAX_TREE_CHARS = 4 << 20;

    private final List<String> trees = new ArrayList<>();
    private boolean tooLarge;

    /** Takes one message of the running statement; anything but a parse tree is let go. */
    synchronized void offer(SQLWarning warning) {
        if (trees.size() >= KEPT || !(warning instanceof PSQLWarning psql)) {
            return;
        }
        ServerErrorMessage server = psql.getServerErrorMessage();
        if (server == null || !ROUTINE.equals(server.getRoutine()) || server.getFile() == null || !server.getFile().endsWith(FILE)
                || !MESSAGE.equals(server.getMessage()) || server.getDetail() == null) {
            return;
        }
        if (server.getDetail().length() > MAX_TREE_CHARS) {
            tooLarge = true;
            trees.add(null);
            return;
        }
        trees.add(server.getDetail());
    }

    /** The statement's own tree, or null when none was reported or it could not be read. */
    NodeTree.Node statement() {
        return tree(0);
    }

    /** The tree reported after the statement's own (for a PREPARE, the prepared statement's), or null. */
    NodeTree.Node next() {
        return tree(1);
    }

    /** Why {@link #statement()} is null. */
    String missing() {
        if (tooLarge) {
            return "its parse tree is larger than Kensho reads (" + (MAX_TREE_CHARS >> 20) + " MB)";
        }
        if (trees.isEmpty()) {
            return "the server did not report how it parsed the statement (Kensho's session settings debug_print_parse = on, "
                    + "debug_pretty_print = off and client_min_messages = log deliver it; the page changed one of them)";
        }
        return "the parse tree the server reported could not be read";
    }

    private synchronized NodeTree.Node tree(int index) {
        if (index >= trees.size() || trees.get(index) == null) {
            return null;
        }
        String text = trees.get(index);
        // debug_pretty_print indents the tree and may break its lines anywhere: only the flat form is read.
        if (!text.startsWith("{")) {
            return null;
        }
        try {
            return NodeTree.read(text);
        } catch (NodeTree.Malformed e) {
            return null;
        }
    }
}
