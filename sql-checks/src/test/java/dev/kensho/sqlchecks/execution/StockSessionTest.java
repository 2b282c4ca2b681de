package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.ScenarioSyntaxException;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.PostgresProvider;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server whose own configuration changes what SQL means (as a --postgres jdbc:… server or a container
 * image may): scenario sessions still start from a stock session.
 */
class StockSessionTest {

    private static Verifier verifier;

    @BeforeAll
    static void startAServerConfiguredToChangeMeaning() throws Exception {
        RunningPostgres server = new EmbeddedPostgres().start();
        try (Connection admin = server.connectAdmin(); Statement statement = admin.createStatement()) {
            // postgresql.auto.conf, read as the configuration file: NULL = NULL becomes true, search_path loses public.
            statement.execute("ALTER SYSTEM SET transform_null_equals = on");
            statement.execute("ALTER SYSTEM SET search_path = pg_catalog");
            statement.execute("ALTER SYSTEM SET default_text_search_config = 'pg_catalog.german'");
            // Planner inputs: SessionSettings puts them back to their built-in values on every session of a page.
            statement.execute("ALTER SYSTEM SET random_page_cost = 1.1");
            statement.execute("ALTER SYSTEM SET work_mem = '64MB'");
            statement.execute("SELECT pg_catalog.pg_reload_conf()");
        }
        verifier = Verifier.start(new PostgresProvider() {
            @Override
            public String name() {
                return "configured";
            }

            @Override
            public RunningPostgres start() {
                return server;
            }

            @Override
            public String identity() {
                return "embedded, configured by this test";
            }
        }, new VerifierSettings(Duration.ofSeconds(3)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static final String SCENARIO = """
            setup { CREATE TABLE public.t (id int); }
            session a
            step a_begin { BEGIN; }
            session b
            step b_look { SELECT (NULL = NULL) IS NULL AS unknown, current_setting('search_path') AS search_path, current_setting('default_text_search_config') AS ts; }
            rows {
             unknown | search_path | ts
            ---------+-------------+----
             %s
            (1 row)
            }
            permutation a_begin b_look
            """;

    private static Outcome run(String row) throws ScenarioSyntaxException {
        String text = SCENARIO.formatted(row);
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 10, 1), text).withScenario(ScenarioParser.parse(text));
        return verifier.verifyPage("page.md", List.of(snippet)).outcomes().get(0);
    }

    @Test
    void resultShapingSettingsOfTheServersConfigurationDoNotReachScenarioSessions() throws Exception {
        // The text search configuration initdb writes for the page locale (C.UTF-8, language C), as on a stock server.
        Outcome stock = run("t       | \"$user\", public | pg_catalog.english");
        assertTrue(stock.passed(), () -> String.valueOf(stock.failure()) + "\n" + stock.transcript());
        Outcome configured = run("f       | pg_catalog | pg_catalog.german");
        assertEquals("step b_look: rows differ (as a multiset, because the query has no ORDER BY)", configured.failure().message());
    }

    @Test
    void plannerSettingsOfTheServersConfigurationDoNotReachThePagesSession() throws Exception {
        // Read in the same round trip as the session's SETs: the rows of that one query string must still be read.
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 3, 1),
                "SELECT current_setting('random_page_cost') AS rpc, current_setting('work_mem') AS wm;")
                .with(dev.kensho.sqlchecks.model.Directives.NONE, dev.kensho.sqlchecks.model.ExpectedRows.parse(
                        " rpc | wm\n-----+-----\n 4   | 4MB\n(1 row)\n"));
        Outcome outcome = verifier.verifyPage("page.md", List.of(snippet)).outcomes().get(0);
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()) + "\n" + outcome.results());
    }
}
