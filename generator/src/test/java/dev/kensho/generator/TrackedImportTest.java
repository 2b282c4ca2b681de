package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code import x from '../examples/a.js?raw'} reads a file git tracks beside content/, never an untracked or ignored one. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class TrackedImportTest {

    @TempDir
    Path temp;

    private static void git(Path folder, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git", "-c", "user.email=t@example.com", "-c", "user.name=t"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.waitFor(), output);
    }

    private static String page(String file) {
        return "---\ntitle: Import\n---\nimport example from '../examples/" + file + "?raw';\n\n<Code code={example} lang=\"js\" />\n";
    }

    @Test
    void aTrackedFileBesideContentIsReadAndAnUntrackedOrIgnoredOneIsRefused() throws Exception {
        TestSite site = new TestSite(temp);
        site.theme = null;
        Path examples = Files.createDirectories(temp.resolve("examples"));
        Files.writeString(examples.resolve("tracked.js"), "export const tracked = 1;\n");
        Files.writeString(examples.resolve("untracked.js"), "export const secret = 2;\n");
        Files.writeString(examples.resolve("ignored.js"), "export const ignored = 3;\n");
        Files.writeString(temp.resolve(".gitignore"), "examples/ignored.js\nout/\ncache/\n");
        git(temp, "init", "-q");
        git(temp, "add", ".gitignore", "examples/tracked.js");
        git(temp, "commit", "-q", "-m", "examples");

        site.page("index.mdx", page("tracked.js"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(Jsoup.parse(site.out.resolve("index.html").toFile()).selectFirst("main pre").text().contains("export const tracked = 1;"));

        for (String file : List.of("untracked.js", "ignored.js", "../../../../../etc/passwd")) {
            site.page("index.mdx", page(file));
            run = site.check();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains(site.display("index.mdx") + ":4:1: error: import '../examples/" + file + "?raw': it is outside the content "
                    + "folder and not a file git tracks in this repository; only files inside content/, or committed beside it, are read"), run::toString);
        }
    }
}
