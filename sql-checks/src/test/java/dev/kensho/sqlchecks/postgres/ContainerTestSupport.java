package dev.kensho.sqlchecks.postgres;

import org.testcontainers.DockerClientFactory;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Skips container tests, printing why, where no Docker engine or no image is at hand. */
public final class ContainerTestSupport {

    private ContainerTestSupport() {
    }

    public static void assumeDockerAndImage(String image) {
        if (!ContainerPostgres.dockerAvailable()) {
            skip("no Docker engine answered (start one, e.g. as .ci/run does with dockerd --storage-driver=vfs)");
        }
        boolean present = !DockerClientFactory.instance().client().listImagesCmd().withImageNameFilter(image).exec().isEmpty();
        if (!present) {
            skip("image " + image + " is not present; build it with docker/postgres-offline/build.sh");
        }
    }

    private static void skip(String reason) {
        System.out.println("SKIPPED container tests: " + reason);
        assumeTrue(false, reason);
    }
}
