package dev.kensho.sqlchecks.assertion;

import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlLexer.Kind;
import dev.kensho.sqlchecks.script.SqlLexer.Token;

import java.util.List;

/** Facts about a statement's text that assertions need, read from {@link SqlLexer}'s tokens. */
public final class SqlText {

    private SqlText() {
    }

    /** True when ORDER BY appears outside parentheses, i.e. it sorts the statement's own result. */
    public static boolean hasTopLevelOrderBy(String sql) {
        return hasTopLevelOrderBy(sql, true);
    }

    /** @param standardConformingStrings the session's setting, which decides where '…' strings end */
    public static boolean hasTopLevelOrderBy(String sql, boolean standardConformingStrings) {
        List<Token> tokens = SqlLexer.tokens(sql, standardConformingStrings).stream().filter(Token::significant).toList();
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0 && tokens.get(i).word().equals("order") && tokens.get(i + 1).word().equals("by")) {
                return true;
            }
        }
        return false;
    }

    /** The highest {@code $n} parameter written in code (not in strings, comments or dollar-quoted bodies); 0 when none. */
    public static int highestPlaceholder(String sql) {
        int highest = 0;
        for (Token token : SqlLexer.tokens(sql)) {
            if (token.kind() == Kind.PARAMETER) {
                highest = Math.max(highest, Integer.parseInt(token.text().substring(1)));
            }
        }
        return highest;
    }
}
