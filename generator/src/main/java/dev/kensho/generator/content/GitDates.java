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
     * {@code -z} ends every name with a NUL, as git has its bytes (no quoting: a Japanese or quoted name is the page's own
     * path), and each commit starts with an empty field, which no file name can be: a name that looks like a date line
     * (a folder "@x<" holding "lastmod>…" prints "@x</lastmod>…") is still a name, never the date of the names after it.
     * {@code --root} lists the first commit's files whatever the author's {@code log.showRoot}.
     */
    public static Map<String, String> of(Path contentRoot) {
        Map<String, String> dates = new HashMap<>();
        try {
            Process log = new ProcessBuilder("git", "log", "--root", "-z", "--format=%x00%cs", "--name-only", "--relative", "--no-show-signature",
                    "--", ".").directory(contentRoot.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String output = new String(log.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!log.waitFor(10, TimeUnit.SECONDS) || log.exitValue() != 0) {
                return new HashMap<>(); // not a repository, or no git
            }
            // Fields: "" date ("\n" first-name) name … "" date …: a commit's names follow a newline after its date.
            String date = null;
            boolean dateNext = false;
            boolean firstName = false;
            for (String field : output.split("\0")) {
                if (field.isEmpty()) {
                    dateNext = true;
                } else if (dateNext) {
                    date = field;
                    dateNext = false;
                    firstName = true;
                } else if (date != null) {
                    String name = firstName && field.startsWith("\n") ? field.substring(1) : field;
                    firstName = false;
                    dates.putIfAbsent(name, date);
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
