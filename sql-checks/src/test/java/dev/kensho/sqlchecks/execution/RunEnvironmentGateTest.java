package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Red team (h-red, findings 3 and 4): claims that something other than the page's SQL made true. The per-table statistics
 * show what the session had flushed by then (at most once a second), so a claim held at Kensho's pace and not at a
 * reader's; the connection's port and address, the superuser flag and initdb's sizes told Kensho's run from a reader's.
 */
class RunEnvironmentGateTest extends VerifierFixture {

    private static final String SETUP = "CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);";

    private static String refused(String what, String at, ServerWideReaders.Shared shared) {
        return "this claim cannot be checked: the page reads " + shared.what + " (" + what + ", at " + at + "; " + shared.why + ")";
    }

    @Test
    void cumulativeStatisticsOfThePagesTablesCannotBeClaimedButTheTransactionsOwnCan() throws Exception {
        TestPage.assertRefused(refused("pg_stat_user_tables", "page.md:10:22", ServerWideReaders.Shared.PACE), "page.md:10:22",
                page().add("", SETUP).add("", "SELECT count(*) AS n FROM t;")
                        .add("", "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 't';", " seq_scan\n----------\n        0\n").last());
        TestPage.assertRefused(refused("pg_stat_get_numscans", "page.md:6:8", ServerWideReaders.Shared.PACE), "page.md:6:8",
                page().add("", SETUP).add("", "SELECT pg_stat_get_numscans('t'::regclass) AS scans;", " scans\n-------\n     0\n").last());
        // The transaction's own counts are the page's doing, whenever they are read.
        assertPassed(page().add("", SETUP).add("", "BEGIN;\nSELECT count(*) AS n FROM t;")
                .add("", "SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 't';", " seq_scan\n----------\n        1\n").last());
    }

    @Test
    void theConnectionAndTheServersSizesCannotBeClaimed() throws Exception {
        ServerWideReaders.Shared env = ServerWideReaders.Shared.ENVIRONMENT;
        TestPage.assertRefused(refused("inet_server_port", "page.md:1:18", env), "page.md:1:18",
                page().add("", "SELECT CASE WHEN inet_server_port() IS NULL THEN 'a reader' ELSE 'Kensho' END AS who;",
                        "  who\n--------\n Kensho\n").last());
        TestPage.assertRefused(refused("is_superuser", "page.md:1:24", env), "page.md:1:24",
                page().add("", "SELECT current_setting('is_superuser') AS su;", " su\n-----\n off\n").last());
        TestPage.assertRefused(refused("max_connections", "page.md:1:63", env), "page.md:1:63",
                page().add("", "SELECT setting::int > 0 AS some FROM pg_settings WHERE name = 'max_connections';",
                        " some\n------\n t\n").last());
        // A result the page shows (the result directive) is the build's evidence as a claim is.
        TestPage.assertRefused(refused("inet_server_port", "page.md:1:8", env), "page.md:1:8",
                page().add("result", "SELECT inet_server_port() IS NULL AS none;").last());
        // A setting at its built-in value is a reader's too.
        assertPassed(page().add("", "SELECT current_setting('work_mem') AS mem;", " mem\n-----\n 4MB\n").last());
    }

