package dev.kensho.generator.render.gate;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The gate on its own, over payloads of the kinds the reviews used: each is refused, or published in a form that runs nothing. */
class HtmlGatePayloadsTest {

    private static final List<String> REFUSED = List.of(
            "<!-- x --><script>alert(1)</script>",
            "<!--> <img src=x onerror=alert(1)> -->",
            "<!---> <img src=x onerror=alert(1)> -->",
            "<!-- a --!> <img src=x onerror=alert(1)> -->",
            "<p>a<!-- b --!><svg onload=alert(1)>",
            "<a href=\"JavaScript:alert(1)\">x</a>",
            "<a href=\"&#x6A;avascript&colon;alert(1)\">x</a>",
            "<a href=\" java\tscript:alert(1)\">x</a>",
            "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
            "<img src=x srcset=\"a.png 1x, vbscript:x 2x\">",
            "<body onload=alert(1)>",
            "<base href=\"https://evil.example/\">",
            "<meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">",
            "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
            "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
            "<form><button formaction=javascript:alert(1)>x</button></form>",
            "<details open ontoggle=alert(1)>",
            "<div style=\"position:fixed;inset:0\">x</div>",
            "<img name=querySelector src=x.png>",
            "<input type=text autofocus onfocus=alert(1)>",
            "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
            "<object data=x.swf></object>",
            "<template><script>alert(1)</script></template>",
            "<div data-src=\"x.txt\" class=\"sidebar-shared\"></div>");

    @Test
    void everyPayloadIsRefused() {
        for (String payload : REFUSED) {
            assertNotNull(HtmlGate.refusal(payload), payload);
        }
    }

    @Test
    void whatPassesIsPublishedAsTheCheckedTreeWithoutComments() {
        HtmlGate.Result result = HtmlGate.pass("<p title=\"--><img src=x onerror=alert(1)>\">t</p><!-- <script>x</script> --><p>b</p></div></main>");
        assertEquals(List.of(), result.refusals());
        assertEquals("<p title=\"--&gt;&lt;img src=x onerror=alert(1)&gt;\">t</p><p>b</p>", result.html());
        assertFalse(HtmlGate.pass("<ul><li class=\"task-list-item\"><input type=\"checkbox\" disabled checked></li></ul>").html().isEmpty());
        assertEquals(List.of(), HtmlGate.pass("<a name=\"old-anchor\"></a><a href=\"https://example.org/?q=a&amp;b\">x</a>").refusals());
    }
}
