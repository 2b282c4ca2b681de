package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What 14 and 15 write as {@code :utilityStmt ?} is read from the statement's text as 16 and later write it. */
class UtilityTextTest {

    private static String read(String sql) {
        NodeTree.Node node = UtilityText.read(sql);
        return node.type() + new java.util.TreeMap<>(node.fields());
    }

    @Test
    void namesAreFoldedAndPlacedAsTheServersGrammarPlacesThem() {
        assertEquals("FETCHSTMT{portalname=My Cur}", read("FETCH FORWARD 5 FROM \"My Cur\";"));
        assertEquals("FETCHSTMT{portalname=c}", read("/* x */ fetch ALL in C"));
        assertEquals("FETCHSTMT{portalname=c}", read("MOVE -1 C;"));
        assertEquals("EXECUTESTMT{name=q}", read("EXECUTE Q(1, 'a;b');"));
        assertEquals("PREPARESTMT{name=q\"x}", read("PREPARE \"q\"\"x\" (int) AS SELECT $1;"));
        assertEquals("CLOSEPORTALSTMT{portalname=null}", read("CLOSE ALL;"));
        assertEquals("CLOSEPORTALSTMT{portalname=all}", read("CLOSE \"all\";"));
        assertEquals("DEALLOCATESTMT{name=prepare}", read("DEALLOCATE prepare;"));
        assertEquals("DEALLOCATESTMT{name=null}", read("DEALLOCATE PREPARE ALL;"));
        assertEquals("EXPLAINSTMT{}", read("EXPLAIN (COSTS OFF) SELECT 1;"));
        assertEquals("VARIABLESHOWSTMT{}", read("SHOW search_path;"));
        assertEquals("x".repeat(63), UtilityText.read("EXECUTE " + "X".repeat(70)).fields().get("name"));
        // A name Kensho does not resolve (U&"…" escapes) or no statement it keeps track of: the session forgets.
        assertEquals("UTILITY{}", read("EXECUTE U&\"d\\0061t\";"));
        assertEquals("UTILITY{}", read("CALL p();"));
        assertEquals(Map.of(), UtilityText.read("").fields());
    }
}
