package dev.kensho.generator.output;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The write stage. Files go to a staging folder beside the output folder as soon as they are made,
 * and the folder is swapped in with two renames once the build has passed, so a failed or
 * interrupted build leaves the previous site as it was, and the site is never held in memory whole.
 *
 * <p>The site a commit replaces is kept beside it as a spare ({@code .NAME.spare}) and becomes the next
 * build's staging folder: its files are overwritten in place and the ones the new build does not write
 * are deleted at commit. Creating a folder and a file per page costs far more than rewriting them (on
 * the benchmark machine about 0.7 ms per new inode against 0.1 ms per rewrite), so a rebuild pays it
 * only for pages that are new.
 */
public final class SiteOutput implements AutoCloseable {

    private static final ConcurrentHashMap<Path, ReentrantLock> WRITERS = new ConcurrentHashMap<>();

    /** Overwrites a file in place (its inode is reused) and never follows a link. */
    private static final OpenOption[] REWRITE = {StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS};

    private final Path target;
    private final Path staging;
    private final ReentrantLock local;
    private final FileChannel lockFile;
    private final FileLock lock;
    private final Thread cleanup;
    /** Folders this build writes into. */
    private final Set<Path> used = ConcurrentHashMap.newKeySet();
    /** Files of a recycled staging folder that this build has not (yet) written: deleted at commit. */
    private final Set<Path> stale = ConcurrentHashMap.newKeySet();
    /** Folders of a recycled staging folder still standing: deleted at commit unless this build wrote into them. */
    private final Set<Path> recycledFolders = ConcurrentHashMap.newKeySet();
    private boolean committed;

