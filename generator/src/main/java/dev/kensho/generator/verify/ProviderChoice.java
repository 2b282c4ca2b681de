package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.postgres.ContainerPostgres;
import dev.kensho.sqlchecks.postgres.DockerEngine;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.ExistingServer;
import dev.kensho.sqlchecks.postgres.FirstAvailable;
import dev.kensho.sqlchecks.postgres.PostgresProvider;
import dev.kensho.sqlchecks.postgres.PostgresReleases;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;


/**
 * Which PostgreSQL provider the build uses, and why; the reason is printed on the first line.
 *
 * @param provider the provider
 * @param reason   why this one ("--postgres embedded", "no Docker engine answered", …)
 */
public record ProviderChoice(PostgresProvider provider, String reason, int major) {

    /** A choice for PostgreSQL 18, the bundled version. */
    public ProviderChoice(PostgresProvider provider, String reason) {
        this(provider, reason, PostgresReleases.BUNDLED_MAJOR);
    }

    /**
     * The image for PostgreSQL {@code major}: {@code postgres:N} when the default image was asked for, else the
     * image given, whose server must then be of that version (Verifier refuses it otherwise).
     */
    static String imageFor(String image, int major) {
        return ContainerPostgres.DEFAULT_IMAGE.equals(image) ? "postgres:" + major : image;
    }

    /**
     * The cache key's server identity for an option, known without asking Docker (which can take
     * seconds): auto names both the image and the embedded binaries it may fall back to. It names the
     * major version asked for, so outcomes of one version never stand for another's.
     */
    public static String identityOf(String option, String image) {
        return identityOf(option, image, PostgresReleases.BUNDLED_MAJOR);
    }

    public static String identityOf(String option, String image, int major) {
        String versioned = imageFor(image, major);
        return "postgres " + major + "|" + switch (option) {
            case "embedded" -> new EmbeddedPostgres(major).identity();
            case "container" -> new ContainerPostgres(versioned).identity();
            case "auto" -> "auto:" + new ContainerPostgres(versioned).identity() + "|" + new EmbeddedPostgres(major).identity();
            default -> new ExistingServer(option).identity();
        };
    }

    /**
     * Turns the {@code --postgres} option into a provider of PostgreSQL 18.
     *
     * @param option "auto", "embedded", "container" or a JDBC URL
     * @throws IllegalArgumentException for anything else, with a message naming the accepted values
     */
    public static ProviderChoice choose(String option, String image) {
        return choose(option, image, PostgresReleases.BUNDLED_MAJOR);
    }

    /** Turns the {@code --postgres} option into a provider of PostgreSQL {@code major}. */
    public static ProviderChoice choose(String option, String image, int major) {
        String versioned = imageFor(image, major);
        return switch (option) {
            case "embedded" -> new ProviderChoice(new EmbeddedPostgres(major), "--postgres embedded", major);
            case "container" -> new ProviderChoice(new ContainerPostgres(versioned), "--postgres container", major);
            case "auto" -> auto(versioned, DockerEngine.host(), major);
            default -> {
                if (option.startsWith("jdbc:postgresql:")) {
                    yield new ProviderChoice(new ExistingServer(option), "--postgres with a JDBC URL", major);
                }
                throw new IllegalArgumentException("--postgres takes auto, embedded, container or a jdbc:postgresql:// URL, not '"
                        + option + "'");
            }
        };
    }

    /** How long auto may ask the Docker engine before it runs the embedded binaries: a re-check in serve takes about a second. */
    static final Duration AUTO_LIMIT = Duration.ofSeconds(1);

    /** auto's answer per engine and image, asked once per process: every re-check of serve would otherwise ask again. */
    private static final Map<String, String> AUTO_DECISIONS = new ConcurrentHashMap<>();

    /**
     * auto: a container when the Docker engine answers and already holds the image, the embedded binaries otherwise,
     * decided within {@link #AUTO_LIMIT} and once per process, and the reason is said either way.
     */
    static ProviderChoice auto(String image, String dockerHost) {
        return auto(image, dockerHost, PostgresReleases.BUNDLED_MAJOR);
    }

    /** As above, for PostgreSQL {@code major} ({@code image} already the one of that version). */
    static ProviderChoice auto(String image, String dockerHost, int major) {
        String unavailable = AUTO_DECISIONS.computeIfAbsent(dockerHost + " " + image, key -> {
            String why = DockerEngine.whyAutoCannotUse(dockerHost, image, AUTO_LIMIT);
            return why == null ? "" : why;
        });
        return unavailable.isEmpty()
                ? new ProviderChoice(new FirstAvailable(List.of(new ContainerPostgres(image), new EmbeddedPostgres(major))),
                "--postgres auto: the Docker engine at " + dockerHost + " holds " + image, major)
                : new ProviderChoice(new EmbeddedPostgres(major), "--postgres auto: " + unavailable, major);
    }

    /**
     * Which server outcomes depend on, known before any server starts (the cache key holds it):
     * the embedded binaries' archive, the container image, or the JDBC URL.
     */
    public String identity() {
        PostgresProvider chosen = provider instanceof FirstAvailable first ? first.providers().get(0) : provider;
        return chosen.identity();
    }

    /** Why the provider ran: the reason, plus any provider passed over on the way. */
    public String fullReason() {
        if (provider instanceof FirstAvailable fallback && !fallback.passedOver().isEmpty()) {
            return reason + ", but " + String.join("; ", fallback.passedOver()) + " — so the embedded binaries";
        }
        return reason;
    }

}
