package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlLexer.Kind;
import dev.kensho.sqlchecks.script.SqlLexer.Token;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Finds SQL that reads the settings Kensho gives a page's session and a reader's session does not have
 * (how parse trees reach Kensho: client_min_messages, debug_print_parse, debug_pretty_print, the
 * connection's application_name; and on a page that claims a plan, how plans reach it:
 * session_preload_libraries and auto_explain's settings). What a statement shows of them is Kensho's
 * doing, not the reader's SQL's, so no claim can rest on it. Setting them (SET, RESET) is the page's
 * own business; reading them is what counts: by name, through a name the page computes, through the
 * role settings Kensho gives the page's role, or through a list of every setting or every session.
 * A list of settings read only for names Kensho does not set ({@code WHERE name = 'work_mem'},
 * {@code name IN (…)}, {@code name LIKE 'enable%'}, nothing else in an OR or NOT) reads nothing of
 * Kensho's; the list of sessions always does (Kensho's own sessions are among them).
 * The text is read with the one SQL lexer, string literals and function bodies included, so that a
 * name hidden in dynamic SQL or a function defined earlier is found too.
 */
final class KenshoSettingsReaders {

    /** Given to every page's session: how the server reports parse trees to Kensho, and the connection's name. */
    static final Set<String> SESSION = Set.of("client_min_messages", "debug_print_parse", "debug_print_rewritten",
            "debug_pretty_print", "application_name");
    /** Given to the sessions of a page that claims a plan ({@link PlanCapture}). */
    private static final String PRELOAD = "session_preload_libraries";
    private static final String PREFIX = "auto_explain";
    /** Views and functions that list every setting: precise when restricted by name. */
    private static final Set<String> SETTING_LISTS = Set.of("pg_settings", "pg_show_all_settings", "pg_file_settings");
    /** Lists that always show Kensho's doing: every session (Kensho's own ones, application_name), every role or database default. */
    private static final Set<String> WHOLE_LISTS = Set.of("pg_stat_activity", "pg_stat_get_activity", "pg_db_role_setting",
            "rolconfig", "useconfig", "setconfig");

    /**
     * What reads a setting of Kensho's or the server as a whole, as written, and where in the text given; {@code shared}
     * says what of the server it reads, null for a setting of Kensho's.
     */
    record Read(String what, int offset, ServerWideReaders.Shared shared) {
        Read(String what, int offset) {
            this(what, offset, null);
        }
    }

    private KenshoSettingsReaders() {
    }

    /** The settings Kensho gives a page's sessions, in words, for messages. */
    static String described(boolean claimsPlans) {
        TreeSet<String> names = new TreeSet<>(SESSION);
        if (claimsPlans) {
            names.add(PRELOAD);
            return String.join(", ", names) + " and auto_explain's settings to see plans and parse trees";
        }
        List<String> sorted = new ArrayList<>(names);
        return String.join(", ", sorted.subList(0, sorted.size() - 1)) + " and " + sorted.get(sorted.size() - 1)
                + " to see parse trees";
    }

    /** The first read of one of Kensho's settings in {@code sql}, or null when nothing reads one. */
    static Read find(String sql, boolean claimsPlans) {
        return scan(sql, claimsPlans).read();
    }

    /**
     * What one reading of a snippet's text finds: its first read of Kensho's settings or of the server as a whole (null
     * when none), and every name it spells, lower-cased (identifiers, and the names in strings and function bodies read as
     * SQL in their turn, to {@link #MAX_DEPTH} levels), which the parse-tree backstop ({@link TreeReads}) compares with
     * what the server reports. One pass with the one SQL lexer gives both.
     */
    record Scan(Read read, Set<String> spelled) {
    }

    static Scan scan(String sql, boolean claimsPlans) {
        Set<String> names = new java.util.HashSet<>();
        Read read = find(sql, claimsPlans, 0, names);
        return new Scan(read, names);
    }

