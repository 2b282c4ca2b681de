package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A site's theme comes with the change being built, so what it publishes may not run script on the site (red team
 * helper-98): theme/assets/evil.html and a changed kensho.js were published, and a template could write any script.
 * Now a theme's assets that could run script are published only when they are Kensho's own byte for byte, its SVG only
 * sanitised, and what its own templates write passes the theme output gate; each refusal names the theme's file.
 */
class ThemeScriptsTest {

    @TempDir
    Path temp;

    private TestSite site() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nlang: en\n")
                .page("index.md", TestSite.source("Notes", "\n<Aside>Read me.</Aside>\n"));
        site.theme = null;
        Files.createDirectories(site.root.resolve("theme/assets"));
        Files.createDirectories(site.root.resolve("theme/components"));
        return site;
    }

    @Test
    void aThemeMayNotAddOrChangeScriptsAndItsSvgIsSanitised() throws Exception {
        TestSite site = site();
        Path assets = site.root.resolve("theme/assets");
        Files.writeString(assets.resolve("evil.html"), "<script>alert(document.domain)</script>");
        Files.writeString(assets.resolve("kensho.js"), "alert(1)");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        for (String name : new String[]{"evil.html", "kensho.js"}) {
            assertTrue(run.err().contains(assets.resolve(name) + ":1:1: error: not published: a theme's " + name + " would run script on "
                    + "every page of the site, and the theme is read from the change being built; a site's theme may restyle and "
                    + "reword Kensho's pages (templates, components, words, CSS, images, fonts), not add or change their scripts"),
                    run::toString);
        }
        assertFalse(Files.exists(site.out));

        // Kensho's own script, unchanged, is published as the built-in's; an SVG only as the diagram sanitiser passes it.
        Files.delete(assets.resolve("evil.html"));
        Files.write(assets.resolve("kensho.js"), Files.readAllBytes(TestSite.THEME.resolve("assets/kensho.js")));
        Files.writeString(assets.resolve("logo.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><script>alert(1)"
                + "</script><rect width=\"10\" height=\"10\"/></svg>");
        run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(assets.resolve("logo.svg") + ":1:1: error: not published: assets/logo.svg contains <script>, which "
                + "is not a drawing element Kensho publishes"), run::toString);
        Files.writeString(assets.resolve("logo.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><rect width=\"10\" "
                + "height=\"10\"/></svg>");
        run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertTrue(Files.readString(site.out.resolve("assets/logo.svg")).contains("<rect"));
        assertEquals(Files.readString(TestSite.THEME.resolve("assets/kensho.js")), Files.readString(site.out.resolve("assets/kensho.js")));
    }

    @Test
    void whatTheSitesOwnTemplatesWriteMayNotRunScript() throws Exception {
        TestSite site = site();
        Path aside = site.root.resolve("theme/components/Aside.ftlh");
        String[][] cases = {
                {"<aside><script>alert(1)</script>${content?no_esc}</aside>", "an inline <script>"},
                {"<aside><script src=\"https://evil.example/x.js\"></script></aside>", "<script src=\"https://evil.example/x.js\">, a script from outside the site"},
                {"<aside onmouseover=\"alert(1)\">${content?no_esc}</aside>", "<aside onmouseover>, an event handler"},
                {"<aside><a href=\"java&#9;script:alert(1)\">x</a></aside>", "<a href=\"javascript:…\">, a URL that runs script"},
                {"<aside><svg><set attributeName=\"href\" to=\"javascript:alert(1)\"/></svg></aside>", "<set to=\"javascript:…\">, a URL that runs script"},
                {"<aside><iframe srcdoc=\"&lt;script&gt;alert(1)&lt;/script&gt;\"></iframe></aside>", "<iframe>"},
                // Red team helper-99: jsoup reads <noscript> as markup, a browser with scripting on as text to the first
                // "</noscript", which here is inside an attribute.
                {"<aside><noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></p></noscript>${content?no_esc}</aside>",
                        "a <noscript> a browser would end elsewhere than the markup reads (\"</noscript\" inside an attribute, a comment or text)"},
                {"<aside><noscript><style></noscript><img src=x onerror=alert(1)></style></noscript></aside>",
                        "a <noscript> a browser would end elsewhere than the markup reads (\"</noscript\" inside an attribute, a comment or text)"},
        };
        for (String[] c : cases) {
            Files.writeString(aside, c[0]);
            TestSite.Run run = site.build();
            assertEquals(1, run.status(), run::toString);
            assertTrue(run.err().contains(aside + ":1:1: error: template: the page it wrote has " + c[1] + "; a site's theme is read from "
                    + "the change being built, so what it writes may not run script on the published site (scripts load from the "
                    + "site's own assets, which are Kensho's)"), () -> c[0] + "\n" + run);
            assertFalse(Files.exists(site.out));
        }
        // A theme's own markup that runs nothing is published.
        Files.writeString(aside, "<aside class=\"note\"><strong>Note</strong> ${content?no_esc}</aside>");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        assertEquals("Note Read me.", Jsoup.parse(site.out.resolve("index.html").toFile()).selectFirst("aside.note").text());
    }
}
