package dev.kensho.generator.content;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.render.theme.Theme;
import dev.kensho.sqlchecks.fuzz.FuzzInput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes a whole page file as the loader reads it: the '---' header, its YAML under the contributor
 * YAML bounds (YamlLimits), Starlight's front-matter keys (PageFrontMatter), then the body. Every
 * problem is a diagnostic at a line of the file; any exception fails.
 */
class PageFileFuzzTest {

    private static final Theme THEME;
    private static final Path CONTENT;
    private static final SiteConfig CONFIG;
    private static final ContentFiles FILES;

    static {
        try {
            THEME = Theme.builtIn();
            CONTENT = Files.createDirectories(Files.createTempDirectory(Files.createDirectories(Path.of("target", "fuzz-work")), "page-file-")
                    .resolve("content").toAbsolutePath());
            FILES = new ContentFiles(CONTENT);
            CONFIG = SiteConfig.load(FILES, "content/site.yml", new ArrayList<>());
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @FuzzTest
    void pageFile(byte[] input) throws Exception {
        Files.write(CONTENT.resolve("p.mdx"), input);
        FuzzInput.withinBound("a page file", input.length, () -> {
            List<Diagnostic> diagnostics = new ArrayList<>();
            ContentLoader loader = new ContentLoader(FILES, CONTENT.getParent(), CONFIG);
            for (Page page : loader.load(diagnostics)) {
                MarkdownDocument.parse(page, THEME, FILES, diagnostics);
            }
            int lines = FuzzInput.lineCount(FuzzInput.text(input));
            for (Diagnostic diagnostic : diagnostics) {
                assertEquals("content/p.mdx", diagnostic.file(), diagnostic.format());
                assertTrue(diagnostic.line() >= 1 && diagnostic.line() <= lines && diagnostic.column() >= 1,
                        "a diagnostic at a place in the file's " + lines + " lines: " + diagnostic.format());
            }
        });
    }
}
