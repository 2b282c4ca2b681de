package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlLexer.Kind;
import dev.kensho.sqlchecks.script.SqlLexer.Token;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Finds SQL that reads the settings Kensho gives a page's session and a reader's session does not have
 * (how parse trees and plans reach Kensho: client_min_messages, debug_print_parse, debug_pretty_print,
 * auto_explain's, and the connection's application_name). What a statement shows of them is Kensho's
 * doing, not the reader's SQL's, so no claim can rest on it. Setting them (SET, RESET) is the page's
 * own business; reading them, by name or through a list of every setting or session, is what counts.
 * The text is read with the one SQL lexer, string literals and function bodies included, so that a
 * name hidden in dynamic SQL or a function defined earlier is found too.
 */
final class KenshoSettingsReaders {

    static final Set<String> NAMES = Set.of("client_min_messages", "debug_print_parse", "debug_pretty_print", "application_name",
            "session_preload_libraries");
    private static final String PREFIX = "auto_explain";
    /** Views and functions that list every setting or every session (application_name among their columns). */
    private static final Set<String> LISTS = Set.of("pg_settings", "pg_show_all_settings", "pg_file_settings", "pg_stat_activity",
            "pg_stat_get_activity", "pg_db_role_setting");

    private KenshoSettingsReaders() {
    }

    /** What in {@code sql} reads one of Kensho's settings, as written, or null when nothing does. */
    static String find(String sql) {
        for (dev.kensho.sqlchecks.script.SqlStatement statement : dev.kensho.sqlchecks.script.SqlSplitter.split(sql)) {
            List<Token> tokens = SqlLexer.tokens(statement.text()).stream().filter(Token::significant).toList();
            if (tokens.isEmpty()) {
                continue;
            }
            String first = tokens.get(0).word();
            for (int i = 0; i < tokens.size(); i++) {
                Token token = tokens.get(i);
                String text = token.text().toLowerCase(Locale.ROOT);
                if (token.kind() == Kind.WORD && LISTS.contains(text)) {
                    return token.text();
                }
                if (token.kind() == Kind.WORD && text.equals("show") && i + 1 < tokens.size() && tokens.get(i + 1).word().equals("all")) {
                    return "SHOW ALL";
                }
                if (token.kind() == Kind.WORD && text.equals("current_setting")) {
                    // A name the page computes could be any of them.
                    boolean literal = i + 3 < tokens.size() && tokens.get(i + 1).kind() == Kind.OPEN_PAREN
                            && tokens.get(i + 2).kind() == Kind.STRING && tokens.get(i + 2).text().startsWith("'")
                            && (tokens.get(i + 3).kind() == Kind.CLOSE_PAREN || tokens.get(i + 3).text().equals(","));
                    if (!literal) {
                        return "current_setting with a computed name";
                    }
                }
                boolean setsIt = first.equals("set") || first.equals("reset");
                if (!setsIt && (token.kind() == Kind.WORD || token.kind() == Kind.QUOTED_IDENTIFIER || token.kind() == Kind.STRING
                        || token.kind() == Kind.DOLLAR_STRING)) {
                    for (String name : NAMES) {
                        if (text.contains(name)) {
                            return name;
                        }
                    }
                    if (text.contains(PREFIX)) {
                        return "auto_explain's settings";
                    }
                    if (token.kind() != Kind.WORD && (text.contains("current_setting") || LISTS.stream().anyMatch(text::contains)
                            || text.contains("show all"))) {
                        // Dynamic SQL or a function body: read as SQL in its turn.
                        String inner = find(unquoted(token));
                        if (inner != null) {
                            return inner;
                        }
                    }
                }
            }
        }
        return null;
    }

    /** A string literal's or a dollar-quoted body's text, roughly: enough to look for names in it. */
    private static String unquoted(Token token) {
        String text = token.text();
        if (token.kind() == Kind.DOLLAR_STRING) {
            int open = text.indexOf('$', 1);
            int close = text.lastIndexOf('$', text.length() - 2);
            return open >= 0 && close > open ? text.substring(open + 1, close) : text;
        }
        int quote = text.indexOf('\'');
        return quote >= 0 && text.length() > quote + 1 ? text.substring(quote + 1, text.length() - 1).replace("''", "'") : text;
    }
}