    /**
     * Strings and function bodies are read as SQL in their turn, each level inside the one around it: past this many
     * levels the text counts as a read (a claim on it cannot be checked) rather than be read deeper, so that SQL nested
     * thousands deep neither overflows the stack nor costs its length times its depth.
     */
    static final int MAX_DEPTH = 16;

    private static Read find(String sql, boolean claimsPlans, int depth, Set<String> names) {
        if (depth > MAX_DEPTH) {
            return new Read("strings or function bodies nested more than " + MAX_DEPTH + " deep", 0);
        }
        Read first = null;
        for (SqlStatement statement : SqlSplitter.split(sql)) {
            Read read = inStatement(statement.text(), claimsPlans, depth, names);
            if (first == null && read != null) {
                first = new Read(read.what(), statement.offset() + read.offset(), read.shared());
            }
        }
        return first;
    }

    /**
     * What reading the object {@code name} (a relation or function of pg_catalog, as a parse tree names it) reads of
     * Kensho's settings or of the server as a whole, judged as the text gate judges the name written with nothing to
     * restrict it; null when it reads neither. {@code what} is the name.
     */
    static Read named(String name, boolean claimsPlans) {
        String lower = name.toLowerCase(Locale.ROOT);
        // current_setting and set_config where the text never spells them (SQL built at run time); a setting of Kensho's
        // that a statement built at run time SET (the server's tree names it).
        if (WHOLE_LISTS.contains(lower) || SETTING_LISTS.contains(lower) || lower.equals("current_setting") || lower.equals("set_config")
                || isKenshos(lower, claimsPlans)) {
            return new Read(lower, 0);
        }
        if (lower.equals("version")) {
            // Named where the text calls it, version(); a tree names the function only (SQL built at run time, a view's).
            return new Read(lower, 0, ServerWideReaders.Shared.ENVIRONMENT);
        }
        List<Token> tokens = SqlLexer.tokens("\"" + lower.replace("\"", "\"\"") + "\"").stream().filter(Token::significant).toList();
        ServerWideReaders.Shared shared = tokens.size() == 1 ? ServerWideReaders.at(tokens, 0) : null;
        return shared == null ? null : new Read(lower, 0, shared);
    }

    private static boolean isKenshos(String name, boolean claimsPlans) {
        String lower = name.toLowerCase(Locale.ROOT);
        return SESSION.contains(lower) || claimsPlans && (lower.equals(PRELOAD) || lower.startsWith(PREFIX));
    }

