package dev.kensho.sqlchecks.script;

import dev.kensho.sqlchecks.script.SqlLexer.Kind;
import dev.kensho.sqlchecks.script.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a snippet into statements the way psql does: at a semicolon outside strings, identifiers
 * and comments (see {@link SqlLexer}), outside parentheses ({@code CREATE RULE … DO INSTEAD (…; …)}),
 * and outside the {@code BEGIN ATOMIC … END} body of a {@code CREATE [OR REPLACE] FUNCTION|PROCEDURE}
 * (psql's own heuristic: BEGIN and CASE open, END closes). Leading whitespace and comments belong to
 * no statement; a piece holding only whitespace and comments is dropped.
 */
public final class SqlSplitter {

    private SqlSplitter() {
    }

    /** Splits as psql does in a session with standard_conforming_strings on, as on a stock server. */
    public static List<SqlStatement> split(String sql) {
        return split(sql, true);
    }

    /** @param standardConformingStrings the session's setting, which decides what a backslash in '…' means */
    public static List<SqlStatement> split(String sql, boolean standardConformingStrings) {
        List<SqlStatement> statements = new ArrayList<>();
        List<Token> tokens = SqlLexer.tokens(sql, standardConformingStrings);
        int first = -1;
        int last = -1;
        List<String> leadingWords = new ArrayList<>();
        int beginDepth = 0;
        for (Token token : tokens) {
            if (token.kind() == Kind.SEMICOLON && token.depth() == 0 && beginDepth == 0) {
                if (first >= 0) {
                    statements.add(new SqlStatement(sql.substring(first, last), first, sql.substring(first, token.end())));
                }
                first = -1;
                leadingWords.clear();
                continue;
            }
            if (!token.significant()) {
                continue;
            }
            if (first < 0) {
                first = token.start();
            }
            last = token.end();
            if (token.kind() == Kind.WORD) {
                leadingWords.add(token.word());
                if (token.depth() == 0 && definesRoutine(leadingWords)) {
                    switch (token.word()) {
                        case "begin" -> beginDepth++;
                        case "case" -> beginDepth += beginDepth > 0 ? 1 : 0;
                        case "end" -> beginDepth = Math.max(0, beginDepth - 1);
                        default -> {
                        }
                    }
                }
            }
        }
        if (first >= 0) {
            statements.add(new SqlStatement(sql.substring(first, last), first));
        }
        return statements;
    }

    /** CREATE FUNCTION, CREATE PROCEDURE, CREATE OR REPLACE FUNCTION|PROCEDURE. */
    private static boolean definesRoutine(List<String> words) {
        if (words.size() < 2 || !words.get(0).equals("create")) {
            return false;
        }
        if (isRoutine(words.get(1))) {
            return true;
        }
        return words.size() >= 4 && words.get(1).equals("or") && words.get(2).equals("replace") && isRoutine(words.get(3));
    }

    private static boolean isRoutine(String word) {
        return word.equals("function") || word.equals("procedure");
    }
}
