package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlLexer.Kind;
import dev.kensho.sqlchecks.script.SqlLexer.Token;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Finds SQL that reads the server as a whole rather than the page's own database and session. The build runs a page on
 * a server that also holds Kensho's maintenance database and sessions, the page template, the page's role and, with
 * {@code --jobs}, other pages' databases, roles and sessions; a reader runs it in PGlite, one database and the one
 * superuser {@code postgres}. What a statement reads of the rest of the server is Kensho's doing (or another page's),
 * not the reader's SQL's, so no claim can rest on it. Called token by token from the one reader of the page's text
 * ({@link KenshoSettingsReaders}), so that names in strings, dynamic SQL and function bodies are found the same way.
 *
 * <p>The list (PostgreSQL 18.6's system_views.sql, the shared catalogs of postgres.bki and pg_proc), by what it reads:
 * <ul>
 * <li>{@link Shared#DATABASES}: the shared catalog of databases, per-database statistics and sizes, every session's
 * locks, prepared transactions, connections and progress, shared dependencies and descriptions. A read restricted to
 * the page's own database or session (a top-level {@code AND} of the WHERE clause: {@code datname =
 * current_database()}, {@code datid}/{@code oid}/{@code database}/{@code dbid = (SELECT oid FROM pg_database WHERE
 * datname = current_database())}, {@code pid = pg_backend_pid()}, a lock's {@code relation = 'a_table'::regclass} of a
 * relation the page made; a size or counter function given the page's own
 * database) reads only the page's: during the real run only the reader's sessions are in that database.</li>
 * <li>{@link Shared#ROLES}: roles and memberships, however restricted. Pages cannot create roles (the page's role has
 * NOCREATEROLE), so every role they can see is Kensho's making, the page's own included (its name, attributes,
 * password, settings); a reader's session is the role {@code kensho_reader}, beside PGlite's superuser {@code postgres}.</li>
 * <li>{@link Shared#STATISTICS}: the server's cumulative statistics (bgwriter, checkpointer, WAL, I/O, SLRU, archiver,
 * replication, shared memory, asynchronous I/O): they count Kensho's own work and every other page's beside this one.
 * Nothing restricts them to the page.</li>
 * <li>{@link Shared#COUNTERS}: values drawn from counters the whole server shares: transaction IDs (txid_current,
 * pg_current_xact_id, a snapshot, a row's xmin and xmax), WAL positions, the control file. The server moved them for
 * everything it did before the page ran; a reader's counts from elsewhere. Whether the page's transaction has an ID yet
 * ({@code pg_current_xact_id_if_assigned() IS NULL}) is the page's own doing and stays allowed.</li>
 * <li>{@link Shared#GUARD}: the event triggers of the page's database. Only a superuser makes one, so every one is
 * Kensho's ({@link ExtensionGuard}), which a reader's database does not have.</li>
 * </ul>
 * OIDs of the objects a page makes come from the server's one OID counter too, but they are what every catalog join is
 * written in: the text cannot tell a join from a value shown. So what a claimed result shows is judged by its columns'
 * types instead ({@link #counterColumn}): a column of type oid, xid, xid8, pg_lsn or a snapshot shows a counter's value
 * however the text reached it.
 */
final class ServerWideReaders {

    /** The role a reader's SQL runs as in the playground (kensho-run-worker.js); the build's server has no such role. */
    static final String PLAYGROUND_ROLE = "kensho_reader";

    /** What a read of the server as a whole reads, in words, and why a reader's run cannot show it. */
    enum Shared {
        DATABASES("the server's other databases or sessions", "the build's server also holds Kensho's own database and "
                + "sessions and, with --jobs, other pages' databases and sessions; a reader's holds the page's database only"),
        ROLES("the server's roles", "every role a page sees is Kensho's making, the page's own included; a reader's session is "
                + "the role kensho_reader, beside PGlite's superuser postgres"),
        STATISTICS("the server's cumulative statistics", "they count Kensho's own work and other pages' beside this page's"),
        PACE("the server's cumulative statistics of the page's objects", "a session sends its counts to the server at most "
                + "once a second and autovacuum adds its own, so what they show depends on the run's pace, not on the SQL; the "
                + "pg_stat_xact_ views and functions show the transaction's own counts"),
        ENVIRONMENT("the connection and the server Kensho runs the page on", "Kensho connects as an unprivileged role of its "
                + "own over a local TCP port, to a server initdb sized for the build machine; a reader's session (PGlite: the "
                + "role kensho_reader in the database postgres, no TCP port) shows others"),
        COUNTERS("a counter the whole server shares", "its value moved with everything the build's server did before the page "
                + "ran; a reader's server counts from elsewhere"),
        /** Not a part of the server: a statement whose parse trees the gates could not read or judge, so it may read any. */
        UNJUDGED("something Kensho could not judge", "Kensho judges every statement a page runs from the parse trees the "
                + "server reports for it, so a statement whose trees it could not read may have read anything; dynamic SQL run "
                + "in a loop reports a tree on every run: keep such a loop under the limit, or claim nothing after it"),
        GUARD("what Kensho installs in the page's database", "Kensho's extension guard, an event trigger and its function, is "
                + "there at build and not in a reader's database; a page cannot make an event trigger");

        final String what;
        final String why;

        Shared(String what, String why) {
            this.what = what;
            this.why = why;
        }
    }

    /** Columns that restrict a list to the page's own database or session, and which of the page's values each takes. */
    enum Own { NAME, OID, PID, RELATION }

    private static final Map<String, Own> DATABASE_BY_NAME = Map.of("datname", Own.NAME, "datid", Own.OID);

    /** Lists of every database or session, and the columns that restrict each to the page's own. */
    private static final Map<String, Map<String, Own>> DATABASE_LISTS = Map.ofEntries(
            Map.entry("pg_database", Map.of("datname", Own.NAME, "oid", Own.OID)),
            Map.entry("pg_stat_database", DATABASE_BY_NAME),
            Map.entry("pg_stat_database_conflicts", DATABASE_BY_NAME),
            Map.entry("pg_locks", Map.of("pid", Own.PID, "database", Own.OID, "relation", Own.RELATION)),
            Map.entry("pg_prepared_xacts", Map.of("database", Own.NAME)),
            Map.entry("pg_shdepend", Map.of("dbid", Own.OID)),
            Map.entry("pg_shdescription", Map.of()),
            Map.entry("pg_shseclabel", Map.of()),
            Map.entry("pg_seclabels", Map.of()),
            Map.entry("pg_tablespace_size", Map.of()),
            Map.entry("pg_lock_status", Map.of()),
            Map.entry("pg_prepared_xact", Map.of()),
            Map.entry("pg_stat_ssl", Map.of("pid", Own.PID)),
            Map.entry("pg_stat_gssapi", Map.of("pid", Own.PID)),
            Map.entry("pg_stat_replication", Map.of()),
            Map.entry("pg_replication_slots", Map.of()),
            Map.entry("pg_get_replication_slots", Map.of()),
            Map.entry("pg_stat_subscription", Map.of()),
            Map.entry("pg_subscription", Map.of()),
            Map.entry("pg_replication_origin", Map.of()),
            Map.entry("pg_replication_origin_status", Map.of()),
            Map.entry("pg_stat_get_progress_info", Map.of()),
            Map.entry("pg_backend_memory_contexts", Map.of()));
    /** Lists whose every row is another session's unless restricted: pg_stat_progress_analyze, _vacuum, _cluster, … */
    private static final String PROGRESS = "pg_stat_progress_";
    /** Functions given a database (its name or OID) as their first argument: the page's own is the page's. */
    private static final String DATABASE_SIZE = "pg_database_size";
    private static final String DATABASE_COUNTER = "pg_stat_get_db_";
    /** Functions given a backend of the server's: any session's, Kensho's among them. */
    private static final String BACKEND_COUNTER = "pg_stat_get_backend_";

    /** Role lists, and the function that answers membership of any role by name (a reader's superuser is a member of all). */
    /** information_schema's lists of the session's roles (a reader's: kensho_reader; the build's: the page's role). */
    private static final Set<String> INFORMATION_SCHEMA_ROLES = Set.of("enabled_roles", "applicable_roles",
            "administrable_role_authorizations");
    /** information_schema's lists of the machine's collations (machinesCollation). */
    private static final Set<String> INFORMATION_SCHEMA_ENVIRONMENT = Set.of("collations", "collation_character_set_applicability");

    private static final Set<String> ROLE_LISTS = Set.of("pg_roles", "pg_authid", "pg_user", "pg_shadow", "pg_group",
            "pg_auth_members", "pg_user_mappings", "pg_parameter_acl", "pg_has_role");

    private static final Set<String> STATISTICS = Set.of("pg_stat_bgwriter", "pg_stat_checkpointer", "pg_stat_wal", "pg_stat_io",
            "pg_stat_slru", "pg_stat_archiver", "pg_stat_recovery_prefetch", "pg_stat_wal_receiver", "pg_stat_replication_slots",
            "pg_stat_subscription_stats", "pg_shmem_allocations", "pg_shmem_allocations_numa", "pg_aios", "pg_get_shmem_allocations",
            "pg_get_shmem_allocations_numa", "pg_get_aios", "pg_stat_get_wal", "pg_stat_get_io", "pg_stat_get_slru",
            "pg_stat_get_archiver", "pg_stat_get_replication_slot", "pg_stat_get_subscription_stats", "pg_stat_get_snapshot_timestamp");
    private static final List<String> STATISTICS_PREFIXES = List.of("pg_stat_get_bgwriter_", "pg_stat_get_checkpointer_",
            "pg_stat_get_buf_", "pg_stat_get_recovery_prefetch", "pg_stat_get_wal_");

    /**
     * Per-table, per-index and per-function cumulative statistics: the page's objects can restrict them, but their values
     * arrive when the session flushes (PGSTAT_MIN_INTERVAL, a second) and as autovacuum works; pg_stat_get_xact_* and the
     * pg_stat_xact_ views read the session's own pending counts and stay allowed.
     */
    private static final Set<String> PACED = Set.of("pg_stat_all_tables", "pg_stat_user_tables", "pg_stat_sys_tables",
            "pg_stat_all_indexes", "pg_stat_user_indexes", "pg_stat_sys_indexes", "pg_statio_all_tables", "pg_statio_user_tables",
            "pg_statio_sys_tables", "pg_statio_all_indexes", "pg_statio_user_indexes", "pg_statio_sys_indexes",
            "pg_statio_all_sequences", "pg_statio_user_sequences", "pg_statio_sys_sequences", "pg_stat_user_functions",
            "pg_stat_have_stats");
    private static final List<String> PACED_PREFIXES = List.of("pg_stat_get_numscans", "pg_stat_get_lastscan", "pg_stat_get_tuples_",
            "pg_stat_get_live_tuples", "pg_stat_get_dead_tuples", "pg_stat_get_mod_since_analyze", "pg_stat_get_ins_since_vacuum",
            "pg_stat_get_blocks_", "pg_stat_get_last_", "pg_stat_get_vacuum_count", "pg_stat_get_autovacuum_count",
            "pg_stat_get_analyze_count", "pg_stat_get_autoanalyze_count", "pg_stat_get_total_", "pg_stat_get_function_");

    /**
     * Facts of the run's connection and server, not of the page's SQL: the client's and server's addresses and ports, whether
     * the session is a superuser's, and the sizes initdb chose for the build machine. (The role's and database's names are
     * Kensho's too, but a page restricts catalog reads by them: {@code datname = current_database()}.)
     */
    private static final Set<String> ENVIRONMENT = Set.of("inet_server_port", "inet_server_addr", "inet_client_port",
            "inet_client_addr", "is_superuser", "listen_addresses", "unix_socket_directories", "max_connections", "shared_buffers",
            "dynamic_shared_memory_type", "data_directory", "config_file", "hba_file", "ident_file",
            // Derived from the sizes above, or chosen by how the server was built and started.
            "shared_memory_size", "shared_memory_size_in_huge_pages", "wal_buffers", "huge_pages_status", "data_checksums",
            "io_method", "session_authorization",
            // The collations initdb imported from the machine (machinesCollation), and the ICU they come from: the build's
            // server links an ICU of Unicode 10, PGlite one of Unicode 16, so even ICU's root collation orders otherwise.
            "pg_collation", "to_regcollation", "regcollation", "icu_unicode_version",
            // How the server was built and started, which the playground's differs in (red team helper-84): its workers
            // (PGlite has none), the extensions installed beside it, its SSL library, its log's time zone, and the
            // temp_file_limit Kensho gives the page (a superuser's setting, never a page's).
            "max_worker_processes", "pg_available_extensions", "pg_available_extension_versions", "ssl_library", "log_timezone",
            "temp_file_limit");
    /**
     * Settings whose names are everyday words (a page's column may be called port): refused where they are a setting's name
     * (a string holding only the name, as current_setting and pg_settings take it, or after SHOW), and version() where it
     * is called (the build's compiler and platform).
     */
    private static final Set<String> ENVIRONMENT_WORDS = Set.of("port", "fsync",
            // A page may SET these (plans without parallel workers); what the server started with is read only where named.
            "max_parallel_workers", "max_parallel_workers_per_gather", "max_parallel_maintenance_workers");

    /** The session's process ID, which a page may compare with a list's pid column and nothing else. */
    private static final String BACKEND_PID = "pg_backend_pid";

    /**
     * Whether the call at {@code i} ({@code pg_backend_pid()}) is one side of a plain {@code =}, {@code <>} or
     * {@code !=} whose other side is a column named pid ({@code pid}, {@code l.pid}) and nothing more (any other column
     * makes a number of it: {@code n = pg_backend_pid()} over generate_series, red team helper-97): whether a list's pid is the
     * session's or another's (a scenario reads its other sessions' locks so) holds in any run. Anything else reads the
     * build's process ID as a number: compared by order or with BETWEEN or IN, computed with, cast, passed to a function,
     * stored (red team helper-94 and helper-96: {@code > 1000}, {@code BETWEEN 1000 AND …}, {@code text(…)}, a table
     * of it compared later all held at build and not in PGlite, whose process is another).
     */
    private static boolean comparedForEquality(List<Token> tokens, int i) {
        boolean call = i + 2 < tokens.size() && tokens.get(i + 1).kind() == Kind.OPEN_PAREN && tokens.get(i + 2).kind() == Kind.CLOSE_PAREN;
        if (!call) {
            return false;
        }
        int start = i >= 2 && tokens.get(i - 1).text().equals(".") && nameAt(tokens, i - 2).equals("pg_catalog") ? i - 2 : i;
        int end = i + 2;
        int afterLength = operatorLength(tokens, end + 1, 1);
        int beforeLength = operatorLength(tokens, start - 1, -1);
        if (afterLength > 0 && beforeLength == 0 && !extends_(tokens, start - 1, -1)) {
            String operator = operator(tokens, end + 1, afterLength, 1);
            int column = end + 1 + afterLength;
            int columnEnd = column + 1 < tokens.size() && tokens.get(column + 1).text().equals(".") ? column + 2 : column;
            return equality(operator) && isName(tokens, column) && nameAt(tokens, columnEnd).equals("pid") && !extends_(tokens, columnEnd + 1, 1);
        }
        if (beforeLength > 0 && afterLength == 0 && !extends_(tokens, end + 1, 1)) {
            String operator = operator(tokens, start - 1, beforeLength, -1);
            int column = start - 1 - beforeLength;
            int columnStart = column >= 2 && tokens.get(column - 1).text().equals(".") ? column - 2 : column;
            return equality(operator) && nameAt(tokens, column).equals("pid") && isName(tokens, columnStart)
                    && !extends_(tokens, columnStart - 1, -1);
        }
        return false;
    }

    /** Whether a {@code pid} column of the statement is read other than compared with {@code pg_backend_pid()} by =, <>, !=. */
    private static boolean readsAPid(List<Token> tokens) {
        for (int j = 0; j < tokens.size(); j++) {
            String previous = j > 0 ? tokens.get(j - 1).text() : "";
            if (tokens.get(j).text().equals("*") && (previous.equals(",") || previous.equals(".") || previous.equalsIgnoreCase("select"))) {
                return true; // every column, pid among them (renamed by an alias list after, red team helper-97)
            }
            if (!nameAt(tokens, j).equals("pid") || j + 1 < tokens.size() && tokens.get(j + 1).kind() == Kind.OPEN_PAREN) {
                continue;
            }
            boolean compared = false;
            for (int k = Math.max(0, j - 8); k < Math.min(tokens.size(), j + 9) && !compared; k++) {
                if (nameAt(tokens, k).equals(BACKEND_PID) && comparedForEquality(tokens, k)) {
                    int end = k + 2;
                    int after = end + 1 + operatorLength(tokens, end + 1, 1);
                    int afterColumn = after + 1 < tokens.size() && tokens.get(after + 1).text().equals(".") ? after + 2 : after;
                    int start = k >= 2 && tokens.get(k - 1).text().equals(".") ? k - 2 : k;
                    int before = start - 1 - operatorLength(tokens, start - 1, -1);
                    compared = afterColumn == j || before == j;
                }
            }
            if (!compared) {
                return true;
            }
        }
        return false;
    }

    private static boolean equality(String operator) {
        return operator.equals("=") || operator.equals("<>") || operator.equals("!=");
    }

    /** A column's name: a word or quoted identifier that is not a call, a constant or a keyword that makes a value. */
    private static boolean isName(List<Token> tokens, int at) {
        if (at < 0 || at >= tokens.size()) {
            return false;
        }
        Token token = tokens.get(at);
        boolean word = token.kind() == Kind.QUOTED_IDENTIFIER || token.kind() == Kind.WORD && !token.text().matches("[0-9].*")
                && !Set.of("null", "true", "false", "any", "all", "some", "select", "array", "row", "case", "not").contains(token.word());
        return word && !(at + 1 < tokens.size() && tokens.get(at + 1).kind() == Kind.OPEN_PAREN);
    }

    /** Whether the token at {@code at} (read in direction {@code step}) carries the expression on: an operator, a cast, a call. */
    private static boolean extends_(List<Token> tokens, int at, int step) {
        if (at < 0 || at >= tokens.size()) {
            return false;
        }
        String text = tokens.get(at).text();
        return isOperatorCharacter(text) || text.startsWith(":") || text.equals("[") || text.equals(".")
                || Set.of("between", "in", "is", "like", "ilike", "similar", "collate", "at").contains(tokens.get(at).word());
    }

    /** How many operator characters run from {@code at} in direction {@code step}. */
    private static int operatorLength(List<Token> tokens, int at, int step) {
        int length = 0;
        for (int j = at; j >= 0 && j < tokens.size() && isOperatorCharacter(tokens.get(j).text()); j += step) {
            length++;
        }
        return length;
    }

    private static String operator(List<Token> tokens, int at, int length, int step) {
        StringBuilder operator = new StringBuilder();
        for (int k = 0; k < length; k++) {
            operator.append(tokens.get(at + k * step).text());
        }
        return step > 0 ? operator.toString() : operator.reverse().toString();
    }

    private static boolean isOperatorCharacter(String text) {
        return text.length() == 1 && "+-*/<>=~!@#%^&|`?".contains(text);
    }

    /**
     * The first setting whose value is the build's own (the environment's names, everyday words included) that a LIKE
     * pattern over setting names matches, or null: {@code pg_settings WHERE name LIKE 'temp_f%'} reads Kensho's
     * temp_file_limit as surely as {@code = 'temp_file_limit'} does (red team helper-94).
     */
    static String environmentSettingMatching(java.util.regex.Pattern pattern) {
        for (String name : new java.util.TreeSet<>(ENVIRONMENT)) {
            if (pattern.matcher(name).matches()) {
                return name;
            }
        }
        for (String name : new java.util.TreeSet<>(ENVIRONMENT_WORDS)) {
            if (pattern.matcher(name).matches()) {
                return name;
            }
        }
        return null;
    }

    private static boolean paced(String name) {
        return PACED.contains(name) || PACED_PREFIXES.stream().anyMatch(name::startsWith);
    }

    private static final Set<String> COUNTERS = Set.of("txid_current", "pg_current_xact_id", "txid_current_snapshot",
            "pg_current_snapshot", "xmin", "xmax", "txid_current_if_assigned", "pg_current_xact_id_if_assigned",
            "pg_control_checkpoint", "pg_control_system", "pg_control_init", "pg_control_recovery",
            // Catalog columns of type xid (age() of them reads the counter: a database's or a table's frozen horizon),
            // mxid_age (any multixact ID is the counter's), and when the server started or read its configuration.
            "datfrozenxid", "datminmxid", "relfrozenxid", "relminmxid", "mxid_age", "pg_postmaster_start_time", "pg_conf_load_time",
            // A relation's file: the database's OID and the relfilenode, written as text.
            "pg_relation_filepath", "pg_relation_filenode", "pg_filenode_relation", "pg_tablespace_location");
    /** Catalog columns whose values are the server's counters whatever table alias qualifies them. */
    private static final Set<String> COUNTER_COLUMNS = Set.of("xmin", "xmax", "datfrozenxid", "datminmxid", "relfrozenxid", "relminmxid");
    private static final List<String> COUNTER_PREFIXES = List.of("pg_current_wal_", "pg_last_wal_");
    /** Whether the transaction has an ID yet: the page's doing, when only its being NULL is read. */
    private static final Set<String> IF_ASSIGNED = Set.of("txid_current_if_assigned", "pg_current_xact_id_if_assigned");

    /** Types whose values are drawn from the server's shared counters (OIDs, transaction IDs, WAL positions, snapshots). */
    private static final Set<String> COUNTER_TYPES = Set.of("oid", "xid", "xid8", "pg_lsn", "pg_snapshot", "txid_snapshot");

    private ServerWideReaders() {
    }

    /** The columns that restrict the list {@code name} to the page's own database or session, or null for no such list. */
    static Map<String, Own> keysOf(String name) {
        Map<String, Own> keys = DATABASE_LISTS.get(name);
        return keys == null && name.startsWith(PROGRESS) ? Map.of("pid", Own.PID) : keys;
    }

    /** Whether the function {@code name} reads a database's size or statistics, given the database as its first argument. */
    static boolean givenADatabase(String name) {
        return name.equals(DATABASE_SIZE) || name.startsWith(DATABASE_COUNTER);
    }

    /** Whether the function {@code name}'s value is drawn from a counter the whole server shares (txid_current, …). */
    static boolean readsACounter(String name) {
        return COUNTERS.contains(name) && !COUNTER_COLUMNS.contains(name) || COUNTER_PREFIXES.stream().anyMatch(name::startsWith)
                || STATISTICS.contains(name) || STATISTICS_PREFIXES.stream().anyMatch(name::startsWith) || name.startsWith(BACKEND_COUNTER)
                || paced(name);
    }

    /** The first column of {@code results} whose type is a shared counter's, as "the column c of type t", or null. */
    static String counterColumn(List<dev.kensho.sqlchecks.model.ResultTable> results) {
        for (dev.kensho.sqlchecks.model.ResultTable result : results) {
            for (int c = 0; c < result.types().size(); c++) {
                if (COUNTER_TYPES.contains(result.types().get(c))) {
                    return "the column " + result.columns().get(c) + " of type " + result.types().get(c);
                }
            }
        }
        return null;
    }

    /** What the name at {@code tokens[i]} reads of the server as a whole, or null when it reads only the page's. */
    /**
     * The value of the token at {@code i}; for a string, joined with the strings that continue it: PostgreSQL reads string
     * constants separated by a line break as one ('kensho_' and, on the next line, 'reader'), and two strings cannot
     * otherwise follow each other.
     */
    private static String continued(List<Token> tokens, int i) {
        StringBuilder value = new StringBuilder(SqlLexer.value(tokens, i));
        for (int next = i + 1; tokens.get(i).kind() == Kind.STRING && next < tokens.size() && tokens.get(next).kind() == Kind.STRING; next++) {
            value.append(SqlLexer.value(tokens, next));
        }
        return value.toString();
    }

    /**
     * Whether the token at {@code i} names a collation other than PostgreSQL's own (COLLATE "en_US", CREATE COLLATION):
     * initdb imports the machine's locales and ICU's, so the build's server has hundreds and a reader's PGlite a few
     * ({@code en_US} there, none at build; {@code de-x-icu} at build, none there).
     */
    private static boolean machinesCollation(List<Token> tokens, int i) {
        String word = tokens.get(i).word();
        if (word.equals("collation") && i >= 1 && tokens.get(i - 1).word().equals("create")) {
            return true;
        }
        boolean named = word.equals("collate") || word.equals("collation") && i + 1 < tokens.size() && tokens.get(i + 1).text().equals("=");
        if (!named || tokens.get(i).kind() != Kind.WORD) {
            return false;
        }
        if (word.equals("collation")) {
            i++; // CREATE TYPE … AS RANGE (…, collation = "de-x-icu")
        }
        int last = i + 1;
        while (last + 2 < tokens.size() && tokens.get(last + 1).text().equals(".")) {
            last += 2; // pg_catalog."C"
        }
        return last < tokens.size() && !SHARED_COLLATIONS.contains(SqlLexer.value(tokens, last).toLowerCase(Locale.ROOT));
    }

    /**
     * The collations every PostgreSQL 18 server has and that order alike everywhere: pg_collation.dat's own, not ICU's
     * ({@code unicode} and {@code und-x-icu} follow the ICU the server links, Unicode 10 at build, 16 in PGlite 0.5.16).
     */
    private static final Set<String> SHARED_COLLATIONS = Set.of("default", "c", "posix", "ucs_basic", "pg_c_utf8", "pg_unicode_fast");
    /** The playground's database: PGlite's one database. */
    static final String PLAYGROUND_DATABASE = "postgres";

    static Shared at(List<Token> tokens, int i) {
        Token token = tokens.get(i);
        if ((token.kind() == Kind.WORD || token.kind() == Kind.QUOTED_IDENTIFIER || token.kind() == Kind.STRING)
                && continued(tokens, i).toLowerCase(Locale.ROOT).contains(PLAYGROUND_ROLE)) {
            // The playground's role: a reader's server has it, the build's does not (its page role's name is new each run),
            // so 'kensho_reader'::regrole or GRANT … TO kensho_reader fails at build and succeeds in the browser.
            return Shared.ROLES;
        }
        if (token.kind() != Kind.WORD && token.kind() != Kind.QUOTED_IDENTIFIER) {
            return null;
        }
        if (machinesCollation(tokens, i)) {
            return Shared.ENVIRONMENT;
        }
        String name = SqlLexer.value(tokens, i).toLowerCase(Locale.ROOT);
        if (name.equals(PLAYGROUND_DATABASE) && !(i >= 1 && tokens.get(i - 1).text().equals(".")) && i + 3 < tokens.size()
                && tokens.get(i + 1).text().equals(".") && tokens.get(i + 3).text().equals(".")) {
            // A name qualified by the playground's database (postgres.public.t): it resolves there, and at build, where the
            // page's database has a name of Kensho's, it fails ("cross-database references are not implemented").
            return Shared.ENVIRONMENT;
        }
        boolean informationSchema = i >= 2 && tokens.get(i - 1).text().equals(".") && nameAt(tokens, i - 2).equals("information_schema");
        if (informationSchema && INFORMATION_SCHEMA_ENVIRONMENT.contains(name)) {
            return Shared.ENVIRONMENT;
        }
        if (informationSchema && INFORMATION_SCHEMA_ROLES.contains(name)) {
            return Shared.ROLES;
        }
        if (i >= 1 && tokens.get(i - 1).text().equals(".") && !(i >= 2 && nameAt(tokens, i - 2).equals("pg_catalog"))) {
            // A column or an object of the page's own schema; but t.xmin is a row's transaction ID, whatever t is.
            return COUNTER_COLUMNS.contains(name) ? Shared.COUNTERS : null;
        }
        if (name.equals("pg_event_trigger") || name.equals("kensho_refuse_extensions")) {
            return Shared.GUARD;
        }
        if (ROLE_LISTS.contains(name)) {
            return Shared.ROLES;
        }
        if (STATISTICS.contains(name) || STATISTICS_PREFIXES.stream().anyMatch(name::startsWith)) {
            return Shared.STATISTICS;
        }
        if (paced(name)) {
            return Shared.PACE;
        }
        if (ENVIRONMENT.contains(name)) {
            return Shared.ENVIRONMENT;
        }
        if (name.equals(BACKEND_PID) && tokens.size() > 1 && !comparedForEquality(tokens, i)) {
            // The session's process ID is the build's (a reader's PGlite runs as one process with its own), so only its
            // (in)equality with a column reads nothing of it (pg_locks WHERE pid = pg_backend_pid()). A tree names the
            // function only, so the parse-tree backstop (tokens.size() == 1) does not judge it; the text gate does.
            return Shared.ENVIRONMENT;
        }
        if (ENVIRONMENT_WORDS.contains(name) && (tokens.size() == 1 || i >= 1 && tokens.get(i - 1).word().equals("show"))
                || name.equals("version") && i + 1 < tokens.size() && tokens.get(i + 1).kind() == Kind.OPEN_PAREN) {
            return Shared.ENVIRONMENT;
        }
        if (COUNTERS.contains(name) || COUNTER_PREFIXES.stream().anyMatch(name::startsWith)) {
            return IF_ASSIGNED.contains(name) && onlyWhetherNull(tokens, i) ? null : Shared.COUNTERS;
        }
        if (name.startsWith(BACKEND_COUNTER)) {
            return Shared.DATABASES;
        }
        if (name.equals(DATABASE_SIZE) || name.startsWith(DATABASE_COUNTER)) {
            return ownArgument(tokens, i) ? null : Shared.DATABASES;
        }
        Map<String, Own> keys = DATABASE_LISTS.get(name);
        if (keys == null && name.startsWith(PROGRESS)) {
            keys = Map.of("pid", Own.PID);
        }
        if (keys != null) {
            if (!restricted(tokens, i, keys)) {
                return Shared.DATABASES;
            }
            // Restricted to the page's own sessions, the list's pid column still holds the build's process IDs: read for
            // anything but the restriction (shown, max(pid) > 1000), it is the environment (red team helper-96).
            return keys.containsKey("pid") && readsAPid(tokens) ? Shared.ENVIRONMENT : null;
        }
        return null;
    }

    private static String nameAt(List<Token> tokens, int i) {
        Token token = tokens.get(i);
        return token.kind() == Kind.WORD || token.kind() == Kind.QUOTED_IDENTIFIER ? SqlLexer.value(tokens, i).toLowerCase(Locale.ROOT) : "";
    }

    /** {@code f() IS NULL} or {@code f() IS NOT NULL}: only whether the value exists, not the value. */
    private static boolean onlyWhetherNull(List<Token> tokens, int i) {
        int j = i + 1;
        if (!(j + 2 < tokens.size() && tokens.get(j).kind() == Kind.OPEN_PAREN && tokens.get(j + 1).kind() == Kind.CLOSE_PAREN
                && tokens.get(j + 2).word().equals("is"))) {
            return false;
        }
        j += 3;
        if (j < tokens.size() && tokens.get(j).word().equals("not")) {
            j++;
        }
        return j < tokens.size() && tokens.get(j).word().equals("null");
    }

    /** {@code f(current_database())} or {@code f((SELECT oid FROM pg_database WHERE datname = current_database()))}. */
    private static boolean ownArgument(List<Token> tokens, int i) {
        if (i + 1 >= tokens.size() || tokens.get(i + 1).kind() != Kind.OPEN_PAREN) {
            return false;
        }
        int end = ownValueEnd(tokens, i + 2, Own.NAME);
        if (end < 0) {
            end = ownValueEnd(tokens, i + 2, Own.OID);
        }
        return end >= 0 && end < tokens.size() && tokens.get(end).kind() == Kind.CLOSE_PAREN;
    }

    /** The page's own values as the tokens that write them (schema pg_catalog left out), by what they are. */
    private static final Map<Own, List<List<String>>> OWN_VALUES = Map.of(
            Own.NAME, List.of(List.of("current_database", "(", ")"), List.of("current_catalog")),
            Own.OID, List.of(List.of("(", "select", "oid", "from", "pg_database", "where", "datname", "=", "current_database", "(", ")", ")"),
                    List.of("(", "select", "oid", "from", "pg_database", "where", "datname", "=", "current_catalog", ")")),
            Own.PID, List.of(List.of("pg_backend_pid", "(", ")")));

    /** The index after the page's own value of that kind written from {@code start}, or -1. */
    private static int ownValueEnd(List<Token> tokens, int start, Own kind) {
        if (kind == Own.RELATION) {
            return ownRelationEnd(tokens, start);
        }
        for (List<String> written : OWN_VALUES.get(kind)) {
            int j = start;
            int matched = 0;
            while (matched < written.size() && j < tokens.size()) {
                if (nameAt(tokens, j).equals("pg_catalog") && j + 1 < tokens.size() && tokens.get(j + 1).text().equals(".")) {
                    j += 2;
                    continue;
                }
                String text = tokens.get(j).kind() == Kind.WORD || tokens.get(j).kind() == Kind.QUOTED_IDENTIFIER
                        ? nameAt(tokens, j) : tokens.get(j).text();
                if (!text.equals(written.get(matched))) {
                    break;
                }
                matched++;
                j++;
            }
            if (matched == written.size()) {
                return j;
            }
        }
        return -1;
    }

    /**
     * {@code 'name'::regclass} naming a relation the page made: a new relation's OID comes from the server's one counter, so
     * no other database has a relation of that OID (a lock on it is the page's sessions'). Relations every database copies
     * from the template (pg_class, information_schema's views) have the same OID in each: those are not the page's.
     */
    private static int ownRelationEnd(List<Token> tokens, int start) {
        if (start + 3 >= tokens.size() || tokens.get(start).kind() != Kind.STRING || !tokens.get(start).text().startsWith("'")) {
            return -1;
        }
        String name = tokens.get(start).text().toLowerCase(Locale.ROOT);
        if (name.contains("pg_") || name.contains("information_schema")) {
            return -1;
        }
        int j = start + 1;
        StringBuilder cast = new StringBuilder();
        while (j < tokens.size() && tokens.get(j).kind() == Kind.SYMBOL && cast.length() < 2) {
            cast.append(tokens.get(j++).text());
        }
        return cast.toString().equals("::") && j < tokens.size() && nameAt(tokens, j).equals("regclass") ? j + 1 : -1;
    }

    private static final Set<String> WHERE_ENDS = Set.of("group", "order", "limit", "offset", "having", "window", "fetch", "for",
            "returning", "union", "except", "intersect");

    /**
     * Whether the query that reads the list at {@code tokens[at]} keeps only the page's own rows of it: its WHERE clause
     * (at the same level of parentheses) is a list of conditions joined by AND with no OR among them, and one condition is
     * exactly {@code column = own value} (or the other way round), the column unqualified or qualified by the list's name
     * or alias. Other conditions joined by AND only narrow that; anything else counts as reading the whole list.
     */
    private static boolean restricted(List<Token> tokens, int at, Map<String, Own> keys) {
        if (keys.isEmpty()) {
            return false;
        }
        int depth = 0;
        int[] depths = new int[tokens.size()];
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).kind() == Kind.CLOSE_PAREN) {
                depth--;
            }
            depths[i] = depth;
            if (tokens.get(i).kind() == Kind.OPEN_PAREN) {
                depth++;
            }
        }
        int level = depths[at];
        int from = at;
        while (from > 0 && depths[from - 1] >= level && tokens.get(from - 1).kind() != Kind.SEMICOLON) {
            from--;
        }
        int to = at;
        while (to + 1 < tokens.size() && depths[to + 1] >= level && tokens.get(to + 1).kind() != Kind.SEMICOLON) {
            to++;
        }
        Set<String> qualifiers = new HashSet<>();
        qualifiers.add(nameAt(tokens, at));
        int alias = at + 1 < tokens.size() && tokens.get(at + 1).word().equals("as") ? at + 2 : at + 1;
        if (alias <= to && (tokens.get(alias).kind() == Kind.WORD || tokens.get(alias).kind() == Kind.QUOTED_IDENTIFIER)
                && !Set.of("where", "join", "inner", "left", "right", "full", "cross", "natural", "on", "group", "order", "limit")
                .contains(tokens.get(alias).word())) {
            qualifiers = Set.of(nameAt(tokens, alias));
        }
        int where = -1;
        for (int i = at + 1; i <= to; i++) {
            if (depths[i] == level && Set.of("union", "except", "intersect").contains(tokens.get(i).word())) {
                break; // the WHERE after it is the next query's
            }
            if (depths[i] == level && tokens.get(i).word().equals("where")) {
                where = i;
                break;
            }
        }
        if (where < 0) {
            return false;
        }
        List<int[]> conditions = new ArrayList<>();
        int start = where + 1;
        for (int i = where + 1; i <= to + 1; i++) {
            boolean end = i > to || depths[i] == level && WHERE_ENDS.contains(tokens.get(i).word());
            if (i <= to && depths[i] == level && Set.of("or", "between").contains(tokens.get(i).word())) {
                return false;
            }
            if (end || depths[i] == level && tokens.get(i).word().equals("and")) {
                conditions.add(new int[] {start, i});
                start = i + 1;
            }
            if (end) {
                break;
            }
        }
        for (int[] condition : conditions) {
            if (isOwn(tokens, condition[0], condition[1], keys, qualifiers)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code tokens[from, to)} is exactly {@code column = own value} or {@code own value = column}. */
    private static boolean isOwn(List<Token> tokens, int from, int to, Map<String, Own> keys, Set<String> qualifiers) {
        for (Map.Entry<String, Own> key : keys.entrySet()) {
            int afterColumn = columnEnd(tokens, from, key.getKey(), qualifiers);
            if (afterColumn >= 0 && afterColumn < to && tokens.get(afterColumn).text().equals("=")
                    && ownValueEnd(tokens, afterColumn + 1, key.getValue()) == to) {
                return true;
            }
            int afterValue = ownValueEnd(tokens, from, key.getValue());
            if (afterValue >= 0 && afterValue < to && tokens.get(afterValue).text().equals("=")
                    && columnEnd(tokens, afterValue + 1, key.getKey(), qualifiers) == to) {
                return true;
            }
        }
        return false;
    }

    /** The index after {@code column} or {@code qualifier.column} written from {@code start}, or -1. */
    private static int columnEnd(List<Token> tokens, int start, String column, Set<String> qualifiers) {
        if (start + 2 < tokens.size() && qualifiers.contains(nameAt(tokens, start)) && tokens.get(start + 1).text().equals(".")
                && nameAt(tokens, start + 2).equals(column)) {
            return start + 3;
        }
        return start < tokens.size() && nameAt(tokens, start).equals(column) ? start + 1 : -1;
    }
}
