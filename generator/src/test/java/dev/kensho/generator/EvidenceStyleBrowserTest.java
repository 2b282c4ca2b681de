package dev.kensho.generator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.chrome.ChromeDriver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What custom CSS may still do to an element of the site's own around a snippet (colour, background, size, font, case,
 * flex layout) does not reach the snippet, in Chromium: its code reads as written, its "not verified" label stays legible
 * on the evidence's own background, and a contributor's element laid over it does not cover it.
 */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class EvidenceStyleBrowserTest {


    @TempDir
    Path temp;

    @Test
    void aContributorsElementAroundASnippetCannotRestyleOrCoverIt() throws Exception {
        HeadlessChromium.assumeInstalled();
        TestSite site = new TestSite(temp).page("site.yml", "title: T\nlang: en\ncustomCss: [note.css]\n")
                .page("note.css", """
                        .note { display: flex; flex-direction: column; color: #59636e; background-color: #59636e;
                          font-size: 0; font-family: serif-of-mine, cursive; text-transform: lowercase; font-weight: 700; }
                        .cover { background-color: #ffffff; color: #1a7f37; font-size: 1rem; padding: 30rem 0 0; margin: 0; }
                        .row { display: flex; flex-direction: row; }
                        .row > p { flex: 0 0 auto; flex-shrink: 0; background-color: #ffffff; word-break: keep-all; }
                        """)
                .page("a.md", """
                        ---
                        title: A
                        ---

                        <div class="note">

                        ```sql ignore
                        SELECT 'ABC' AS answer;
                        ```

                        <p class="cover">✓ Verified on PostgreSQL 18.6</p>

                        </div>

                        <div class="row">

                        ```sql ignore
                        SELECT 2;
                        ```

                        <p>✓ Verified on PostgreSQL 18.6, a long line of text that would take the whole row and squeeze its neighbour to nothing at all</p>

                        </div>
                        """);
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);

        ChromeDriver driver = HeadlessChromium.start(temp, "--allow-file-access-from-files");
        try {
            driver.get(site.out.resolve("a/index.html").toUri().toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> seen = (Map<String, Object>) driver.executeScript("""
                    const figure = document.querySelector('.note figure.code-block.not-verified');
                    const label = figure.querySelector('.not-verified-label');
                    const code = figure.querySelector('pre code');
                    label.scrollIntoView({block: 'center'});
                    const box = label.getBoundingClientRect();
                    const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
                    return {
                      code: code.innerText.trim(),
                      codeSize: getComputedStyle(code).fontSize,
                      figureBackground: getComputedStyle(figure).backgroundColor,
                      labelColor: getComputedStyle(label).color,
                      labelSize: getComputedStyle(label).fontSize,
                      labelText: label.innerText.trim(),
                      labelOnTop: label.contains(top),

                      noteBackground: getComputedStyle(document.querySelector('.note')).backgroundColor,
                      coverStyled: getComputedStyle(document.querySelector('.cover')).backgroundColor
                    };
                    """);
            assertEquals("rgb(89, 99, 110)", seen.get("noteBackground"), "the site's own CSS applied: " + seen);
            assertEquals("rgb(255, 255, 255)", seen.get("coverStyled"), seen::toString);
            assertEquals("SELECT 'ABC' AS answer;", seen.get("code"), "the code reads as written (no case change): " + seen);
            assertTrue(Double.parseDouble(String.valueOf(seen.get("codeSize")).replace("px", "")) >= 12, seen::toString);
            assertEquals("rgb(255, 255, 255)", seen.get("figureBackground"), "the label sits on the evidence's own background: " + seen);
            assertEquals("rgb(89, 99, 110)", seen.get("labelColor"), seen::toString);
            assertEquals("Not verified: shown as written; the build did not run it", seen.get("labelText"), seen::toString);
            assertEquals(Boolean.TRUE, seen.get("labelOnTop"), "no contributor element paints over the label: " + seen);
            // Squeezed by a wide neighbour in a flex row: the snippet keeps a width of its own and is not cut.
            for (String wrapper : new String[]{".row"}) {
                Object onTop = driver.executeScript("""
                        const label = document.querySelector(arguments[0] + ' .not-verified-label');
                        label.scrollIntoView({block: 'center'});
                        const box = label.getBoundingClientRect();
                        const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
                        return label.contains(top) && box.height > 10 && box.width > 100;
                        """, wrapper);
                assertEquals(Boolean.TRUE, onTop, wrapper);
            }
        } finally {
            driver.quit();
        }
    }
}
