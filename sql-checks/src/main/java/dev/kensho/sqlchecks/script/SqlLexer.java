package dev.kensho.sqlchecks.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one reader of SQL text in Kensho: splitting a snippet into statements, finding a top-level
 * ORDER BY and anything else that must tell code from strings and comments goes through these
 * tokens. It follows PostgreSQL's lexical rules (with standard_conforming_strings on, as on a
 * stock server): standard strings with doubled quotes, {@code E''} strings with backslash escapes,
 * {@code U&''}/{@code B''}/{@code X''}/{@code N''} strings, quoted identifiers, dollar quoting with
 * tags, {@code --} comments, nesting block comments, and {@code $n} parameters.
 */
public final class SqlLexer {

    public enum Kind {
        /** A keyword or an unquoted identifier (letters, digits, _ and $). */
        WORD,
        /** A string constant of any form, quotes included. */
        STRING,
        QUOTED_IDENTIFIER,
        /** A dollar-quoted string such as {@code $$ … $$} or {@code $body$ … $body$}. */
        DOLLAR_STRING,
        /** {@code $1}, {@code $2}, … */
        PARAMETER,
        COMMENT,
        WHITESPACE,
        OPEN_PAREN,
        CLOSE_PAREN,
        SEMICOLON,
        /** Any other character: operators, commas, dots. */
        SYMBOL
    }

    /**
     * @param start index of the first character in the text
     * @param end   index after the last character
     * @param depth parenthesis depth at the token (an opening parenthesis has the depth outside it)
     */
    public record Token(Kind kind, int start, int end, int depth, String text) {

        /** The word in lower case, or "" for a token that is not a word. */
        public String word() {
            return kind == Kind.WORD ? text.toLowerCase(Locale.ROOT) : "";
        }

        public boolean significant() {
            return kind != Kind.WHITESPACE && kind != Kind.COMMENT;
        }
    }

    private final String sql;
    private final boolean standardConformingStrings;
    private int pos;
    private int depth;

    private SqlLexer(String sql, boolean standardConformingStrings) {
        this.sql = sql;
        this.standardConformingStrings = standardConformingStrings;
    }

    /** Every token of the text as a stock server reads it (standard_conforming_strings on). */
    public static List<Token> tokens(String sql) {
        return tokens(sql, true);
    }

    /** The first word of the text (lower case), past whitespace and comments; "" when there is none. */
    public static String firstWord(String sql, boolean standardConformingStrings) {
        return tokens(sql, standardConformingStrings).stream().filter(Token::significant).findFirst().map(Token::word).orElse("");
    }

    /**
     * Every token of the text, whitespace and comments included, in order; an unclosed quote runs to
     * the end. With {@code standardConformingStrings} off, as psql reads a session where the server
     * reports it off, a backslash escapes the next character in plain {@code '…'} strings too.
     */
    public static List<Token> tokens(String sql, boolean standardConformingStrings) {
        return new SqlLexer(sql, standardConformingStrings).all();
    }

    private List<Token> all() {
        List<Token> tokens = new ArrayList<>();
        while (pos < sql.length()) {
            int start = pos;
            Kind kind = next();
            if (kind == Kind.CLOSE_PAREN) {
                depth = Math.max(0, depth - 1);
            }
            tokens.add(new Token(kind, start, pos, depth, sql.substring(start, pos)));
            if (kind == Kind.OPEN_PAREN) {
                depth++;
            }
        }
        return tokens;
    }

