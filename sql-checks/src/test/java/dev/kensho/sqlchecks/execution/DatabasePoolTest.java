package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 36 §2: page databases are made ahead of their pages ({@link DatabasePool}). A page still gets a database of its
 * own that no page used before, with its role's settings in the order a database made for it on the spot has them, and
 * the databases no page took are dropped when the verifier closes.
 */
class DatabasePoolTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static final String ROLE_SETTINGS = "SELECT setting FROM pg_roles, unnest(rolconfig) WITH ORDINALITY AS s(setting, n)"
            + " WHERE rolname = current_user ORDER BY n;";
    private static final String STOCK_SETTINGS = """
            statement_timeout=0
            lock_timeout=0
            idle_in_transaction_session_timeout=0
            transaction_timeout=0
            lc_messages=C
            temp_file_limit=116508kB
            """;

    private static final String AUTO_EXPLAIN = """
            session_preload_libraries=auto_explain
            auto_explain.log_min_duration=0
            auto_explain.log_analyze=on
            auto_explain.log_buffers=on
            auto_explain.log_timing=on
            auto_explain.log_nested_statements=on
            auto_explain.log_triggers=on
            auto_explain.log_settings=on
            auto_explain.log_verbose=on
            auto_explain.log_format=json
            auto_explain.log_level=notice
            auto_explain.log_parameter_max_length=0
            auto_explain.sample_rate=1
            """;

    private static List<String> settingsRead(PageResult result, int snippet) {
        return result.outcomes().get(snippet).results().get(0).rows().stream().map(row -> row.get(0)).toList();
    }

    private static String table(String column, String lines) {
        StringBuilder rows = new StringBuilder(" " + column + "\n---\n");
        lines.lines().forEach(line -> rows.append(' ').append(line).append('\n'));
        return rows.toString();
    }

    @Test
    void aPageMadeAheadIsFreshAndItsRoleIsSetAsOneMadeOnTheSpot() throws Exception {
        for (int page = 1; page <= 3; page++) {
            // The pool's first database is made when the first page asks; the later ones waited, made ahead.
            PageResult result = TestPage.on(verifier)
                    .add("", "SELECT count(*) FROM pg_class WHERE relname = 'left_by_another_page';", " count\n---\n 0\n")
                    .add("", "CREATE TABLE left_by_another_page ();")
                    .add("", "SELECT datdba = (SELECT oid FROM pg_roles WHERE rolname = current_user) AS owned, datacl = ARRAY[makeaclitem("
                            + "datdba, datdba, 'CREATE, TEMPORARY, CONNECT', false)] AS only_the_owner_may_connect, stats_reset IS NULL AS never_reset,"
                            + " numbackends FROM pg_database d JOIN pg_stat_database s ON s.datid = d.oid WHERE d.datname = current_database();",
                            " owned | only_the_owner_may_connect | never_reset | numbackends\n---+---+---+---\n t | t | t | 1\n")
                    .add("", ROLE_SETTINGS, table("setting", STOCK_SETTINGS))
                    .run();
            assertEquals(List.of("PASSED", "PASSED", "PASSED"), List.of(result.outcomes().get(0).status().name(),
                    result.outcomes().get(1).status().name(), result.outcomes().get(2).status().name()), result.outcomes()::toString);
            // Kensho refuses a claim on the role's settings (its own are among them), but the rows were read: in the order set.
            assertEquals(STOCK_SETTINGS.lines().toList(), settingsRead(result, 3));
            Thread.sleep(1000);
        }
    }

    @Test
    void aPageClaimingAPlanHasAutoExplainsSettingsAfterTheStockOnes() throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("explain", "SELECT 1 AS one;", " one\n---\n 1\n")
                .add("", ROLE_SETTINGS, table("setting", STOCK_SETTINGS + AUTO_EXPLAIN)).run();
        assertEquals("PASSED", result.outcomes().get(0).status().name(), result.outcomes()::toString);
        assertEquals((STOCK_SETTINGS + AUTO_EXPLAIN).lines().toList(), settingsRead(result, 1));
        assertEquals("Result", result.outcomes().get(0).plan().lines().findFirst().orElseThrow().replaceAll("  \\(.*", ""));
    }

    @Test
    void eachDatabaseIsGivenOnceAndThoseNoPageTookAreDroppedOnClose() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin()) {
            AtomicInteger counter = new AtomicInteger();
            DatabaseDropper dropper = new DatabaseDropper(server);
            DatabasePool pool = new DatabasePool(server, dropper, new VerifierSettings(Duration.ofSeconds(10)),
                    () -> "pooltest_" + counter.incrementAndGet());
            List<String> taken = new ArrayList<>();
            taken.add(pool.take().name());
            taken.add(pool.take().name());
            assertEquals(List.of("pooltest_1", "pooltest_2"), taken);
            // Two more were being made ahead (3 and 4): made, never given, dropped.
            pool.close();
            dropper.close();
            assertEquals(List.of("pooltest_1", "pooltest_2"), names(admin, "SELECT datname FROM pg_database WHERE datname LIKE 'pooltest%' ORDER BY 1"));
            assertEquals(List.of("pooltest_1", "pooltest_2"), names(admin, "SELECT rolname FROM pg_roles WHERE rolname LIKE 'pooltest%' ORDER BY 1"));
            SQLException closed = assertThrows(SQLException.class, pool::take);
            assertEquals("the verifier is closed", closed.getMessage());
        }
    }

    private static List<String> names(Connection admin, String query) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Statement statement = admin.createStatement(); ResultSet rs = statement.executeQuery(query)) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }
}
