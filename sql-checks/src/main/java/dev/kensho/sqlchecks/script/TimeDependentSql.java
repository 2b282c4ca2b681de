package dev.kensho.sqlchecks.script;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * SQL whose outcome depends on when or by chance it runs: the clock ({@code now()}, {@code current_date},
 * {@code 'now'::timestamptz}, …), randomness ({@code random()}, {@code gen_random_uuid()},
 * {@code TABLESAMPLE}, …) or the run itself ({@code pg_backend_pid()}, {@code txid_current()}, …). A ✓ recorded for
 * such a page is about the moment or the draw it ran with. A clock-reading page's outcome is reused from the cache for
 * the time site.yml allows ({@code cache: clockPagesFor}, a day at most), and the page says when it was verified. A
 * page reading chance or the run is reused as any page is: its recorded run is one draw, as a run made now would be,
 * and the verifier gave it a second draw (its SecondDraw: a claim that held on one draw only fails). CI runs both kinds
 * again. Found with the project's lexer, never in comments; inside string and dollar-quoted bodies too, because a
 * function or a DEFAULT written there runs when the page does. Erring towards a miss only costs time here; the verifier
 * also reads the server's parse trees for chance, which SQL built at run time cannot hide from.
 */
public final class TimeDependentSql {

    /** What a page's SQL depends on besides itself. */
    public enum Kind {
        /** The time it runs: the same claims hold for a while. */
        CLOCK,
        /** A random draw or the identity of the run (a backend, a transaction, a port): nothing carries over. */
        CHANCE
    }

    /** The first word or literal of one kind found in a page's SQL. */
    public record Reading(Kind kind, String word) {
    }

