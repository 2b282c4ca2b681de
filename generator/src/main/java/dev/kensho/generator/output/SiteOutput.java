package dev.kensho.generator.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write stage. Everything goes to a staging folder beside the output folder and is swapped in
 * with two renames once complete, so a failed or interrupted build leaves the previous site as it was.
 */
public final class SiteOutput {

    private SiteOutput() {
    }

    /**
     * @param out    the site folder to replace
     * @param pages  output path → HTML
     * @param copies output path → file to copy (theme assets, diagrams, images)
     */
    public static void publish(Path out, Map<String, String> pages, Map<String, Path> copies) throws IOException {
        Path target = out.toAbsolutePath().normalize();
        Path parent = target.getParent();
        Files.createDirectories(parent);
        // One writer at a time per output folder; while it holds the lock, any staging folder left
        // beside the site belongs to a build that was killed, and is removed.
        // A file lock keeps other processes out; threads of this JVM (a preview and a build) queue here,
        // since the JVM gives one file lock per file.
        ReentrantLock local = WRITERS.computeIfAbsent(target, k -> new ReentrantLock());
        local.lock();
        try (FileChannel lockFile = FileChannel.open(parent.resolve("." + target.getFileName() + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = lockFile.lock()) {
            removeLeftovers(parent, target.getFileName().toString());
            publishLocked(target, parent, pages, copies);
        } finally {
            local.unlock();
        }
    }

    private static final ConcurrentHashMap<Path, ReentrantLock> WRITERS =
            new ConcurrentHashMap<>();

    private static void removeLeftovers(Path parent, String name) throws IOException {
        try (Stream<Path> siblings = Files.list(parent)) {
            for (Path sibling : siblings.toList()) {
                String file = sibling.getFileName().toString();
                if (file.startsWith("." + name + ".staging-") || file.startsWith("." + name + ".previous-")) {
                    deleteTree(sibling);
                }
            }
        }
    }

    private static void publishLocked(Path target, Path parent, Map<String, String> pages, Map<String, Path> copies) throws IOException {
        Path staging = Files.createTempDirectory(parent, "." + target.getFileName() + ".staging-");
        // A temp folder is private; the published site is read by web servers and other users.
        Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
        Thread cleanup = new Thread(() -> deleteTree(staging), "kensho-staging-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            for (Map.Entry<String, Path> copy : copies.entrySet()) {
                Path destination = resolveInside(staging, copy.getKey());
                Files.createDirectories(destination.getParent());
                Files.copy(copy.getValue(), destination, StandardCopyOption.REPLACE_EXISTING);
            }
            for (Map.Entry<String, String> page : pages.entrySet()) {
                Path destination = resolveInside(staging, page.getKey());
                Files.createDirectories(destination.getParent());
                Files.writeString(destination, page.getValue(), StandardCharsets.UTF_8);
            }
            swapIn(staging, target);
        } finally {
            deleteTree(staging);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // The hook removes the staging folder itself.
            }
        }
    }

    private static void swapIn(Path staging, Path target) throws IOException {
        Path previous = null;
        if (Files.exists(target)) {
            previous = target.resolveSibling("." + target.getFileName() + ".previous-" + ProcessHandle.current().pid());
            deleteTree(previous);
            Files.move(target, previous, StandardCopyOption.ATOMIC_MOVE);
        }
        try {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (previous != null) {
                Files.move(previous, target, StandardCopyOption.ATOMIC_MOVE);
            }
            throw e;
        }
        deleteTree(previous);
    }

    private static Path resolveInside(Path root, String relative) throws IOException {
        Path resolved = root.resolve(relative).normalize();
        if (!resolved.startsWith(root)) {
            throw new IOException("refusing to write outside the site folder: " + relative);
        }
        return resolved;
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("warning: could not remove " + root + ": " + e.getMessage());
        }
    }
}
