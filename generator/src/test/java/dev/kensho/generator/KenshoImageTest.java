package dev.kensho.generator;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.kensho.sqlchecks.postgres.ContainerTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A repository that holds only content/ checks with the container image that
 * docker/kensho-offline/build.sh builds without a registry: the embedded PostgreSQL runs inside it as
 * the image's unprivileged user. Skipped, with the reason printed, where Docker or the jar is missing.
 */
class KenshoImageTest {

    static final String IMAGE = "kensho/kensho:dev";
    static final Path JAR = Path.of("target", "kensho.jar");
    static final Path BUILD_SCRIPT = Path.of("..", "docker", "kensho-offline", "build.sh");

    @TempDir
    Path temp;

    @BeforeEach
    void requireDockerAndTheImage() throws Exception {
        ContainerTestSupport.assumeDocker();
        if (!Files.isRegularFile(JAR)) {
            ContainerTestSupport.skip("no " + JAR.toAbsolutePath().normalize()
                    + " to put in the image; build it with mvn -B -q -DskipTests package (.ci/run does)");
        }
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(JAR)));
        if (!digest.equals(jarDigestOfImage())) {
            // Absent, or made from another jar: build it, as a user would.
            assertTimeoutPreemptively(Duration.ofMinutes(5), () -> {
                Run build = run(List.of("bash", BUILD_SCRIPT.toString(), IMAGE));
                assertEquals(0, build.status, build.output);
                assertTrue(build.output.contains("built " + IMAGE + " ("), build.output);
            });
            assertEquals(digest, jarDigestOfImage(), "the script did not label the image with the jar it holds");
        }
    }

    private static String jarDigestOfImage() {
        try {
            Map<String, String> labels = DockerClientFactory.instance().client().inspectImageCmd(IMAGE).exec().getConfig().getLabels();
            return labels == null ? null : labels.get("dev.kensho.jar-sha256");
        } catch (NotFoundException absent) {
            return null;
        }
    }

    @Test
    void aRepositoryOfOnlyContentChecksInTheImage() throws IOException {
        Path repository = repositoryWithRows(" two\n-----\n   2\n");
        Run check = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> dockerRunCheck(repository));
        assertEquals(0, check.status, check.output);
        assertTrue(check.output.startsWith("Kensho: PostgreSQL 18.6 via embedded"), check.output);
        assertTrue(check.output.lines().anyMatch("1 passed, 0 failed"::equals), check.output);
    }

    @Test
    void wrongRowsFailTheCheckInTheImageAtTheirLine() throws IOException {
        Path repository = repositoryWithRows(" two\n-----\n   3\n");
        Run check = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> dockerRunCheck(repository));
        assertEquals(1, check.status, check.output);
        assertTrue(check.output.contains("content/index.md:8:1: error: rows differ"), check.output);
        assertTrue(check.output.lines().anyMatch("0 passed, 1 failed"::equals), check.output);
    }

    @Test
    void theLessonSiteChecksInTheImage() throws IOException {
        // Many pages' databases at once: more than the 64 MB /dev/shm Docker gives a container.
        Path repository = Files.createDirectory(temp.resolve("lessons"));
        copyTree(Path.of("..", "content"), repository.resolve("content"));
        copyTree(Path.of("..", "site"), repository.resolve("site"));
        Files.setPosixFilePermissions(repository, PosixFilePermissions.fromString("rwxrwxrwx"));
        Run check = assertTimeoutPreemptively(Duration.ofMinutes(3),
                () -> dockerRunCheck(repository, "--theme", "site", "--no-cache",
                        // The image carries 18's binaries; 14-17 would be fetched from Maven Central inside it, and
                        // LessonContentTest checks the lessons on those.
                        "--postgres-version", "18"));
        assertEquals(0, check.status, check.output);
        assertTrue(check.output.lines().anyMatch(line -> line.matches("[1-9][0-9]* passed, 0 failed")), check.output);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Files.copy(path, to.resolve(from.relativize(path).toString()));
            }
        }
    }

    @Test
    void aHostUsersIdRunsTheCheckAndOwnsWhatItWrites() throws IOException {
        // README's form, docker run --user "$(id -u):$(id -g)": an id the image's /etc/passwd does not know.
        Path repository = repositoryWithRows(" two\n-----\n   2\n");
        Run check = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> dockerRunCheck(repository, List.of("--user", "4321:4321")));
        assertEquals(0, check.status, check.output);
        assertTrue(check.output.lines().anyMatch("1 passed, 0 failed"::equals), check.output);
        assertEquals(4321, Files.getAttribute(repository.resolve("target/kensho-report.json"), "unix:uid"));
    }

    @Test
    void rootIsRefusedWithAMessage() throws IOException {
        Path repository = repositoryWithRows(" two\n-----\n   2\n");
        Run check = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> dockerRunCheck(repository, List.of("--user", "0:0")));
        assertEquals(2, check.status, check.output);
        assertTrue(check.output.startsWith("kensho: the image runs Kensho as an unprivileged user (PostgreSQL refuses root)"), check.output);
    }

    /** A folder holding only content/: an English site.yml and a page with one snippet and its rows (the SQL on line 8). */
    private Path repositoryWithRows(String rows) throws IOException {
        Path repository = Files.createDirectory(temp.resolve("repository"));
        Path content = Files.createDirectory(repository.resolve("content"));
        Files.writeString(content.resolve("site.yml"), "title: Image check\nlang: en\n");
        Files.writeString(content.resolve("index.md"), """
                ---
                title: Home
                ---

                # Home

                ```sql
                SELECT 1 + 1 AS two;
                ```

                ```rows
                """ + rows + "```\n");
        // The image runs as its own user (uid 1000), who must read content/ and write target/ in a
        // folder this test (often root) made.
        Files.setPosixFilePermissions(repository, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(content, PosixFilePermissions.fromString("rwxr-xr-x"));
        return repository;
    }

    private static Run dockerRunCheck(Path repository, String... checkArguments) throws Exception {
        return dockerRunCheck(repository, List.of(), checkArguments);
    }

    /** docker run --rm [OPTIONS] -v REPOSITORY:/work kensho/kensho:dev check [ARGUMENTS], under a name to remove it by. */
    private static Run dockerRunCheck(Path repository, List<String> dockerOptions, String... checkArguments) throws Exception {
        String name = "kensho-image-test-" + UUID.randomUUID();
        List<String> command = new ArrayList<>(List.of("docker", "run", "--rm", "--name", name));
        command.addAll(dockerOptions);
        command.addAll(List.of("-v", repository.toAbsolutePath() + ":/work", IMAGE, "check"));
        command.addAll(List.of(checkArguments));
        try {
            return run(command);
        } finally {
            // A timed-out test is interrupted; the container it started must not outlive it.
            new ProcessBuilder("docker", "rm", "-f", name).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    record Run(int status, String output) {
    }

    /** Output goes to a file, so that waiting stays interruptible (assertTimeoutPreemptively interrupts). */
    private static Run run(List<String> command) throws Exception {
        Path log = Files.createTempFile("kensho-image-test-", ".log");
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int status = process.waitFor();
            return new Run(status, Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }
}
