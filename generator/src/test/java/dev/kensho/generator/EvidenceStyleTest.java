package dev.kensho.generator;

import dev.kensho.generator.markdown.StyleSheetPolicy;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Contributor CSS (site.yml's customCss, a page's head &lt;style&gt;) cannot draw, hide or reword the theme's evidence:
 * the four rules that drew "✓ Verified on PostgreSQL 18.6" over an {@code sql ignore} fence and turned a verdict into
 * "Same as the verified result." are refused at their file and line, and so is every way round them.
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class EvidenceStyleTest {

    private static final String THEIRS = "' is the theme's class (evidence, checked code, verdicts, run controls, exercises): "
            + "custom CSS may not style it";
    private static final String CONTENT = "'content' is not allowed in custom CSS: generated text could draw a mark or a verdict "
            + "the build never gave";
    private static final String ATTRIBUTE = "' is not allowed in custom CSS (only :root[data-theme=…]); give the element a class of its own";
    private static final String REACH = "' could reach the theme's evidence: end each selector in a class of the site's own "
            + "(such as .note), a child of one (.note > p), or :root (for custom properties)";

    /** The four attack rules, one a line. */
    private static final List<String> ATTACKS = List.of(
            ".not-verified-label { display: none; }",
            ".code-block.not-verified::after { content: \"✓ Verified on PostgreSQL 18.6\"; color: #1a7f37; }",
            ".run-verdict[data-kensho-verdict=\"different\"] { font-size: 0; }",
            ".exercise .run-verdict::after { content: \"正解\"; font-size: 1rem; }");

    @TempDir
    Path temp;

    private TestSite site(String settings) throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", settings).page("index.md", TestSite.source("Home", "\nText.\n"));
        site.theme = null;
        return site;
    }

    @Test
    void theFourAttackRulesInCustomCssAreRefusedAtTheirLineAndColumn() throws Exception {
        TestSite site = site("title: T\ncustomCss: [brand/forge.css]\n").page("brand/forge.css", String.join("\n", ATTACKS) + "\n");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        String css = site.display("brand/forge.css") + ":";
        List<String> expected = List.of(
                css + "1:1: error: '.not-verified-label" + THEIRS,
                css + "2:1: error: '.code-block" + THEIRS,
                css + "2:12: error: '.not-verified" + THEIRS,
                css + "2:25: error: '::after' is not allowed in custom CSS (it draws only with 'content', which custom CSS may not use)",
                css + "2:35: error: " + CONTENT,
                css + "3:1: error: '.run-verdict" + THEIRS,
                css + "3:13: error: attribute selector '[data-kensho-verdict]" + ATTRIBUTE,
                css + "4:1: error: '.exercise" + THEIRS,
                css + "4:11: error: '.run-verdict" + THEIRS,
                css + "4:23: error: '::after' is not allowed in custom CSS (it draws only with 'content', which custom CSS may not use)",
                css + "4:33: error: " + CONTENT);
        for (String line : expected) {
            assertTrue(run.err().contains(line), () -> line + "\n" + run);
        }
        assertEquals(expected.size(), run.err().lines().filter(line -> line.contains(": error: ")).count(), run::toString);
        assertFalse(Files.exists(site.out), "a refused build publishes nothing");
    }

    @Test
    void theFourAttackRulesInAPageHeadStyleAreRefusedAtTheHeadKey() throws Exception {
        TestSite site = site("title: T\n");
        for (int i = 0; i < ATTACKS.size(); i++) {
            site.page("forge" + i + ".md", "---\ntitle: Forge\nhead:\n  - tag: style\n    content: |\n      .note { color: teal; }\n      "
                    + ATTACKS.get(i) + "\n---\n\n```sql ignore\nSELECT 1;\n```\n");
        }
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        List<String> first = List.of("'.not-verified-label" + THEIRS, "'.code-block" + THEIRS, "'.run-verdict" + THEIRS,
                "'.exercise" + THEIRS);
        for (int i = 0; i < ATTACKS.size(); i++) {
            String line = site.display("forge" + i + ".md") + ":3:1: error: front matter: head: <style>: " + first.get(i)
                    + " (line 2 of its content)";
            assertTrue(run.err().contains(line), () -> line + "\n" + run);
        }
        assertEquals(4, run.err().lines().filter(line -> line.contains(": error: ")).count(), run::toString);
    }

    /** Every way round the four: indirect selectors, escapes, comments, case, covering, inheriting, at-rules, parser gaps. */
    @Test
    void waysRoundTheClassCheckAreRefusedToo() {
        assertRefused("[class*=verif] { display: none }", "1:1: attribute selector '[class]" + ATTRIBUTE);
        assertRefused(".note:has(.x) { color: red }", "1:6: ':has()' is not allowed in custom CSS: it selects through other elements, "
                + "the theme's included; give the element a class of its own");
        assertRefused(".note:HAS(.x) { color: red }", "1:6: ':has()' is not allowed in custom CSS: it selects through other elements, "
                + "the theme's included; give the element a class of its own");
        assertRefused(":is(.note) { color: red }", "1:1: ':is()' is not allowed in custom CSS: it selects through other elements, "
                + "the theme's included; give the element a class of its own");
        assertRefused(":where(.note) { color: red }", "1:1: ':where()' is not allowed in custom CSS: it selects through other "
                + "elements, the theme's included; give the element a class of its own");
        assertRefused(".note:not(.x) { color: red }", "1:6: ':not()' is not allowed in custom CSS: it selects through other "
                + "elements, the theme's included; give the element a class of its own");
        assertRefused("* { color: transparent }", "1:1: selector '*" + REACH);
        assertRefused("body > * { color: transparent }", "1:1: selector 'body > *" + REACH);
        assertRefused("main div { color: transparent }", "1:1: selector 'main div" + REACH);
        assertRefused(".note p { color: transparent }", "1:1: selector '.note p" + REACH);
        assertRefused(".note > figure { visibility: hidden }", "1:1: selector '.note > figure" + REACH);
        assertRefused(".evid\\65 nce { color: red }", "1:1: '.evidence" + THEIRS);
        assertRefused(".not\\-verified-label { color: red }", "1:1: '.not-verified-label" + THEIRS);
        assertRefused(".code-block/* a comment */.note { color: red }", "1:1: '.code-block" + THEIRS);
        assertRefused(".NOT-VERIFIED-LABEL { color: red }", "1:1: '.NOT-VERIFIED-LABEL" + THEIRS);
        assertRefused(".keyword { color: transparent }", "1:1: '.keyword" + THEIRS);
        assertRefused(".line:nth-child(3) { display: none }", "1:1: '.line" + THEIRS);
        assertRefused(".note { CONTENT: \"✓\" }", "1:9: " + CONTENT);
        assertRefused(".note { color: red !important }", "1:9: '!important' is not allowed in custom CSS: the theme's evidence "
                + "keeps its own style (a more specific selector of the site's own wins without it)");
        for (String property : List.of("position: absolute", "outline: 9999px solid white", "opacity: 0", "visibility: hidden",
                "transform: scale(0)", "clip-path: inset(50%)", "overflow: hidden", "z-index: 9", "height: 1rem", "max-width: 1px",
                "min-width: 0", "grid-template-rows: 1rem", "float: left", "white-space: nowrap", "letter-spacing: -1em")) {
            String name = property.substring(0, property.indexOf(':'));
            assertRefused(".note { " + property + " }", "1:9: '" + name + "' is not allowed in custom CSS: it could hide, cover, move "
                    + "or squeeze what the build checked (allowed: colours, backgrounds, borders, fonts, spacing and flex layout)");
        }
        assertRefused(".note { display: grid }", "1:9: 'display: grid' is not allowed in custom CSS (allowed: block, flex, flow-root, "
                + "inline, list-item, none)");
        assertRefused(".note { margin-top: -3em }", "1:9: margin '-3em' is not allowed in custom CSS: only plain lengths that "
                + "are not negative, since a negative margin pulls an element over its neighbours");
        assertRefused(".note { text-decoration: line-through }", "1:9: 'text-decoration: line-through' is not allowed in custom "
                + "CSS: a decoration is drawn over the text of everything inside the element, the theme's evidence included "
                + "(allowed: none, underline and a style)");
        // Red team: an overline as thick as a line, in the background's colour, covered the checked code under its mark.
        assertRefused(".note { text-decoration: overline }", "1:9: 'text-decoration: overline' is not allowed in custom CSS: a "
                + "decoration is drawn over the text of everything inside the element, the theme's evidence included (allowed: "
                + "none, underline and a style)");
        for (String property : List.of("text-decoration-thickness: 46px", "text-decoration-color: #f6f8fa", "text-underline-offset: -1em",
                "order: -1")) {
            String name = property.substring(0, property.indexOf(':'));
            assertRefused(".note { " + property + " }", "1:9: '" + name + "' is not allowed in custom CSS: it could hide, cover, move "
                    + "or squeeze what the build checked (allowed: colours, backgrounds, borders, fonts, spacing and flex layout)");
        }
        assertRefused(".note { flex-direction: column-reverse }", "1:9: 'flex-direction: column-reverse' is not allowed in custom "
                + "CSS: a reversed flex line shows a snippet's evidence apart from the SQL it belongs to");
        // Red team: the page's frame (its content column, the verification note, the header's height) is the theme's too.
        assertRefused(".page-content { display: flex }", "1:1: '.page-content" + THEIRS);
        assertRefused(".verification-note { display: none }", "1:1: '.verification-note" + THEIRS);
        assertRefused(":root { --header-h: 14.6rem }", "1:9: '--header-h' is the theme's: it colours the evidence and the code it "
                + "checked; custom CSS may set --accent, --sidebar-bg and properties of its own");
        assertRefused(":root { --muted: #ffffff }", "1:9: '--muted' is the theme's: it colours the evidence and the code it "
                + "checked; custom CSS may set --accent, --sidebar-bg and properties of its own");
        assertRefused(":root { visibility: hidden }", "1:9: :root takes only custom properties in custom CSS (such as --accent): "
                + "'visibility' would be inherited by every element, the theme's evidence included");
        assertRefused("@layer x { .note { color: red } }", "1:1: '@layer' is not allowed in custom CSS (allowed at-rules: @media, @font-face)");
        assertRefused("@\\6c ayer x;", "1:1: '@layer' is not allowed in custom CSS (allowed at-rules: @media, @font-face)");
        assertRefused(".note { & .evidence { display: none } }", "1:9: custom CSS must be plain CSS that Kensho can check: "
                + "unexpected '&' (nesting, @layer, @supports and rules a browser would have to recover from are refused)");
        assertRefused("@media print { .mark { display: none } }", "1:16: '.mark" + THEIRS);
        assertRefused(".note { --accent: #ffffff }", "1:9: '--accent' may be set on :root only: on an element it would reach the "
                + "theme's evidence and run controls inside it");
        assertRefused("@font-face { font-family: \"Menlo\"; src: url(glyphs.woff2) }", "1:14: @font-face may not redefine 'menlo': "
                + "the theme draws its evidence and code in it; give the site's font a name of its own");
        assertRefused(".note { list-style-type: \"✓ \" }", "1:9: 'list-style-type: \"✓ \"' is not allowed in custom CSS: a marker "
                + "may be a keyword (disc, decimal, …), not text or a picture");
    }

    @Test
    void brandingCssStaysAllowed() throws Exception {
        assertEquals(List.of(), StyleSheetPolicy.problems("""
                :root { --accent: #2f6f4f; --sidebar-bg: #f0f4f2; --brand: #123456; }
                :root[data-theme="dark"] { --accent: #8fd1ad; }
                @font-face { font-family: Brand; src: url(fonts/brand.woff2); font-display: swap; }
                .site-title { font-family: Brand, sans-serif; }
                .note { border-left: 4px solid var(--accent); padding: .5rem 1rem; margin: 1rem 0 0; background: var(--brand); color: white; }
                .note > p { margin: 0; }
                .steps-of-mine { list-style-type: upper-roman; list-style-position: inside; }
                .cards { display: flex; flex-wrap: wrap; gap: 1rem; justify-content: space-between; }
                .cards > p { flex: 1 1 14rem; }
                .cards:hover, .note > a:focus-visible { color: var(--accent); text-decoration: underline; }
                @media (max-width: 40rem) { .cards { flex-direction: column; } }
                """));
        for (Path shipped : List.of(Path.of("src/main/resources/kensho-starter/common/custom.css"),
                Path.of("../bench/job-queue/content/custom.css"))) {
            assertEquals(List.of(), StyleSheetPolicy.problems(Files.readString(shipped)), shipped::toString);
        }
        // The theme sets again on the evidence what a contributor's element around it could pass down.
        String theme = Files.readString(Path.of("../site/assets/kensho.css"));
        assertTrue(theme.contains(".code-block, .scenario, .hidden-snippet, .exercise, .predict {\n"
                + "  position: relative; background-color: var(--bg) !important; min-height: max-content !important; min-width: 12rem !important;\n"
                + "  color: var(--fg) !important; font-family: var(--font-body) !important; font-size: 1rem !important;"), theme);
        // A class of the site's own is still the site's to use in markup; the theme's code token names are not.
        TestSite site = site("title: T\ncustomCss: [brand.css]\n").page("brand.css", ".note { color: teal; }\n")
                .page("a.md", "---\ntitle: A\n---\n\n<div class=\"note\">\n\n```sql ignore\nSELECT 1;\n```\n\n</div>\n");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document page = Jsoup.parse(site.out.resolve("a/index.html").toFile());
        assertEquals("../brand.css", page.select("link[rel=stylesheet]").eachAttr("href").get(1));
        assertEquals(1, page.select("div.note figure.code-block.not-verified p.not-verified-label").size(), page::html);
    }

    private static void assertRefused(String css, String expected) {
        List<String> found = StyleSheetPolicy.problems(css).stream().map(p -> p.line() + ":" + p.column() + ": " + p.message()).toList();
        assertTrue(!found.isEmpty() && found.get(0).equals(expected), () -> css + "\n expected: " + expected + "\n found: " + found);
    }
}
