package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.script.SqlLexer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The utility statement a parse tree left out. PostgreSQL 14 and 15 write a Query's {@code utilityStmt} only for
 * CREATE TABLE, CREATE INDEX, NOTIFY and DECLARE CURSOR ({@code outfuncs.c} before 16 writes {@code :utilityStmt ?}
 * for every other one), so there the PREPARE, EXECUTE, FETCH, MOVE, CLOSE, DEALLOCATE, EXPLAIN or SHOW a session ran
 * is told from its text, read with the one SQL lexer: its first word, and the name it gives, as the server's grammar
 * places it (the cursor name ends a FETCH) and its scanner folds it (unquoted: ASCII lower case; cut to 63 bytes).
 * The node built carries the fields 16 and later write for the same statement, so that the same statement is read
 * the same way on every version. A name that cannot be read yields a statement of no kind Kensho keeps track of,
 * which makes the session forget its cursors and prepared statements.
 */
final class UtilityText {

    /** NAMEDATALEN - 1: the server cuts longer identifiers to this many bytes. */
    private static final int MAX_NAME_BYTES = 63;
    /** A utility statement of a kind SessionOrders neither remembers nor reads an order from. */
    private static final NodeTree.Node OTHER = new NodeTree.Node("UTILITY", Map.of());

    private UtilityText() {
    }

    /** The node 16 and later would have written for the utility statement {@code sql}. */
    static NodeTree.Node read(String sql) {
        List<SqlLexer.Token> words = SqlLexer.tokens(sql).stream()
                .filter(t -> t.significant() && t.kind() != SqlLexer.Kind.SEMICOLON).toList();
        if (words.isEmpty()) {
            return OTHER;
        }
        int last = words.size() - 1;
        switch (words.get(0).word()) {
            case "prepare" -> {
                return named("PREPARESTMT", "name", words.size() > 1 ? name(words.get(1)) : null);
            }
            case "execute" -> {
                return named("EXECUTESTMT", "name", words.size() > 1 ? name(words.get(1)) : null);
            }
            case "fetch", "move" -> {
                return last > 0 ? named("FETCHSTMT", "portalname", name(words.get(last))) : OTHER;
            }
            case "close" -> {
                // CLOSE ALL names no cursor (null: all are forgotten), as the tree's <> does.
                return last == 1 ? node("CLOSEPORTALSTMT", "portalname", all(words.get(1)) ? null : name(words.get(1))) : OTHER;
            }
            case "deallocate" -> {
                // DEALLOCATE [PREPARE] name | ALL; "prepare" alone is a statement's name (an unreserved keyword).
                int at = last == 2 && words.get(1).word().equals("prepare") ? 2 : 1;
                return last == at ? node("DEALLOCATESTMT", "name", all(words.get(at)) ? null : name(words.get(at))) : OTHER;
            }
            case "explain" -> {
                return node("EXPLAINSTMT", null, null);
            }
            case "show" -> {
                return node("VARIABLESHOWSTMT", null, null);
            }
            default -> {
                return OTHER;
            }
        }
    }

    /** A statement naming a cursor or prepared statement that must be known to be tracked: unreadable, it is OTHER. */
    private static NodeTree.Node named(String type, String field, String name) {
        return name == null ? OTHER : node(type, field, name);
    }

    private static NodeTree.Node node(String type, String field, String value) {
        Map<String, Object> fields = new HashMap<>();
        if (field != null) {
            fields.put(field, value);
        }
        return new NodeTree.Node(type, fields);
    }

    private static boolean all(SqlLexer.Token token) {
        return token.word().equals("all");
    }

    /** The name an identifier token gives, as the server's scanner folds it; null when it is no plain identifier. */
    static String name(SqlLexer.Token token) {
        String name;
        if (token.kind() == SqlLexer.Kind.WORD) {
            // downcase_identifier: ASCII letters only in a multibyte encoding (Kensho's databases are UTF8).
            StringBuilder folded = new StringBuilder(token.text().length());
            token.text().chars().forEach(c -> folded.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : (char) c));
            name = folded.toString();
        } else if (token.kind() == SqlLexer.Kind.QUOTED_IDENTIFIER && token.text().startsWith("\"") && token.text().endsWith("\"")
                && token.text().length() >= 3) {
            name = token.text().substring(1, token.text().length() - 1).replace("\"\"", "\"");
        } else {
            return null; // a parameter, a string, U&"…" (escapes Kensho does not resolve): not a name read here
        }
        return truncated(name);
    }

    /** truncate_identifier: at most 63 bytes, cut on a character boundary. */
    private static String truncated(String name) {
        if (name.getBytes(StandardCharsets.UTF_8).length <= MAX_NAME_BYTES) {
            return name;
        }
        int bytes = 0;
        int end = 0;
        while (end < name.length()) {
            int cp = name.codePointAt(end);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > MAX_NAME_BYTES) {
                break;
            }
            bytes += size;
            end += Character.charCount(cp);
        }
        return name.substring(0, end);
    }
}
