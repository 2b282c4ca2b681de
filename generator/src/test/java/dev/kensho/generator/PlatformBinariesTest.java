package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** On a platform the jar carries no PostgreSQL for, the error names the platform and those it does carry. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class PlatformBinariesTest {

    @TempDir
    Path temp;

    @Test
    void anUnsupportedPlatformIsAClearErrorNamingWhatThisKenshoCarries() throws Exception {
        TestSite site = new TestSite(temp).page("index.md", TestSite.source("A", "\n```sql\nSELECT 1;\n```\n"));
        site.theme = null;
        String arch = System.getProperty("os.arch");
        String carried = (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("mac") ? "darwin-" : "linux-")
                + (arch.equals("aarch64") || arch.equals("arm64") ? "arm_64" : "x86_64");
        TestSite.Run run;
        try {
            // PostgresBinaries picks the archive by these properties at run time, as a riscv64 machine would report them.
            System.setProperty("os.arch", "riscv64");
            run = site.check("--no-cache");
        } finally {
            System.setProperty("os.arch", arch);
        }
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains("error: no embedded PostgreSQL binaries for this platform (" + System.getProperty("os.name")
                + ", riscv64) on the class path (this Kensho carries them for " + carried + "); "
                + "use --postgres container or --postgres jdbc:postgresql://host/db\n"), run::toString);
    }
}
