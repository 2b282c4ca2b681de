package dev.kensho.generator.verify;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Files of a cache folder that this machine wrote and nobody changed since. A cache folder is untrusted input
 * (anything can write files there, a pull request's commit included, if a folder is misconfigured), and anyone can
 * compute a key from the public jar, so a key proves nothing: each entry is {@code <key>.json}, whose first line is
 * the HMAC-SHA256 under this machine's secret ({@link CacheSecret}) of the scheme, the key, the name the entry is
 * for and the payload, each length-prefixed. An entry that does not carry that signature (written by hand,
 * committed, copied from another entry or machine, or altered) is never returned, and is counted.
 *
 * <p>The scheme names the entry's format and purpose, so that an entry of one cache never verifies in another.
 */
public final class SignedStore {

    /** Larger than any entry Kensho writes (a page's kept outcomes, a block's HTML): a larger file is not its. */
    static final long MAX_ENTRY_BYTES = 64L * 1024 * 1024;

    private final Path folder;
    private final byte[] secret;
    private final String scheme;
    private final AtomicInteger unsigned = new AtomicInteger();

    public SignedStore(Path folder, byte[] secret, String scheme) {
        this.folder = folder;
        this.secret = secret.clone();
        this.scheme = scheme;
    }

    /** Why a folder or the secret cannot be used for a cache (one line, never holding the secret). */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * The store in {@code folder} for the pages in {@code content}, signed with {@code secret}'s key under {@code scheme}.
     *
     * @throws Refused when the folder is one a commit could fill ({@link CacheFolder#refusal}) or the secret cannot be had
     */
    public static SignedStore open(Path folder, Path content, CacheSecret secret, String scheme) throws Refused {
        String refusal = CacheFolder.refusal(folder, content);
        if (refusal != null) {
            throw new Refused(refusal);
        }
        try {
            return new SignedStore(folder, secret.key(), scheme);
        } catch (CacheSecret.Unusable e) {
            throw new Refused(e.getMessage());
        }
    }

    public Path folder() {
        return folder;
    }

    /** How many entries were found that this machine did not sign for their key and name. */
    public int unsigned() {
        return unsigned.get();
    }

    /** The payload stored for {@code key} and {@code name}, if there is one and it carries this machine's signature. */
    public Optional<byte[]> read(String key, String name) {
        Path file = folder.resolve(key + ".json");
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        byte[] stored;
        try {
            // A file of the folder is read whole only within a bound: a sparse file past 2 GiB would end the build with
            // an OutOfMemoryError (readAllBytes cannot hold it), one short of it would take the build's memory.
            if (Files.size(file) > MAX_ENTRY_BYTES) {
                unsigned.incrementAndGet();
                return Optional.empty();
            }
            stored = Files.readAllBytes(file);
        } catch (IOException e) {
            return Optional.empty(); // An unreadable entry is a miss; it is overwritten when written again.
        }
        int newline = indexOf(stored, (byte) '\n');
        byte[] payload = newline < 0 ? new byte[0] : Arrays.copyOfRange(stored, newline + 1, stored.length);
        byte[] signature = newline < 0 ? null : parseHex(new String(stored, 0, newline, StandardCharsets.US_ASCII));
        if (signature == null || !MessageDigest.isEqual(signature, sign(key, name, payload))) {
            unsigned.incrementAndGet();
            return Optional.empty();
        }
        return Optional.of(payload);
    }

    /** Stores {@code payload} for {@code key} and {@code name}, signed, replacing any entry whole (never half-written). */
    public void write(String key, String name, byte[] payload) throws IOException {
        byte[] signature = HexFormat.of().formatHex(sign(key, name, payload)).concat("\n").getBytes(StandardCharsets.US_ASCII);
        Files.createDirectories(folder);
        Path temp = Files.createTempFile(folder, key, ".tmp");
        try {
            byte[] both = Arrays.copyOf(signature, signature.length + payload.length);
            System.arraycopy(payload, 0, both, signature.length, payload.length);
            Files.write(temp, both);
            Files.move(temp, folder.resolve(key + ".json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private byte[] sign(String key, String name, byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            for (String part : List.of(scheme, key, name)) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                mac.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                mac.update(bytes);
            }
            return mac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] parseHex(String text) {
        try {
            return text.length() == 64 ? HexFormat.of().parseHex(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static int indexOf(byte[] bytes, byte wanted) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }
}
