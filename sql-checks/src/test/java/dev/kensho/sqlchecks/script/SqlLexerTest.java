package dev.kensho.sqlchecks.script;

import dev.kensho.sqlchecks.assertion.SqlText;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one lexer behind splitting and ORDER BY detection. */
class SqlLexerTest {

    private static List<String> texts(String sql) {
        return SqlSplitter.split(sql).stream().map(SqlStatement::text).toList();
    }

    @Test
    void orderByIsFoundOnlyInCodeAtDepthZero() {
        assertTrue(SqlText.hasTopLevelOrderBy("SELECT x FROM t ORDER BY x"));
        assertTrue(SqlText.hasTopLevelOrderBy("SELECT x FROM t /* /* */ ORDER BY */ ORDER\n  BY x"));
        assertTrue(SqlText.hasTopLevelOrderBy("SELECT E'\\'' , '(' FROM t ORDER BY 1"));
        assertTrue(SqlText.hasTopLevelOrderBy("SELECT U&'(' FROM t order/**/by 1"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT $$ ORDER BY $$ FROM t"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT $q$ ) ORDER BY $q$ FROM t"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT x FROM t /* ORDER BY x */"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT x FROM t -- ORDER BY x"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT \"order\", \"by\" FROM t"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT string_agg(x, ',' ORDER BY x) FROM t"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT * FROM (SELECT x FROM t ORDER BY x) s"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT E'(\\'' AS a FROM t"));
        assertFalse(SqlText.hasTopLevelOrderBy("SELECT x AS reorder FROM t WHERE bye = 1"));
    }

    @Test
    void dollarTagsAndIdentifiersTakeAnyNonAsciiCharacterAsPsqlDoes() {
        // psqlscan.l: dolq_start [A-Za-z\200-\377_]; the middle dot is no letter to Java, but a tag character to psql.
        assertEquals(List.of("SELECT $é·x$ ; not a boundary $é·x$", "SELECT 2"), texts("SELECT $é·x$ ; not a boundary $é·x$; SELECT 2;"));
        // U+3000 (ideographic space) is an identifier character to the server, not whitespace.
        assertEquals(List.of(SqlLexer.Kind.WORD), SqlLexer.tokens("a\u3000b").stream().map(SqlLexer.Token::kind).toList());
    }

    @Test
    void withStandardConformingStringsOffABackslashEscapesAQuote() {
        assertEquals(List.of("SELECT 'a\\';b'"), SqlSplitter.split("SELECT 'a\\';b';", false).stream().map(SqlStatement::text).toList());
        assertEquals(List.of("SELECT 'a\\'", "b';"), SqlSplitter.split("SELECT 'a\\';b';", true).stream().map(SqlStatement::text).toList());
    }

    @Test
    void psqlKeepsARoutinesAtomicBodyAndParenthesesTogether() {
        assertEquals(List.of("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END",
                "SELECT f()"), texts("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END; SELECT f();"));
        assertEquals(List.of("CREATE RULE r AS ON INSERT TO t DO INSTEAD (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2))", "SELECT 1"),
                texts("CREATE RULE r AS ON INSERT TO t DO INSTEAD (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)); SELECT 1;"));
        assertEquals(List.of("BEGIN", "SELECT 1", "END"), texts("BEGIN; SELECT 1; END;"));
    }

    @Test
    void parametersAreTokensOnlyInCode() {
        assertEquals(0, SqlText.highestPlaceholder("CREATE FUNCTION f(int) RETURNS int AS $$ SELECT $1 + 1 $$ LANGUAGE sql"));
        assertEquals(2, SqlText.highestPlaceholder("SELECT $1, '$3', $2 -- $4"));
    }
}
