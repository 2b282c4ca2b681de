package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.script.SqlLexer;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * SQL whose outcome depends on when or by chance it runs: the clock ({@code now()}, {@code current_date},
 * {@code 'now'::timestamptz}, …), randomness ({@code random()}, {@code gen_random_uuid()},
 * {@code TABLESAMPLE}, …) or the run itself ({@code pg_backend_pid()}, {@code txid_current()}, …). A ✓ recorded for such a page says nothing about today's run, so its
 * outcome is never reused from the cache: the page runs on every build. Found with the project's
 * lexer, never in comments; inside string and dollar-quoted bodies too, because a function or a
 * DEFAULT written there runs when the page does. Erring towards a miss only costs time.
 */
final class TimeDependentSql {

    /** Keywords that read the clock or sample by chance wherever they stand. */
    private static final Set<String> KEYWORDS = Set.of(
            "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp", "tablesample");
    /** Functions whose value comes from the clock or the random generator, when called (a column may be named age). */
    private static final Set<String> FUNCTIONS = Set.of(
            // the clock (age(x) with one argument counts from current_date)
            "now", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday", "age",
            "pg_postmaster_start_time", "pg_conf_load_time",
            // chance
            "random", "random_normal", "setseed", "gen_random_uuid", "uuidv4", "uuidv7", "uuid_generate_v1",
            "uuid_generate_v1mc", "uuid_generate_v4", "gen_random_bytes", "gen_salt",
            // the run: a backend, transaction or WAL position, a port, different on every build
            "pg_backend_pid", "txid_current", "txid_current_if_assigned", "pg_current_xact_id",
            "pg_current_xact_id_if_assigned", "pg_current_wal_lsn", "pg_current_wal_insert_lsn", "inet_server_port",
            "inet_client_port");
    /** Input strings a date/time type reads from the clock: {@code 'now'::timestamptz}, {@code date 'today'}. */
    private static final Set<String> CLOCK_LITERALS = Set.of("now", "today", "tomorrow", "yesterday");
    /** How deep string bodies are opened (a function body holding a DO block holding a string). */
    private static final int MAX_DEPTH = 4;

    private TimeDependentSql() {
    }

    /** The first word or literal that makes the SQL depend on the clock or on chance, or null. */
    static String find(String sql) {
        return find(sql, 0);
    }

    /** The first such word in any of the snippets, or null. */
    static String find(List<String> sqls) {
        for (String sql : sqls) {
            String found = find(sql);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static String find(String sql, int depth) {
        List<SqlLexer.Token> tokens = SqlLexer.tokens(sql).stream().filter(SqlLexer.Token::significant).toList();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token token = tokens.get(i);
            boolean called = i + 1 < tokens.size() && tokens.get(i + 1).kind() == SqlLexer.Kind.OPEN_PAREN;
            switch (token.kind()) {
                case WORD -> {
                    if (KEYWORDS.contains(token.word()) || (called && FUNCTIONS.contains(token.word()))) {
                        return token.word();
                    }
                }
                case QUOTED_IDENTIFIER -> {
                    String name = unquote(token.text(), '"');
                    if (called && FUNCTIONS.contains(name)) {
                        return name;
                    }
                }
                case STRING, DOLLAR_STRING -> {
                    String body = token.kind() == SqlLexer.Kind.STRING ? stringBody(token.text()) : dollarBody(token.text());
                    if (CLOCK_LITERALS.contains(body.strip().toLowerCase(Locale.ROOT))) {
                        return "'" + body.strip() + "'";
                    }
                    if (depth < MAX_DEPTH) {
                        String inside = find(body, depth + 1);
                        if (inside != null) {
                            return inside;
                        }
                    }
                }
                default -> {
                }
            }
        }
        return null;
    }

    /** The characters between a string constant's quotes ({@code E'…'}, {@code U&'…'} and the rest), quotes undoubled. */
    private static String stringBody(String text) {
        int open = text.indexOf('\'');
        return open < 0 ? text : unquote(text.substring(open), '\'');
    }

    /** The text between the outer quotes, doubled quotes undoubled (a quoted identifier keeps its case). */
    private static String unquote(String text, char quote) {
        int end = text.length() > 1 && text.charAt(text.length() - 1) == quote ? text.length() - 1 : text.length();
        String doubled = String.valueOf(quote) + quote;
        return text.substring(Math.min(1, end), end).replace(doubled, String.valueOf(quote));
    }

    /** The body of {@code $tag$ … $tag$}. */
    private static String dollarBody(String text) {
        int tagEnd = text.indexOf('$', 1);
        if (tagEnd < 0) {
            return "";
        }
        int bodyEnd = text.length() - (tagEnd + 1);
        return bodyEnd > tagEnd + 1 ? text.substring(tagEnd + 1, bodyEnd) : "";
    }
}
