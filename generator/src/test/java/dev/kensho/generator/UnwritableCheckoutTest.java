package dev.kensho.generator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * issue 35: Kensho's image on a checkout owned by another user checked every example, then ended with a bare
 * "error: /work/target". The same failure without Docker: a checkout folder Kensho may not write (read-only, and
 * immutable where the tests run as root, whom permissions do not stop).
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class UnwritableCheckoutTest {

    private static final String WHAT_TO_DO = ". Kensho writes only its report, JUnit XML and site (--report, --junit-xml, --out; by default below "
            + "target/). Run it as the owner of the checkout (with Docker: docker run --user \"$(id -u):$(id -g)\" …), or point those options at "
            + "a folder it may write, such as --report /tmp/kensho/report.json\n";

    @TempDir
    Path temp;

    private Path locked;

    @AfterEach
    void unlock() throws Exception {
        if (locked != null) {
            lock(locked, false);
        }
    }

    @Test
    void aCheckThatCannotWriteItsReportListsEveryProblemAndSaysWhatToDo() throws Exception {
        TestSite site = new TestSite(temp.resolve("checkout"))
                .page("index.md", TestSite.source("Home", "\n```sql\nSELECT * FROM missing_table;\n```\n"));
        site.theme = null;
        lock(site.root, true);
        TestSite.Run run = site.check("--no-cache");
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("index.md") + ":6:15: error: relation \"missing_table\" does not exist"), run::toString);
        String reason = "(operation not permitted|permission denied)";
        assertTrue(run.err().matches("(?s).*\nerror: cannot write the JSON report " + quote(site.report) + ": " + quote(site.report.getParent())
                + ": " + reason + " \\(" + quote(site.root) + " is the build user's, but may not be written\\)" + quote(WHAT_TO_DO)), run::toString);
    }

    @Test
    void aBuildThatCannotWriteItsSiteSaysWhatToDo() throws Exception {
        TestSite site = new TestSite(temp.resolve("checkout")).page("index.md", TestSite.source("Home", "\n```sql\nSELECT 1;\n```\n"));
        site.theme = null;
        lock(site.root, true);
        TestSite.Run run = site.build("--no-cache");
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().matches("error: cannot write the site " + quote(site.out) + ": " + quote(site.out.getParent())
                + ": (operation not permitted|permission denied) \\(" + quote(site.root) + " is the build user's, but may not be written\\)"
                + quote(WHAT_TO_DO)), run::toString);
    }

    private static String quote(Object text) {
        return java.util.regex.Pattern.quote(text.toString());
    }

    /** Read-only for its owner; and immutable when the tests run as root, whom permissions do not stop. */
    private void lock(Path folder, boolean on) throws Exception {
        if (on) {
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        if ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0) {
            Process chattr = new ProcessBuilder("chattr", on ? "+i" : "-i", folder.toString()).redirectErrorStream(true).start();
            String output = new String(chattr.getInputStream().readAllBytes());
            assertEquals(0, chattr.waitFor(), "as root, this test needs chattr +i to make a folder Kensho may not write: " + output);
        }
        if (!on) {
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        locked = on ? folder : null;
    }
}