    private SiteOutput(Path target, Path staging, ReentrantLock local, FileChannel lockFile, FileLock lock, Thread cleanup,
                       Set<Path> recycledFolders, Set<Path> recycledFiles) {
        this.target = target;
        this.staging = staging;
        this.local = local;
        this.lockFile = lockFile;
        this.lock = lock;
        this.cleanup = cleanup;
        this.recycledFolders.addAll(recycledFolders);
        stale.addAll(recycledFiles);
        used.add(staging);
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
            lockFile = FileChannel.open(parent.resolve("." + target.getFileName() + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
            FileLock lock = lockFile.lock();
            removeLeftovers(parent, target.getFileName().toString());
            Set<Path> recycledFolders = new HashSet<>();
            Set<Path> recycledFiles = new HashSet<>();
            Path staging = recycleSpare(target, recycledFolders, recycledFiles);
            if (staging == null) {
                staging = Files.createTempDirectory(parent, "." + target.getFileName() + ".staging-");
                // A temp folder is private; the published site is read by web servers and other users.
                Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            Path created = staging;
            Thread cleanup = new Thread(() -> deleteTree(created), "kensho-staging-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            return new SiteOutput(target, staging, local, lockFile, lock, cleanup, recycledFolders, recycledFiles);
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
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        rewrite(destination(path), out -> out.write(bytes));
    }

    /** Copies a file into the new site as it is (theme assets, diagrams, images). */
    public void copy(String path, Path source) throws IOException {
        rewrite(destination(path), out -> Files.copy(source, out));
    }

    /**
     * A file copied from Kensho's jar ({@code source}, which cannot change while Kensho runs) and the identity its copy
     * had right after it was written ({@link UpToDateSite#identity}; null when it could not be read).
     */
    public record BundledCopy(Path source, String identity) {
    }

    /** Relative path (as {@link UpToDateSite} names output files) → the copy of a jar file this build wrote there. */
    private final Map<String, BundledCopy> bundledCopies = new ConcurrentHashMap<>();

    /**
     * Copies a file of Kensho's jar into the new site, noting the identity of the copy as soon as it is written: the
     * up-to-date record then takes its digest from the jar's file instead of reading the copy back, but only while the
     * copy's identity is still this one (any later write to it sets its change time anew).
     */
    public void copyBundled(String path, Path source) throws IOException {
        Path destination = destination(path);
        rewrite(destination, out -> Files.copy(source, out));
        bundledCopies.put(staging.relativize(destination).toString().replace('\\', '/'),
                new BundledCopy(source, UpToDateSite.identity(destination)));
    }

    /** The jar files this build copied, by relative path ({@link #copyBundled}). */
    public Map<String, BundledCopy> bundledCopies() {
        return Map.copyOf(bundledCopies);
    }

    private interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Overwrites a file in place; one the old site left read-only is replaced by a new file instead. */
    private static void rewrite(Path file, Content content) throws IOException {
        try (OutputStream out = openForRewrite(file)) {
            content.writeTo(out);
        }
    }

    private static OutputStream openForRewrite(Path file) throws IOException {
        try {
            return Files.newOutputStream(file, REWRITE);
        } catch (AccessDeniedException readOnly) {
            Files.delete(file);
            return Files.newOutputStream(file, REWRITE);
        }
    }

    /**
     * Where a file of the new site goes, with its folders made. In a recycled staging folder the old
     * site may hold a file where this one needs a folder (a site switched to directory URLs) or a folder
     * where it needs a file: those are removed first.
     */
    private Path destination(String relative) throws IOException {
        Path destination = staging.resolve(relative).normalize();
        if (!destination.startsWith(staging) || destination.equals(staging)) {
            throw new IOException("refusing to write outside the site folder: " + relative);
        }
        Path folder = destination.getParent();
        if (!used.contains(folder)) {
            makeFolder(folder);
        }
        stale.remove(destination);
        if (recycledFolders.remove(destination)) {
            deleteTree(destination);
        }
        return destination;
    }

    /**
     * Makes a folder the first time a file goes into it. One thread at a time: two pages in one new folder
     * must not race a third that removes an old file standing where the folder goes.
     */
    private synchronized void makeFolder(Path folder) throws IOException {
        if (used.contains(folder)) {
            return;
        }
        for (Path above = folder; above != null && !used.contains(above); above = above.getParent()) {
            if (stale.remove(above)) {
                Files.deleteIfExists(above);
            }
        }
        if (!recycledFolders.contains(folder)) {
            Files.createDirectories(folder);
        }
        // Ancestors first, so that a folder is marked in use only once every folder above it exists.
        List<Path> chain = new ArrayList<>();
        for (Path above = folder; above != null && !used.contains(above); above = above.getParent()) {
            chain.add(above);
        }
        for (int i = chain.size() - 1; i >= 0; i--) {
            used.add(chain.get(i));
        }
    }

    /** Puts the new site in place of the old one. */
    public void commit() throws IOException {
        for (Path folder : recycledFolders) {
            if (!used.contains(folder)) {
                deleteTree(folder);
            }
        }
        for (Path file : stale) {
            Files.deleteIfExists(file);
        }
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

    /**
     * Takes the spare left by the last commit as the staging folder, noting its folders and files; anything
     * in it that is neither (a link, say) is removed, so that writing into it can only reach the folder itself.
     * Null when there is no spare.
     */
    private static Path recycleSpare(Path target, Set<Path> recycledFolders, Set<Path> recycledFiles) throws IOException {
        Path spare = spareOf(target);
        if (!Files.isDirectory(spare, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(spare);
            return null;
        }
        Path staging = target.resolveSibling("." + target.getFileName() + ".staging-" + ProcessHandle.current().pid());
        Files.move(spare, staging, StandardCopyOption.ATOMIC_MOVE);
        boolean[] readOnly = {false};
        // One look at each entry (the walk's own attributes, links not followed).
        Files.walkFileTree(staging, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path folder, BasicFileAttributes attributes) {
                if (!Files.isWritable(folder)) {
                    readOnly[0] = true; // a site made read-only after it was published: not ours to rewrite
                    return FileVisitResult.TERMINATE;
                }
                recycledFolders.add(folder);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile()) {
                    recycledFiles.add(file);
                } else {
                    Files.delete(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        if (readOnly[0]) {
            recycledFolders.clear();
            recycledFiles.clear();
            // Not the name swapIn gives the site it replaces: what cannot be deleted here must not block that.
            Path discarded = target.resolveSibling("." + target.getFileName() + ".previous-" + ProcessHandle.current().pid() + "-spare");
            Files.move(staging, discarded, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(discarded);
            return null;
        }
        recycledFolders.remove(staging);
        return staging;
    }

    private static Path spareOf(Path target) {
        return target.resolveSibling("." + target.getFileName() + ".spare");
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
        if (previous != null) {
            // The new site is in place: keeping the old one for the next build is only a saving.
            Path spare = spareOf(target);
            try {
                deleteTree(spare);
                Files.move(previous, spare, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                deleteTree(previous);
            }
        }
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println(dev.kensho.generator.report.ConsoleGate.line("warning: could not remove " + root + ": " + e.getMessage()));
        }
    }
}
