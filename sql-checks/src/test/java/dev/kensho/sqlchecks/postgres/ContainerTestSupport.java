package dev.kensho.sqlchecks.postgres;

import org.testcontainers.DockerClientFactory;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Skips container tests, printing why, where no Docker engine or no image is at hand. */
public final class ContainerTestSupport {

    private ContainerTestSupport() {
    }

    /** Asked once per test JVM: the answer does not change between tests, and asking may take seconds. */
    private static String unavailable;
    private static boolean asked;

    public static synchronized void assumeDocker() {
        if (!asked) {
            unavailable = ContainerPostgres.whyDockerIsUnavailable();
            asked = true;
        }
        if (unavailable != null) {
            skip(unavailable + " (.ci/run starts one with dockerd --storage-driver=vfs)");
        }
    }

    public static synchronized void assumeDockerAndImage(String image) {
        assumeDocker();
        boolean present = !DockerClientFactory.instance().client().listImagesCmd().withImageNameFilter(image).exec().isEmpty();
        if (!present) {
            skip("image " + image + " is not present; build it with docker/postgres-offline/build.sh");
        }
    }

    public static void skip(String reason) {
        System.out.println("SKIPPED container tests: " + reason);
        assumeTrue(false, reason);
    }
}
