package dev.kensho.generator.render.page;

import dev.kensho.generator.verify.CacheSecret;
import dev.kensho.generator.verify.SignedStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A page is untrusted: a code block past the highlighting limits (its size, its page's size, Prism's time) comes out as the
 * escaped text, in the markup of a block of an unknown language, and the build names it; a block within them is
 * highlighted exactly as before. A red team's 3.5 MB scenario step of {@code SELECT 1 LIMIT 0;/*x…*&#47;} lines kept a
 * build highlighting for more than 26 minutes.
 */
class HighlightLimitsTest {

    @TempDir
    Path temp;

    private SyntaxHighlighter.Limits before;
    private final List<String> warnings = new ArrayList<>();
    private SyntaxHighlighter.BuildBudget build = new SyntaxHighlighter.BuildBudget();

    @BeforeEach
    void forget() {
        SyntaxHighlighter.forgetMemo();
        before = SyntaxHighlighter.limit(SyntaxHighlighter.Limits.DEFAULT);
    }

    @AfterEach
    void restore() {
        SyntaxHighlighter.limit(before);
        SyntaxHighlighter.forgetMemo();
    }

    private SyntaxHighlighter.PageBudget page() {
        return new SyntaxHighlighter.PageBudget("content/x.md", warnings::add, build);
    }

    /** The red team's lines, {@code n} of them, with markup characters that must come out escaped. */
    private static String redTeam(int lines) {
        return ("SELECT 1 LIMIT 0;/*" + "x".repeat(44) + " <b>&</b> */\n").repeat(lines);
    }

    @Test
    void anOrdinaryBlockIsHighlightedAsBeforeAndNothingIsSaid() {
        String html = SyntaxHighlighter.highlight("SELECT 1 < 2; -- a <b>\n", "sql", null, page(), 12);
        assertEquals("<span class=\"token keyword\">SELECT</span> <span class=\"token number\">1</span> "
                + "<span class=\"token operator\">&lt;</span> <span class=\"token number\">2</span>"
                + "<span class=\"token punctuation\">;</span> <span class=\"token comment\">-- a &lt;b></span>\n", html);
        assertEquals(List.of(), warnings);
    }

