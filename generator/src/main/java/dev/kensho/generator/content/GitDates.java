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

    /**
     * Path below the content folder → date of the newest commit touching it (yyyy-mm-dd). One git process: {@code --relative}
     * names the files from the content folder and leaves out those outside it (a build pays for each process it starts).
     */
    public static Map<String, String> of(Path contentRoot) {
        Map<String, String> dates = new HashMap<>();
        try {
            Process log = new ProcessBuilder("git", "log", "--format=@%cs", "--name-only", "--relative", "--", ".")
                    .directory(contentRoot.toFile()).redirectErrorStream(true).start();
            String output = new String(log.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!log.waitFor(10, TimeUnit.SECONDS) || log.exitValue() != 0) {
                return new HashMap<>(); // not a repository (git's message is on the output), or no git
            }
            String date = null;
            for (String line : output.split("\n")) {
                if (line.startsWith("@")) {
                    date = line.substring(1);
                } else if (!line.isBlank() && date != null) {
                    dates.putIfAbsent(line, date);
                }
            }
        } catch (IOException e) {
            return dates;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return dates;
    }
}
