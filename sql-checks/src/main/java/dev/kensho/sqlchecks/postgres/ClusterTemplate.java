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
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.security.MessageDigest;
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
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException | AtomicMoveNotSupportedException raced) {
            PostgresBinaries.deleteTree(staging); // Another build kept one first.
        } catch (IOException | UnsupportedOperationException e) {
            PostgresBinaries.deleteTree(staging);
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
