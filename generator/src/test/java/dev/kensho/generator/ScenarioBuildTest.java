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
                + "add waits-for=a (or waits-for=*) if that is the point\n"
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
        org.jsoup.nodes.Element table = html.selectFirst(".scenario table.sequence-table");
        // Lifelines named as the lesson names them, then the steps in the order the server produced them, each in its session's column.
        assertEquals(List.of("再送 A", "b"), table.select("thead th").eachText());
        assertEquals(List.of("seq-step seq-completed", "seq-step seq-waiting", "seq-step seq-completed", "seq-step seq-completed_after_wait"),
                table.select(".seq-step").eachAttr("class"));
        assertEquals(List.of("a1", "b1", "a2", "b1"), table.select(".seq-step").eachText());
        assertEquals(List.of(0, 1, 0, 1), table.select(".seq-step").stream().map(step -> step.parent().elementSiblingIndex()).toList());
        assertEquals(List.of("再送 A の終了を待つ", "待ちが解けた: 0 行"), table.select(".seq-note").eachText());
        assertEquals(List.of(1, 2, 3), table.select("td.seq-wait").stream().map(td -> td.parent().elementSiblingIndex()).toList(),
                "one wait bar in b's column, from the wait to the release");
        assertEquals("seq-released arrow-right", table.select("tbody tr").get(3).className(), "a2 released b1: an arrow from a's lifeline to b's");
        assertEquals(List.of("arrow-start", "seq-wait arrow-end"), table.select("tbody tr").get(3).select("td").eachAttr("class"));
        assertEquals("シーケンス図（上から下へ時間が進む）", table.selectFirst("caption").text());
        assertTrue(html.selectFirst(".scenario .evidence summary").text().contains("PostgreSQL 18.6 で検証済み"));
        assertTrue(html.select(".scenario .assertions li").eachText().contains("ステップ b1 はセッション a のロック解放を待つ（サーバーのロック情報で判定）"));
    }

    @Test
    void aLockTimeoutIsDrawnAsTheWaitingStatementGivingUpNotAsARelease() throws Exception {
        TestSite site = new TestSite(temp).page("timeout.md", TestSite.source("Timeout", """

                ```sql setup hidden
                CREATE TABLE r (key text PRIMARY KEY);
                ```

                ```scenario
                session a "再送 A"
                step a_begin { BEGIN; INSERT INTO r VALUES ('K1'); }
                step a_commit { COMMIT; }
                session b "再送 B"
                step b_begin_with_a_step_name_far_longer_than_its_column { BEGIN; SET LOCAL lock_timeout = '100ms'; }
                step b_reserve waits-for=a expect-error=55P03 { INSERT INTO r VALUES ('K1'); }
                step b_rollback { ROLLBACK; }
                permutation a_begin b_begin_with_a_step_name_far_longer_than_its_column b_reserve b_rollback a_commit
                ```
                """));
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        Document html = Jsoup.parse(site.out.resolve("timeout/index.html").toFile());
        org.jsoup.nodes.Element table = html.selectFirst(".scenario table.sequence-table");
        assertEquals(List.of("a_begin", "b_begin_with_a_step_name_far_longer_than_its_column", "b_reserve", "b_reserve", "b_rollback", "a_commit"),
                table.select(".seq-step").eachText(), "step names are written whole, however long");
        assertEquals(List.of("再送 A の終了を待つ", "待ちの上限（lock_timeout）で文が失敗: エラー 55P03。再送 A のロックは解放されていない"),
                table.select(".seq-note").eachText());
        assertEquals("seq-note seq-failed", table.select(".seq-note").get(1).className());
        assertEquals(List.of(), table.select("tr.seq-released"), "no arrow: nothing released the lock, the server ended the wait");
        assertEquals(List.of(2, 3), table.select("td.seq-wait").stream().map(td -> td.parent().elementSiblingIndex()).toList());
        assertTrue(html.select(".scenario .assertions li").eachText().stream().anyMatch(claim -> claim.contains("55P03")),
                html.select(".scenario .assertions li").eachText()::toString);
    }
}
