package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Builds after the first copy an initialised cluster instead of running initdb. */
class ClusterTemplateTest {

    @Test
    void aSecondServerStartsFromTheKeptClusterAndWorks() throws Exception {
        try (RunningPostgres first = new EmbeddedPostgres().start()) {
            assertTrue(first.description().contains("cluster "), first.description());
        }
        List<Path> templates;
        try (Stream<Path> entries = Files.list(EmbeddedPostgres.clusterRoot())) {
            templates = entries.filter(p -> p.getFileName().toString().startsWith("kensho-template-")
                    && !p.getFileName().toString().contains(".staging-")).toList();
        }
        // One per cluster layout and binaries; those of older Kensho versions stay until unused for a week.
        assertTrue(!templates.isEmpty(), "no template was kept");
        for (Path template : templates) {
            assertTrue(Files.isRegularFile(template.resolve(".complete")));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(template.resolve("password"))),
                    "the superuser password is the owner's alone");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(template)));
        }

        try (RunningPostgres second = new EmbeddedPostgres().start();
             Connection admin = second.connectAdmin();
             ResultSet rs = admin.createStatement().executeQuery("SELECT current_setting('server_version')")) {
            rs.next();
            assertEquals("18.6", rs.getString(1));
        }
    }

    /**
     * A build that keeps a new template deletes this user's templates no build used for a week (those of older Kensho
     * versions, binaries or layouts held about 40 MB of /dev/shm each until the machine restarted); a template a build
     * copies from is marked used.
     */
    @Test
    void templatesUnusedForAWeekAreDeletedAndACopyMarksItsTemplateUsed(@TempDir Path root) throws Exception {
        FileTime eightDaysAgo = FileTime.from(Instant.now().minus(Duration.ofDays(8)));
        Path old = template(root, "kensho-template-0000000000000old", eightDaysAgo);
        Path recent = template(root, "kensho-template-000000000recent", FileTime.from(Instant.now().minus(Duration.ofDays(6))));
        Path abandonedStaging = Files.createDirectory(root.resolve("kensho-template-0000000000000old.staging-1"));
        Files.setLastModifiedTime(abandonedStaging, eightDaysAgo);
        Path other = Files.createDirectory(root.resolve("kensho-pg-someone-elses"));
        Files.setLastModifiedTime(other, eightDaysAgo);
        Path elsewhere = Files.createDirectories(root.resolve("elsewhere/kept"));
        Files.setLastModifiedTime(elsewhere, eightDaysAgo);
        Path link = Files.createSymbolicLink(root.resolve("kensho-template-link"), elsewhere);

        // A template of other binaries, unused as long, is the one this build copies from: marked used, so it stays.
        ClusterTemplate used = new ClusterTemplate(root, "binaries-a", null);
        Path usedFolder = template(root, used.folder().getFileName().toString(), eightDaysAgo);
        assertEquals("secret", used.copyTo(root.resolve("copy")));
        assertTrue(Files.isRegularFile(root.resolve("copy/PG_VERSION")));

        ClusterTemplate.pruneUnused(root, ClusterTemplate.UNUSED_FOR);
        assertTrue(Files.notExists(old), "a template unused for eight days is deleted");
        assertTrue(Files.notExists(abandonedStaging), "a staging folder a killed build left a week ago is deleted");
        assertTrue(Files.isDirectory(recent), "a template used six days ago stays");
        assertTrue(Files.isDirectory(usedFolder), "the template this build copied from stays");
        assertTrue(Files.isDirectory(other), "a cluster folder is not a template");
        assertTrue(Files.isSymbolicLink(link) && Files.isDirectory(elsewhere), "a link is not followed");
    }

    /**
     * Two builds pruning the same unused templates at once: each deletes what the other has not yet, and neither warns of
     * files the other removed first (before, NoSuchFileException: "warning: could not remove …").
     */
    @Test
    void twoBuildsPruningTheSameTemplatesAtOnceSayNothing(@TempDir Path root) throws Exception {
        FileTime eightDaysAgo = FileTime.from(Instant.now().minus(Duration.ofDays(8)));
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        try {
            System.setErr(new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
            for (int round = 0; round < 10; round++) {
                List<Path> templates = new java.util.ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    Path folder = template(root, "kensho-template-" + round + "-" + t, eightDaysAgo);
                    // A cluster's shape: folders of many small files (base/1, base/4, …, pg_xact, global).
                    for (int d = 0; d < 20; d++) {
                        Path dir = Files.createDirectories(folder.resolve("data/base/" + d));
                        for (int f = 0; f < 25; f++) {
                            Files.writeString(dir.resolve(Integer.toString(f)), "x");
                        }
                    }
                    templates.add(folder);
                }
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                java.util.concurrent.ExecutorService builds = java.util.concurrent.Executors.newFixedThreadPool(2);
                try {
                    List<java.util.concurrent.Future<?>> prunes = new java.util.ArrayList<>();
                    for (int build = 0; build < 2; build++) {
                        prunes.add(builds.submit(() -> {
                            start.await();
                            ClusterTemplate.pruneUnused(root, ClusterTemplate.UNUSED_FOR);
                            return null;
                        }));
                    }
                    for (var prune : prunes) {
                        prune.get(60, java.util.concurrent.TimeUnit.SECONDS);
                    }
                } finally {
                    builds.shutdownNow();
                }
                for (Path folder : templates) {
                    assertTrue(Files.notExists(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS), folder + " is deleted");
                }
            }
        } finally {
            System.setErr(err);
        }
        assertEquals("", said.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** A tree already gone, or a link (removed, not followed): nothing to say. */
    @Test
    void deletingATreeThatIsGoneOrALinkSaysNothing(@TempDir Path root) throws Exception {
        Path kept = Files.createDirectories(root.resolve("kept"));
        Files.writeString(kept.resolve("file"), "x");
        Path link = Files.createSymbolicLink(root.resolve("link"), kept);
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        try {
            System.setErr(new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
            PostgresBinaries.deleteTree(root.resolve("never-there"));
            PostgresBinaries.deleteTree(link);
        } finally {
            System.setErr(err);
        }
        assertEquals("", said.toString(java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(Files.notExists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertTrue(Files.isRegularFile(kept.resolve("file")));
    }

    private static Path template(Path root, String name, FileTime lastUsed) throws Exception {
        Path folder = Files.createDirectories(root.resolve(name));
        Files.createDirectories(folder.resolve("data"));
        Files.writeString(folder.resolve("data/PG_VERSION"), "18\n");
        Files.writeString(folder.resolve("password"), "secret");
        Path complete = folder.resolve(".complete");
        if (Files.notExists(complete)) {
            Files.createFile(complete);
        }
        Files.setLastModifiedTime(complete, lastUsed);
        return folder;
    }
}
