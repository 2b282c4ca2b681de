package dev.kensho.generator.markdown;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.FrontMatter;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.render.theme.Theme;
import dev.kensho.sqlchecks.fuzz.FuzzInput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the reading of a page body: MDX components and their attribute values, import/export lines,
 * Markdown, fence info strings and directives, ```scenario and ```rows fences, as the built-in theme's
 * component catalogue checks them. A page, however hostile, is answered with diagnostics, each at a
 * line of the page; any exception, or a diagnostic pointing elsewhere, fails.
 */
class MarkdownFuzzTest {

    private static final Theme THEME;
    private static final ContentFiles FILES;
    private static final Path SOURCE;

    static {
        try {
            THEME = Theme.builtIn();
            Path content = Files.createDirectories(Files.createTempDirectory(Files.createDirectories(Path.of("target", "fuzz-work")), "markdown-")
                    .resolve("content").toAbsolutePath());
            // A diagram a page may name (<Diagram src="./d.svg" alt="…" />), so that the diagram path is reached too.
            Files.writeString(content.resolve("d.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"1\" height=\"1\"/></svg>");
            FILES = new ContentFiles(content);
            SOURCE = content.resolve("p.mdx");
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @FuzzTest
    void page(byte[] input) throws Exception {
        String body = FuzzInput.text(input);
        FrontMatter front = new FrontMatter("Fuzz", "", null, null, null, false, Map.of(), Map.of(), List.of());
        Page page = new Page(SOURCE, "content/p.mdx", "p.mdx", front, body, "p/index.html", "root", "p.mdx", false);
        FuzzInput.withinBound("a page body", input.length, () -> {
            List<Diagnostic> diagnostics = new ArrayList<>();
            MarkdownDocument.parse(page, THEME, FILES, diagnostics);
            int lines = FuzzInput.lineCount(body);
            for (Diagnostic diagnostic : diagnostics) {
                assertEquals("content/p.mdx", diagnostic.file(), diagnostic.format());
                assertTrue(diagnostic.line() >= 1 && diagnostic.line() <= lines && diagnostic.column() >= 1,
                        "a diagnostic at a place in the page's " + lines + " lines: " + diagnostic.format());
            }
        });
    }
}
