package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.ExistingServer;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Red team: a claim rested on what the build's server holds beyond the page: Kensho's maintenance database, the page's
 * role (Kensho's making), other pages' sessions and locks under --jobs 2, the server's cumulative statistics and its
 * transaction and WAL counters. A reader's PGlite has one database and the superuser postgres, so each claim passed at
 * build and showed otherwise in the browser. Each now fails at the read with what it read and why; reads restricted to
 * the page's own database or session still pass.
 */
class ServerWideReadsTest extends VerifierFixture {


    /** The red team's case: Kensho's maintenance database is another database beside the page's (PGlite shows none). */
    @Test
    void aClaimOnTheServersOtherDatabasesFailsAtTheRead() throws Exception {
        Outcome others = page().add("", "SELECT count(*) > 0 AS others FROM pg_database WHERE datname <> current_database() AND NOT datistemplate;",
                " others\n--------\n t\n").last();
        TestPage.assertRefused(TestPage.DATABASES + "pg_database, at page.md:1:36" + TestPage.DATABASES_WHY, "page.md:1:36", others);
        // Their sizes and statistics, however spelled: a function given another database, the unrestricted view, dynamic SQL.
        TestPage.assertRefused(TestPage.DATABASES + "pg_database_size, at page.md:1:8" + TestPage.DATABASES_WHY, "page.md:1:8",
                page().add("", "SELECT pg_database_size('postgres') > 0 AS big;", " big\n-----\n t\n").last());
        TestPage.assertRefused(TestPage.DATABASES + "U&\"pg\\005fstat_database\", at page.md:1:47" + TestPage.DATABASES_WHY, "page.md:1:47",
                page().add("", "SELECT sum(numbackends) > 0 AS connected FROM U&\"pg\\005fstat_database\";",
                        " connected\n-----------\n t\n").last());
        // An OR widens the restriction, a subquery has its own: neither reads only the page's database.
        TestPage.assertRefused(TestPage.DATABASES + "pg_database, at page.md:1:37" + TestPage.DATABASES_WHY, "page.md:1:37",
                page().add("", "SELECT count(*) > 1 AS several FROM pg_database WHERE datname = current_database() OR datistemplate;",
                        " several\n---------\n t\n").last());
        TestPage.assertRefused(TestPage.DATABASES + "pg_database, at page.md:1:30" + TestPage.DATABASES_WHY, "page.md:1:30",
                page().add("", "SELECT (SELECT count(*) FROM pg_database) > 1 AS several FROM pg_database WHERE datname = current_database();",
                        " several\n---------\n t\n").last());
        // Read through a function defined earlier: the later claim fails at its own line, naming the read.
        PageResult hidden = page()
                .add("", "CREATE FUNCTION others() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT count(*) FROM pg_database); END $$;")
                .add("", "SELECT others() > 1 AS several;", " several\n---------\n t\n").run();
        TestPage.assertRefused(TestPage.DATABASES + "pg_database, at page.md:1:61" + TestPage.DATABASES_WHY, "page.md:5:1", hidden.outcomes().get(1));
    }

    @Test
    void aClaimOnTheServersRolesFailsEvenForThePagesOwnRole() throws Exception {
        String roles = "this claim cannot be checked: the page reads the server's roles (";
        String why = "; every role a page sees is Kensho's making, the page's own included; a reader's session is the role kensho_reader, beside PGlite's superuser postgres)";
        TestPage.assertRefused(roles + "pg_roles, at page.md:1:37" + why, "page.md:1:37",
                page().add("", "SELECT count(*) > 1 AS several FROM pg_roles;", " several\n---------\n t\n").last());
        // The page's role is not a superuser at build; a reader's postgres is.
        TestPage.assertRefused(roles + "pg_roles, at page.md:1:22" + why, "page.md:1:22",
                page().add("", "SELECT rolsuper FROM pg_roles WHERE rolname = current_user;", " rolsuper\n----------\n f\n").last());
        TestPage.assertRefused(roles + "pg_auth_members, at page.md:1:34" + why, "page.md:1:34",
                page().add("", "SELECT count(*) >= 0 AS any FROM pg_auth_members;", " any\n-----\n t\n").last());

        // Membership asked of a role by name: the page's role is no member of postgres; a reader's superuser is.
        TestPage.assertRefused(roles + "pg_has_role, at page.md:1:8" + why, "page.md:1:8",
                page().add("", "SELECT pg_has_role('postgres', 'MEMBER') AS member;", " member\n--------\n f\n").last());
    }

    /** Two pages at once (--jobs 2): the other page's lock shows in an unrestricted pg_locks; the page's own locks do not. */
    @Test
    void aClaimOnAnotherPagesLocksFailsAndThePagesOwnLocksStillPass() throws Exception {
        CompletableFuture<PageResult> holder = CompletableFuture.supplyAsync(() -> {
            try {
                return page().add("", "CREATE TABLE held (id int); BEGIN; LOCK TABLE held IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3); COMMIT;").run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(1500);
        Outcome others = page().add("", "SELECT count(*) > 0 AS others FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND pid <> pg_backend_pid();",
                " others\n--------\n t\n").last();
        assertTrue(holder.get().passed(), () -> String.valueOf(holder.join().outcomes()));
        TestPage.assertRefused(TestPage.DATABASES + "pg_locks, at page.md:1:36" + TestPage.DATABASES_WHY, "page.md:1:36", others);
        PageResult own = page().add("", "CREATE TABLE mine (id int);")
                .add("", "BEGIN;")
                .add("", "LOCK TABLE mine IN SHARE MODE;")
                .add("", "SELECT relation::regclass::text AS locked, mode FROM pg_locks WHERE locktype = 'relation' AND pid = pg_backend_pid() "
                        + "AND relation::regclass::text = 'mine';", " locked |   mode\n--------+-----------\n mine   | ShareLock\n")
                .add("", "SELECT count(*) AS others FROM pg_locks l WHERE l.database = (SELECT oid FROM pg_catalog.pg_database "
                        + "WHERE datname = current_database()) AND l.pid <> pg_backend_pid();", " others\n--------\n      0\n")
                // As the concurrency lesson reads a lock: on a relation the page made, whose OID no other database has.
                .add("", "SELECT mode FROM pg_locks WHERE relation = 'mine'::regclass AND granted;", "   mode\n-----------\n ShareLock\n")
                .add("", "COMMIT;").run();
        own.outcomes().forEach(ServerWideReadsTest::assertPassed);
        // pg_class has the same OID in every database copied from the template: its locks are any page's.
        TestPage.assertRefused(TestPage.DATABASES + "pg_locks, at page.md:1:34" + TestPage.DATABASES_WHY, "page.md:1:34",
                page().add("", "SELECT count(*) >= 0 AS any FROM pg_locks WHERE relation = 'pg_class'::regclass;", " any\n-----\n t\n").last());
    }

    @Test
    void aClaimOnTheServersCumulativeStatisticsFails() throws Exception {
        String stats = "this claim cannot be checked: the page reads the server's cumulative statistics (";
        String why = "; they count Kensho's own work and other pages' beside this page's)";
        TestPage.assertRefused(stats + "pg_stat_io, at page.md:1:40" + why, "page.md:1:40",
                page().add("", "SELECT sum(reads) >= 0 AS counted FROM pg_stat_io;", " counted\n---------\n t\n").last());
        TestPage.assertRefused(stats + "pg_stat_checkpointer, at page.md:1:43" + why, "page.md:1:43",
                page().add("", "SELECT num_requested >= 0 AS counted FROM pg_stat_checkpointer;", " counted\n---------\n t\n").last());
        TestPage.assertRefused(stats + "pg_stat_get_buf_alloc, at page.md:1:8" + why, "page.md:1:8",
                page().add("", "SELECT pg_stat_get_buf_alloc() > 0 AS counted;", " counted\n---------\n t\n").last());
    }

    @Test
    void aClaimOnTheServersTransactionAndWalCountersFails() throws Exception {
        String counter = "this claim cannot be checked: the page reads a counter the whole server shares (";
        String why = "; its value moved with everything the build's server did before the page ran; a reader's server counts from elsewhere)";
        TestPage.assertRefused(counter + "txid_current, at page.md:1:8" + why, "page.md:1:8",
                page().add("", "SELECT txid_current() > 3 AS moved;", " moved\n-------\n t\n").last());
        TestPage.assertRefused(counter + "pg_current_wal_lsn, at page.md:1:8" + why, "page.md:1:8",
                page().add("", "SELECT pg_current_wal_lsn() > '0/0' AS moved;", " moved\n-------\n t\n").last());
        PageResult rows = page().add("", "CREATE TABLE t (id int); INSERT INTO t VALUES (1);")
                .add("", "SELECT t.xmin::text::bigint > 3 AS moved FROM t;", " moved\n-------\n t\n").run();
        TestPage.assertRefused(counter + "xmin, at page.md:5:10" + why, "page.md:5:10", rows.outcomes().get(1));
        // A new object's OID comes from the server's one counter: shown in a claim, however the text reached it.
        PageResult oid = page().add("", "CREATE TABLE made (id int);")
                .add("", "SELECT 'made'::regclass::oid >= 16384 AS user_made, 'made'::regclass::oid AS made;",
                        " user_made | made\n-----------+-------\n t         | 16390\n").run();
        TestPage.assertRefused(counter + "the column made of type oid, at page.md:5:1" + why, "page.md:5:1", oid.outcomes().get(1));
        // The red team's: the age of the database's frozen horizon told a replay from the real run (the counter moved
        // between them), a table's too, and when the server started.
        TestPage.assertRefused(counter + "datfrozenxid, at page.md:1:12" + why, "page.md:1:12",
                page().add("", "SELECT age(datfrozenxid) < 15000 AS young FROM pg_database WHERE datname = current_database();",
                        " young\n-------\n t\n").last());
        PageResult table = page().add("", "CREATE TABLE t (id int);")
                .add("", "SELECT mxid_age(c.relminmxid) >= 0 AS aged FROM pg_class c WHERE c.relname = 't';", " aged\n------\n t\n").run();
        TestPage.assertRefused(counter + "mxid_age, at page.md:5:8" + why, "page.md:5:8", table.outcomes().get(1));
        TestPage.assertRefused(counter + "pg_postmaster_start_time, at page.md:1:8" + why, "page.md:1:8",
                page().add("", "SELECT pg_postmaster_start_time() < now() AS started;", " started\n---------\n t\n").last());
    }

    /** Restricted to the page's own database or session, the same views read only the page's doing: claims on them pass. */
    @Test
    void readsOfThePagesOwnDatabaseAndSessionStillPass() throws Exception {
        PageResult result = page()
                .add("", "SELECT numbackends FROM pg_stat_database WHERE datname = current_database();", " numbackends\n-------------\n           1\n")
                .add("", "SELECT datistemplate, datallowconn FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database();",
                        " datistemplate | datallowconn\n---------------+--------------\n f             | t\n")
                .add("", "SELECT pg_database_size(current_database()) > 0 AS sized;", " sized\n-------\n t\n")
                .add("", "SELECT pg_stat_get_db_numbackends((SELECT oid FROM pg_database WHERE datname = current_database())) AS n;",
                        " n\n---\n 1\n")
                .add("", "SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;", " no_xid\n--------\n t\n")
                .add("", "SELECT count(*) AS mine FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation';",
                        " mine\n------\n    1\n")
                .run();
        result.outcomes().forEach(ServerWideReadsTest::assertPassed);
        // Without a claim, reading the server is the page's business: the snippet runs and passes.
        assertPassed(page().add("", "SELECT count(*) FROM pg_database;").last());
    }

    private static final String SCHEMAS = "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' ORDER BY 1;";
    private static final String SCHEMA_ROWS = "      nspname\n--------------------\n information_schema\n public\n";
    private static final String OWN_SESSIONS = "SELECT pg_sleep(1.1) IS NOT NULL AS slept;\n"
            + "SELECT sessions, numbackends FROM pg_stat_database WHERE datname = current_database();";
    private static final String OWN_SESSION_ROWS = " sessions | numbackends\n----------+-------------\n        1 |           1\n";

    /**
     * Kensho's extension guard: its function had a schema of its own (kensho_guard) in every page database, and on a server
     * Kensho does not own it was installed by a superuser session in the page's database before the page's own, which
     * pg_stat_database counted. Now the page's database has the schemas a reader's has, its only session is the page's,
     * and the guard's event trigger is read as Kensho's. Found on the way: an existing server's URL that carried
     * {@code user=} and {@code password=} (as the README says to give them) connected every page's session as the
     * administrator, a superuser, since pgjdbc lets the URL outrank the page role's credentials; CREATE EXTENSION pltcl passed.
     */
    @Test
    void kenshosExtensionGuardLeavesNothingThePageCanClaim() throws Exception {
        assertPassed(page().add("", SCHEMAS, SCHEMA_ROWS).last());
        assertPassed(page().add("", OWN_SESSIONS, OWN_SESSION_ROWS).last());
        TestPage.assertRefused("this claim cannot be checked: the page reads what Kensho installs in the page's database (pg_event_trigger, "
                        + "at page.md:1:32; Kensho's extension guard, an event trigger and its function, is there at build and not in "
                        + "a reader's database; a page cannot make an event trigger)", "page.md:1:32",
                page().add("", "SELECT count(*) AS guards FROM pg_event_trigger;", " guards\n--------\n      1\n").last());
        RunningPostgres embedded = new EmbeddedPostgres().start();
        try {
            Properties admin = embedded.adminCredentials();
            String url = embedded.jdbcUrl() + (embedded.jdbcUrl().contains("?") ? "&" : "?") + "user=" + admin.getProperty("user")
                    + (admin.getProperty("password") == null ? "" : "&password=" + admin.getProperty("password"));
            try (Verifier existing = Verifier.start(new ExistingServer(url), new VerifierSettings(Duration.ofSeconds(10)))) {
                assertPassed(TestPage.on(existing).add("", SCHEMAS, SCHEMA_ROWS).last());
                assertPassed(TestPage.on(existing).add("", OWN_SESSIONS, OWN_SESSION_ROWS).last());
                // The URL names the administrator; the page's session is still the page's role, and the guard refuses.
                Outcome role = TestPage.on(existing).add("", "SELECT current_setting('is_superuser') AS su, session_user = current_user AS same;").last();
                assertEquals(java.util.List.of(java.util.List.of("off", "t")), role.results().get(0).rows());
                Outcome extension = TestPage.on(existing).add("", "CREATE EXTENSION pltcl;").last();
                assertTrue(extension.failure().message().startsWith(ExtensionGuard.REFUSAL), extension.failure().message());
            }
            try (java.sql.Connection check = java.sql.DriverManager.getConnection(embedded.jdbcUrl(), admin);
                 java.sql.ResultSet rs = check.createStatement().executeQuery("SELECT count(*) FROM pg_database WHERE datname LIKE 'kensho%'")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "the template and page databases outlive the verifier");
            }
        } finally {
            embedded.close();
        }
    }
}
