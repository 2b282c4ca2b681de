package dev.kensho.sqlchecks.execution;

import org.postgresql.util.PSQLWarning;
import org.postgresql.util.ServerErrorMessage;

import dev.kensho.sqlchecks.script.SqlLexer;

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
 * <p>The statement's own tree comes first (it is parsed before anything it runs); from 15 on a {@code PREPARE}
 * is followed by the tree of the statement it prepares (14 analyses it without reporting it). 14 and 15 write most
 * utility statements as {@code :utilityStmt ?}: the statement's text, given with the capture, tells which it was
 * ({@link UtilityText}), so that the same statement is read alike on every version. Later trees (statements of functions it
 * calls) are not needed and not kept. A capture made with {@link #ofEachStatement} serves a string of
 * several statements sent at once, and pairs its top-level trees with them.
 */
final class ParseCapture {

    private static final String ROUTINE = "elog_node_display";
    private static final String FILE = "print.c";
    private static final String MESSAGE = "parse tree:";
    /** The tree after rewriting (debug_print_rewritten): only for {@link ParseTreeGate}, never counted as a statement's. */
    private static final String REWRITTEN = "rewritten parse tree:";
    private static final int KEPT = 2;
    /** How 14 and 15 write a utility statement their outfuncs.c does not write out. */
    private static final String LEFT_OUT = "?";
    /** A tree larger than this (a VALUES list of many thousand rows) is not read: its statement's order stays unknown. */
    static final int MAX_TREE_CHARS = 4 << 20;
    /**
     * How many reports of one statement (a string sent at once) Kensho reads, and how many characters: a loop of EXECUTEs,
     * or a scenario step of tens of thousands of statements, makes the server report a tree for each, faster than they can
     * be read; every one read also costs its digest and what it refers to. Past either bound the rest are let go unread:
     * what they ran is then unknown, so every claim that rests on the trees fails at its line as on an unreadable tree
     * ({@link TreeReads#judged}), and the reports are never again known to be on ({@link ParseReports}).
     */
    static final int MAX_REPORTS = 20_000;
    static final long MAX_REPORT_CHARS = 32L << 20;
    /** Stands for the reports let go in {@link #digests}: the same statements let the same number go. */
    static final String PAST_BUDGET = "reports past Kensho's budget";

    /** The statement as sent, read only where the tree leaves its utility statement out ({@link UtilityText}); may be null. */
    private final String sql;
    private final List<String> trees = new ArrayList<>();
    /** Trees already read, by index (null: unreadable). */
    private final java.util.Map<Integer, NodeTree.Node> read = new java.util.HashMap<>();
    /** Keep only trees reported outside any function (no CONTEXT): one per statement of a string sent at once. */
    private final boolean topLevelOnly;
    private final int kept;
    private boolean tooLarge;
    private boolean surplus;
    /** Whether a tree without CONTEXT came: one of the string's own statements, not a statement of a function it called. */
    private boolean ownReported;
    /** Whether a rewritten tree without CONTEXT came: the string's own statement was rewritten. */
    private boolean ownRewrittenReported;
    /** Whether a tree named a setting that delivers these reports ({@link ParseReports}): the statement's own, code it ran. */
    private boolean namesInOwnTree;
    private boolean namesInCode;
    private int reports;
    private long reportChars;
    /** Whether reports came past {@link #MAX_REPORTS} or {@link #MAX_REPORT_CHARS} and were let go. */
    private boolean pastBudget;
    /** The statements of the string, once it ran to its end without an error ({@link #completed}); null before. */
    private List<String> completedStatements;
    /** What every tree reported during the statement refers to, those of functions and dynamic SQL included ({@link TreeReads}). */
    private final TreeReads.Seen seen = new TreeReads.Seen();
    /** A digest of every tree reported during the statement, those of functions and dynamic SQL included ({@link RunTrace}). */
    private final List<String> digests = new ArrayList<>();
    /**
     * Kensho's extension guard runs on the page's CREATE EXTENSION: what its function reads is Kensho's, not the page's. It
     * is the outermost frame, the CONTEXT's last line, written by the server whole: a page's text cannot end that line so
     * (a function name with a line break in it is quoted, and its quote and parentheses follow on the same line).
     */
    private static final java.util.regex.Pattern GUARD_CONTEXT =
            java.util.regex.Pattern.compile("(?s).*(?:^|\n)PL/pgSQL function kensho_refuse_extensions\\(\\) line \\d+ at [A-Za-z ]+");

    /** A capture for the one statement {@code sql}. */
    ParseCapture(String sql) {
        this(sql, false, KEPT);
    }

    private ParseCapture(String sql, boolean topLevelOnly, int kept) {
        this.sql = sql;
        this.topLevelOnly = topLevelOnly;
        this.kept = kept;
    }

    /**
     * A capture for a string of {@code statements} statements sent at once (a scenario step, as the
     * isolation tester sends it): the server parses each statement just before running it, so its
     * top-level trees come in the statements' order; trees of statements run inside functions carry the
     * function as their CONTEXT and are not counted.
     */
    static ParseCapture ofEachStatement(int statements) {
        // A PREPARE reports two trees: room for each statement's, and its prepared one.
        return new ParseCapture(null, true, 2 * statements);
    }

    /**
     * One capture per statement (of the texts {@code statements}, in order), or null when the trees do not pair one to
     * one with the statements (a tree was too large or unreadable, more or fewer came than statements): then no
     * statement's order is read from them. From 15 on a PREPARE's tree is followed by the prepared statement's, which
     * goes with it; 14 reports the PREPARE's alone (its PrepareQuery analyses the statement without the report).
     */
    synchronized List<ParseCapture> perStatement(List<String> statements) {
        if (!topLevelOnly || surplus || tooLarge) {
            return null;
        }
        List<ParseCapture> each = paired(statements, true);
        return each != null ? each : paired(statements, false);
    }

    private List<ParseCapture> paired(List<String> statements, boolean preparedFollows) {
        List<ParseCapture> each = new ArrayList<>();
        for (int t = 0; t < trees.size(); t++) {
            if (each.size() == statements.size()) {
                return null;
            }
            ParseCapture one = new ParseCapture(statements.get(each.size()), false, KEPT);
            one.trees.add(trees.get(t));
            if (one.statement() == null) {
                return null;
            }
            if (preparedFollows && "PREPARESTMT".equals(one.utilityType())) {
                if (t + 1 == trees.size()) {
                    return null;
                }
                one.trees.add(trees.get(++t));
            }
            each.add(one);
        }
        return each.size() == statements.size() ? each : null;
    }

    /** Takes one message of the running statement; anything but a parse tree is let go. */
    synchronized void offer(SQLWarning warning) {
        if (!(warning instanceof PSQLWarning psql)) {
            return;
        }
        ServerErrorMessage server = psql.getServerErrorMessage();
        if (server == null || !ROUTINE.equals(server.getRoutine()) || server.getFile() == null || !server.getFile().endsWith(FILE)
                || server.getDetail() == null) {
            return;
        }
        if (REWRITTEN.equals(server.getMessage())) {
            if (server.getWhere() == null) {
                ownRewrittenReported = true;
            }
            if (overBudget(server)) {
                return;
            }
            if (server.getWhere() == null || !GUARD_CONTEXT.matcher(server.getWhere()).matches()) {
                seen.rewritten(server.getDetail());
                namesReports(server);
            }
            return;
        }
        if (!MESSAGE.equals(server.getMessage())) {
            return;
        }
        if (server.getWhere() == null) {
            ownReported = true; // a tree of the string's own statements, not of a function it called
        }
        if (overBudget(server)) {
            return;
        }
        if (server.getWhere() == null || !GUARD_CONTEXT.matcher(server.getWhere()).matches()) {
            namesReports(server);
            seen.scan(server.getDetail(), server.getWhere());
        }
        digests.add(RunTrace.parsedOnce(server.getWhere()) + (server.getDetail().length() > MAX_TREE_CHARS
                ? "larger than read: " + server.getDetail().length() : RunTrace.digest(server.getDetail())));
        if (server.getWhere() != null && NESTED_DROP.matcher(server.getDetail()).find()) {
            // 14 and 15 write most utility statements as "?": any of them may have been a DROP (AutovacuumActivity).
            nestedMayDrop = true;
        }
        if (server.getWhere() != null) {
            // A tree of code the statement ran (a function's body, dynamic SQL) is never the statement's own: kept, it would
            // stand for the statement or count as surplus, and a statement run unreported would not be seen as blind.
            return;
        }
        if (trees.size() >= kept) {
            surplus = true;
            return;
        }
        if (server.getDetail().length() > MAX_TREE_CHARS) {
            tooLarge = true;
            trees.add(null);
            return;
        }
        trees.add(server.getDetail());
    }

    /**
     * Counts one report; true once the statement's reports are past the budget: the report is let go unread, and the first
     * such makes everything resting on the trees unknown (an unreadable tree, a name of the reports' settings in code, no
     * statement paired with its tree). Letting go costs nothing more than the driver's own reading of the message, so a
     * statement reporting millions keeps up with the server and holds no more than the budget.
     */
    private boolean overBudget(ServerErrorMessage server) {
        reports++;
        reportChars += server.getDetail().length() + (server.getWhere() == null ? 0 : server.getWhere().length());
        if (reports <= MAX_REPORTS && reportChars <= MAX_REPORT_CHARS) {
            return false;
        }
        if (!pastBudget) {
            pastBudget = true;
            seen.unread(server.getWhere());
            namesInCode = true;
            surplus = true;
            digests.add(PAST_BUDGET);
        }
        return true;
    }

    private void namesReports(ServerErrorMessage server) {
        if (ParseReports.treeNames(server.getDetail())) {
            if (server.getWhere() == null) {
                namesInOwnTree = true;
            } else {
                namesInCode = true;
            }
        }
    }

    /** Whether the string's own statement was reported parsed (a tree without CONTEXT): the reports were on when it started. */
    synchronized boolean ownReported() {
        return ownReported;
    }

    /** Whether the string's own statement was reported rewritten: the rewritten reports were on when it started. */
    synchronized boolean ownRewrittenReported() {
        return ownRewrittenReported;
    }

    /** Whether the statement's own tree names a setting that delivers the reports ({@link ParseReports}). */
    synchronized boolean namesReportsInOwnTree() {
        return namesInOwnTree;
    }

    /** Whether a tree of code the statement ran (a function's body, dynamic SQL) names one ({@link ParseReports}). */
    synchronized boolean namesReportsInCode() {
        return namesInCode;
    }

    /** The digests of every tree reported so far ({@link RunTrace}). */
    synchronized List<String> digests() {
        return List.copyOf(digests);
    }

    /** What the trees reported so far refer to. */
    synchronized TreeReads.Seen seen() {
        return seen;
    }

    /**
     * Told by {@link SqlExecution} once the string of {@code statements} ran to its end without an error, every message of it
     * taken: from then on {@link #blind} can tell whether a statement of it ran unreported.
     */
    synchronized void completed(List<String> statements) {
        completedStatements = List.copyOf(statements);
    }

    /**
     * Whether a statement ran to its end unreported, and it may have read or stored something: while Kensho's session
     * settings stand the server reports every statement it parses and analyses, so the page switched the reports off (SET
     * debug_print_parse, client_min_messages above LOG, in a function or not). What such a statement read or stored is
     * unknown to the tree gate, and so is everything a later claim may rest on. Only statements that evaluate nothing of
     * the page's ({@link #runsNothing}: DROP, GRANT, SET, ..., as PostgreSQL's own tests silence around their clean-up) are
     * let run so. A tree too large or malformed to read was reported, and is judged unreadable by the gate itself
     * ({@link TreeReads#judged}).
     */
    synchronized boolean blind() {
        if (completedStatements == null || surplus || completedStatements.stream().allMatch(ParseCapture::runsNothing)) {
            return false;
        }
        if (!topLevelOnly) {
            // The statement's own tree, not one of a function it called after a RESET brought the reports back.
            return !ownReported;
        }
        int reportedStatements = 0;
        for (int t = 0; t < trees.size(); t++) {
            reportedStatements++;
            String text = flatTree(t);
            try {
                if (text != null && t + 1 < trees.size() && "PREPARESTMT".equals(NodeTree.head(text).utilityType())) {
                    t++; // from 15 on the statement a PREPARE prepares is reported after it, as a tree of its own
                }
            } catch (NodeTree.Malformed e) {
                // counted as one statement's: the gate refuses what it cannot read
            }
        }
        return reportedStatements < completedStatements.size();
    }

    /**
     * Statements that evaluate no expression and run no code of the page's (no query, no function, no trigger: event
     * triggers need a superuser, which a page's role is not), so that nothing they did can hold a counter or a setting of
     * Kensho's. Anything not named here (COMMIT runs deferred triggers, VACUUM and ANALYZE index expressions) is not.
     */
    static boolean runsNothing(String statement) {
        List<SqlLexer.Token> words = SqlLexer.tokens(statement).stream().filter(SqlLexer.Token::significant).limit(2).toList();
        String first = words.isEmpty() ? "" : words.get(0).word();
        String second = words.size() < 2 ? "" : words.get(1).word();
        if (first.equals("set") && second.equals("constraints")) {
            return false; // runs the deferred triggers it makes immediate
        }
        return SILENT_KINDS.contains(first) || (first.equals("create") || first.equals("alter")) && SILENT_OBJECTS.contains(second);
    }

    private static final java.util.Set<String> SILENT_KINDS = java.util.Set.of("drop", "reset", "set", "discard", "comment",
            "grant", "revoke", "listen", "unlisten", "begin", "start", "savepoint", "release", "rollback", "abort");
    /** CREATE and ALTER of objects with no expression: a role, and a publication (its row filter runs only in logical decoding). */
    private static final java.util.Set<String> SILENT_OBJECTS = java.util.Set.of("role", "user", "group", "publication");

    /** Whether the server reported any parse tree for the statement (read or not). */
    synchronized boolean reported() {
        return !trees.isEmpty() || surplus;
    }

    /** The statement's own tree, or null when none was reported or it could not be read. */
    NodeTree.Node statement() {
        return tree(0);
    }

    /** The tree reported after the statement's own (for a PREPARE, the prepared statement's), or null. */
    NodeTree.Node next() {
        return tree(1);
    }

    /** What made a statement run unreported ({@link #blind}), and what to do instead. */
    static final String SILENCED = "Kensho's session settings debug_print_parse = on, debug_pretty_print = off and "
            + "client_min_messages = log deliver the reports, and the page changed one of them; RESET it before anything but "
            + "DROP, GRANT, SET and the like runs";

    /** Why {@link #statement()} is null. */
    String missing() {
        if (pastBudget && trees.isEmpty()) {
            return "the server reported more than Kensho reads for one statement (" + MAX_REPORTS + " parse trees or "
                    + (MAX_REPORT_CHARS >> 20) + " MB)";
        }
        if (tooLarge) {
            return "its parse tree is larger than Kensho reads (" + (MAX_TREE_CHARS >> 20) + " MB)";
        }
        if (trees.isEmpty()) {
            return "the server did not report how it parsed the statement (Kensho's session settings debug_print_parse = on, "
                    + "debug_pretty_print = off and client_min_messages = log deliver it; the page changed one of them)";
        }
        return "the parse tree the server reported could not be read";
    }

    /**
     * The command type and utility statement of the statement's own tree ({@link NodeTree#head}), read without the
     * rest of the tree; null when {@link #statement()} would find no tree to read.
     */
    synchronized NodeTree.Head head() {
        String text = flatTree(0);
        if (text == null) {
            return null;
        }
        try {
            return NodeTree.head(text);
        } catch (NodeTree.Malformed e) {
            return null;
        }
    }

    /**
     * The node name of the statement's utility statement ({@code FETCHSTMT}, …), read from the head of its tree, or from
     * its text where the tree leaves it out ({@link #utility}); null for a query, INSERT, UPDATE, DELETE or MERGE, or
     * when there is no tree to read.
     */
    /**
     * Whether the statement is a utility statement of one of {@code types} ({@code DROPSTMT}, …), or a statement it ran
     * (dynamic SQL, a function's body) was a DROP: told by its tree's node, which 14 and 15 leave out
     * ({@code :utilityStmt ?}) for most utility statements, so any of those counts.
     */
    synchronized boolean mayDrop(java.util.Set<String> types) {
        String own = utilityType();
        return own != null && types.contains(own) || nestedMayDrop;
    }

    /** A tree's DROP (or DROP OWNED), or a utility statement 14 and 15 leave unnamed (the server may break its lines). */
    private static final java.util.regex.Pattern NESTED_DROP = java.util.regex.Pattern.compile("\\{DROP(?:OWNED)?STMT\\s|:utilityStmt\\s+\\?");

    /** A statement the statement ran (dynamic SQL, a function's body) was a DROP, or a utility statement 14/15 leave unnamed. */
    private boolean nestedMayDrop;

    synchronized String utilityType() {
        NodeTree.Head head = head();
        if (head == null) {
            return null;
        }
        if (head.utilityType() != null) {
            return head.utilityType();
        }
        NodeTree.Node leftOut = leftOutUtility();
        return leftOut == null ? null : leftOut.type();
    }

    /**
     * The statement's utility statement: the tree's own node, or, where the server wrote {@code :utilityStmt ?} (14
     * and 15 write only a few utility statements), the node {@link UtilityText} reads from the statement's text; null
     * for a statement that is not a utility statement, or when there is no tree (or no text) to read.
     */
    NodeTree.Node utility() {
        NodeTree.Node top = statement();
        if (top == null) {
            return null;
        }
        NodeTree.Node own = top.node("utilityStmt");
        return own != null ? own : leftOutUtility();
    }

    /** Whether the statement is a utility statement: its tree's utilityStmt is set (a node, or 14's and 15's "?"). */
    boolean isUtility() {
        NodeTree.Node top = statement();
        return top != null && top.get("utilityStmt") != null;
    }

    /** The utility statement a 14 or 15 tree wrote as {@code ?}, read from the text; null when the tree wrote it or none. */
    private NodeTree.Node leftOutUtility() {
        NodeTree.Node top = statement();
        return top != null && sql != null && LEFT_OUT.equals(top.get("utilityStmt")) ? UtilityText.read(sql) : null;
    }

    private synchronized NodeTree.Node tree(int index) {
        if (index >= trees.size()) {
            return null; // not reported (yet): nothing is remembered
        }
        if (read.containsKey(index)) {
            return read.get(index); // several checks of one statement ask for its tree: it is read once
        }
        String text = flatTree(index);
        NodeTree.Node node = null;
        if (text != null) {
            try {
                node = NodeTree.read(text);
            } catch (NodeTree.Malformed e) {
                node = null;
            }
        }
        read.put(index, node);
        return node;
    }

    /** The tree at {@code index} in its flat form, or null when there is none. */
    private String flatTree(int index) {
        if (index >= trees.size() || trees.get(index) == null) {
            return null;
        }
        String text = trees.get(index);
        // debug_pretty_print indents the tree and may break its lines anywhere: only the flat form is read.
        return text.startsWith("{") ? text : null;
    }
}
