package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A theme folder comes with a pull request, so a template is data that shapes Kensho's data, never code: it runs no
 * program, reaches no Java class or object, reads no file outside the theme, and cannot hang the build. Each refusal
 * fails the build at the theme file's line and column, and nothing is written.
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class ThemeIsDataTest {

    @TempDir
    Path temp;

    /** A site whose page uses {@code <Aside>}, with a theme/ folder beside content/ (found without any option). */
    private TestSite siteWithAside() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nlang: en\n")
                .page("index.md", TestSite.source("Notes", "\n<Aside>Read me.</Aside>\n"));
        site.theme = null;
        Files.createDirectories(site.root.resolve("theme/components"));
        return site;
    }

    private Path component(TestSite site, String text) throws Exception {
        Path aside = site.root.resolve("theme/components/Aside.ftlh");
        Files.writeString(aside, text);
        return aside;
    }

    private static void assertRefused(TestSite.Run run, String expected, TestSite site) {
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(expected), () -> "expected " + expected + "\n" + run);
        assertFalse(run.err().contains("\tat "), run::toString);
        assertFalse(run.err().contains("internal error"), run::toString);
        assertFalse(Files.exists(site.out), "nothing is written");
    }

    /** Red team helper-103: a byte that is not UTF-8 in a component ended the build with "error: Input length = 1". */
    @Test
    void aComponentThatIsNotUtf8IsRefusedAtItsLine() throws Exception {
        TestSite site = siteWithAside();
        Path aside = site.root.resolve("theme/components/Aside.ftlh");
        Files.write(aside, new byte[] {'<', '#', '-', '-', ' ', 'x', ' ', '-', '-', '>', '\n', 'a', (byte) 0xff, '\n'});
        TestSite.Run run = site.build();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(aside + ":2: not UTF-8 text (byte 0xff); theme files are read as UTF-8"), run::toString);
        assertFalse(run.err().contains("Input length"), run::toString);
        assertFalse(Files.exists(site.out), "nothing is written");
    }

    @Test
    void theExecutePayloadOfTheIssueRunsNothingAndFailsAtItsLineAndColumn() throws Exception {
        TestSite site = siteWithAside();
        Path pwned = temp.resolve("pwned");
        Path aside = component(site, "<#-- a component -->\n  <#assign run = \"freemarker.template.utility.Execute\"?new()>${run(\"touch "
                + pwned + "\")}\n");
        TestSite.Run run = site.build();
        assertRefused(run, aside + ":2:3: error: template: Instantiating freemarker.template.utility.Execute is not allowed in the "
                + "template for security reasons.", site);
        assertFalse(Files.exists(pwned), "no command ran");
        // check renders too: the same refusal.
        assertRefused(site.check(), aside + ":2:3: error: template: Instantiating freemarker.template.utility.Execute", site);
        assertFalse(Files.exists(pwned));
    }

    @Test
    void aTemplateReachesNoJavaClassNorObjectNorApi() throws Exception {
        TestSite site = siteWithAside();
        // ObjectConstructor would hand the template any Java object, with its methods.
        Path aside = component(site, "<#assign make = \"freemarker.template.utility.ObjectConstructor\"?new()>"
                + "${make(\"java.lang.StringBuilder\", \"abc\").reverse()}");
        assertRefused(site.build(), aside + ":1:1: error: template: Instantiating freemarker.template.utility.ObjectConstructor is "
                + "not allowed in the template for security reasons.", site);

        component(site, "${attrs?api.getClass().getName()}");
        assertRefused(site.build(), aside + ":1:3: error: template: Can't use ?api, because the \"api_builtin_enabled\" "
                + "configuration setting is false.", site);

        // A setting cannot turn the protection off from inside a template.
        component(site, "<#setting new_builtin_class_resolver=\"unrestricted\">${\"freemarker.template.utility.Execute\"?new()(\"true\")}");
        assertRefused(site.build(), aside + ":1:11: error: template: The setting name is recognized, but changing this setting "
                + "from inside a template isn't supported.", site);

        // Red team: a template made at run time with ?interpret had no interruption checks; an endless loop in it kept a core.
        component(site, "<p>\n  <#assign loop = \"<#list 1..2147483647 as i><#list 1..2147483647 as j></#list></#list>\"? interpret>"
                + "<@loop/></p>");
        assertRefused(site.build(), aside + ":2:89: error: template: ?interpret and ?eval are not allowed in a theme: a template or "
                + "expression made at run time could not be stopped; write the template as a file of the theme", site);

        // Red team helper-98: ?interpret spelled at run time and evaluated with ?eval; under serve its loop kept a core.
        component(site, "<#assign code = (\"'<#list 1.. as x></#list>'?inter\" + \"pret\")?eval>\n<@code/>");
        assertRefused(site.build(), aside + ":1:62: error: template: ?interpret and ?eval are not allowed in a theme: a template or "
                + "expression made at run time could not be stopped; write the template as a file of the theme", site);
        // ?eval_json reads JSON only and stays.
        component(site, "<#assign data = '{\"a\": 1}'?eval_json>${data.a}");
        TestSite.Run json = site.build();
        assertEquals(0, json.status(), json::err);
    }

    @Test
    void aLinkedThemeFileIsNotReadNorPublished() throws Exception {
        TestSite site = siteWithAside();
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret.ftlh"), "SECRET OF THE BUILD MACHINE");
        Path aside = site.root.resolve("theme/components/Aside.ftlh");
        Files.createSymbolicLink(aside, outside.resolve("secret.ftlh"));
        Path asset = Files.createDirectories(site.root.resolve("theme/assets")).resolve("leak.txt");
        Files.createSymbolicLink(asset, outside.resolve("secret.ftlh"));
        TestSite.Run run = site.build();
        assertRefused(run, aside + ":1:1: error: not read: it is a symbolic link to a file outside the theme folder; "
                + "Kensho never reads or publishes such a file", site);
        assertTrue(run.err().contains(asset + ":1:1: error: not read: it is a symbolic link to a file outside the theme folder"), run::toString);
        assertFalse(run.err().contains("SECRET"), run::toString);
    }

    @Test
    void aLinkedThemeFolderIsNotReadNorWalkedInto() throws Exception {
        TestSite site = siteWithAside();
        Path outside = Files.createDirectories(temp.resolve("outside/components"));
        Files.writeString(outside.resolve("Aside.ftlh"), "SECRET OF THE BUILD MACHINE");
        Path components = site.root.resolve("theme/components");
        Files.delete(components);
        Files.createSymbolicLink(components, outside);
        TestSite.Run run = site.build();
        assertRefused(run, components + ":1:1: error: not read: it is a symbolic link to a file outside the theme folder", site);
        assertFalse(run.err().contains("SECRET"), run::toString);

        // The theme folder itself may not be a link either.
        Files.delete(components);
        Path realTheme = Files.createDirectories(temp.resolve("outside/theme/components"));
        Files.writeString(realTheme.resolve("Aside.ftlh"), "SECRET OF THE BUILD MACHINE");
        Files.delete(site.root.resolve("theme"));
        Files.createSymbolicLink(site.root.resolve("theme"), realTheme.getParent());
        TestSite.Run linked = site.build();
        assertRefused(linked, "error: theme folder " + site.root.resolve("theme") + " is a symbolic link; a theme is read only "
                + "from a folder of its own", site);
    }

    @Test
    void includeAndImportStayInsideTheTheme() throws Exception {
        TestSite site = siteWithAside();
        Path aside = component(site, "<#-- requires: -->\n<#include \"../../etc/passwd\">");
        assertRefused(site.build(), aside + ":2:1: error: template: Template inclusion failed (for parameter value \"../../etc/passwd\"): "
                + "Malformed template name, \"components/../../etc/passwd\": Backing out from the template root directory is not allowed", site);

        component(site, "<#import \"/etc/passwd\" as secrets>${secrets}");
        assertRefused(site.build(), aside + ":1:1: error: template: Template importing failed (for parameter value \"/etc/passwd\"): "
                + "Template not found for name \"etc/passwd\"", site);

        // A template the theme has, but through a link out of it, is refused where it is included.
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "SECRET OF THE BUILD MACHINE");
        Files.createSymbolicLink(site.root.resolve("theme/components/secret.txt"), outside.resolve("secret.txt"));
        component(site, "<#include \"secret.txt\" parse=false>");
        TestSite.Run run = site.build();
        assertRefused(run, site.root.resolve("theme/components/secret.txt") + ":1:1: error: not read: it is a symbolic link to a "
                + "file outside the theme folder", site);
        assertFalse(run.err().contains("SECRET"), run::toString);
    }

    /**
     * The rendering the build stopped waiting for would spin on for minutes in this JVM, which runs the other tests: a
     * CLI build ends it by exiting; here it is stopped where the JDK still can (Thread.stop fails on JDK 20 and later).
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static void stopRenderingsLeftBehind() {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("kensho-template") && thread.getState() == Thread.State.RUNNABLE) {
                try {
                    thread.stop();
                } catch (UnsupportedOperationException newerJdk) {
                    return;
                }
            }
        }
    }

    @Test
    void aTemplateThatNeverEndsOrFloodsStopsAtItsLine() throws Exception {
        TestSite site = siteWithAside();
        Path aside = component(site, "<#-- a component -->\n<#list 1..100000000 as i>${\"\"?left_pad(1000000, \"all work and no play \")}</#list>\n");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertRefused(site.build(), aside
                + ":2:26: error: template: the template writes more than 32 Mi characters for one page or component", site));

        component(site, "<#list 1..2147483647 as i><#list 1..2147483647 as j></#list></#list>");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertRefused(site.build(), aside
                + ":1:1: error: template: the template ran for more than 10 s (a loop that never ends?)", site));

        // A built-in looping inside FreeMarker sees no interruption: the build stops waiting for it and fails all the same.
        component(site, "${(1..2147483647)?filter(i -> i == 3 && (1..2147483647)?seq_contains(0))?size}");
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertRefused(site.build(), aside
                    + ":1:1: error: template: the template ran for more than 10 s (a loop that never ends?)", site));
        } finally {
            stopRenderingsLeftBehind();
        }

        component(site, "<#macro again><@again/></#macro><@again/>");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertRefused(site.build(), aside
                + ":1:1: error: template: a macro, function or include calls itself without end", site));
    }
}
