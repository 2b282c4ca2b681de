package dev.kensho.sqlchecks.postgres;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.security.NoSuchAlgorithmException;

/**
 * A freshly initialised cluster kept beside the build clusters, so later builds copy it (tens of
 * milliseconds on /dev/shm) instead of running initdb (about half a second). It is keyed by the
 * binaries and the account the server runs as; its superuser password sits beside it, readable by
 * the owner only.
 */
final class ClusterTemplate {

    private final Path folder;

    ClusterTemplate(Path root, String binaries, String account) {
        String key = HexFormat.of().formatHex(digest(binaries + "|" + (account == null ? "self" : account)
                + "|" + System.getProperty("user.name")));
        this.folder = root.resolve("kensho-template-" + key.substring(0, 16));
    }

    private static byte[] digest(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    Path folder() {
        return folder;
    }

    /** Copies the template's data folder to {@code dataDir}; returns its password, or null when there is no template. */
    String copyTo(Path dataDir) {
        Path password = folder.resolve("password");
        try {
            if (!Files.isRegularFile(folder.resolve(".complete")) || !ownedByUs()) {
                return null;
            }
            if (!copy(folder.resolve("data"), dataDir)) {
                PostgresBinaries.deleteTree(dataDir);
                return null;
            }
            markUsed();
            return Files.readString(password, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            PostgresBinaries.deleteTree(dataDir);
            return null;
        }
    }

    /** Keeps a copy of a freshly initialised (never started) data folder for later builds; best effort. */
    void keep(Path dataDir, String password) {
        Path staging = null;
        try {
            Files.createDirectories(folder.getParent());
            staging = Files.createTempDirectory(folder.getParent(), folder.getFileName() + ".staging-");
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwx------"));
            if (!copy(dataDir, staging.resolve("data"))) {
                PostgresBinaries.deleteTree(staging);
                return;
            }
            Path passwordFile = staging.resolve("password");
            Files.writeString(passwordFile, password, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-------"));
            Files.createFile(staging.resolve(".complete"));
            Files.move(staging, folder, StandardCopyOption.ATOMIC_MOVE);
            pruneUnused(folder.getParent(), UNUSED_FOR);
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException | AtomicMoveNotSupportedException raced) {
            PostgresBinaries.deleteTree(staging); // Another build kept one first.
        } catch (IOException | UnsupportedOperationException e) {
            PostgresBinaries.deleteTree(staging);
        }
    }

    /**
     * How long a kept template (or a staging folder a killed build left) may go unused before a build that keeps a new
     * one deletes it: templates of older Kensho versions, binaries or layouts would otherwise hold memory on /dev/shm
     * (about 40 MB each) until the machine restarts.
     */
    static final Duration UNUSED_FOR = Duration.ofDays(7);

    /** The time of the template's {@code .complete} marks its last use. */
    private void markUsed() {
        try {
            Files.setLastModifiedTime(folder.resolve(".complete"), FileTime.from(Instant.now()));
        } catch (IOException ignored) {
            // Best effort: a template not marked is at worst made again after a week.
        }
    }

    /** Deletes this user's templates and staging folders in {@code root} that no build used for {@code unusedFor}. */
    static void pruneUnused(Path root, Duration unusedFor) {
        Instant cutoff = Instant.now().minus(unusedFor);
        List<Path> entries;
        try (var listing = Files.list(root)) {
            entries = listing.filter(p -> p.getFileName().toString().startsWith("kensho-template-")).toList();
        } catch (IOException e) {
            return;
        }
        for (Path entry : entries) {
            try {
                if (!Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
                        || !Files.getOwner(entry, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))) {
                    continue;
                }
                Path complete = entry.resolve(".complete");
                Path used = Files.isRegularFile(complete, LinkOption.NOFOLLOW_LINKS) ? complete : entry;
                if (Files.getLastModifiedTime(used, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(cutoff)) {
                    PostgresBinaries.deleteTree(entry);
                }
            } catch (IOException ignored) {
                // Another build removed it meanwhile, or it cannot be read: left as it is.
            }
        }
    }

    private boolean ownedByUs() throws IOException {
        return Files.getOwner(folder, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"));
    }

    /** cp -a keeps owners (the server's account) and modes, which a Java copy would not as easily. */
    private static boolean copy(Path from, Path to) {
        try {
            Process process = new ProcessBuilder(List.of("cp", "-a", from.toString(), to.toString()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
