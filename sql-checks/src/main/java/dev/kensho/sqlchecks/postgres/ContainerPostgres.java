package dev.kensho.sqlchecks.postgres;

import com.github.dockerjava.api.async.ResultCallback;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * PostgreSQL in a Docker container started through Testcontainers ({@code postgres:18} unless told
 * otherwise). The container is removed on close and by a shutdown hook on Ctrl-C.
 */
public final class ContainerPostgres implements PostgresProvider {

    /** Memory of the whole container (all sessions together). */
    static final long CONTAINER_MEMORY_BYTES = 3L << 30;

    public static final String DEFAULT_IMAGE = "postgres:18";
    /** Marks Kensho's containers with the host and pid of the build that started them. */
    static final String OWNER_LABEL = "dev.kensho.owner";
    private static final Duration PULL_LIMIT = Duration.ofSeconds(60);
    private static final Duration CLIENT_LIMIT = Duration.ofSeconds(15);

    private final String image;

    public ContainerPostgres(String image) {
        this.image = image;
    }

    /**
     * Null when a Docker engine answers and Testcontainers can use it, else why not. A quick ping of
     * the engine's socket comes first, because Testcontainers retries for minutes when the engine it
     * is pointed at does not answer.
     */
    public static String whyDockerIsUnavailable() {
        if (!DockerPing.answers()) {
            return "no Docker engine answered";
        }
        // Where Testcontainers believes it runs inside a container it looks for the host through a
        // helper image; without a registry that takes minutes. Give it a bounded time.
        CompletableFuture<Boolean> check = CompletableFuture.supplyAsync(() -> {
            try {
                return DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                return false;
            }
        });
        try {
            return check.get(CLIENT_LIMIT.toSeconds(), TimeUnit.SECONDS)
                    ? null : "a Docker engine answered, but Testcontainers cannot use it";
        } catch (TimeoutException e) {
            return "a Docker engine answered, but Testcontainers could not use it within " + CLIENT_LIMIT.toSeconds()
                    + " s (where Testcontainers runs inside a container, set TESTCONTAINERS_HOST_OVERRIDE=localhost)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while asking Docker";
        } catch (ExecutionException e) {
            return "a Docker engine answered, but Testcontainers failed: " + e.getCause();
        }
    }

    @Override
    public String name() {
        return "container";
    }

    @Override
    public String identity() {
        return "container:" + image;
    }

    /**
     * Pulls the image when it is not there yet, within a minute: Testcontainers would otherwise
     * retry for minutes where no registry answers, before the build could say anything.
     */
    private void ensureImage() throws PostgresUnavailableException {
        var client = DockerClientFactory.instance().client();
        if (!client.listImagesCmd().withImageNameFilter(image).exec().isEmpty()) {
            return;
        }
        DockerImageName name = DockerImageName.parse(image);
        try {
            boolean done = client.pullImageCmd(name.getUnversionedPart()).withTag(name.getVersionPart())
                    .exec(new ResultCallback.Adapter<>())
                    .awaitCompletion(PULL_LIMIT.toSeconds(), TimeUnit.SECONDS);
            if (!done) {
                throw new PostgresUnavailableException("image " + image + " is not present and could not be pulled within "
                        + PULL_LIMIT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PostgresUnavailableException("interrupted while pulling " + image, e);
        } catch (RuntimeException e) {
            throw new PostgresUnavailableException("image " + image + " is not present and could not be pulled: "
                    + e.getMessage().strip().replaceAll("\\s+", " ") + " (without a registry, build one with docker/postgres-offline/build.sh)", e);
        }
    }

    private static String ownerId() {
        return hostName() + "/" + ProcessHandle.current().pid();
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /**
     * Removes containers whose build was killed outright (with Ryuk disabled, as it must be where no
     * registry is reachable, nothing else would): Kensho's label names a process of this host that
     * no longer runs.
     */
    private static void removeAbandonedContainers() {
        try {
            var client = DockerClientFactory.instance().client();
            for (var container : client.listContainersCmd().withShowAll(true).withLabelFilter(List.of(OWNER_LABEL)).exec()) {
                String owner = container.getLabels().get(OWNER_LABEL);
                int slash = owner == null ? -1 : owner.lastIndexOf('/');
                if (slash < 0 || !owner.substring(0, slash).equals(hostName())) {
                    continue;
                }
                long pid = Long.parseLong(owner.substring(slash + 1));
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                client.removeContainerCmd(container.getId()).withForce(true).withRemoveVolumes(true).exec();
            }
        } catch (RuntimeException e) {
            // Housekeeping only.
        }
    }

    /** The engine's log of the container: json-file, one file of at most 4 MB. */
    static final com.github.dockerjava.api.model.LogConfig BOUNDED_LOG = new com.github.dockerjava.api.model.LogConfig(
            com.github.dockerjava.api.model.LogConfig.LoggingType.JSON_FILE, java.util.Map.of("max-size", "4m", "max-file", "1"));

    @Override
    public RunningPostgres start() throws PostgresUnavailableException {
        String unavailable = whyDockerIsUnavailable();
        if (unavailable != null) {
            throw new PostgresUnavailableException("--postgres container needs a Docker engine that Testcontainers can use: "
                    + unavailable + "; start one, or use --postgres embedded");
        }
        removeAbandonedContainers();
        ensureImage();
        PostgreSQLContainer container = new PostgreSQLContainer(
                DockerImageName.parse(image).asCompatibleSubstituteFor("postgres"))
                .withLabel(OWNER_LABEL, ownerId())
                // A snippet's memory stays the container's: bounded, with no swap to fall back on. The server writes every
                // parse tree Kensho's sessions ask for as a LOG line (hundreds of MB from a loop of EXECUTEs): the engine
                // keeps one file of at most 4 MB of it, as the embedded server's log (ServerLog).
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                        .withMemory(CONTAINER_MEMORY_BYTES).withMemorySwap(CONTAINER_MEMORY_BYTES)
                        .withLogConfig(BOUNDED_LOG));
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
