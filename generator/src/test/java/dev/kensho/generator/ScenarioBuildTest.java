package dev.kensho.generator;


import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Scenario blocks as authors meet them: errors at the step's file:line, a timeline on the page. */
@org.junit.jupiter.api.extension.ExtendWith(NoServerOutlivesATest.class)
class ScenarioBuildTest {

    @TempDir
    Path temp;

    private static String page(String bWaits) {
        return TestSite.source("Race", """

                ```sql setup hidden
                CREATE TABLE r (key text PRIMARY KEY);
                ```

                ```scenario
                session a
                step a1 { BEGIN; INSERT INTO r VALUES ('K1') ON CONFLICT DO NOTHING; }
                step a2 { COMMIT; }
                session b
                step b1%s { INSERT INTO r VALUES ('K1') ON CONFLICT DO NOTHING RETURNING key; }
                permutation a1 b1 a2
                ```
                """.formatted(bWaits));
    }

    @Test
    void aWrongClaimAboutWaitingFailsAtTheStepsLine() throws Exception {
        TestSite site = new TestSite(temp).page("race.md", page(""));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertEquals(site.display("race.md") + ":14:1: error: step b1 waits for a, but the scenario does not say so; "
                + "add waits-for=a if that is the point\n"
                + " 14 | step b1 { INSERT INTO r VALUES ('K1') ON CONFLICT DO NOTHING RETURNING key; }\n"
                + "    | ^\n\n", run.err());
    }

    @Test
    void aScenarioSyntaxErrorIsReportedAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("race.md", page(" wait=a"));
        TestSite.Run run = site.check();
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().startsWith(site.display("race.md") + ":14:1: error: scenario: unknown step option 'wait'"), run::toString);
    }

    @Test
    void theTranscriptIsDrawnAsASequenceDiagramWithTheWait() throws Exception {
        TestSite site = new TestSite(temp).page("race.md", page(" waits-for=a").replace("session a\n", "session a \"再送 A\"\n"));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("race/index.html").toFile());
        org.jsoup.nodes.Element svg = html.selectFirst(".scenario svg.sequence-svg");
        // Lifelines named as the lesson names them, then the steps in the order the server produced them.
        assertEquals(List.of("再送 A", "b"), svg.select("> text[font-weight=bold]").eachText());
        assertEquals(List.of("step step-completed", "step step-waiting", "step step-completed", "step step-completed_after_wait"),
                svg.select("g.step").eachAttr("class"));
        assertEquals(List.of("a1", "b1", "a2", "b1"), svg.select("g.step > text").eachText());
        assertTrue(svg.select("text.note").eachText().contains("再送 A の終了を待つ"), svg.select("text.note").eachText()::toString);
        assertEquals(1, svg.select("line.wait-bar").size(), "one wait bar, from the wait to the release");
        assertTrue(svg.attr("aria-label").startsWith("シーケンス図：再送 A の a1 が完了。b の b1 が待機。"), svg.attr("aria-label"));
        assertTrue(html.selectFirst(".scenario .evidence summary").text().contains("PostgreSQL 18.6 で検証済み"));
        assertTrue(html.select(".scenario .assertions li").eachText().contains("ステップ b1 はセッション a のロック解放を待つ（サーバーのロック情報で判定）"));
    }
}
