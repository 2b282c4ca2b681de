package dev.kensho.generator.render.page;

import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.render.theme.UiStrings;
import dev.kensho.sqlchecks.model.Scenario;
import dev.kensho.sqlchecks.model.ScenarioTranscript.Event;
import dev.kensho.sqlchecks.model.ScenarioTranscript.Kind;
import dev.kensho.sqlchecks.model.ScenarioTranscript.PermutationRun;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the diagram says of a wait's end, in the theme's own words: the server giving up is not a release. */
class SequenceDiagramTest {

    private static final List<Scenario.Session> SESSIONS = List.of(
            new Scenario.Session("a", "再送 A", "", List.of(), ""), new Scenario.Session("b", "再送 B", "", List.of(), ""));

    private static Event event(String step, String session, Kind kind, String sqlState) {
        return new Event(step, session, "SELECT 1", kind, kind == Kind.WAITING ? List.of("a") : List.of(), null, sqlState,
                sqlState == null ? null : "message");
    }

    /** a holds the lock, b waits, then something happens in a (or not), then b's wait ends as given. */
    private static Element draw(String lang, boolean aActsFirst, String sqlState) throws Exception {
        UiStrings ui = Theme.load(Path.of("../site")).ui(lang);
        List<Event> events = new java.util.ArrayList<>(List.of(event("a_lock", "a", Kind.COMPLETED, null), event("b_wait", "b", Kind.WAITING, null)));
        if (aActsFirst) {
            events.add(event("a_commit", "a", Kind.COMPLETED, null));
        }
        events.add(event("b_wait", "b", Kind.COMPLETED_AFTER_WAIT, sqlState));
        return Jsoup.parseBodyFragment(SequenceDiagram.draw(new PermutationRun(List.of(), events), SESSIONS, ui)).body();
    }

    private static String lastNote(Element table) {
        return table.select(".seq-note").last().text();
    }

    @Test
    void aLockTimeoutSaysTheStatementGaveUpAndTheLockWasNotReleased() throws Exception {
        // Even when a step of A comes between, 55P03 means the lock was never granted: no arrow from A.
        for (boolean aActsFirst : new boolean[] {false, true}) {
            Element table = draw("ja", aActsFirst, "55P03");
            assertEquals("待ちの上限（lock_timeout）で文が失敗: エラー 55P03。再送 A のロックは解放されていない", lastNote(table));
            assertEquals(0, table.select("tr.seq-released").size());
        }
        assertEquals("the statement gave up at lock_timeout: error 55P03; 再送 A has not released the lock", lastNote(draw("en", false, "55P03")));
    }

    @Test
    void aCancelAndADeadlockVictimAreTheServerEndingTheWait() throws Exception {
        assertEquals("待っていた文が取り消された: エラー 57014", lastNote(draw("ja", true, "57014")));
        assertEquals("デッドロックと判定され、この文が失敗: エラー 40P01", lastNote(draw("ja", true, "40P01")));
        assertEquals(0, draw("ja", true, "40P01").select("tr.seq-released").size());
    }

    @Test
    void aWaitReleasedByAnotherSessionsStepHasItsArrowAndSaysSo() throws Exception {
        Element table = draw("ja", true, "40001");
        assertEquals("待ちが解けた: エラー 40001", lastNote(table), "the error came after the lock was granted");
        assertEquals(List.of("seq-released arrow-right"), table.select("tr.seq-released").eachAttr("class"));
        assertEquals("待ちが解けた: 完了", lastNote(draw("ja", true, null)));
    }

    @Test
    void aStepReportedWaitingByAPermutationMarkerNamesNoSession() throws Exception {
        for (String lang : new String[] {"ja", "en"}) {
            UiStrings ui = Theme.load(Path.of("../site")).ui(lang);
            Event marked = new Event("b_q", "b", "SELECT 1", Kind.WAITING, List.of(), null, null, null);
            Element table = Jsoup.parseBodyFragment(SequenceDiagram.draw(new PermutationRun(List.of(), List.of(marked)), SESSIONS, ui)).body();
            assertEquals(lang.equals("ja") ? "待ちとして報告（順列のマーカー）" : "reported waiting (the permutation's marker)", lastNote(table));
        }
    }
}
