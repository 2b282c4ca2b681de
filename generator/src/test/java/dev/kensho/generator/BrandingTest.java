package dev.kensho.generator;

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

/** site.yml's logo, favicon, customCss and social links (Starlight's names), and its mistakes. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class BrandingTest {

    @TempDir
    Path temp;

    private TestSite site(String settings) throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", settings).page("index.md", TestSite.source("Home", "\nText.\n"))
                .page("brand/light.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").page("brand/dark.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>")
                .page("brand/icon.png", "png").page("brand/team.css", ".x { background: url(../brand/light.svg); }\n");
        site.theme = null;
        return site;
    }

    @Test
    void logoFaviconCustomCssAndSocialLinksNeedNoThemeFolder() throws Exception {
        TestSite site = site("""
                title: Team notes
                lang: en
                logo:
                  light: ./brand/light.svg
                  dark: brand/dark.svg
                  replacesTitle: true
                favicon: brand/icon.png
                customCss: [brand/team.css]
                social:
                  - {icon: github, label: GitHub, href: "https://github.com/o/r"}
                """);
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document home = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals(List.of("brand/light.svg", "brand/dark.svg"), home.select("a.site-title img").eachAttr("src"));
        assertEquals(List.of("Team notes", "Team notes"), home.select("a.site-title img").eachAttr("alt"));
        assertEquals("", home.selectFirst("a.site-title").ownText(), "replacesTitle: the title is the logo's alt text only");
        assertEquals("brand/icon.png", home.selectFirst("link[rel=icon]").attr("href"));
        List<String> sheets = home.select("link[rel=stylesheet]").eachAttr("href");
        assertTrue(sheets.get(0).matches("assets/kensho\\.[0-9a-f]{10}\\.css"), sheets::toString);
        assertEquals("brand/team.css", sheets.get(1), "the site's CSS comes after the theme's");
        assertEquals("https://github.com/o/r", home.selectFirst(".social-links a").attr("href"));
        assertEquals("GitHub", home.selectFirst(".social-links a").text());
    }

    @Test
    void unknownKeysAreErrorsWithTheNearestKnownName() throws Exception {
        TestSite site = site("""
                title: Team notes
                custom_css: [brand/team.css]
                logo:
                  source: brand/light.svg
                """);
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":2:1: error: site settings: unknown key 'custom_css' (did you mean 'customCss'?); "
                + "site.yml takes title, description, lang, url, groups, build, locales, defaultLocale, sidebar, editLink, logo, favicon, customCss, social"), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":4:1: error: site settings: unknown key 'logo.source' (did you mean 'src'?); "
                + "logo takes src, light, dark, alt, replacesTitle"), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":3:1: error: site settings: logo needs src (or light and dark), a file in content/ such as 'logo.svg'"), run::toString);
        assertEquals(3, run.err().lines().filter(line -> line.contains(": error: ")).count(), run::toString);
        assertFalse(Files.exists(site.out));
    }

    @Test
    void aLogoOutsideContentOrMissingIsRefusedAtItsLine() throws Exception {
        TestSite site = site("title: T\nlogo:\n  src: ../secret.svg\nfavicon: brand/missing.ico\n");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":3:1: error: site settings: logo: '../secret.svg' cannot be used: "
                + "it is outside the content folder; only files inside content/ are read"), run::toString);
        assertTrue(run.err().contains(site.display("site.yml") + ":4:1: error: site settings: favicon: 'brand/missing.ico' cannot be used: no such file"), run::toString);
    }

    @Test
    void customCssThatLoadsFromElsewhereOrRunsScriptIsRefusedAtItsLineAndColumn() throws Exception {
        TestSite site = site("title: T\ncustomCss: [brand/bad.css]\n").page("brand/bad.css", """
                @\\69mport "https://evil.example/x.css";
                .a { background: url( 'https://evil.example/p.png' ); }
                .b { width: expression(alert(1)); }
                .c { background: url(//evil.example/p.png); }
                .d { background: image-set("https://evil.example/a.png" 1x); }
                /* </style><script>alert(1)</script> */
                .ok { background: url(light.svg); content: "Note: fine"; }
                """);
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        String css = site.display("brand/bad.css");
        assertTrue(run.err().contains(css + ":1:1: error: '@import' is not allowed in custom CSS (list each file in customCss instead)"), run::toString);
        assertTrue(run.err().contains(css + ":2:18: error: custom CSS may load only files of this site (a relative URL), not 'https://evil.example/p.png'"), run::toString);
        assertTrue(run.err().contains(css + ":3:13: error: 'expression(' is not allowed in custom CSS"), run::toString);
        assertTrue(run.err().contains(css + ":3:6: error: 'width' is not allowed in custom CSS: it could hide, cover, move or squeeze "
                + "what the build checked (allowed: colours, backgrounds, borders, fonts, spacing and flex layout)"), run::toString);
        assertTrue(run.err().contains(css + ":4:18: error: custom CSS may load only files of this site (a relative URL), not '//evil.example/p.png'"), run::toString);
        assertTrue(run.err().contains(css + ":5:18: error: custom CSS may load only files of this site (a relative URL), not 'https://evil.example/a.png'"), run::toString);
        assertTrue(run.err().contains(css + ":6:4: error: '</style' is not allowed in custom CSS"), run::toString);
        assertTrue(run.err().contains(css + ":7:35: error: 'content' is not allowed in custom CSS: generated text could draw a mark "
                + "or a verdict the build never gave"), run::toString);
        assertEquals(8, run.err().lines().filter(line -> line.contains(": error: ")).count(), run::toString);
    }

    @Test
    void aPageHeadStylePassesTheSameCssCheck() throws Exception {
        TestSite site = site("title: T\n")
                .page("styled.md", "---\ntitle: Styled\nhead:\n  - tag: style\n    content: '.note > p { color: teal; }'\n---\nText.\n")
                .page("hostile.md", "---\ntitle: Hostile\nhead:\n  - tag: style\n    content: '.x { background: url(https://evil.example/x.png) }'\n---\nText.\n");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("hostile.md") + ":3:1: error: front matter: head: <style>: custom CSS may load only files of this site "
                + "(a relative URL), not 'https://evil.example/x.png' (line 1 of its content)"), run::toString);
        assertEquals(1, run.err().lines().filter(line -> line.contains(": error: ")).count(), run::toString);

        Files.delete(site.content.resolve("hostile.md"));
        assertEquals(0, site.build().status());
        Document styled = Jsoup.parse(site.out.resolve("styled/index.html").toFile());
        assertEquals(".note > p { color: teal; }", styled.selectFirst("head style").data());
    }
}
