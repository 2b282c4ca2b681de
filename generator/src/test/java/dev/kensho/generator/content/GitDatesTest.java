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
    void aFolderOutsideARepositoryHasNoDates() throws Exception {
        Path content = Files.createDirectories(temp.resolve("content"));
        Files.writeString(content.resolve("a.md"), "a");
        assertEquals(Map.of(), GitDates.of(content));
    }
}
