package dev.kensho.generator.verify;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;

/**
 * The key that signs this machine's cache entries (HMAC-SHA256, {@link VerificationCache}): 32 random
 * bytes in {@code cache-secret} in the user's cache folder ({@link CacheFolder#userRoot}), made on first
 * use with mode 0600 in a folder of mode 0700, never in a repository and never printed. In CI the secret
 * comes from the CI system, never from the checkout: either a secret the workflow hands over in
 * {@code KENSHO_CACHE_KEY}, or the file restored with the cache by the CI system's own cache
 * (actions/cache keeps {@code ~/.cache/kensho}, which holds it).
 *
 * @param file        where the secret is kept
 * @param fromCi      the value of {@code KENSHO_CACHE_KEY}, or null
 */
public record CacheSecret(Path file, String fromCi) {

    public static final String FILE_NAME = "cache-secret";
    public static final String VARIABLE = "KENSHO_CACHE_KEY";
    private static final int BYTES = 32;

    /** The secret the environment names: KENSHO_CACHE_KEY when set, else the file in the user's cache folder. */
    public static CacheSecret of(Map<String, String> environment) {
        String ci = environment.get(VARIABLE);
        return new CacheSecret(CacheFolder.userRoot(environment).resolve(FILE_NAME), ci == null || ci.isBlank() ? null : ci);
    }

    /** Thrown when the secret cannot be had safely; the message is one line and never holds the secret. */
    public static final class Unusable extends Exception {
        Unusable(String message) {
            super(message);
        }
    }

    /** The key: derived from KENSHO_CACHE_KEY, else read from the file, which is made when missing. */
    public byte[] key() throws Unusable {
        if (fromCi != null) {
            try {
                // A fixed label keeps this key apart from any other use of the same CI secret.
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                digest.update("kensho verification cache key\0".getBytes(StandardCharsets.UTF_8));
                return digest.digest(fromCi.getBytes(StandardCharsets.UTF_8));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        Path folder = file.toAbsolutePath().getParent();
        try {
            if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
                create();
            }
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new Unusable(file + " is not a regular file");
            }
            String owner = Owner.problem(file);
            if (owner != null) {
                throw new Unusable(file + ": " + owner);
            }
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
            if (!Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE).containsAll(permissions)) {
                throw new Unusable(file + " may be read by others (mode " + PosixFilePermissions.toString(permissions)
                        + "); it must be rw------- (chmod 600)");
            }
            byte[] key = Files.readAllBytes(file);
            if (key.length != BYTES) {
                throw new Unusable(file + " does not hold a secret of " + BYTES + " bytes; remove it and a new one is made");
            }
            return key;
        } catch (IOException | UnsupportedOperationException e) {
            throw new Unusable("the secret in " + file + " cannot be read or made (" + e.getMessage() + ")");
        }
    }

    /** Writes a new secret whole, readable by the owner alone, under its final name only once it is complete. */
    private void create() throws IOException {
        byte[] key = new byte[BYTES];
        new SecureRandom().nextBytes(key);
        Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), FILE_NAME, ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.write(temp, key);
            try {
                // A link fails when another build made the secret meanwhile: its secret stands, and is read back.
                Files.createLink(file, temp);
            } catch (FileAlreadyExistsException made) {
                // Read back below.
            } catch (UnsupportedOperationException | IOException noLinks) {
                if (Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
