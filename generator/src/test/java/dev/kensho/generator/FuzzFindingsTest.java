package dev.kensho.generator;

import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.ContentLoader;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.render.Theme;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What the parser fuzz targets found (see the *FuzzTest classes), each as the page that showed it and
 * the diagnostic, at its file and line, that such a page now gets instead of a crash.
 */
class FuzzFindingsTest {

    @TempDir
    Path temp;

    /** The page read as a build reads it, up to the end of parsing (no server is started). */
    private List<String> diagnostics(String page) throws Exception {
        Path content = Files.createDirectories(temp.resolve("content"));
        Files.writeString(content.resolve("p.md"), page);
        ContentFiles files = new ContentFiles(content);
        List<Diagnostic> found = new ArrayList<>();
        SiteConfig config = SiteConfig.load(files, "content/site.yml", found);
        for (Page loaded : new ContentLoader(files, temp, config).load(found)) {
            MarkdownDocument.parse(loaded, Theme.builtIn(), files, found);
        }
        return found.stream().map(d -> d.location() + ": " + d.message()).toList();
    }

    @Test
    void aRowsFooterBeyondAnIntDisagreesWithTheRowsInsteadOfCrashing() throws Exception {
        // Found as ExpectedRowsFuzzTestInputs/rows/huge-footer.txt: Integer.parseInt threw NumberFormatException.
        assertEquals(List.of("content/p.md:9:1: expected rows: the footer says (99999999999 rows) but the table has 1"), diagnostics("""
                ---
                title: T
                ---

                ```sql
                SELECT 1;
                ```

                ```rows
                 ?column?
                ----------
                        1
                (99999999999 rows)
                ```
                """));
    }
}
