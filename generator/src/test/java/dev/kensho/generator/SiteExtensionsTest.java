package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** site.yml's extensions: Kensho creates them; a page creates none itself. */
class SiteExtensionsTest {

    @TempDir
    Path temp;

    @Test
    void anExtensionTheSiteAllowsIsThereAndOneItDoesNotIsRefusedAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nlang: en\nextensions: [pg_trgm]\n")
                .page("a.md", TestSite.source("A", """

                        ```sql
                        CREATE EXTENSION IF NOT EXISTS pg_trgm;
                        SELECT similarity('kensho', 'kenshou') > 0.5 AS close;
                        ```

                        ```rows
                         close
                        -------
                         t
                        ```

                        ```sql
                        CREATE EXTENSION hstore;
                        ```
                        """));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("a.md") + ":17:1: error: Kensho: pages may not create or alter extensions (here "
                + "hstore); the site's allowed extensions (pg_trgm) are created by Kensho itself, so CREATE EXTENSION IF NOT EXISTS "
                + "finds them"), run::toString);
        assertTrue(run.err().contains("1 passed, 1 failed") || run.out().contains("1 passed, 1 failed"), run::toString);
    }

    @Test
    void anExtensionNameThatIsNotOneIsAnErrorInSiteYml() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nextensions: [\"pg_trgm; DROP\"]\n")
                .page("a.md", TestSite.source("A", "\nText.\n"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":2:1: error: site settings: extensions: 'pg_trgm; DROP' is not an "
                + "extension name (lower-case letters, digits and _, such as pg_trgm)"), run::toString);
    }
}
