package dev.kensho.sqlchecks.script;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.sqlchecks.fuzz.FuzzInput;
import dev.kensho.sqlchecks.script.SqlLexer.Token;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the one SQL lexer and the statement splitter on it with any text a fence may hold. Neither
 * may throw on any input (an unclosed quote runs to the end, it is not an error), the tokens must
 * cover the text exactly, and each statement must be the text at its offset, so that a server's
 * error position maps back to the author's line.
 */
class SqlTextFuzzTest {

    @FuzzTest(maxDuration = "10s")
    void lexAndSplit(byte[] input) throws Exception {
        String sql = FuzzInput.text(input);
        FuzzInput.withinBound("a SQL snippet", input.length, () -> {
            for (boolean standardConformingStrings : new boolean[] {true, false}) {
                List<Token> tokens = SqlLexer.tokens(sql, standardConformingStrings);
                int at = 0;
                for (Token token : tokens) {
                    assertEquals(at, token.start(), "tokens cover the text without gaps");
                    assertTrue(token.end() > token.start(), "no empty token");
                    assertEquals(sql.substring(token.start(), token.end()), token.text());
                    assertTrue(token.depth() >= 0);
                    at = token.end();
                }
                assertEquals(sql.length(), at, "tokens reach the end of the text");
                SqlLexer.firstWord(sql, standardConformingStrings);
                int after = 0;
                for (SqlStatement statement : SqlSplitter.split(sql, standardConformingStrings)) {
                    assertTrue(statement.offset() >= after, "statements come in order and do not overlap");
                    assertTrue(sql.startsWith(statement.text(), statement.offset()), "a statement is the text at its offset");
                    assertTrue(!statement.text().isBlank(), "no statement of whitespace only");
                    after = statement.offset() + statement.text().length();
                }
            }
        });
    }
}