    /** Keywords that read the clock wherever they stand. */
    private static final Set<String> CLOCK_KEYWORDS = Set.of(
            "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp");
    /** Keywords that sample by chance. */
    private static final Set<String> CHANCE_KEYWORDS = Set.of("tablesample");
    /** Functions whose value comes from the clock, when called (a column may be named age). */
    private static final Set<String> CLOCK_FUNCTIONS = Set.of(
            // age(x) with one argument counts from current_date
            "now", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday", "age");
    /** Functions whose value comes from the random generator or the run, when called. */
    private static final Set<String> CHANCE_FUNCTIONS = Set.of(
            // when this server started or read its configuration: different on every build
            "pg_postmaster_start_time", "pg_conf_load_time",
            // chance
            "random", "random_normal", "setseed", "array_shuffle", "array_sample", "gen_random_uuid", "uuidv4", "uuidv7",
            "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4", "gen_random_bytes", "gen_salt", "normal_rand",
            // pgcrypto's PGP encryption draws a session key and salt
            "pgp_sym_encrypt", "pgp_sym_encrypt_bytea", "pgp_pub_encrypt", "pgp_pub_encrypt_bytea",
            // the run: a backend, transaction or WAL position, a port, different on every build
            "pg_backend_pid", "txid_current", "txid_current_if_assigned", "pg_current_xact_id",
            "pg_current_xact_id_if_assigned", "pg_current_wal_lsn", "pg_current_wal_insert_lsn", "inet_server_port",
            "inet_client_port", "pg_export_snapshot", "pg_my_temp_schema", "pg_current_snapshot", "txid_current_snapshot");
    /** Input strings a date/time type reads from the clock: {@code 'now'::timestamptz}, {@code date 'today'}. */
    private static final Set<String> CLOCK_LITERALS = Set.of("now", "today", "tomorrow", "yesterday");
    /** How deep string bodies are opened (a function body holding a DO block holding a string). */
    private static final int MAX_DEPTH = 4;

    private TimeDependentSql() {
    }

    /**
     * The clock read afresh at every call: its microseconds are a draw like random()'s (red team helper-90: {@code
     * extract(microseconds FROM clock_timestamp()) % 2 = 0}). For the cache such a page reads the clock; for the
     * verifier's second run ({@link #firstDraw}) it draws.
     */
    private static final Set<String> DRAWING_CLOCK = Set.of("clock_timestamp", "timeofday");
    private static final Set<String> DRAWS;

    static {
        Set<String> draws = new java.util.HashSet<>(CHANCE_FUNCTIONS);
        draws.addAll(DRAWING_CLOCK);
        DRAWS = Set.copyOf(draws);
    }

    /** The names of the functions that draw: chance, the run, the clock read afresh at every call ({@link #firstDraw}). */
    public static Set<String> drawingFunctions() {
        return DRAWS;
    }

    /** The first draw the SQL makes by its text (a function of {@link #drawingFunctions}, TABLESAMPLE), or null. */
    public static Reading firstDraw(String sql) {
        return firstIn(sql, 0, Kind.CHANCE);
    }

    /** Whether a function of this name (lowercase) reads the clock ({@link Kind#CLOCK}). */
    public static boolean clockFunction(String name) {
        return CLOCK_FUNCTIONS.contains(name);
    }

    /** Whether the SQL reads the clock anywhere, though it may draw from chance first ({@link #read} says only that). */
    public static boolean readsClock(String sql) {
        return firstIn(sql, 0, Kind.CLOCK) != null;
    }

    /** Whether a function of this name (lowercase) draws ({@link #drawingFunctions}). */
    public static boolean drawingFunction(String name) {
        return DRAWS.contains(name);
    }

    /** The first word or literal that makes the SQL depend on the clock or on chance, or null. */
    public static String find(String sql) {
        Reading found = firstIn(sql, 0, null);
        return found == null ? null : found.word();
    }

    /** The first such word in any of the snippets, or null. */
    public static String find(List<String> sqls) {
        Reading found = read(sqls);
        return found == null ? null : found.word();
    }

    /**
     * What snippets read, by their SQL: a pure function of the text, asked for every page on every build (twice: whether
     * its cache entry may be reused, and what its mark says), and the preview rebuilds on every edit; lexing every
     * page's SQL again was most of an edit's verify stage.
     */
    private static final java.util.Map<List<String>, java.util.Optional<Reading>> READ = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * What the snippets read: their first reading of the clock when there is one (it decides how long the page's marks
     * may be reused, and the page says when they were made), else of chance, or null. A page reading both is a clock
     * page: before, chance decided and such a page was reused for a day whatever {@code clockPagesFor} said.
     */
    public static Reading read(List<String> sqls) {
        java.util.Optional<Reading> known = READ.get(sqls);
        if (known == null) {
            known = java.util.Optional.ofNullable(readNow(sqls));
            if (READ.size() > 10_000) {
                READ.clear();
            }
            READ.put(List.copyOf(sqls), known);
        }
        return known.orElse(null);
    }

    private static Reading readNow(List<String> sqls) {
        Reading chance = null;
        for (String sql : sqls) {
            Reading clock = firstIn(sql, 0, Kind.CLOCK);
            if (clock != null) {
                return clock;
            }
            if (chance == null) {
                chance = firstIn(sql, 0, Kind.CHANCE);
            }
        }
        return chance;
    }

    /** What a word reads as a keyword, or null. */
    private static Kind keywordKind(String word) {
        return CHANCE_KEYWORDS.contains(word) ? Kind.CHANCE : CLOCK_KEYWORDS.contains(word) ? Kind.CLOCK : null;
    }

    /** What a called function of this name reads, or null. */
    private static Kind functionKind(String name) {
        return CHANCE_FUNCTIONS.contains(name) ? Kind.CHANCE : CLOCK_FUNCTIONS.contains(name) ? Kind.CLOCK : null;
    }

    /** The first reading of {@code wanted} (of either kind when null) in the SQL, or null. */
    private static Reading firstIn(String sql, int depth, Kind wanted) {
        List<SqlLexer.Token> tokens = SqlLexer.tokens(sql).stream().filter(SqlLexer.Token::significant).toList();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token token = tokens.get(i);
            // U&"…" UESCAPE '!' (…): the escape belongs to the name, the call follows it.
            int next = i + 1 < tokens.size() && tokens.get(i + 1).word().equals("uescape") ? i + 3 : i + 1;
            boolean called = next < tokens.size() && tokens.get(next).kind() == SqlLexer.Kind.OPEN_PAREN;
            switch (token.kind()) {
                case WORD -> {
                    Kind kind = keywordKind(token.word()) != null ? keywordKind(token.word()) : called ? functionKind(token.word()) : null;
                    if (kind != null && (wanted == null || wanted == kind)) {
                        return new Reading(kind, token.word());
                    }
                    if (wanted == Kind.CHANCE && called && DRAWING_CLOCK.contains(token.word())) {
                        return new Reading(Kind.CHANCE, token.word());
                    }
                }
                case QUOTED_IDENTIFIER -> {
                    String name = SqlLexer.value(tokens, i); // U&"n\006fw"() calls now() too
                    Kind kind = called ? functionKind(name) : null;
                    if (kind != null && (wanted == null || wanted == kind)) {
                        return new Reading(kind, name);
                    }
                    if (wanted == Kind.CHANCE && called && DRAWING_CLOCK.contains(name)) {
                        return new Reading(Kind.CHANCE, name);
                    }
                }
                case STRING, DOLLAR_STRING -> {
                    String body = SqlLexer.value(tokens, i); // escapes decoded: E'n\157w'::date reads the clock too
                    if (wanted != Kind.CHANCE && CLOCK_LITERALS.contains(body.strip().toLowerCase(Locale.ROOT))) {
                        return new Reading(Kind.CLOCK, "'" + body.strip() + "'");
                    }
                    if (depth < MAX_DEPTH) {
                        Reading inside = firstIn(body, depth + 1, wanted);
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
}
