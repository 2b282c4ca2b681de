package dev.kensho.generator;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Astro's {@code <Fragment>} renders its children; {@code slot="NAME"} goes where a site component places that slot. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class FragmentSlotTest {

    @TempDir
    Path temp;

    @Test
    void fragmentsRenderTheirChildrenAndNamedSlotsGoWhereTheParentPutsThem() throws Exception {
        TestSite site = new TestSite(temp).page("index.mdx", TestSite.source("Slots", """

                <Fragment>Plain **fragment** text.</Fragment>

                <Hero>
                <Fragment slot="tagline">Every example *verified*.</Fragment>

                The hero's body.
                </Hero>

                <Card title="A card">
                <Fragment slot="icon">★</Fragment>
                Card body.
                </Card>
                """));
        site.theme = null;
        Path components = Files.createDirectories(site.root.resolve("theme/components"));
        Files.writeString(components.resolve("Hero.ftlh"), """
                <#-- requires: -->
                <section class="hero"><p class="tagline">${(slots.tagline!"")?no_esc}</p><div class="body">${content?no_esc}</div></section>
                """);
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("index.html").toFile());
        assertEquals("fragment", html.selectFirst("main strong").text());
        assertTrue(html.selectFirst("main strong").parent().text().startsWith("Plain fragment text."),
                "a fragment adds nothing around its children");
        assertEquals("Every example verified.", html.selectFirst(".hero .tagline").text());
        assertEquals("The hero's body.", html.selectFirst(".hero .body").text(), "the slotted child is not repeated in the body");
        assertTrue(html.selectFirst(".card").text().contains("★"), "Card places no slots: the child stays where it is written");
    }
}
