package dev.kensho.generator.verify;

import dev.kensho.generator.content.GitTracked;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * Where the verification cache lives, and whether a folder may serve as one. By default it is the
 * user's cache folder ({@code $XDG_CACHE_HOME/kensho}, else {@code ~/.cache/kensho}), one folder per
 * project keyed by the content folder's real path: outside the checkout, so that nothing a pull
 * request commits is ever read as a cache entry. A folder a pull request could have written (one git
 * tracks files in, or one inside the checkout that git does not ignore), a link, or a folder another
 * user owns is refused: the build runs every page and says why once.
 */
public final class CacheFolder {

    private CacheFolder() {
    }

    /** {@code $XDG_CACHE_HOME/kensho}, else {@code $HOME/.cache/kensho}: the root of Kensho's caches of this user. */
    public static Path userRoot(Map<String, String> environment) {
        String xdg = environment.get("XDG_CACHE_HOME");
        if (xdg != null && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "kensho");
        }
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return Path.of(home, ".cache", "kensho");
    }

    /** The default cache of the project whose pages are in {@code content}. */
    public static Path forProject(Path content, Map<String, String> environment) {
        Path real;
        try {
            real = content.toRealPath();
        } catch (IOException e) {
            real = content.toAbsolutePath().normalize();
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(real.toString().getBytes(StandardCharsets.UTF_8));
            String name = (real.getFileName() == null ? "root" : real.getFileName().toString()).replaceAll("[^A-Za-z0-9._-]", "_");
            return userRoot(environment).resolve("projects").resolve(name + "-" + HexFormat.of().formatHex(digest, 0, 8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Why {@code folder} may not serve as the cache of the pages in {@code content}, or null when it may.
     * A folder that does not exist yet is judged by where it would be made.
     */
    public static String refusal(Path folder, Path content) {
        Path absolute = folder.toAbsolutePath().normalize();
        if (Files.isSymbolicLink(absolute)) {
            return "it is a link";
        }
        if (Files.isDirectory(absolute, LinkOption.NOFOLLOW_LINKS)) {
            String owner = Owner.problem(absolute);
            if (owner != null) {
                return owner;
            }
        }
        Path existing = absolute;
        while (existing != null && !Files.isDirectory(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return null;
        }
        Path real;
        try {
            real = existing.toRealPath().resolve(existing.relativize(absolute));
        } catch (IOException e) {
            return null;
        }
        Path root = GitTracked.toplevel(existing);
        if (root == null) {
            return null;
        }
        if (GitTracked.files(existing).stream().anyMatch(file -> file.startsWith(real))) {
            return "git tracks files in it, so a commit decides what it holds";
        }
        Path contentRoot = Files.isDirectory(content) ? GitTracked.toplevel(content) : null;
        if (root.equals(contentRoot) && real.startsWith(root) && !GitTracked.ignored(root, real.resolve("entry.json"))) {
            return "it lies inside the checkout " + root + " and git does not ignore it, so a commit could fill it";
        }
        return null;
    }
}