    /** The statement's first read (null when none); every name it spells is added to {@code names}. */
    private static Read inStatement(String text, boolean claimsPlans, int depth, Set<String> names) {
        List<Token> tokens = SqlLexer.tokens(text).stream().filter(Token::significant).toList();
        if (tokens.isEmpty()) {
            return null;
        }
        String first = tokens.get(0).word();
        boolean setsIt = first.equals("set") || first.equals("reset");
        Read found = null;
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            // As the server reads it: a quoted identifier or a string with its escapes decoded (U&"pg\005fstat_activity").
            String lower = SqlLexer.value(tokens, i).toLowerCase(Locale.ROOT);
            boolean named = token.kind() == Kind.WORD || token.kind() == Kind.QUOTED_IDENTIFIER;
            if (named) {
                names.add(lower);
            }
            // Dynamic SQL or a function body, always read as SQL in its turn (a name in it may itself be escaped:
            // EXECUTE E'SHOW applic\\141tion_name' in a function body); what it reads is reported at the string.
            boolean string = token.kind() == Kind.STRING || token.kind() == Kind.DOLLAR_STRING;
            Read inner = string ? find(SqlLexer.value(tokens, i), claimsPlans, depth + 1, names) : null;
            if (found == null) {
                found = readAt(tokens, i, lower, named, setsIt, claimsPlans, inner);
            }
        }
        return found;
    }

    /** What the token at {@code i} reads, or null; {@code inner} is what the string there reads as SQL. */
    private static Read readAt(List<Token> tokens, int i, String lower, boolean named, boolean setsIt, boolean claimsPlans, Read inner) {
        Token token = tokens.get(i);
        if (named && WHOLE_LISTS.contains(lower)) {
            return new Read(token.text(), token.start());
        }
        if (named && SETTING_LISTS.contains(lower)) {
            String environment = environmentPattern(tokens);
            if (environment != null) {
                return new Read(environment, token.start(), ServerWideReaders.Shared.ENVIRONMENT);
            }
            if (!onlyOthers(tokens, claimsPlans)) {
                return new Read(token.text(), token.start());
            }
        }
        ServerWideReaders.Shared shared = ServerWideReaders.at(tokens, i);
        if (shared != null) {
            return new Read(token.text(), token.start(), shared);
        }
        if (token.kind() == Kind.WORD && lower.equals("session") && i + 1 < tokens.size() && tokens.get(i + 1).word().equals("authorization")
                && !(i >= 1 && tokens.get(i - 1).word().equals("reset"))
                && !(i + 2 < tokens.size() && tokens.get(i + 2).word().equals("default"))) {
            // The playground runs a reader's SQL as kensho_reader after SET SESSION AUTHORIZATION from PGlite's superuser,
            // so a page's own SET SESSION AUTHORIZATION postgres succeeds there and fails at build (the page's role may not).
            // RESET SESSION AUTHORIZATION and SET SESSION AUTHORIZATION DEFAULT keep kensho_reader there (PGlite 0.5.16),
            // as they keep the page's role at build: PostgreSQL's own tests end every SET SESSION AUTHORIZATION so.
            return new Read("SESSION AUTHORIZATION", token.start(), ServerWideReaders.Shared.ENVIRONMENT);
        }
        if (token.kind() == Kind.WORD && lower.equals("show") && i + 1 < tokens.size() && tokens.get(i + 1).word().equals("all")) {
            return new Read("SHOW ALL", token.start());
        }
        if (named && (lower.equals("current_setting") || lower.equals("set_config"))) {
            // A name the page computes could be any of them: read, or set (set_config returns the value, and a page's
            // function that turns the parse reports off for its own body hides what the body read).
            boolean literal = i + 3 < tokens.size() && tokens.get(i + 1).kind() == Kind.OPEN_PAREN
                    && tokens.get(i + 2).kind() == Kind.STRING && tokens.get(i + 2).text().startsWith("'")
                    && (tokens.get(i + 3).kind() == Kind.CLOSE_PAREN || tokens.get(i + 3).text().equals(","));
            if (!literal) {
                return new Read(lower + " with a computed name", token.start());
            }
        }
        if (!setsIt && (named || token.kind() == Kind.STRING || token.kind() == Kind.DOLLAR_STRING)) {
            for (String name : new TreeSet<>(SESSION)) {
                if (lower.contains(name)) {
                    return new Read(name, token.start());
                }
            }
            if (claimsPlans && lower.contains(PRELOAD)) {
                return new Read(PRELOAD, token.start());
            }
            if (claimsPlans && lower.contains(PREFIX)) {
                return new Read("auto_explain's settings", token.start());
            }
            if (inner != null) {
                return new Read(inner.what(), token.start(), inner.shared());
            }
        }
        return null;
    }

    /**
     * Whether the statement reads a list of settings only for names Kensho does not set: every row it can
     * see is restricted by {@code name = '…'}, {@code name IN ('…', …)} or {@code name [I]LIKE '…'}, and
     * no OR or NOT can widen that. Anything else counts as reading the whole list.
     */
    private static boolean onlyOthers(List<Token> tokens, boolean claimsPlans) {
        // One read of one list, and the names that may qualify its column: the list's own and its alias.
        Set<String> qualifiers = new java.util.HashSet<>();
        int lists = 0;
        for (int i = 0; i < tokens.size(); i++) {
            if (SETTING_LISTS.contains(tokens.get(i).word())) {
                lists++;
                qualifiers.add(tokens.get(i).word());
                int alias = i + 1 < tokens.size() && tokens.get(i + 1).word().equals("as") ? i + 2 : i + 1;
                if (alias < tokens.size() && tokens.get(alias).kind() == Kind.WORD) {
                    qualifiers.add(tokens.get(alias).word());
                }
            }
        }
        if (lists != 1) {
            return false;
        }
        boolean restricted = false;
        for (int i = 0; i < tokens.size(); i++) {
            String word = tokens.get(i).word();
            if (Set.of("or", "not", "union", "except", "intersect").contains(word)) {
                return false;
            }
            if (!word.equals("name") || i + 2 >= tokens.size()) {
                continue;
            }
            boolean qualified = i >= 2 && tokens.get(i - 1).text().equals(".");
            if (qualified && !qualifiers.contains(tokens.get(i - 2).word())) {
                continue;
            }
            Token operator = tokens.get(i + 1);
            if (operator.text().equals("=") && isLiteral(tokens.get(i + 2)) && (i + 3 >= tokens.size()
                    || !tokens.get(i + 3).text().equals("|"))) {
                if (isKenshos(literal(tokens.get(i + 2)), claimsPlans)) {
                    return false;
                }
                restricted = true;
            } else if ((operator.word().equals("like") || operator.word().equals("ilike")) && isLiteral(tokens.get(i + 2))) {
                Pattern pattern = likePattern(literal(tokens.get(i + 2)), operator.word().equals("ilike"));
                for (String name : kenshosNames(claimsPlans)) {
                    if (pattern.matcher(name).matches()) {
                        return false;
                    }
                }
                restricted = true;
            } else if (operator.word().equals("in") && tokens.get(i + 2).kind() == Kind.OPEN_PAREN) {
                int j = i + 3;
                for (; j < tokens.size() && isLiteral(tokens.get(j)); j += 2) {
                    if (isKenshos(literal(tokens.get(j)), claimsPlans)) {
                        return false;
                    }
                    if (j + 1 < tokens.size() && tokens.get(j + 1).kind() == Kind.CLOSE_PAREN) {
                        restricted = true;
                        break;
                    }
                    if (j + 1 >= tokens.size() || !tokens.get(j + 1).text().equals(",")) {
                        return false;
                    }
                }
            }
        }
        return restricted;
    }

    /**
     * The first setting of the build's environment a {@code name [I]LIKE '…'} of the statement matches (a name written
     * whole is found where it is spelled), or null.
     */
    private static String environmentPattern(List<Token> tokens) {
        for (int i = 0; i + 2 < tokens.size(); i++) {
            Token operator = tokens.get(i + 1);
            if (tokens.get(i).word().equals("name") && (operator.word().equals("like") || operator.word().equals("ilike"))
                    && isLiteral(tokens.get(i + 2))) {
                String found = ServerWideReaders.environmentSettingMatching(
                        likePattern(literal(tokens.get(i + 2)), operator.word().equals("ilike")));
                if (found != null) {
                    return tokens.get(i + 2).text() + " (" + found + ")";
                }
            }
        }
        return null;
    }

    /** Every name Kensho sets on such a page, for matching a LIKE pattern against. */
    private static List<String> kenshosNames(boolean claimsPlans) {
        List<String> names = new ArrayList<>(SESSION);
        if (claimsPlans) {
            names.add(PRELOAD);
            names.addAll(PlanCapture.settingNames());
        }
        return names;
    }

    private static boolean isLiteral(Token token) {
        return token.kind() == Kind.STRING && token.text().startsWith("'");
    }

    private static String literal(Token token) {
        String text = token.text();
        return text.substring(1, text.length() - 1).replace("''", "'");
    }

    /** LIKE's pattern language (% any run, _ one character, \ escapes) as a regular expression. */
    private static Pattern likePattern(String like, boolean ignoreCase) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < like.length(); i++) {
            char c = like.charAt(i);
            if (c == '\\' && i + 1 < like.length()) {
                regex.append(Pattern.quote(String.valueOf(like.charAt(++i))));
            } else if (c == '%') {
                regex.append("(?s).*");
            } else if (c == '_') {
                regex.append("(?s).");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
    }

}
