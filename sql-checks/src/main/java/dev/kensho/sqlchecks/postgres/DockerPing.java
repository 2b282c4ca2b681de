package dev.kensho.sqlchecks.postgres;

import java.time.Duration;

/** Asks the Docker engine's {@code /_ping} endpoint, giving up after two seconds. */
final class DockerPing {

    private static final Duration LIMIT = Duration.ofSeconds(2);

    private DockerPing() {
    }

    static boolean answers() {
        return DockerEngine.answers(DockerEngine.host(), LIMIT);
    }
}