    /** Red team (h-red2, findings 2 to 5): the same facts by other names, and a relation's file path. */
    @Test
    void thePortVersionDerivedSizesAndFilePathsCannotBeClaimed() throws Exception {
        ServerWideReaders.Shared env = ServerWideReaders.Shared.ENVIRONMENT;
        TestPage.assertRefused(refused("port", "page.md:1:6", env), "page.md:1:6",
                page().add("result", "SHOW port;").last());
        TestPage.assertRefused(refused("port", "page.md:1:24", env), "page.md:1:24",
                page().add("", "SELECT current_setting('port')::int > 0 AS p;", " p\n---\n t\n").last());
        TestPage.assertRefused(refused("version", "page.md:1:19", env), "page.md:1:19",
                page().add("", "SELECT split_part(version(), ' ', 1) AS v;", "     v\n------------\n PostgreSQL\n").last());
        TestPage.assertRefused(refused("wal_buffers", "page.md:1:24", env), "page.md:1:24",
                page().add("result", "SELECT current_setting('wal_buffers') AS w;").last());
        TestPage.assertRefused("this claim cannot be checked: the page reads a counter the whole server shares (pg_relation_filepath, "
                + "at page.md:1:32; " + ServerWideReaders.Shared.COUNTERS.why + ")", "page.md:1:32",
                page().add("", "CREATE TABLE y (a int); SELECT pg_relation_filepath('y') LIKE 'base/%' AS v;", " v\n---\n t\n").last());
        // A page's own column named port, and server_version (the mark states the version), are the page's.
        assertPassed(page().add("", "CREATE TABLE srv (port int);\nINSERT INTO srv VALUES (5432);")
                .add("", "SELECT port FROM srv;", " port\n------\n 5432\n").last());
        assertPassed(page().add("", "SELECT current_setting('server_version_num')::int / 10000 AS major;", " major\n-------\n    18\n").last());
    }

    /**
     * Red team (helper-84, finding 2): how the server was built and started, where the playground's differs: its worker
     * processes (PGlite has none), the extensions beside it, the temp_file_limit Kensho gives a page, version() called by
     * SQL built at run time. A page may still SET the planner's parallel settings.
     */
    @Test
    void theServersWorkersExtensionsAndVersionCannotBeClaimedByAnyName() throws Exception {
        ServerWideReaders.Shared env = ServerWideReaders.Shared.ENVIRONMENT;
        TestPage.assertRefused(refused("max_parallel_workers_per_gather", "page.md:1:24", env), "page.md:1:24",
                page().add("", "SELECT current_setting('max_parallel_workers_per_gather')::int > 0 AS p;", " p\n---\n t\n").last());
        TestPage.assertRefused(refused("max_worker_processes", "page.md:1:6", env), "page.md:1:6",
                page().add("result", "SHOW max_worker_processes;").last());
        TestPage.assertRefused(refused("pg_available_extensions", "page.md:1:34", env), "page.md:1:34",
                page().add("", "SELECT count(*) > 1 AS many FROM pg_available_extensions;", " many\n------\n t\n").last());
        TestPage.assertRefused(refused("temp_file_limit", "page.md:1:24", env), "page.md:1:24",
                page().add("result", "SELECT current_setting('temp_file_limit') AS l;").last());
        PageResult built = page().add("", "CREATE TABLE v (s text);\nDO $$ BEGIN EXECUTE 'INSERT INTO v SELECT split_part(ver' "
                + "|| 'sion(), '' '', 1)'; END $$;").add("", "SELECT s FROM v;", "     s\n------------\n PostgreSQL\n").run();
        assertFalse(built.outcomes().get(1).passed(), "version() built at run time");
        assertTrue(built.outcomes().get(1).failure().message().startsWith("this claim cannot be checked: the page reads " + env.what
                + " (version, read by a statement the page built at run time"), built.outcomes().get(1).failure().message());
        assertPassed(page().add("", "SET max_parallel_workers_per_gather = 0;\nSELECT 1 AS one;", " one\n-----\n   1\n").last());
    }

