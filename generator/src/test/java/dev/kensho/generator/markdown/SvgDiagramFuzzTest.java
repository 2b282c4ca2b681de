package dev.kensho.generator.markdown;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.sqlchecks.fuzz.FuzzInput;

/**
 * Fuzzes the SVG sanitiser, the one gate an SVG from content/ passes before it is inlined in a page
 * or published. A file it cannot accept is a {@link SvgDiagram.Problem} (reported at the tag's line);
 * anything else fails, and so does output the gate would itself refuse when read again: what it lets
 * through must be what it allows, whichever way the XML parser reads it.
 */
class SvgDiagramFuzzTest {

    @FuzzTest
    void svg(byte[] input) throws Exception {
        String text = FuzzInput.text(input);
        FuzzInput.withinBound("an SVG file", input.length, () -> {
            try {
                String inlined = SvgDiagram.sanitize(text, "d.svg", "a diagram", "d1-");
                SvgDiagram.standalone(inlined, "the sanitised d.svg");
            } catch (SvgDiagram.Problem refused) {
                // The diagnostic the page reports at the tag's line.
            }
            try {
                String published = SvgDiagram.standalone(text, "d.svg");
                SvgDiagram.standalone(published, "the published d.svg");
            } catch (SvgDiagram.Problem refused) {
                // Reported at the file.
            }
        });
    }
}