    private Kind next() {
        char c = sql.charAt(pos);
        if (isSpace(c)) {
            while (pos < sql.length() && isSpace(sql.charAt(pos))) {
                pos++;
            }
            return Kind.WHITESPACE;
        }
        if (sql.startsWith("--", pos)) {
            int eol = sql.indexOf('\n', pos);
            pos = eol < 0 ? sql.length() : eol;
            return Kind.COMMENT;
        }
        if (sql.startsWith("/*", pos)) {
            skipBlockComment();
            return Kind.COMMENT;
        }
        if (c == '\'') {
            skipQuoted('\'', !standardConformingStrings);
            return Kind.STRING;
        }
        if (c == '"') {
            skipQuoted('"', false);
            return Kind.QUOTED_IDENTIFIER;
        }
        if (c == '$') {
            if (pos + 1 < sql.length() && isDigit(sql.charAt(pos + 1))) {
                pos++;
                while (pos < sql.length() && isDigit(sql.charAt(pos))) {
                    pos++;
                }
                return Kind.PARAMETER;
            }
            String tag = dollarTag();
            if (tag != null) {
                int close = sql.indexOf(tag, pos + tag.length());
                pos = close < 0 ? sql.length() : close + tag.length();
                return Kind.DOLLAR_STRING;
            }
            pos++;
            return Kind.SYMBOL;
        }
        if (isIdentifierStart(c)) {
            Kind prefixed = prefixedString(c);
            if (prefixed != null) {
                return prefixed;
            }
            while (pos < sql.length() && isIdentifierPart(sql.charAt(pos))) {
                pos++;
            }
            return Kind.WORD;
        }
        if (isDigit(c)) {
            while (pos < sql.length() && (isIdentifierPart(sql.charAt(pos)) || sql.charAt(pos) == '.')) {
                pos++;
            }
            return Kind.WORD;
        }
        pos++;
        return switch (c) {
            case '(' -> Kind.OPEN_PAREN;
            case ')' -> Kind.CLOSE_PAREN;
            case ';' -> Kind.SEMICOLON;
            default -> Kind.SYMBOL;
        };
    }

    /** E'…' (backslash escapes), U&'…', U&"…", B'…', X'…', N'…'; null when the word is not such a prefix. */
    private Kind prefixedString(char c) {
        char lower = c < 0x80 ? Character.toLowerCase(c) : c;
        if (pos + 1 < sql.length() && sql.charAt(pos + 1) == '\'' && "ebxn".indexOf(lower) >= 0) {
            pos++;
            skipQuoted('\'', lower == 'e' || (lower == 'n' && !standardConformingStrings));
            return Kind.STRING;
        }
        if (lower == 'u' && sql.startsWith("&'", pos + 1)) {
            pos += 2;
            skipQuoted('\'', false);
            return Kind.STRING;
        }
        if (lower == 'u' && sql.startsWith("&\"", pos + 1)) {
            pos += 2;
            skipQuoted('"', false);
            return Kind.QUOTED_IDENTIFIER;
        }
        return null;
    }

    private void skipQuoted(char quote, boolean backslashEscapes) {
        pos++;
        while (pos < sql.length()) {
            char c = sql.charAt(pos);
            if (backslashEscapes && c == '\\') {
                pos += 2;
            } else if (c == quote) {
                if (pos + 1 < sql.length() && sql.charAt(pos + 1) == quote) {
                    pos += 2; // a doubled quote stands for itself
                } else {
                    pos++;
                    return;
                }
            } else {
                pos++;
            }
        }
        pos = sql.length();
    }

    private void skipBlockComment() {
        int nesting = 0;
        while (pos < sql.length()) {
            if (sql.startsWith("/*", pos)) {
                nesting++;
                pos += 2;
            } else if (sql.startsWith("*/", pos)) {
                nesting--;
                pos += 2;
                if (nesting == 0) {
                    return;
                }
            } else {
                pos++;
            }
        }
    }

    /**
     * {@code $tag$} starting at pos, or null when the dollar sign opens no quote. As in psqlscan.l a tag
     * starts with an ASCII letter, _ or any non-ASCII character ({@code [A-Za-z\200-\377_]}) and goes on
     * with those and ASCII digits.
     */
    private String dollarTag() {
        int j = pos + 1;
        while (j < sql.length() && sql.charAt(j) != '$') {
            char c = sql.charAt(j);
            boolean valid = isIdentifierStart(c) || (j > pos + 1 && isDigit(c));
            if (!valid) {
                return null;
            }
            j++;
        }
        return j < sql.length() ? sql.substring(pos, j + 1) : null;
    }

