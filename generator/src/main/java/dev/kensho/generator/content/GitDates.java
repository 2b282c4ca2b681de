package dev.kensho.generator.content;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * When each page last changed, from git: one {@code git log} for the whole content folder. Outside
 * a repository, or without git, pages simply have no date.
 */
public final class GitDates {

    private GitDates() {
    }

    /** Path below the content folder → date of the newest commit touching it (yyyy-mm-dd). */
    public static Map<String, String> of(Path contentRoot) {
        Map<String, String> dates = new HashMap<>();
        try {
            Process prefix = new ProcessBuilder("git", "rev-parse", "--show-prefix").directory(contentRoot.toFile())
                    .redirectErrorStream(true).start();
            String relative = new String(prefix.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!prefix.waitFor(10, TimeUnit.SECONDS) || prefix.exitValue() != 0) {
                return dates;
            }
            Process log = new ProcessBuilder("git", "log", "--format=@%cs", "--name-only", "--", ".")
                    .directory(contentRoot.toFile()).redirectErrorStream(true).start();
            String date = null;
            for (String line : new String(log.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("@")) {
                    date = line.substring(1);
                } else if (!line.isBlank() && date != null && line.startsWith(relative)) {
                    dates.putIfAbsent(line.substring(relative.length()), date);
                }
            }
            log.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            return dates;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return dates;
    }
}
