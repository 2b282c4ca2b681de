package dev.kensho.sqlchecks.postgres;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import java.util.Properties;

/**
 * PostgreSQL in a Docker container started through Testcontainers ({@code postgres:18} unless told
 * otherwise). The container is removed on close and by a shutdown hook on Ctrl-C.
 */
public final class ContainerPostgres implements PostgresProvider {

    public static final String DEFAULT_IMAGE = "postgres:18";

    private final String image;

    public ContainerPostgres(String image) {
        this.image = image;
    }

    /** True when a Docker engine answers; asks Testcontainers, which knows every way to find one. */
    public static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @Override
    public String name() {
        return "container";
    }

    @Override
    public RunningPostgres start() throws PostgresUnavailableException {
        if (!dockerAvailable()) {
            throw new PostgresUnavailableException("--postgres container needs a Docker engine and none answered; "
                    + "start one, or use --postgres embedded");
        }
        PostgreSQLContainer container = new PostgreSQLContainer(
                DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"));
        try {
            container.start();
        } catch (RuntimeException e) {
            container.stop();
            throw new PostgresUnavailableException("could not start a container of " + image + ": " + e.getMessage(), e);
        }
        Thread hook = new Thread(container::stop, "kensho-container-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return new RunningPostgres() {
            private boolean closed;

            @Override
            public String jdbcUrl() {
                return container.getJdbcUrl();
            }

            @Override
            public Properties adminCredentials() {
                Properties properties = new Properties();
                properties.setProperty("user", container.getUsername());
                properties.setProperty("password", container.getPassword());
                return properties;
            }

            @Override
            public String description() {
                return "container " + image + " (" + container.getContainerId().substring(0, 12) + ")";
            }

            @Override
            public String urlFor(String database) {
                return JdbcUrls.withDatabase(container.getJdbcUrl(), database);
            }

            @Override
            public synchronized void close() {
                if (closed) {
                    return;
                }
                closed = true;
                container.stop();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException alreadyShuttingDown) {
                    // The hook stops the container.
                }
            }
        };
    }
}
