package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Red team helper-98: a pull request committed {@code target/kensho-report.json}, the JUnit file and the site's lock as
 * symbolic links (to stand-ins for /etc/passwd and /etc/nologin), and a root build overwrote and made them. A link in
 * the project folder is now refused before anything is written, at its option, and the file it points to is untouched.
 */
class OutputLinksTest {

    @TempDir
    Path temp;

    private TestSite site() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: en\n").page("index.md", TestSite.source("Links", "\nText.\n"));
        site.theme = null;
        return site;
    }

    @Test
    void aLinkedReportFileIsRefusedAndItsTargetKept() throws Exception {
        TestSite site = site();
        Path victim = Files.writeString(temp.resolve("passwd"), "ORIGINAL SECRET FILE");
        Files.createDirectories(site.report.getParent());
        Files.createSymbolicLink(site.report, victim);
        TestSite.Run run = site.build();
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().contains("--report " + site.report + ": out/report.json is a symbolic link (to " + victim + "); Kensho "
                + "does not write through links in the folder it builds, so that a link committed there cannot send its output "
                + "elsewhere. Remove the link, or name a path outside this folder"), run::toString);
        assertEquals("ORIGINAL SECRET FILE", Files.readString(victim));
        assertFalse(Files.exists(site.out), "nothing is written");
    }

    @Test
    void aLinkedOutputFolderOrLockIsRefused() throws Exception {
        TestSite site = site();
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        Files.createSymbolicLink(temp.resolve("out"), elsewhere);
        TestSite.Run run = site.build();
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().contains("--report " + site.report + ": out is a symbolic link (to " + elsewhere + ")"), run::toString);
        try (var listed = Files.list(elsewhere)) {
            assertEquals(0, listed.count(), "nothing written through the link");
        }

        Files.delete(temp.resolve("out"));
        Files.createDirectories(temp.resolve("out"));
        Path nologin = temp.resolve("nologin");
        Files.createSymbolicLink(temp.resolve("out/.site.lock"), nologin);
        run = site.build();
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().contains(": out/.site.lock is a symbolic link (to " + nologin + ")"), run::toString);
        assertFalse(Files.exists(nologin), "the lock's link made no file");

        Files.delete(temp.resolve("out/.site.lock"));
        Path junitVictim = temp.resolve("junit-created");
        Files.createDirectories(temp.resolve("junit"));
        Files.createSymbolicLink(temp.resolve("junit/TEST-kensho.xml"), junitVictim);
        run = site.build("--junit-xml", temp.resolve("junit").toString());
        assertEquals(2, run.status(), run::toString);
        assertTrue(run.err().contains(": junit/TEST-kensho.xml is a symbolic link (to " + junitVictim + ")"), run::toString);
        assertFalse(Files.exists(junitVictim));

        // Without the links the same site builds.
        Files.delete(temp.resolve("junit/TEST-kensho.xml"));
        run = site.build("--junit-xml", temp.resolve("junit").toString());
        assertEquals(0, run.status(), run::toString);
        assertTrue(Files.exists(temp.resolve("junit/TEST-kensho.xml")));
    }
}
