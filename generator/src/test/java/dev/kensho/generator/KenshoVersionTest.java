package dev.kensho.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * issue 35: README, `kensho init` and the action named a release (v0.1.0) that did not exist, and a snapshot could
 * not say which commit it was. The jar now carries the POM's version and the commit it was built from.
 */
class KenshoVersionTest {

    @TempDir
    Path temp;

    @Test
    void theJarNamesThePomsVersionAndTheCommitItWasBuiltFrom() throws Exception {
        Matcher version = Pattern.compile("<artifactId>kensho-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(Path.of("../pom.xml")));
        assertTrue(version.find());
        assertEquals(version.group(1), KenshoVersion.VALUE);
        assertEquals(git("rev-parse", "HEAD"), KenshoVersion.COMMIT);
        assertEquals("Kensho " + version.group(1) + " (commit " + KenshoVersion.COMMIT
                + (KenshoVersion.MODIFIED ? ", with uncommitted changes" : "") + ")", KenshoVersion.describe());

        java.io.StringWriter out = new java.io.StringWriter();
        int status = dev.kensho.generator.cli.KenshoCommand.execute(new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(new java.io.StringWriter(), true), "--version");
        assertEquals(0, status);
        assertEquals(KenshoVersion.describe() + "\n", out.toString());
    }

    @Test
    void theJsonReportNamesTheCommit() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TestSite.source("Home", "\nText.\n"));
        site.theme = null;
        assertEquals(0, site.check().status());
        var report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals(KenshoVersion.VALUE, report.get("kensho").asText());
        assertEquals(KenshoVersion.COMMIT, report.get("kenshoCommit").asText());
    }

    @Test
    void aBuildOutsideGitSaysUnknownCommitAndItsWorkflowSaysToPinOne() {
        assertEquals("Kensho 0.1.0-SNAPSHOT (unknown commit)", KenshoVersion.describe("0.1.0-SNAPSHOT", KenshoVersion.UNKNOWN_COMMIT, false));
        assertEquals("Kensho 0.1.0-SNAPSHOT (commit 0123456789abcdef0123456789abcdef01234567, with uncommitted changes)",
                KenshoVersion.describe("0.1.0-SNAPSHOT", "0123456789abcdef0123456789abcdef01234567", true));
        assertEquals("kensho-docs/kensho@main   # this Kensho was built outside git: replace main with a commit of kensho-docs/kensho to pin it",
                KenshoVersion.actionReference("0.1.0-SNAPSHOT", KenshoVersion.UNKNOWN_COMMIT));
        assertEquals("kensho-docs/kensho@0123456789abcdef0123456789abcdef01234567   # Kensho 0.1.0-SNAPSHOT, not released: the action builds this commit with Maven",
                KenshoVersion.actionReference("0.1.0-SNAPSHOT", "0123456789abcdef0123456789abcdef01234567"));
        // The release workflow sets the POMs to the tag's version: the workflow then pins the tag.
        assertEquals("kensho-docs/kensho@v0.1.0", KenshoVersion.actionReference("0.1.0", "0123456789abcdef0123456789abcdef01234567"));
    }

    @Test
    void theActionSaysWhatToDoWhenThePinnedReleaseCannotBeFetched() throws Exception {
        // Nothing answers on this port: the same as a release that was never published.
        ProcessBuilder builder = new ProcessBuilder("bash", Path.of("../bin/kensho-action").toAbsolutePath().toString())
                .directory(temp.toFile()).redirectErrorStream(true);
        builder.environment().putAll(java.util.Map.of("INPUT_VERSION", "0.1.0", "KENSHO_HOME", temp.resolve("releases").toString(),
                "KENSHO_REPOSITORY", "kensho-docs/kensho", "KENSHO_RELEASES_URL", "http://127.0.0.1:9"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, process.exitValue(), output);
        assertEquals("::error title=Kensho::cannot fetch http://127.0.0.1:9/v0.1.0/kensho.jar: release v0.1.0 of kensho-docs/kensho does not "
                + "exist or cannot be reached. Until it does, pin the action to a commit (uses: kensho-docs/kensho@COMMIT, which builds that "
                + "commit with Maven), or set version: source", output.lines().filter(l -> l.startsWith("::error")).findFirst().orElse(output));
        assertEquals(List.of(), List.of(temp.resolve("releases/0.1.0").toFile().list()), "no partial download is left");
    }

    private static String git(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        process.waitFor();
        return out;
    }
}
