package dev.kensho.sqlchecks.postgres;

import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.execution.Verifier;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The container provider against a real Docker engine. Where none answers (or the image is not
 * built), these tests are skipped and say why; .ci/run starts an engine and builds the image.
 */
class ContainerPostgresTest {

    static final String IMAGE = System.getenv().getOrDefault("KENSHO_TEST_PG_IMAGE", "kensho/postgres:18.6");

    @BeforeEach
    void requireDocker() {
        ContainerTestSupport.assumeDockerAndImage(IMAGE);
    }

    /** The container's short id, as the server's description names it ("container kensho/postgres:18.6 (9cdd8e815218); …"). */
    private static String containerId(Verifier verifier) {
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("\\(([0-9a-f]{12})\\)").matcher(verifier.serverDescription());
        assertTrue(id.find(), verifier.serverDescription());
        return id.group(1);
    }

    @Test
    void aContainerOfTheImageAnswersWithPostgres186() throws Exception {
        try (RunningPostgres server = new ContainerPostgres(IMAGE).start();
             Connection admin = server.connectAdmin();
             Statement statement = admin.createStatement();
             ResultSet rs = statement.executeQuery("SELECT version()")) {
            rs.next();
            assertTrue(rs.getString(1).startsWith("PostgreSQL 18.6 "), rs.getString(1));
        }
    }

    @Test
    void pagesRunAsANonSuperuserInTheirOwnDatabaseAndTheContainerIsRemoved() throws Exception {
        String containerId;
        try (Verifier verifier = Verifier.start(new ContainerPostgres(IMAGE), VerifierSettings.DEFAULTS)) {
            assertEquals("18.6", verifier.serverVersion());
            containerId = containerId(verifier);
            PageResult result = verifier.verifyPage("page.md", List.of(
                    Snippet.of(new SourceLocation("page.md", 1, 1), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"),
                    Snippet.of(new SourceLocation("page.md", 5, 1), "COPY (SELECT 1) TO PROGRAM 'id'")));
            assertEquals(List.of(List.of("f")), result.outcomes().get(0).results().get(0).rows());
            assertEquals("42501", result.outcomes().get(1).failure().sqlState());
        }
        String id = containerId;
        boolean stillThere = DockerClientFactory.instance().client().listContainersCmd().withShowAll(true).exec()
                .stream().anyMatch(c -> c.getId().startsWith(id));
        assertTrue(!stillThere, "container " + id + " outlived the verifier");
    }

    @Test
    void theEnginesLogOfTheContainerIsBounded() throws Exception {
        try (Verifier verifier = Verifier.start(new ContainerPostgres(IMAGE), VerifierSettings.DEFAULTS)) {
            String id = containerId(verifier);
            com.github.dockerjava.api.model.LogConfig log = DockerClientFactory.instance().client().inspectContainerCmd(id).exec()
                    .getHostConfig().getLogConfig();
            assertEquals("json-file", log.getType().getType());
            assertEquals(java.util.Map.of("max-size", "4m", "max-file", "1"), log.getConfig());
        }
    }
}