    /** psqlscan.l's {@code ident_start}: ASCII letters, _ and every non-ASCII character (U+3000 included). */
    private static boolean isIdentifierStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    }

    private static boolean isIdentifierPart(char c) {
        return isIdentifierStart(c) || isDigit(c) || c == '$';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** psqlscan.l's {@code space}: only these; other Unicode spaces are identifier characters to the server. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000b';
    }
    /**
     * What a token spells as the server reads it: a dollar-quoted body, a string's or a quoted identifier's text with its
     * doubled quotes and escapes decoded (E'…' backslash escapes, U&amp;'…' and U&amp;"…" Unicode escapes, UESCAPE too),
     * anything else as written. {@code tokens} are the significant ones (a U&amp; token's UESCAPE follows it). What reads
     * names in SQL (Kensho's settings, the clock) reads them through this, so that a name hidden behind an escape is found
     * as its plain spelling is.
     */
    public static String value(List<Token> tokens, int i) {
        Token token = tokens.get(i);
        String text = token.text();
        if (token.kind() == Kind.DOLLAR_STRING) {
            int open = text.indexOf('$', 1);
            int close = text.lastIndexOf('$', text.length() - 2);
            // Unterminated (the text ends inside it): the rest, never the token itself, so a reader recursing on it ends.
            return open < 0 ? "" : close > open ? text.substring(open + 1, close) : text.substring(open + 1);
        }
        if (token.kind() != Kind.STRING && token.kind() != Kind.QUOTED_IDENTIFIER) {
            return text;
        }
        char quoteChar = token.kind() == Kind.STRING ? '\'' : '"';
        int quote = text.indexOf(quoteChar);
        if (quote < 0) {
            return "";
        }
        String prefix = text.substring(0, quote).toLowerCase(Locale.ROOT);
        boolean closed = text.length() >= quote + 2 && text.charAt(text.length() - 1) == quoteChar;
        String body = text.substring(quote + 1, closed ? text.length() - 1 : text.length());
        if (prefix.equals("e")) {
            return backslashEscapes(body);
        }
        String plain = body.replace(String.valueOf(quoteChar) + quoteChar, String.valueOf(quoteChar));
        if (prefix.equals("u&")) {
            char escape = '\\';
            String uescape = i + 2 < tokens.size() && tokens.get(i + 1).word().equals("uescape") ? tokens.get(i + 2).text() : "";
            if (uescape.length() == 3 && uescape.charAt(0) == '\'' && uescape.charAt(2) == '\'') {
                escape = uescape.charAt(1);
            }
            return unicodeEscapes(plain, escape);
        }
        return plain;
    }

    /** An E'…' string's body as the server reads it (\\n, octal, \\x hex, \\u and \\U, '' and \\'). */
    private static String backslashEscapes(String body) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '\'' && i + 1 < body.length() && body.charAt(i + 1) == '\'') {
                out.append('\'');
                i++;
            } else if (c != '\\' || i + 1 >= body.length()) {
                out.append(c);
            } else {
                char n = body.charAt(++i);
                int digits = n >= '0' && n <= '7' ? 3 : n == 'x' ? 2 : n == 'u' ? 4 : n == 'U' ? 8 : 0;
                int radix = n >= '0' && n <= '7' ? 8 : 16;
                int start = n >= '0' && n <= '7' ? i : i + 1;
                int end = start;
                while (end < body.length() && end - start < digits && Character.digit(body.charAt(end), radix) >= 0) {
                    end++;
                }
                if (digits > 0 && end > start) {
                    appendCodePoint(out, Long.parseLong(body.substring(start, end), radix));
                    i = end - 1;
                } else {
                    out.append(switch (n) {
                        case 'b' -> '\b';
                        case 'f' -> '\f';
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        case 't' -> '\t';
                        default -> n;
                    });
                }
            }
        }
        return out.toString();
    }

    /** A U&amp;'…' or U&amp;"…" body as the server reads it: escape+XXXX, escape+'+'+XXXXXX, a doubled escape. */
    private static String unicodeEscapes(String body, char escape) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != escape || i + 1 >= body.length()) {
                out.append(c);
            } else if (body.charAt(i + 1) == escape) {
                out.append(escape);
                i++;
            } else {
                int start = body.charAt(i + 1) == '+' ? i + 2 : i + 1;
                int digits = body.charAt(i + 1) == '+' ? 6 : 4;
                if (start + digits <= body.length() && body.substring(start, start + digits).chars().allMatch(d -> Character.digit(d, 16) >= 0)) {
                    appendCodePoint(out, Long.parseLong(body.substring(start, start + digits), 16));
                    i = start + digits - 1;
                } else {
                    out.append(c);
                }
            }
        }
        return out.toString();
    }

    /** A decoded escape; one the server would refuse (past U+10FFFF) spells nothing the page could run. */
    private static void appendCodePoint(StringBuilder out, long codePoint) {
        if (Character.isValidCodePoint((int) Math.min(codePoint, Integer.MAX_VALUE))) {
            out.appendCodePoint((int) codePoint);
        }
    }
}
