package dev.kensho.sqlchecks.model;


import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DirectivesTest {

    private static Map<String, String> meta(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void parsesEveryKind() throws Exception {
        Directives d = Directives.parse(meta("setup", "true", "hidden", "true", "$2:timestamptz", "2026-01-01", "$1:uuid", "a",
                "title", "x.sql", "uses-index", "idx", "no-sort", "true"));
        assertTrue(d.setup() && d.hidden());
        assertEquals(List.of(new Directives.Parameter(1, "uuid", "a"), new Directives.Parameter(2, "timestamptz", "2026-01-01")), d.parameters());
        assertEquals("idx", d.plan().usesIndex());
        assertTrue(d.plan().noSort());
    }

    @Test
    void rejectsUnknownDirectivesNamingTheKnownOnes() {
        InvalidDirectiveException e = assertThrows(InvalidDirectiveException.class, () -> Directives.parse(meta("expect", "23505")));
        assertTrue(e.getMessage().startsWith("unknown directive 'expect'; known: setup, hidden, result, explain, case=NAME, expect-error=SQLSTATE"), e.getMessage());
    }

    @Test
    void rejectsAMalformedSqlState() {
        InvalidDirectiveException e = assertThrows(InvalidDirectiveException.class, () -> Directives.parse(meta("expect-error", "dup")));
        assertEquals("expect-error takes a five-character SQLSTATE such as 23505, not 'dup'", e.getMessage());
    }

    @Test
    void rejectsGapsInParameters() {
        InvalidDirectiveException e = assertThrows(InvalidDirectiveException.class, () -> Directives.parse(meta("$2:int", "1")));
        assertEquals("parameters must be numbered $1 to $1 without gaps; $1 is missing", e.getMessage());
    }

    @Test
    void rejectsUnknownScanNodes() {
        InvalidDirectiveException e = assertThrows(InvalidDirectiveException.class, () -> Directives.parse(meta("scan-in", "Index Sacn")));
        assertTrue(e.getMessage().startsWith("scan-in names plan nodes among"), e.getMessage());
    }

    @Test
    void aCharacterTypedOverABorderSpaceIsPartOfItsValueNotDropped() throws Exception {
        // Found by a false claim made from PostgreSQL's eval-plan-qual-trigger output: "key-cx" stood where psql
        // prints "key-c " and was read as key-c, so a page showing key-cx passed. Such a line is read by its bars.
        ExpectedRows rows = ExpectedRows.parse("  key  |  data\n-------+-------\n key-b | val-a\n key-cx| val-c\n(2 rows)\n");
        assertEquals(List.of(List.of("key-b", "val-a"), List.of("key-cx", "val-c")), rows.rows());
        ExpectedRows after = ExpectedRows.parse("  key  |  data\n-------+-------\n key-b |xval-a\n(1 row)\n");
        assertEquals(List.of(List.of("key-b", "xval-a")), after.rows());
        // psql's own continuation mark in that place still continues the value.
        ExpectedRows continued = ExpectedRows.parse("  key  | data\n-------+------\n key-b+| v\n c     | \n(1 row)\n");
        assertEquals(List.of(List.of("key-b\nc", "v")), continued.rows());
    }

    @Test
    void parsesPsqlTablesAndChecksTheFooter() throws Exception {
        ExpectedRows rows = ExpectedRows.parse(" a | b\n---+---\n 1 | x\n   | y\n(2 rows)\n");
        assertEquals(List.of("a", "b"), rows.columns());
        assertEquals(List.of(List.of("1", "x"), List.of("", "y")), rows.rows());
        InvalidDirectiveException e = assertThrows(InvalidDirectiveException.class, () -> ExpectedRows.parse(" a\n---\n 1\n(2 rows)\n"));
        assertEquals("the footer says (2 rows) but the table has 1", e.getMessage());
        InvalidDirectiveException cells = assertThrows(InvalidDirectiveException.class, () -> ExpectedRows.parse(" a | b\n---+---\n 1\n"));
        assertEquals("line 3 has 1 cell(s) but the header has 2 column(s), and its '|' are not where the dashed line puts them: 1",
                cells.getMessage());
    }
}
