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

/** The built-in theme comes from the jar; a site's theme folder changes it file by file. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class ThemeOverrideTest {

    @TempDir
    Path temp;

    private TestSite englishSite() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Job queue notes\nlang: en\n")
                .page("index.md", TestSite.source("Queue", """

                        <Badge text="new"/>

                        ```sql result
                        SELECT 1 AS one;
                        ```
                        """));
        site.theme = null;
        return site;
    }

    @Test
    void aSiteWithOnlyContentBuildsWithTheBuiltInTheme() throws Exception {
        TestSite site = englishSite();
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals("en", html.selectFirst("html").attr("lang"));
        assertEquals("✓ Verified on PostgreSQL 18.6", html.selectFirst(".verified .evidence summary").text());
        assertEquals("new", html.selectFirst(".badge").text());
        assertEquals(Files.readString(TestSite.THEME.resolve("assets/kensho.css")), Files.readString(site.out.resolve("assets/kensho.css")));
    }

    @Test
    void pagesLinkToAssetsNamedByTheirContentAndHeadersCacheOnlyThose() throws Exception {
        TestSite site = englishSite();
        assertEquals(0, site.build().status());
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        String css = html.selectFirst("link[rel=stylesheet]").attr("href");
        String hash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(TestSite.THEME.resolve("assets/kensho.css")))).substring(0, 10);
        assertEquals("assets/kensho." + hash + ".css", css);
        assertEquals(Files.readString(TestSite.THEME.resolve("assets/kensho.css")), Files.readString(site.out.resolve(css)));
        String headers = Files.readString(site.out.resolve("_headers"));
        assertTrue(headers.contains("\n/assets/kensho." + hash + ".css\n  Cache-Control: public, max-age=31536000, immutable\n"), headers);
        // The security policy for every path comes first; then long caching for the seven hashed theme assets and
        // for the browser's PostgreSQL, in a folder named by its version, only.
        assertTrue(headers.startsWith("/*\n  Content-Security-Policy: default-src 'self'; script-src 'self' 'wasm-unsafe-eval';"), headers);
        List<String> themeAssets = headers.lines().filter(line -> line.startsWith("/assets/") && !line.startsWith("/assets/pglite/")).toList();
        assertEquals(7, themeAssets.size(), headers);
        assertEquals(1, headers.lines().filter(line -> line.startsWith("/") && !line.startsWith("/assets/")).count(), headers);
        assertTrue(themeAssets.stream().allMatch(line -> line.matches("/assets/[a-z-]+\\.[0-9a-f]{10}\\.[a-z]+")), headers);
        assertTrue(headers.lines().filter(line -> line.startsWith("/assets/pglite/")).allMatch(line -> line.matches("/assets/pglite/0\\.5\\.16/[A-Za-z0-9_-]+(\\.[a-z]+)?")), headers);

        // A changed asset gets a new name.
        Files.createDirectories(site.root.resolve("theme/assets"));
        Files.writeString(site.root.resolve("theme/assets/kensho.css"), "body { color: teal; }\n");
        assertEquals(0, site.build().status());
        String changed = Jsoup.parse(site.out.resolve("index.html").toFile()).selectFirst("link[rel=stylesheet]").attr("href");
        assertFalse(changed.equals(css), changed);
        assertEquals("body { color: teal; }\n", Files.readString(site.out.resolve(changed)));
    }

    @Test
    void aThemeFolderBesideContentChangesOnlyTheFilesItHolds() throws Exception {
        TestSite site = englishSite();
        Path theme = site.root.resolve("theme");
        Files.createDirectories(theme.resolve("components"));
        Files.createDirectories(theme.resolve("i18n"));
        Files.createDirectories(theme.resolve("assets"));
        Files.writeString(theme.resolve("components/Badge.ftlh"), "<#-- requires: text -->\n<mark class=\"team-badge\">${attrs.text?string}</mark>");
        Files.writeString(theme.resolve("i18n/en.yml"), "page.nextLink: Onwards\nsearch.label: Find a note\n");
        Files.writeString(theme.resolve("assets/team.css"), ".team-badge { color: teal; }\n");
        TestSite.Run run = site.build();   // no --theme: theme/ beside content/ is found
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals("new", html.selectFirst("mark.team-badge").text());
        assertEquals(null, html.selectFirst(".badge"));
        assertEquals("Find a note", html.selectFirst("#search-input").attr("aria-label"));
        assertEquals("Search", html.selectFirst("#search-input").attr("placeholder"), "keys the folder does not change stay built in");
        assertTrue(Files.exists(site.out.resolve("assets/team.css")));
        assertTrue(Files.exists(site.out.resolve("assets/kensho.js")), "the built-in assets are still there");
        assertEquals("✓ Verified on PostgreSQL 18.6", html.selectFirst(".verified .evidence summary").text());
    }

    @Test
    void anOverrideIncludingAMissingTemplateNamesItWhole() throws Exception {
        TestSite site = englishSite();
        Path theme = Files.createDirectories(site.root.resolve("my-theme/templates"));
        Files.writeString(theme.resolve("404.ftlh"), "<p>gone</p>\n<#include \"sidebar-from-an-old-kensho-version.ftlh\">\n");
        site.theme = site.root.resolve("my-theme");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(theme.resolve("404.ftlh") + ":2:1: error: template: Template inclusion failed (for parameter value "
                + "\"sidebar-from-an-old-kensho-version.ftlh\"): Template not found for name \"sidebar-from-an-old-kensho-version.ftlh\"."), run::toString);
        assertFalse(Files.exists(site.out));
    }

    @Test
    void aMissingThemeFolderIsAnError() throws Exception {
        TestSite site = englishSite();
        site.theme = site.root.resolve("no-such-theme");
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertEquals("error: theme folder " + site.root.resolve("no-such-theme") + " does not exist\n", run.err());
    }
}
