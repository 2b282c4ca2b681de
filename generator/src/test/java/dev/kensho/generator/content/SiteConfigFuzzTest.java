package dev.kensho.generator.content;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.generator.Diagnostic;
import dev.kensho.sqlchecks.fuzz.FuzzInput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes site.yml as a pull request may write it: YAML under the contributor bounds (YamlLimits), then
 * every setting (sidebar, locales, branding, extensions, urls). Every problem is a diagnostic at a line
 * of the file; any exception fails.
 */
class SiteConfigFuzzTest {

    private static final Path CONTENT;
    private static final ContentFiles FILES;

    static {
        try {
            CONTENT = Files.createDirectories(Files.createTempDirectory(Files.createDirectories(Path.of("target", "fuzz-work")), "site-yml-")
                    .resolve("content").toAbsolutePath());
            FILES = new ContentFiles(CONTENT);
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @FuzzTest
    void siteYml(byte[] input) throws Exception {
        Files.write(CONTENT.resolve(SiteConfig.FILE_NAME), input);
        FuzzInput.withinBound("a site.yml", input.length, () -> {
            List<Diagnostic> diagnostics = new ArrayList<>();
            SiteConfig.load(FILES, "content/site.yml", diagnostics);
            int lines = FuzzInput.lineCount(FuzzInput.text(input));
            for (Diagnostic diagnostic : diagnostics) {
                assertEquals("content/site.yml", diagnostic.file(), diagnostic.format());
                assertTrue(diagnostic.line() >= 1 && diagnostic.line() <= lines && diagnostic.column() >= 1,
                        "a diagnostic at a place in the file's " + lines + " lines: " + diagnostic.format());
            }
        });
    }
}
