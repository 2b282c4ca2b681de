package dev.kensho.generator.content;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The files git tracks in the repository that holds a folder (empty outside a repository or without git). */
public final class GitTracked {

    private GitTracked() {
    }

    /** Absolute, normalised paths of every file in git's index of the repository around {@code folder}. */
    public static Set<Path> files(Path folder) {
        Set<Path> files = new HashSet<>();
        Path root = toplevel(folder);
        if (root == null) {
            return files;
        }
        try {
            // -z: names as they are, whatever characters they hold; --cached: the index, so untracked and ignored files never count.
            Process list = new ProcessBuilder("git", "ls-files", "-z", "--cached").directory(root.toFile()).start();
            list.getErrorStream().close();
            for (String name : new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\0")) {
                if (!name.isEmpty()) {
                    files.add(root.resolve(name).normalize());
                }
            }
            list.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            return files;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return files;
    }

    /** The root of the git work tree around {@code folder} (which must exist), or null outside one or without git. */
    public static Path toplevel(Path folder) {
        try {
            Process top = new ProcessBuilder("git", "rev-parse", "--show-toplevel").directory(folder.toFile())
                    .redirectErrorStream(true).start();
            String toplevel = new String(top.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!top.waitFor(10, TimeUnit.SECONDS) || top.exitValue() != 0) {
                return null;
            }
            return Path.of(toplevel).toAbsolutePath().normalize();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Whether git ignores {@code path} in the work tree at {@code root}: a commit cannot add to it without --force. */
    public static boolean ignored(Path root, Path path) {
        try {
            Process check = new ProcessBuilder("git", "check-ignore", "-q", "--no-index", "--", root.relativize(path).toString())
                    .directory(root.toFile()).redirectErrorStream(true).start();
            check.getInputStream().readAllBytes();
            return check.waitFor(10, TimeUnit.SECONDS) && check.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