    /**
     * The playground runs a reader's SQL as kensho_reader, set by SET SESSION AUTHORIZATION from PGlite's superuser: a
     * page's own SET SESSION AUTHORIZATION postgres succeeds there, and fails at build (found checking the red team's
     * premise on PGlite 0.5.16). Nothing from there on can be checked.
     */
    @Test
    void theBuildsSettingsReadThroughANamePatternAndTheSessionsProcessIdCannotBeClaimed() throws Exception {
        // Red team helper-94: each passed, and a reader's run gives -1, 0 and false.
        ServerWideReaders.Shared env = ServerWideReaders.Shared.ENVIRONMENT;
        TestPage.assertRefused(refused("'temp_f%' (temp_file_limit)", "page.md:1:21", env), "page.md:1:21",
                page().add("result", "SELECT setting FROM pg_settings WHERE name LIKE 'temp_f%';").last());
        TestPage.assertRefused(refused("'MAX_PARALLEL_WORKERS_P%' (max_parallel_workers_per_gather)", "page.md:1:21", env), "page.md:1:21",
                page().add("result", "SELECT setting FROM pg_settings WHERE name ILIKE 'MAX_PARALLEL_WORKERS_P%';").last());
        TestPage.assertRefused(refused("pg_backend_pid", "page.md:1:8", env), "page.md:1:8",
                page().add("", "SELECT pg_backend_pid() > 0 AS positive;", " positive\n----------\n t\n").last());
        // A pattern that matches no setting of the build's, and the process ID compared with a list's own column, stay.
        assertPassed(page().add("", "SELECT count(*) > 0 AS some FROM pg_settings WHERE name LIKE 'enable%';", " some\n------\n t\n").last());
        assertPassed(page().add("", "SELECT count(*) AS n FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory';",
                " n\n---\n 0\n").last());
        TestPage.assertRefused(refused("pg_backend_pid", "page.md:1:15", env), "page.md:1:15",
                page().add("", "SELECT length(pg_backend_pid()::text) > 0 AS some;", " some\n------\n t\n").last());
        // Red team helper-96: each held at build; compared with BETWEEN, passed to a function, stored.
        TestPage.assertRefused(refused("pg_backend_pid", "page.md:1:8", env), "page.md:1:8",
                page().add("", "SELECT pg_backend_pid() BETWEEN 1 AND 2147483647 AS b;", " b\n---\n t\n").last());
        TestPage.assertRefused(refused("pg_backend_pid", "page.md:1:19", env), "page.md:1:19",
                page().add("", "SELECT int4larger(pg_backend_pid(), 0) = pg_backend_pid() AS same;", " same\n------\n t\n").last());
        TestPage.assertRefused(refused("pg_backend_pid", "page.md:1:27", env), "page.md:5:1",
                page().add("", "CREATE TABLE me AS SELECT pg_backend_pid() AS pid;").add("", "SELECT count(*) AS n FROM me;", " n\n---\n 1\n").last());
        // The other side a list's column, qualified or not.
        assertPassed(page().add("", "SELECT count(*) AS n FROM pg_locks l WHERE pg_backend_pid() = l.pid AND l.locktype = 'advisory';",
                " n\n---\n 0\n").last());
    }

    @Test
    void thePageMayNotLeaveItsRole() throws Exception {
        String refused = "this claim cannot be checked: the page reads the connection and the server Kensho runs the page on "
                + "(SESSION AUTHORIZATION, at page.md:1:5; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")";
        TestPage.assertRefused(refused, "page.md:1:5", page().add("expect-error=42501", "SET SESSION AUTHORIZATION postgres;").last());
        TestPage.assertRefused(refused, "page.md:5:1", page().add("expect-error=42501", "SET SESSION AUTHORIZATION postgres;")
                .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").last());
        TestPage.assertRefused("this claim cannot be checked: the page reads the connection and the server Kensho runs the page on "
                        + "(session_authorization, at page.md:1:19; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:1:19",
                page().add("expect-error=42501", "SELECT set_config('session_authorization', 'postgres', false);").last());
    }