    @Test
    void aBlockLargerThanTheLimitIsTheEscapedTextAndTheBuildNamesIt() {
        String code = redTeam(49_295);
        long start = System.nanoTime();
        String html = SyntaxHighlighter.highlight(code, "scenario", null, page(), 12);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), html);
        assertFalse(html.contains("<span"), "no Prism token spans");
        assertTrue(html.startsWith("SELECT 1 LIMIT 0;/*xxxx"), html.substring(0, 40));
        assertTrue(html.contains(" &lt;b&gt;&amp;&lt;/b&gt; */\nSELECT"));
        assertEquals(List.of("content/x.md:12: warning: code block not highlighted: larger than 50000 characters ("
                + code.length() + "); it is shown as plain text"), warnings);
        assertTrue(millis < 60_000, "took " + millis + " ms");
        // The same block on another page is not highlighted either, and is named there too.
        assertEquals(html, SyntaxHighlighter.highlight(code, "sql", null, page(), 40));
        assertEquals(2, warnings.size());
        assertTrue(warnings.get(1).startsWith("content/x.md:40: warning: code block not highlighted: larger than 50000 characters"));
    }

    @Test
    void blocksPastTheirPagesShareAreTheEscapedTextWhateverTheMemoHolds() {
        SyntaxHighlighter.limit(new SyntaxHighlighter.Limits(50_000, 60_000, 5_000, 30_000, 600_000));
        String first = redTeam(500);   // 32,000 characters
        String second = "SELECT 2 < 3;\n" + redTeam(499);
        // Already highlighted (by another page, say): the page's share is counted all the same.
        SyntaxHighlighter.highlight(second, "sql", null, SyntaxHighlighter.PageBudget.unnamed(), 0);
        SyntaxHighlighter.PageBudget page = page();
        assertTrue(SyntaxHighlighter.highlight(first, "sql", null, page, 3).startsWith("<span class=\"token keyword\">SELECT</span>"));
        assertEquals(SyntaxHighlighter.escape(second), SyntaxHighlighter.highlight(second, "sql", null, page, 700));
        assertEquals(List.of("content/x.md:700: warning: code block not highlighted: the page's code blocks are larger than 60000 "
                + "characters together; it is shown as plain text"), warnings);
    }

    @Test
    void prismIsStoppedAtTheDeadlineAndTheLockIsFreeAfterwards() throws Exception {
        String code = redTeam(200);
        String highlighted = SyntaxHighlighter.highlight(code, "sql", null, SyntaxHighlighter.PageBudget.unnamed(), 0);
        assertTrue(highlighted.startsWith("<span class=\"token keyword\">SELECT</span>"));
        SyntaxHighlighter.forgetMemo();
        // No time at all: Rhino's observer stops Prism at its first look (every 10,000 instructions).
        SyntaxHighlighter.limit(new SyntaxHighlighter.Limits(50_000, 500_000, 0, 30_000, 600_000));
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", null, page(), 7));
        assertEquals(List.of("content/x.md:7: warning: code block not highlighted: took longer than 0 ms; it is shown as plain text"),
                warnings);
        // Memoised with its reason: the block is not tried again in this process, and each page showing it says so.
        SyntaxHighlighter.limit(SyntaxHighlighter.Limits.DEFAULT);
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", null, page(), 9));
        assertEquals("content/x.md:9: warning: code block not highlighted: took longer than 0 ms; it is shown as plain text", warnings.get(1));
        // Another thread takes the highlighter at once (the lock was let go) and highlights as before.
        SyntaxHighlighter.forgetMemo();
        AtomicReference<String> other = new AtomicReference<>();
        Thread thread = new Thread(() -> other.set(SyntaxHighlighter.highlight(code, "sql", null, SyntaxHighlighter.PageBudget.unnamed(), 0)));
        thread.start();
        thread.join(60_000);
        assertEquals(highlighted, other.get());
    }

    @Test
    void aPagesTimeRunsOutAcrossItsBlocksWithoutMarkingTheBlockForOtherPages() {
        String code = redTeam(100);
        String highlighted = SyntaxHighlighter.highlight(code, "sql", null, SyntaxHighlighter.PageBudget.unnamed(), 0);
        SyntaxHighlighter.forgetMemo();
        SyntaxHighlighter.limit(new SyntaxHighlighter.Limits(50_000, 500_000, 5_000, 0, 600_000));
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", null, page(), 5));
        assertEquals(List.of("content/x.md:5: warning: code block not highlighted: the page's code blocks took longer than 0 ms "
                + "to highlight; it is shown as plain text"), warnings);
        SyntaxHighlighter.limit(SyntaxHighlighter.Limits.DEFAULT);
        assertEquals(highlighted, SyntaxHighlighter.highlight(code, "sql", null, page(), 5));
        assertEquals(1, warnings.size());
    }

    @Test
    void aBuildsTimeRunsOutAcrossItsPagesAndANewBuildHasItsOwn() {
        String code = redTeam(100);
        String highlighted = SyntaxHighlighter.highlight(code, "sql", null, SyntaxHighlighter.PageBudget.unnamed(), 0);
        SyntaxHighlighter.forgetMemo();
        // A build whose time is all but spent: the next block of any page stops at once.
        SyntaxHighlighter.limit(new SyntaxHighlighter.Limits(50_000, 500_000, 5_000, 30_000, 0));
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", null, page(), 3));
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", null, page(), 4));
        assertEquals(List.of("content/x.md:3: warning: code block not highlighted: the build's code blocks took longer than 0 ms "
                + "to highlight; it is shown as plain text", "content/x.md:4: warning: code block not highlighted: the build's code "
                + "blocks took longer than 0 ms to highlight; it is shown as plain text"), warnings);
        // Prism's time is counted for the build across its pages.
        SyntaxHighlighter.limit(SyntaxHighlighter.Limits.DEFAULT);
        build = new SyntaxHighlighter.BuildBudget();
        SyntaxHighlighter.PageBudget first = page();
        assertEquals(highlighted, SyntaxHighlighter.highlight(code, "sql", null, first, 5));
        SyntaxHighlighter.forgetMemo();
        SyntaxHighlighter.limit(new SyntaxHighlighter.Limits(50_000, 500_000, 5_000, 30_000, 1));
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", null, page(), 6));
        assertTrue(warnings.get(2).startsWith("content/x.md:6: warning: code block not highlighted: the build's code blocks took longer "
                + "than 1 ms"), warnings.toString());
    }

    @Test
    void anInterruptedBuildStopsPrismAndKeepsItsInterrupt() throws Exception {
        String code = redTeam(200);
        AtomicReference<String> html = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            Thread.currentThread().interrupt();
            html.set(SyntaxHighlighter.highlight(code, "sql", null, page(), 2));
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        thread.start();
        thread.join(60_000);
        assertEquals(SyntaxHighlighter.escape(code), html.get());
        assertTrue(stillInterrupted.get());
        assertEquals(List.of("content/x.md:2: warning: code block not highlighted: the build was interrupted; it is shown as plain text"),
                warnings);
        assertTrue(SyntaxHighlighter.highlight(code, "sql", null, page(), 2).startsWith("<span"), "not memoised");
    }

    @Test
    void aBlockNotHighlightedIsNeverKeptInTheHighlightCache() throws Exception {
        Path folder = temp.resolve("highlight");
        Files.createDirectories(folder);
        HighlightCache cache = new HighlightCache(new SignedStore(folder, new CacheSecret(Path.of("unused"), "this machine").key(),
                HighlightCache.SCHEME));
        SyntaxHighlighter.limit(new SyntaxHighlighter.Limits(50_000, 500_000, 0, 30_000, 600_000));
        String code = redTeam(200);
        assertEquals(SyntaxHighlighter.escape(code), SyntaxHighlighter.highlight(code, "sql", cache, page(), 1));
        assertEquals(SyntaxHighlighter.escape(redTeam(1000)), SyntaxHighlighter.highlight(redTeam(1000), "sql", cache, page(), 1));
        try (Stream<Path> files = Files.list(folder)) {
            assertEquals(List.of(), files.filter(Files::isRegularFile).toList());
        }
        assertEquals(2, warnings.size());
    }
}
