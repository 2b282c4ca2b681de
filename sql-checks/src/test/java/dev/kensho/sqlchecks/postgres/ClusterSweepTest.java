package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A build that runs a server per PostgreSQL version starts them in one JVM, and each start sweeps abandoned clusters.
 * The sweep used to open every cluster's lock file, its siblings' too; closing that channel released the sibling's
 * lock (locks are the process's), and the next build's sweep, in another process, deleted the running cluster
 * ("could not open file global/2964"). Another process must still find the first server's lock held.
 */
class ClusterSweepTest {

    @Test
    void aSecondServerInTheSameJvmLeavesTheFirstOnesLockHeld() throws Exception {
        Set<Path> before = clusters();
        try (RunningPostgres first = new EmbeddedPostgres().start()) {
            List<Path> mine = new ArrayList<>(clusters());
            mine.removeAll(before);
            assertEquals(1, mine.size(), mine::toString);
            try (RunningPostgres second = new EmbeddedPostgres().start()) {
                assertEquals("held", lockSeenFromAnotherProcess(mine.get(0).resolve("kensho.lock")));
                assertTrue(Files.isDirectory(mine.get(0).resolve("data")), "the first server's cluster was removed");
            }
        }
    }

    private static Set<Path> clusters() throws Exception {
        try (Stream<Path> list = Files.list(EmbeddedPostgres.clusterRoot())) {
            return new HashSet<>(list.filter(p -> p.getFileName().toString().startsWith("kensho-pg-")).toList());
        }
    }

    /** What another build's sweep sees: whether it could take the lock (then it would delete the cluster). */
    private static String lockSeenFromAnotherProcess(Path lockFile) throws Exception {
        Path source = Files.createTempFile("kensho-lock-probe", ".java");
        try {
            Files.writeString(source, """
                    import java.nio.channels.FileChannel;
                    import java.nio.file.Path;
                    import java.nio.file.StandardOpenOption;
                    public class Probe {
                        public static void main(String[] args) throws Exception {
                            try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
                                System.out.print(channel.tryLock() == null ? "held" : "free");
                            }
                        }
                    }
                    """);
            Process probe = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    source.toString(), lockFile.toString()).redirectErrorStream(true).start();
            String seen = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, probe.waitFor(), seen);
            return seen;
        } finally {
            Files.deleteIfExists(source);
        }
    }
}
