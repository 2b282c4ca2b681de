package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Which reads of the server as a whole a restriction to the page's own database or session covers, from the text alone
 * (the claims on them are run in {@link ServerWideReadsTest}): only a condition joined by AND at the top of the WHERE
 * clause of the query that reads the list, exactly {@code column = own value}.
 */
class ServerWideReadersTest {

    private static String read(String sql) {
        KenshoSettingsReaders.Read read = KenshoSettingsReaders.find(sql, false);
        return read == null ? null : read.what() + "@" + read.offset() + ":" + read.shared();
    }

    @Test
    void aTopLevelConditionOnThePagesOwnDatabaseOrSessionReadsOnlyThePages() {
        for (String sql : new String[] {
                "SELECT numbackends FROM pg_stat_database WHERE datname = current_database();",
                "SELECT numbackends FROM pg_stat_database WHERE current_database() = datname;",
                "SELECT s.numbackends FROM pg_catalog.pg_stat_database AS s WHERE s.numbackends > 0 AND s.datname = current_catalog;",
                "SELECT count(*) FROM pg_locks WHERE (locktype = 'relation' OR locktype = 'tuple') AND pid = pg_backend_pid() ORDER BY 1;",
                "SELECT mode FROM pg_locks WHERE relation = 'orders'::regclass AND granted;",
                "SELECT pg_database_size(pg_catalog.current_database());",
                "SELECT pg_current_xact_id_if_assigned() IS NOT NULL;",
                "SELECT * FROM orders o WHERE o.datname = 'pg_database_x';",
                "SELECT mode FROM pg_locks WHERE pg_catalog.pg_backend_pid() = pid;"}) {
            assertNull(read(sql), sql);
        }
    }

    @Test
    void anythingElseReadsTheWholeList() {
        String[][] cases = {
                // An OR beside the condition, the condition in parentheses or compared again, a wrong qualifier, no WHERE.
                {"SELECT * FROM pg_database WHERE datname = current_database() OR datistemplate;", "pg_database@14:DATABASES"},
                {"SELECT * FROM pg_database WHERE (datname = current_database()) IS NOT TRUE;", "pg_database@14:DATABASES"},
                {"SELECT * FROM pg_database WHERE datname = current_database() || 'x';", "pg_database@14:DATABASES"},
                {"SELECT * FROM pg_database d, orders o WHERE o.datname = current_database();", "pg_database@14:DATABASES"},
                {"SELECT CASE WHEN datname = current_database() THEN 1 END FROM pg_database;", "pg_database@62:DATABASES"},
                // The second query of a UNION, and a subquery, each read the list on their own.
                {"SELECT datname FROM pg_database WHERE datname = current_database() UNION SELECT datname FROM pg_database;",
                        "pg_database@93:DATABASES"},
                {"SELECT datname FROM pg_database UNION SELECT datname FROM pg_database WHERE datname = current_database();",
                        "pg_database@20:DATABASES"},
                {"SELECT * FROM pg_locks WHERE relation = 'pg_class'::regclass;", "pg_locks@14:DATABASES"},
                {"SELECT pg_database_size('postgres');", "pg_database_size@7:DATABASES"},
                {"SELECT pg_current_xact_id_if_assigned();", "pg_current_xact_id_if_assigned@7:COUNTERS"},
                {"SELECT o.xmin FROM orders o;", "xmin@9:COUNTERS"},
                {"SELECT rolname FROM pg_roles WHERE rolname = current_user;", "pg_roles@20:ROLES"},
                {"SELECT * FROM pg_stat_wal;", "pg_stat_wal@14:STATISTICS"},
                {"SELECT evtname FROM pg_event_trigger;", "pg_event_trigger@20:GUARD"},
                // In dynamic SQL: reported at the string.
                {"DO $$ BEGIN PERFORM count(*) FROM pg_stat_activity_x, \"pg_authid\"; END $$;", "\"pg_authid\"@3:ROLES"},
        };
        for (String[] c : cases) {
            assertEquals(c[1], read(c[0]), c[0]);
        }
    }

    @Test
    void aListsPidColumnReadOtherThanByItsRestrictionIsTheEnvironment() {
        // Red team helper-96: restricted to the page's own session, the pid column still holds the build's process ID.
        assertEquals("pg_locks@28:ENVIRONMENT", read("SELECT max(pid) > 1000 FROM pg_locks WHERE pid = pg_backend_pid();"));
        assertEquals("pg_stat_ssl@18:ENVIRONMENT", read("SELECT s.pid FROM pg_stat_ssl s WHERE s.pid = pg_backend_pid();"));
        assertNull(read("SELECT mode FROM pg_locks l WHERE pg_backend_pid() = l.pid AND l.locktype = 'relation';"));
        assertNull(read("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid();"));
        // Red team helper-97: every column (pid renamed by an alias list after), and the pid compared with any other column.
        assertEquals("pg_locks@44:ENVIRONMENT", read("SELECT bool_and(p > 42) FROM (SELECT * FROM pg_locks WHERE pid = pg_backend_pid()) "
                + "x(a, b, c, d, e, f, g, h, i, j, k, p);"));
        assertEquals("pg_locks@14:ENVIRONMENT", read("SELECT * FROM pg_locks WHERE pid = pg_backend_pid();"));
        assertEquals("pg_backend_pid@66:ENVIRONMENT", read("SELECT bool_or(n > 42) FROM generate_series(1, 10) g(n) WHERE n = "
                + "pg_backend_pid();"));
    }
}
