package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** PostgreSQL's node strings as debug_print_parse reports them (outToken's escapes, format_node_dump's line breaks). */
class NodeTreeTest {

    @Test
    void escapedDelimitersAndBlanksStayInsideTheirString() throws Exception {
        NodeTree.Node query = NodeTree.read("{QUERY :commandType 1 :targetList ({TARGETENTRY :expr {CONST :consttype 23 "
                + ":constvalue 4 [ 1 0 0 0 0 0 0 0 ]} :resno 1 :resname \\{a\\ b\\) :ressortgroupref 1 :resjunk false}) "
                + ":sortClause ({SORTGROUPCLAUSE :tleSortGroupRef 1 :eqop 96 :sortop 97}) :cteList <> :note \\<>}");
        assertEquals(1, query.number("commandType", -1));
        NodeTree.Node entry = (NodeTree.Node) query.list("targetList").get(0);
        assertEquals("{a b)", entry.text("resname"));
        assertEquals("4 [ 1 0 0 0 0 0 0 0 ]", entry.node("expr").text("constvalue"));
        assertEquals(96, ((NodeTree.Node) query.list("sortClause").get(0)).number("eqop", 0));
        assertNull(query.get("cteList"));
        assertEquals("<>", query.text("note"));
    }

    @Test
    void aLineBreakTheLogFormatterPutAtAnEscapedBlankIsThatBlank() throws Exception {
        NodeTree.Node entry = NodeTree.read("{TARGETENTRY :resno 1 :resname total\\\nprice :ressortgroupref\n2 :resjunk false}");
        assertEquals("total price", entry.text("resname"));
        assertEquals(2, entry.number("ressortgroupref", 0));
        assertEquals(List.of(), entry.list("missing"));
    }

    @Test
    void unbalancedTextIsRefused() {
        assertThrows(NodeTree.Malformed.class, () -> NodeTree.read("{QUERY :targetList ({TARGETENTRY :resno 1}"));
        assertThrows(NodeTree.Malformed.class, () -> NodeTree.read("{QUERY :a 1} {QUERY :a 2}"));
    }

    @Test
    void theHeadIsWhatTheWholeTreeSaysItsCommandAndUtilityStatementAre() throws Exception {
        String select = "{QUERY :commandType 1 :querySource 0 :canSetTag true :utilityStmt <> :resultRelation 0 :rtable ({RANGETBLENTRY "
                + ":alias <>}) :sortClause <>}";
        String declare = "{QUERY :commandType 6 :querySource 0 :canSetTag true :utilityStmt {DECLARECURSORSTMT :portalname c\\ 1 "
                + ":options 256 :query {QUERY :commandType 1 :utilityStmt <>}} :resultRelation 0}";
        // Fields in another order (a nested node before utilityStmt): the whole tree is read.
        String reordered = "{QUERY :rtable ({RANGETBLENTRY :alias <>}) :commandType 6 :utilityStmt {FETCHSTMT :portalname c}}";
        for (String tree : List.of(select, declare, reordered)) {
            NodeTree.Node whole = NodeTree.read(tree);
            NodeTree.Head head = NodeTree.head(tree);
            assertEquals(whole.number("commandType", -1), head.commandType(), tree);
            assertEquals(whole.node("utilityStmt") == null ? null : whole.node("utilityStmt").type(), head.utilityType(), tree);
        }
        assertEquals(new NodeTree.Head(1, null), NodeTree.head(select));
        assertEquals(new NodeTree.Head(6, "DECLARECURSORSTMT"), NodeTree.head(declare));
        assertEquals(new NodeTree.Head(6, "FETCHSTMT"), NodeTree.head(reordered));
        // A command type of several atoms is no number, as Node.number reads it.
        assertEquals(-1, NodeTree.head("{QUERY :commandType 6 1 :utilityStmt <>}").commandType());
        assertThrows(NodeTree.Malformed.class, () -> NodeTree.head("{QUERY :rtable ({RANGETBLENTRY :alias <>}"));
    }
}
