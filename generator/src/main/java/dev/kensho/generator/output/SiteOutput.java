package dev.kensho.generator.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write stage. Files go to a staging folder beside the output folder as soon as they are made,
 * and the folder is swapped in with two renames once the build has passed, so a failed or
 * interrupted build leaves the previous site as it was, and the site is never held in memory whole.
 */
public final class SiteOutput implements AutoCloseable {

    private static final ConcurrentHashMap<Path, ReentrantLock> WRITERS = new ConcurrentHashMap<>();

    private final Path target;
    private final Path staging;
    private final ReentrantLock local;
    private final FileChannel lockFile;
    private final FileLock lock;
    private final Thread cleanup;
    private final Set<Path> folders = ConcurrentHashMap.newKeySet();
    private boolean committed;

    private SiteOutput(Path target, Path staging, ReentrantLock local, FileChannel lockFile, FileLock lock, Thread cleanup) {
        this.target = target;
        this.staging = staging;
        this.local = local;
        this.lockFile = lockFile;
        this.lock = lock;
        this.cleanup = cleanup;
    }

    /**
     * Starts writing a new site for {@code out}: takes the folder's lock (one writer at a time; while it
     * is held, a staging folder left beside the site belongs to a build that was killed, and is removed)
     * and makes an empty staging folder.
     */
    public static SiteOutput begin(Path out) throws IOException {
        Path target = out.toAbsolutePath().normalize();
        Path parent = target.getParent();
        Files.createDirectories(parent);
        // A file lock keeps other processes out; threads of this JVM (a preview and a build) queue here,
        // since the JVM gives one file lock per file.
        ReentrantLock local = WRITERS.computeIfAbsent(target, k -> new ReentrantLock());
        local.lock();
        FileChannel lockFile = null;
        try {
            lockFile = FileChannel.open(parent.resolve("." + target.getFileName() + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = lockFile.lock();
            removeLeftovers(parent, target.getFileName().toString());
            Path staging = Files.createTempDirectory(parent, "." + target.getFileName() + ".staging-");
            // A temp folder is private; the published site is read by web servers and other users.
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
            Thread cleanup = new Thread(() -> deleteTree(staging), "kensho-staging-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            return new SiteOutput(target, staging, local, lockFile, lock, cleanup);
        } catch (IOException | RuntimeException e) {
            if (lockFile != null) {
                lockFile.close();
            }
            local.unlock();
            throw e;
        }
    }

    /** Writes one file of the new site (safe from several threads). */
    public void write(String path, String content) throws IOException {
        Files.writeString(folderFor(path), content, StandardCharsets.UTF_8);
    }

    /** Copies a file into the new site as it is (theme assets, diagrams, images). */
    public void copy(String path, Path source) throws IOException {
        Files.copy(source, folderFor(path), StandardCopyOption.REPLACE_EXISTING);
    }

    private Path folderFor(String relative) throws IOException {
        Path destination = staging.resolve(relative).normalize();
        if (!destination.startsWith(staging)) {
            throw new IOException("refusing to write outside the site folder: " + relative);
        }
        if (!folders.contains(destination.getParent())) {
            Files.createDirectories(destination.getParent());
            folders.add(destination.getParent());
        }
        return destination;
    }

    /** Puts the new site in place of the old one. */
    public void commit() throws IOException {
        swapIn(staging, target);
        committed = true;
    }

    /** Releases the folder; a site not committed is thrown away and the previous one stays. */
    @Override
    public void close() throws IOException {
        try {
            if (!committed) {
                deleteTree(staging);
            }
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // The hook removes the staging folder itself.
            }
        } finally {
            try {
                lock.release();
                lockFile.close();
            } finally {
                local.unlock();
            }
        }
    }

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
