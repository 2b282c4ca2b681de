package dev.kensho.generator.content;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

class GitDatesTest {

    @TempDir
    Path temp;

    private void git(String date, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-c", "user.name=t", "-c", "user.email=t@example.org"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(temp.toFile()).redirectErrorStream(true);
        builder.environment().put("GIT_COMMITTER_DATE", date + "T12:00:00Z");
        builder.environment().put("GIT_AUTHOR_DATE", date + "T12:00:00Z");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        process.waitFor(30, TimeUnit.SECONDS);
        assertEquals(0, process.exitValue(), output);
    }

    @Test
    void datesAreThoseOfTheNewestCommitPerPageNamedFromTheContentFolderAndOnlyItsOwn() throws Exception {
        Path content = Files.createDirectories(temp.resolve("docs/content/guide"));
        git("2026-01-01", "init", "-q");
        Files.writeString(content.resolve("a.md"), "a");
        Files.writeString(temp.resolve("docs/content/index.md"), "home");
        Files.writeString(temp.resolve("README.md"), "readme");
        git("2026-01-01", "add", "-A");
        git("2026-01-01", "commit", "-q", "-m", "first");
        Files.writeString(content.resolve("a.md"), "a, edited");
        Files.writeString(temp.resolve("README.md"), "readme, edited");
        Files.writeString(temp.resolve("docs/other.md"), "beside the content folder");
        git("2026-03-04", "add", "-A");
        git("2026-03-04", "commit", "-q", "-m", "second");

        assertEquals(Map.of("guide/a.md", "2026-03-04", "index.md", "2026-01-01"), GitDates.of(temp.resolve("docs/content")));
    }

    @Test
    void aFileNameIsNeverReadAsADateNamesAreGitsOwnBytesAndTheFirstCommitCounts() throws Exception {
        // A page's folder named "@x<" holding "lastmod>…": git prints "@x</lastmod>…", a line that read as a date (the
        // sitemap's <lastmod> and the page's last-updated line then showed it for every later file of that commit).
        Path content = Files.createDirectories(temp.resolve("content/@x<"));
        git("2026-01-01", "init", "-q");
        // An author's own git settings still date the first commit's files (false would list none of them).
        git("2026-01-01", "config", "log.showRoot", "false");
        Files.writeString(content.resolve("lastmod><loc>https:"), "a folder read as a date");
        Files.writeString(temp.resolve("content/page.md"), "page");
        Files.writeString(temp.resolve("content/日本語.md"), "a page with a Japanese name");
        Files.writeString(temp.resolve("content/new\nline.md"), "a name git quotes");
        git("2026-02-03", "add", "-A");
        git("2026-02-03", "commit", "-q", "-m", "first");

        assertEquals(Map.of("@x</lastmod><loc>https:", "2026-02-03", "page.md", "2026-02-03", "日本語.md", "2026-02-03",
                "new\nline.md", "2026-02-03"), GitDates.of(temp.resolve("content")));
    }

    @Test
    void aFolderOutsideARepositoryHasNoDates() throws Exception {
        Path content = Files.createDirectories(temp.resolve("content"));
        Files.writeString(content.resolve("a.md"), "a");
        assertEquals(Map.of(), GitDates.of(content));
    }
}