    /**
     * Red team (helper-74, 2): names resolved against what differs between the build's server and a reader's PGlite, in
     * parse analysis, where a statement fails before any tree: the machine's collations, the playground's database name.
     */
    @Test
    void namesOfTheMachineOrThePlaygroundsDatabaseAreRefused() throws Exception {
        String env = "this claim cannot be checked: the page reads the connection and the server Kensho runs the page on (";
        TestPage.assertRefused(env + "COLLATE, at page.md:5:40; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:9:1",
                page().add("", "CREATE TABLE t (a int);").add("expect-error=42704", "INSERT INTO t SELECT 1 WHERE 'a' < 'b' COLLATE \"en_US\";")
                        .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").last());
        TestPage.assertRefused(env + "postgres, at page.md:5:13; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:9:1",
                page().add("", "CREATE TABLE t (a int);").add("expect-error=0A000", "INSERT INTO postgres.public.t VALUES (2);")
                        .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").last());
        TestPage.assertRefused(env + "COLLATION, at page.md:1:8; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:5:1",
                page().add("", "CREATE COLLATION mine (provider = icu, locale = 'de');").add("", "SELECT 1 AS one;", " one\n-----\n   1\n").last());
        TestPage.assertRefused(env + "pg_collation, at page.md:1:34; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:1:34",
                page().add("", "SELECT count(*) > 0 AS some FROM pg_collation;", " some\n------\n t\n").last());
        // Red team (helper-75, 1-3): ICU's collations order by the ICU the server links (Unicode 10 at build, 16 in PGlite),
        // a range type names its collation with "collation =", and information_schema lists the machine's and the roles.
        TestPage.assertRefused(env + "COLLATE, at page.md:1:18; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:1:18",
                page().add("", "SELECT 'b' < 'a' COLLATE \"unicode\" AS n;", " n\n---\n f\n").last());
        TestPage.assertRefused(env + "collation, at page.md:1:42; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:5:1",
                page().add("", "CREATE TYPE tr AS RANGE (subtype = text, collation = \"de-x-icu\");")
                        .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").last());
        TestPage.assertRefused(env + "regcollation, at page.md:5:41; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:9:1",
                page().add("", "CREATE TABLE t (a int);").add("expect-error=42704", "INSERT INTO t SELECT 1 WHERE '\"en_US\"'::regcollation IS NOT NULL;")
                        .add("", "SELECT count(*) AS n FROM t;", " n\n---\n 0\n").last());
        TestPage.assertRefused(env + "collations, at page.md:1:50; " + ServerWideReaders.Shared.ENVIRONMENT.why + ")", "page.md:1:50",
                page().add("", "SELECT count(*) > 0 AS n FROM information_schema.collations;", " n\n---\n t\n").last());
        TestPage.assertRefused("this claim cannot be checked: the page reads the server's roles (enabled_roles, at page.md:1:50; "
                        + ServerWideReaders.Shared.ROLES.why + ")", "page.md:1:50",
                page().add("", "SELECT count(*) > 0 AS n FROM information_schema.enabled_roles;", " n\n---\n t\n").last());
        // PostgreSQL's own collations are every server's.
        org.junit.jupiter.api.Assertions.assertNull(page().add("", "SELECT 'a' < 'B' COLLATE \"C\" AS c, 'a' < 'B' COLLATE pg_catalog.ucs_basic AS u;",
                " c | u\n---+---\n f | f\n").last().failure());
    }

    /**
     * Back to the session's own role: the page's at build, kensho_reader in the playground (PGlite 0.5.16 keeps it on both,
     * checked under node). PostgreSQL's create_function_sql and inherit tests lost 50 and 73 true claims to their RESET.
     */
    @Test
    void thePageMayGoBackToItsOwnRole() throws Exception {
        for (String back : java.util.List.of("RESET SESSION AUTHORIZATION;", "SET SESSION AUTHORIZATION DEFAULT;",
                "DO $$ BEGIN EXECUTE 'RESET SESSION AUTHORIZATION'; END $$;")) {
            PageResult result = page().add("", back).add("", "SELECT current_user = session_user AS same;", " same\n------\n t\n").run();
            org.junit.jupiter.api.Assertions.assertNull(result.outcomes().get(0).failure(), back);
            org.junit.jupiter.api.Assertions.assertNull(result.outcomes().get(1).failure(), back);
        }
    }
}
