package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.RowOrder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides, for one session, whether a statement's rows come sorted and on which result columns, from
 * the parse tree the server reported for that very statement ({@link ParseCapture}): the top-level
 * query's {@code sortClause}, each key's target entry ({@code tleSortGroupRef} → {@code resno},
 * {@code resjunk}) and the equality operator the sort pairs with its ordering ({@code eqop}). Nothing
 * is sent to the session to find out, and no text is matched: commas inside {@code ARRAY[…]}, an
 * alias of an expression, comments or literals cannot shift a key onto another column.
 *
 * <p>A {@code FETCH} reads the query of the {@code DECLARE} the session parsed, an {@code EXECUTE}
 * the statement its {@code PREPARE} parsed. Kensho remembers those only while nothing else runs on
 * the session (only FETCH, MOVE, EXECUTE, DECLARE, PREPARE, CLOSE and DEALLOCATE): any other
 * statement may close a cursor and open another of that name inside a function, whose query Kensho
 * never sees. Where the parse cannot be had, the order is unknown ({@link RowOrder#unknown}): on 14, the query of
 * every PREPARE, whose parse that version does not report.
 */
final class SessionOrders {

    /**
     * PostgreSQL's CMD_SELECT, the same in every version. A utility statement is told by its tree's utilityStmt, not by
     * its CmdType: that number changed when 15 put CMD_MERGE before CMD_UTILITY (5 on 14, 6 from 15 on).
     */
    private static final long SELECT = 1;
    /** 14 calls DECLARE CURSOR's node DECLARECURSOR; 15 and later DECLARECURSORSTMT. */
    private static final String DECLARE_14 = "DECLARECURSOR";
    private static final Set<String> KEEPS_MEMORY = Set.of("FETCHSTMT", "EXECUTESTMT", "DECLARECURSORSTMT", DECLARE_14, "PREPARESTMT",
            "CLOSEPORTALSTMT", "DEALLOCATESTMT");

    /** Cursor name → its query's tree. */
    private final Map<String, NodeTree.Node> cursors = new HashMap<>();
    /** Prepared statement name → the prepared statement's tree (null: its parse was not reported). */
    private final Map<String, NodeTree.Node> prepared = new HashMap<>();

    /** Takes what one statement the session ran did to its cursors and prepared statements. */
    void ran(ParseCapture statement, boolean succeeded) {
        // Most statements forget both: that much is read from the head of the tree, the rest only when needed.
        String type = succeeded ? statement.utilityType() : null;
        NodeTree.Node utility = type == null || !KEEPS_MEMORY.contains(type) ? null : statement.utility();
        if (utility == null || !KEEPS_MEMORY.contains(utility.type())) {
            cursors.clear();
            prepared.clear();
            return;
        }
        switch (utility.type()) {
            case "DECLARECURSORSTMT", DECLARE_14 -> remember(cursors, utility.text("portalname"), utility.node("query"));
            case "PREPARESTMT" -> remember(prepared, utility.text("name"), statement.next());
            case "CLOSEPORTALSTMT" -> forget(cursors, utility.text("portalname"));
            case "DEALLOCATESTMT" -> forget(prepared, utility.text("name"));
            default -> {
                // FETCH, MOVE and EXECUTE leave both as they were.
            }
        }
    }

    /** Statements ran on the session that this memory did not see. */
    void forget() {
        cursors.clear();
        prepared.clear();
    }

    private static void remember(Map<String, NodeTree.Node> memory, String name, NodeTree.Node query) {
        if (name != null) {
            memory.put(name, query);
        }
    }

    /** CLOSE ALL and DEALLOCATE ALL name nothing. */
    private static void forget(Map<String, NodeTree.Node> memory, String name) {
        if (name == null) {
            memory.clear();
        } else {
            memory.remove(name);
        }
    }

    /** The order of the rows {@code statement} returned, {@code columns} wide. Call before {@link #ran}. */
    RowOrder of(ParseCapture statement, int columns) {
        NodeTree.Node top = statement.statement();
        if (top == null) {
            return RowOrder.unknown(statement.missing());
        }
        if (!statement.isUtility()) {
            return top.number("commandType", -1) == SELECT ? ofQuery(top, columns, "the server's parse of the query")
                    // INSERT/UPDATE/DELETE/MERGE … RETURNING cannot sort what they return.
                    : RowOrder.unordered("a data-modifying statement's RETURNING has no order");
        }
        NodeTree.Node utility = statement.utility();
        String type = utility == null ? "" : utility.type();
        switch (type) {
            case "EXPLAINSTMT", "VARIABLESHOWSTMT" -> {
                // Their rows are lines of one text (a plan, a setting list) in the order the server prints them.
                return RowOrder.lines("EXPLAIN and SHOW print their lines in order");
            }
            case "FETCHSTMT" -> {
                String name = utility.text("portalname");
                NodeTree.Node query = name == null ? null : cursors.get(name);
                if (query == null) {
                    return RowOrder.unknown("the cursor " + name + " was not declared by a statement Kensho saw parsed since "
                            + "(a cursor opened inside a function, or a statement ran in between that could have reopened it)");
                }
                return ofQuery(query, columns, "the server's parse of the cursor's query");
            }
            case "EXECUTESTMT" -> {
                String name = utility.text("name");
                NodeTree.Node query = name == null ? null : prepared.get(name);
                if (query == null && name != null && prepared.containsKey(name)) {
                    return RowOrder.unknown("the server did not report its parse of the prepared statement " + name + "'s query "
                            + "(PostgreSQL 14 reports a PREPARE's own parse only)");
                }
                if (query == null) {
                    return RowOrder.unknown("the prepared statement " + name + " was not prepared by a statement Kensho saw parsed "
                            + "since (a statement ran in between that could have prepared it anew)");
                }
                return ofQuery(query, columns, "the server's parse of the prepared statement");
            }
            default -> {
                return RowOrder.unknown("the server's parse of a " + type.toLowerCase(java.util.Locale.ROOT)
                        + " statement says nothing about its rows' order");
            }
        }
    }

    /** The order a parsed query promises: its top-level sortClause, each key mapped to the result column its target entry is. */
    static RowOrder ofQuery(NodeTree.Node query, int columns, String basis) {
        if (query.get("utilityStmt") != null) {
            return RowOrder.unknown(basis + " is not a query");
        }
        if (query.number("commandType", -1) != SELECT) {
            return RowOrder.unordered("a data-modifying statement's RETURNING has no order");
        }
        List<Object> sortClause = query.list("sortClause");
        if (sortClause.isEmpty()) {
            return RowOrder.unordered(basis);
        }
        Map<Long, Integer> columnOf = new HashMap<>();
        Set<Long> constants = new HashSet<>();
        int visible = 0;
        for (Object item : query.list("targetList")) {
            if (!(item instanceof NodeTree.Node entry) || !entry.type().equals("TARGETENTRY")) {
                return RowOrder.unknown(basis + " could not be read");
            }
            boolean junk = "true".equals(entry.text("resjunk"));
            int column = junk ? -1 : visible++;
            long ref = entry.number("ressortgroupref", 0);
            if (ref > 0) {
                columnOf.put(ref, column);
                NodeTree.Node expression = entry.node("expr");
                if (expression != null && expression.type().equals("CONST")) {
                    constants.add(ref);
                }
            }
        }
        if (visible != columns) {
            return RowOrder.unknown(basis + " has " + visible + " result column(s) and the result " + columns);
        }
        List<Integer> keys = new ArrayList<>();
        List<Long> equality = new ArrayList<>();
        for (Object item : sortClause) {
            if (!(item instanceof NodeTree.Node clause) || !clause.type().equals("SORTGROUPCLAUSE")) {
                return RowOrder.unknown(basis + " could not be read");
            }
            long ref = clause.number("tleSortGroupRef", 0);
            if (constants.contains(ref)) {
                continue; // a constant sorts nothing: every row ties on it
            }
            Integer column = columnOf.get(ref);
            if (column == null) {
                return RowOrder.unknown(basis + " could not be read");
            }
            if (column < 0) {
                return RowOrder.sortedOnHiddenKey(basis);
            }
            if (!keys.contains(column)) {
                keys.add(column);
                equality.add(clause.number("eqop", 0));
            }
        }
        if (keys.isEmpty()) {
            return RowOrder.unordered(basis + ": every ORDER BY key is a constant");
        }
        return RowOrder.sorted(keys, equality, basis);
    }
}
