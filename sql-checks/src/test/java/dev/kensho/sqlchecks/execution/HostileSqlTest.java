package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.ScenarioSyntaxException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SQL written to forge evidence or to outlast its page. */
class HostileSqlTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(3)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    @Test
    void functionsOnThePagesSearchPathCannotForgeAWait() throws Exception {
        String scenario = """
                setup {
                  CREATE TABLE k (id int PRIMARY KEY);
                  CREATE FUNCTION public.pg_isolation_test_session_is_blocked(int, int[]) RETURNS boolean LANGUAGE sql AS 'SELECT true';
                  CREATE FUNCTION public.pg_blocking_pids(int) RETURNS int[] LANGUAGE sql AS 'SELECT ARRAY[pg_backend_pid()]';
                }
                session a
                setup { SET search_path = public, pg_catalog; }
                step a1 { INSERT INTO k VALUES (1); }
                session b
                setup { SET search_path = public, pg_catalog; }
                step b1 waits-for=a { INSERT INTO k VALUES (2); }
                permutation a1 b1
                """;
        Snippet snippet = Snippet.of(new SourceLocation("page.md", 1, 1), scenario).withScenario(ScenarioParser.parse(scenario));
        Outcome outcome = verifier.verifyPage("page.md", List.of(snippet)).outcomes().get(0);
        assertEquals("step b1 was to wait for a, but it finished without waiting", outcome.failure().message());
    }

    @Test
    void aPageThatMarksItsDatabaseATemplateIsStillDropped() throws Exception {
        TestPage.on(verifier).add("", "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I IS_TEMPLATE true', current_database()); END $$;").run();
        // Databases are dropped behind the pages (DatabaseDropper): wait up to 10 s for the drop, then count. Read without a
        // claim: other databases are Kensho's doing, which no claim may rest on (ServerWideReaders); the test reads the rows.
        Outcome outcome = TestPage.on(verifier).add("",
                "DO $$ BEGIN FOR i IN 1..1000 LOOP EXIT WHEN NOT EXISTS (SELECT FROM pg_database WHERE datistemplate"
                        + " AND datname LIKE 'kensho%'); PERFORM pg_sleep(0.01); END LOOP; END $$;\n"
                        + "SELECT count(*) AS left_over FROM pg_database WHERE datistemplate AND datname LIKE 'kensho%';").last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        assertEquals(List.of(List.of("0")), outcome.results().get(outcome.results().size() - 1).rows());
    }

    @Test
    void anErrorAfterAnEmojiPointsAtTheRightColumn() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("", "SELECT '😀' AS face, nosuchcolumn FROM (VALUES (1)) AS v(x);").last();
        assertEquals("column \"nosuchcolumn\" does not exist", outcome.failure().message());
        assertEquals(new SourceLocation("page.md", 1, 22), outcome.failure().location());
    }

    @Test
    void aScenarioWithTooManySessionsIsRefused() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            text.append("session s").append(i).append("\nstep t").append(i).append(" { SELECT 1; }\n");
        }
        text.append("permutation t0 t1 t2 t3 t4 t5 t6 t7 t8\n");
        ScenarioSyntaxException e = assertThrows(ScenarioSyntaxException.class, () -> ScenarioParser.parse(text.toString()));
        assertEquals("a scenario may have at most 8 sessions (each is a connection, and connections are shared by all pages "
                + "verified at once)", e.getMessage());
    }

    @Test
    void theServerSeesNoneOfTheBuildsEnvironment() throws Exception {
        List<ProcessHandle> servers = ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("/bin/postgres")).toList();
        assertTrue(!servers.isEmpty(), "no embedded server below this JVM");
        int read = 0;
        for (ProcessHandle server : servers) {
            Path environ = Path.of("/proc", Long.toString(server.pid()), "environ");
            if (Files.exists(environ) && !Files.isReadable(environ)) {
                continue;
            }
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(environ);
            } catch (java.io.IOException e) {
                // A backend whose connection closed since the listing (another test's, a state reader's) is gone: only
                // a process that is still there must be readable. One that has exited but not yet been reaped (a zombie)
                // still has its /proc folder and reads as "No such process".
                boolean exited = e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null
                        && fs.getReason().contains("No such process");
                if (server.isAlive() && Files.exists(environ) && !exited) {
                    throw e;
                }
                continue;
            }
            read++;
            List<String> names = Arrays.stream(new String(bytes, StandardCharsets.UTF_8).split("\0"))
                    .filter(v -> !v.isEmpty()).map(v -> v.split("=", 2)[0]).sorted().toList();
            // runuser adds the server account's own HOME, LOGNAME and USER, the shell its PWD; nothing of the build's.
            assertTrue(List.of("HOME", "LC_ALL", "LOGNAME", "PATH", "PWD", "SHELL", "USER").containsAll(
                    names.stream().filter(n -> !n.startsWith("PG")).toList()), names + " in " + server.info().commandLine().orElse(""));
        }
        assertTrue(read > 0, "no embedded server's environment could be read");
    }
}
