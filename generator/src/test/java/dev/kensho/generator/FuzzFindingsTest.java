package dev.kensho.generator;

import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.ContentLoader;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.render.theme.Theme;
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

    @Test
    void aNinthSessionIsRefusedAtItsOwnLine() throws Exception {
        // Found by reading what ScenarioFuzzTest exercises: every session was compared with every other before the
        // bound of eight was checked, so a block of 32,000 sessions cost a billion comparisons (102 s) first.
        StringBuilder scenario = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            scenario.append("session s").append(i).append('\n');
        }
        assertEquals(List.of("content/p.md:14:1: scenario: a scenario may have at most 8 sessions (each is a connection, "
                + "and connections are shared by all pages verified at once)"), diagnostics("---\ntitle: T\n---\n\n```scenario\n" + scenario + "```\n"));
    }

    @Test
    void aLongScenarioNamesTheLineOfItsProblem() throws Exception {
        // The line of each keyword was counted from the block's start, the square of the block's length over
        // all its lines (576 KB of permutation lines: 47 s); it is now counted on from the line before.
        StringBuilder scenario = new StringBuilder("session a\nstep a1 { SELECT 1; }\nsession b\nstep b1 { SELECT 2; }\n");
        for (int i = 0; i < 20_000; i++) {
            scenario.append("permutation a1 b1\n");
        }
        scenario.append("permutation a1 b2\n");
        assertEquals(List.of("content/p.md:20010:1: scenario: the permutation names step 'b2', which no session declares"),
                diagnostics("---\ntitle: T\n---\n\n```scenario\n" + scenario + "```\n"));
    }

    @Test
    void aPageOfUnclosedTagsIsReadInOnePassPerTag() throws Exception {
        // Each line of '<Aside title="…' began a tag over several lines, and the joined text was scanned again for
        // every line added to it: the square of fifty lines, for every line of the page. A tag's text is now read once.
        StringBuilder page = new StringBuilder("---\ntitle: T\n---\n");
        for (int i = 0; i < 20_000; i++) {
            page.append("<Aside title=\"").append("x".repeat(60)).append('\n');
        }
        page.append("<Aside title=\"closed\">\n\ntext\n\n</Aside>\n<Nope />\n");
        assertEquals(List.of("content/p.md:20009:1: unknown component <Nope> (did you mean 'Code'?); the theme has " + themeComponents()
                + " (add theme/components/Nope.ftlh to define it)", "content/p.md:4:1: raw HTML <aside " + "x".repeat(60)
                + "> is not allowed"), diagnostics(page.toString()));
    }

    private static String themeComponents() throws Exception {
        return String.join(", ", Theme.builtIn().names());
    }

    @Test
    void aFileNameWithANulIsRefusedAtTheLineThatNamesIt() throws Exception {
        // Found by MarkdownFuzzTest (MarkdownFuzzTestInputs/page/nul-in-raw-import.mdx): resolving the name threw
        // InvalidPathException out of the build. Every file a contributor names is now resolved by ContentFiles.resolve.
        assertEquals(List.of("content/p.md:4:1: import './a\u0000b.js?raw': it is not a file name (Nul character not allowed)",
                "content/p.md:6:1: cannot use diagram src=\"d\u0000.svg\": it is not a file name (Nul character not allowed)"),
                diagnostics("---\ntitle: T\n---\nimport code from './a\u0000b.js?raw';\n\n<Diagram src=\"d\u0000.svg\" alt=\"x\" />\n"));
        Path content = temp.resolve("content");
        Files.writeString(content.resolve("site.yml"), "title: T\nlogo:\n  src: \"l\\0.svg\"\n");
        List<Diagnostic> found = new ArrayList<>();
        SiteConfig.load(new ContentFiles(content), "content/site.yml", found);
        assertEquals(List.of("content/site.yml:3:1: site settings: logo: 'l\u0000.svg' cannot be used: it is not a file name "
                + "(Nul character not allowed)"), found.stream().map(d -> d.location() + ": " + d.message()).toList());
    }

    @Test
    void aFrontMatterKeyWithoutAValueIsAKeyNotACrash() throws Exception {
        // Found by PageFileFuzzTest (PageFileFuzzTestInputs/pageFile/key-without-value.mdx): 'head:' with nothing after
        // it made Map.copyOf throw NullPointerException out of the loader.
        assertEquals(List.of(), diagnostics("---\ntitle: T\nhead:\n---\n\ntext\n"));
        assertEquals(List.of("content/p.md:3:1: front matter: unknown key 'descripton'" + UNKNOWN_KEY_TAIL),
                diagnostics("---\ntitle: T\ndescripton:\n---\n\ntext\n"));
    }

    private static final String UNKNOWN_KEY_TAIL = " (did you mean 'description'?); pages take title, description, sidebar, slug, "
            + "editUrl, head, tableOfContents, template, hero, banner, lastUpdated, prev, next, pagefind, draft, reviewed (a theme "
            + "template reading page.meta.descripton makes it known)";

    @Test
    void anEmptyScenarioFenceOnThePagesLastLineIsReportedAtThatLine() throws Exception {
        // Found by MarkdownFuzzTest (MarkdownFuzzTestInputs/page/empty-fence-at-the-end.md): the diagnostic named the
        // line after the fence, which the page does not have.
        assertEquals(List.of("content/p.md:5:1: scenario: a scenario needs at least two sessions"),
                diagnostics("---\ntitle: T\n---\n\n```scenario"));
    }
}
