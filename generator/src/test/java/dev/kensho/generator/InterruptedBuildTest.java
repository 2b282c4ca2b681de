package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A build stopped from outside, in a separate JVM: Ctrl-C (SIGINT) and an outright kill (SIGKILL)
 * must both leave no PostgreSQL process and no half-written site behind.
 */
class InterruptedBuildTest {

    @TempDir
    Path temp;

    private Process startSlowBuild(TestSite site) throws Exception {
        site.page("slow.md", TestSite.source("Slow", "\n```sql\nSELECT pg_sleep(120);\n```\n"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                KenshoCommand.class.getName(), "build", "--postgres", "embedded", "--statement-timeout", "300s", "--no-cache",
                "--content", site.content.toString(), "--theme", TestSite.THEME.toString(),
                "--out", site.out.toString(), "--report", site.report.toString())
                .redirectErrorStream(true)
                .start();
        BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String first = output.readLine();
        assertTrue(first != null && first.startsWith("Kensho: PostgreSQL 18.6"), "unexpected first line: " + first);
        // The server is up and the snippet is sleeping inside it.
        servers = awaitSleepingSnippet(process);
        return process;
    }

    /** The build's own server processes, remembered while the build lives (once it dies they are orphans). */
    private List<ProcessHandle> servers = List.of();

    private static List<ProcessHandle> awaitSleepingSnippet(Process build) throws InterruptedException {
        for (int i = 0; i < 100 && TestSite.serversBelow(build.toHandle()).isEmpty(); i++) {
            Thread.sleep(50);
        }
        List<ProcessHandle> found = TestSite.serversBelow(build.toHandle());
        assertTrue(!found.isEmpty(), "the build started no server");
        Thread.sleep(500);
        return found;
    }

    private void awaitNoServer() throws InterruptedException {
        for (int i = 0; i < 200 && servers.stream().anyMatch(ProcessHandle::isAlive); i++) {
            Thread.sleep(50);
        }
        assertEquals(List.of(), servers.stream().filter(ProcessHandle::isAlive).map(p -> p.info().commandLine().orElse("")).toList());
    }

    @Test
    void ctrlCMidBuildStopsTheServerAndKeepsThePreviousSite() throws Exception {
        TestSite site = new TestSite(temp);
        Files.createDirectories(site.out);
        Files.writeString(site.out.resolve("index.html"), "previous site");
        Process build = startSlowBuild(site);

        new ProcessBuilder("kill", "-INT", Long.toString(build.pid())).start().waitFor();
        assertTrue(build.waitFor(30, TimeUnit.SECONDS), "the build did not end after SIGINT");
        awaitNoServer();
        assertEquals("previous site", Files.readString(site.out.resolve("index.html")));
        try (var siblings = Files.list(site.out.getParent())) {
            assertEquals(List.of("site"), siblings.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".site.lock")).toList());
        }
    }

    @Test
    void evenAKilledBuildTakesItsServerWithItAndTheNextBuildRemovesItsFolder() throws Exception {
        TestSite site = new TestSite(temp);
        List<Path> existing = clusters();
        Process build = startSlowBuild(site);

        List<Path> clustersBefore = clusters().stream().filter(c -> !existing.contains(c)).toList();
        build.destroyForcibly(); // SIGKILL: no shutdown hook runs; the server's stdin pipe closes.
        assertTrue(build.waitFor(30, TimeUnit.SECONDS));
        awaitNoServer();

        // The killed build could not delete its cluster folder; the next build does.
        assertEquals(1, clustersBefore.size(), clustersBefore::toString);
        assertTrue(Files.exists(clustersBefore.get(0)));
        site.page("slow.md", TestSite.source("Fast", "\n```sql\nSELECT 1;\n```\n"));
        assertEquals(0, site.build().status());
        assertTrue(Files.notExists(clustersBefore.get(0)), "the abandoned cluster was not removed");
    }

    private static List<Path> clusters() throws java.io.IOException {
        try (var dirs = Files.list(EmbeddedClusterRoot.PATH)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("kensho-pg-")).toList();
        }
    }

    /** Same rule as the embedded provider: /dev/shm where it exists. */
    private static final class EmbeddedClusterRoot {
        static final Path PATH = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
    }
}
