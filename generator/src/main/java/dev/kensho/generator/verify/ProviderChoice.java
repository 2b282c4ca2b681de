package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.postgres.ContainerPostgres;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.ExistingServer;
import dev.kensho.sqlchecks.postgres.PostgresProvider;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which PostgreSQL provider the build uses, and why; the reason is printed on the first line.
 *
 * @param provider the provider
 * @param reason   why this one ("--postgres embedded", "no Docker engine answered", …)
 */
public record ProviderChoice(PostgresProvider provider, String reason) {

    /**
     * Turns the {@code --postgres} option into a provider.
     *
     * @param option "auto", "embedded", "container" or a JDBC URL
     * @throws IllegalArgumentException for anything else, with a message naming the accepted values
     */
    public static ProviderChoice choose(String option, String image) {
        return switch (option) {
            case "embedded" -> new ProviderChoice(new EmbeddedPostgres(), "--postgres embedded");
            case "container" -> new ProviderChoice(new ContainerPostgres(image), "--postgres container");
            case "auto" -> dockerEngineAnswers()
                    ? new ProviderChoice(new ContainerPostgres(image), "a Docker engine answered")
                    : new ProviderChoice(new EmbeddedPostgres(), "no Docker engine answered");
            default -> {
                if (option.startsWith("jdbc:postgresql:")) {
                    yield new ProviderChoice(new ExistingServer(option), "--postgres with a JDBC URL");
                }
                throw new IllegalArgumentException("--postgres takes auto, embedded, container or a jdbc:postgresql:// URL, not '"
                        + option + "'");
            }
        };
    }

    private static boolean dockerEngineAnswers() {
        // Asking Testcontainers costs seconds when nothing is there; skip it when no engine can be.
        boolean someEngineConfigured = System.getenv("DOCKER_HOST") != null
                || Files.exists(Path.of("/var/run/docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".docker/run/docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
        return someEngineConfigured && ContainerPostgres.dockerAvailable();
    }
}
