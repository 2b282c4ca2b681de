package dev.kensho.sqlchecks.script;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SqlSplitterTest {

    private static List<String> texts(String sql) {
        return SqlSplitter.split(sql).stream().map(SqlStatement::text).toList();
    }

    @Test
    void splitsAtTopLevelSemicolons() {
        assertEquals(List.of("SELECT 1", "SELECT 2"), texts("SELECT 1; SELECT 2;"));
    }

    @Test
    void keepsSemicolonsInsideSingleQuotesWithDoubledQuotes() {
        assertEquals(List.of("SELECT 'a;''b;'", "SELECT 3"), texts("SELECT 'a;''b;'; SELECT 3"));
    }

    @Test
    void keepsSemicolonsInsideEscapeStrings() {
        // In E'' strings a backslash escapes the quote, so \' does not end the string.
        assertEquals(List.of("SELECT E'it\\'s; fine'", "SELECT 2"), texts("SELECT E'it\\'s; fine'; SELECT 2"));
    }

    @Test
    void aBackslashInAStandardStringIsNotAnEscape() {
        assertEquals(List.of("SELECT 'C:\\'", "SELECT 2"), texts("SELECT 'C:\\'; SELECT 2"));
    }

    @Test
    void keepsSemicolonsInsideQuotedIdentifiers() {
        assertEquals(List.of("CREATE TABLE \"a;b\" (x int)", "SELECT 1"), texts("CREATE TABLE \"a;b\" (x int); SELECT 1"));
    }

    @Test
    void keepsDollarQuotedBodiesWholeIncludingTaggedOnesAndNestedTags() {
        String function = """
                CREATE FUNCTION f() RETURNS text LANGUAGE plpgsql AS $body$
                BEGIN
                  PERFORM 1; RETURN $$x;y$$;
                END
                $body$""";
        assertEquals(List.of(function, "SELECT f()"), texts(function + ";\nSELECT f();"));
    }

    @Test
    void positionalParametersAreNotDollarQuotes() {
        assertEquals(List.of("SELECT $1::int", "SELECT 2"), texts("SELECT $1::int; SELECT 2"));
    }

    @Test
    void ignoresSemicolonsInLineAndNestedBlockComments() {
        String sql = "SELECT 1 -- not here;\n; /* nor /* here; */ nor here; */ SELECT 2;";
        // A trailing comment belongs to no statement, as leading ones do not.
        assertEquals(List.of("SELECT 1", "SELECT 2"), texts(sql));
    }

    @Test
    void dropsPiecesThatHoldOnlyCommentsAndReportsOffsetsOfTheFirstToken() {
        String sql = "-- seed\n\n  INSERT INTO t VALUES (1);\n-- trailing remark\n";
        List<SqlStatement> statements = SqlSplitter.split(sql);
        assertEquals(1, statements.size());
        assertEquals("INSERT INTO t VALUES (1)", statements.get(0).text());
        assertEquals(sql.indexOf("INSERT"), statements.get(0).offset());
    }

    @Test
    void anIdentifierEndingInEIsNotAnEscapeStringPrefix() {
        // "type" ends in e; the quote after it opens a standard string where \ is literal.
        assertEquals(List.of("SELECT type'\\'", "SELECT 2"), texts("SELECT type'\\'; SELECT 2"));
    }
}
