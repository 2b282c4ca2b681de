package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * site.yml postgres.versions: every page on every version named (embedded 14-17 come from their pinned jars, fetched
 * once into ~/.cache/kensho/postgres), claims per version, marks naming them, --postgres-version for one.
 */
class PostgresVersionsTest {

    @TempDir
    Path temp;

    private static final String EVERY_VERSION = "postgres:\n  versions: [14, 15, 16, 17, 18]\n";

    private TestSite passingSite(Path root) throws Exception {
        return new TestSite(root)
                .page("site.yml", EVERY_VERSION)
                .page("everywhere.md", TestSite.source("Everywhere", "\n```sql\nCREATE TABLE items (id int PRIMARY KEY, v int);\n"
                        + "INSERT INTO items VALUES (1, 10), (2, 20);\n```\n\n```sql result\nSELECT id, v FROM items ORDER BY id;\n```\n"))
                .page("merge.md", TestSite.source("Merge", "\n```sql\nCREATE TABLE stock (id int PRIMARY KEY, qty int);\n```\n\n"
                        + "```sql versions=\">=17\"\nMERGE INTO stock s USING (VALUES (1, 5)) AS src(id, qty) ON s.id = src.id\n"
                        + "WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.qty)\nRETURNING merge_action(), s.*;\n```\n"));
    }

    @Test
    void aPageThatHoldsEverywhereIsMarkedWithEveryVersionAndAFencedOneWithItsOwn() throws Exception {
        TestSite site = passingSite(temp);
        TestSite.Run run = site.build("--jobs", "5");
        assertEquals(0, run.status(), run::toString);
        for (int major : List.of(14, 15, 16, 17, 18)) {
            assertTrue(run.out().contains("Kensho: [" + major + "] PostgreSQL " + major + "."), run::toString);
        }
        String everywhere = Files.readString(site.out.resolve("everywhere/index.html"));
        assertEquals(2, count(everywhere, "PostgreSQL 14–18 で検証済み</summary>"), everywhere);
        assertTrue(everywhere.contains("主張は検証したすべての版で成り立ちました。下の行とプランは PostgreSQL 18.6 の実行のものです。"), everywhere);
        String merge = Files.readString(site.out.resolve("merge/index.html"));
        // MERGE … RETURNING fails before 17: the build passing shows the fence ran on 17 and 18 alone.
        assertEquals(1, count(merge, "PostgreSQL 17, 18 のみで検証済み（versions= で限った版）</summary>"), merge);
        assertEquals(1, count(merge, "PostgreSQL 14–18 で検証済み</summary>"), merge);
        JsonNode report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals("[14,15,16,17,18]", report.get("postgresVersions").toString());
        List<String> versions = new ArrayList<>();
        report.get("snippets").forEach(s -> versions.add(s.get("file").asText().replaceAll(".*/", "") + ":" + s.get("line").asInt() + " " + s.get("versions")));
        assertEquals(List.of("everywhere.md:6 [14,15,16,17,18]", "everywhere.md:11 [14,15,16,17,18]",
                "merge.md:6 [14,15,16,17,18]", "merge.md:10 [17,18]"), versions);
        // The browser runs PGlite's 18, and says so against the versions the build checked.
        String plan = Files.readString(site.out.resolve("everywhere/index.run.json"));
        assertTrue(plan.contains("\"server\" : \"18.6\"") || plan.contains("\"server\":\"18.6\""), plan);
        assertTrue(plan.contains("\"versions\" : \"14–18\"") || plan.contains("\"versions\":\"14–18\""), plan);
    }

    @Test
    void aFenceLeftOutOfTheNewestVersionShowsItsOwnVersionsRowsAndIsNeitherOfferedNorReplayedInTheBrowser() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "postgres:\n  versions: [14, 18]\n")
                .page("a.md", TestSite.source("A", "\n```sql\nCREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\n```\n\n"
                        + "```sql versions=\"14\" result\nSELECT current_setting('server_version_num')::int / 10000 AS major;\n```\n\n"
                        + "```sql result\nSELECT count(*) AS n FROM t;\n```\n"));
        TestSite.Run run = site.build("--jobs", "2");
        assertEquals(0, run.status(), run::toString);
        org.jsoup.nodes.Document html = org.jsoup.Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        org.jsoup.select.Elements figures = html.select("figure.code-block");
        assertEquals(3, figures.size(), html::toString);
        // The rows shown (major = 14) are the PostgreSQL 14 run's, and the page says so, not "from the 18.6 run".
        assertEquals(List.of("主張は検証したすべての版で成り立ちました。下の行とプランは PostgreSQL 18.6 の実行のものです。",
                        "主張は検証したすべての版で成り立ちました。下の行とプランは PostgreSQL 14.19 の実行のものです。",
                        "主張は検証したすべての版で成り立ちました。下の行とプランは PostgreSQL 18.6 の実行のものです。"),
                figures.stream().map(f -> f.select(".evidence-version").text()).toList());
        // The browser runs 18 and compares with the 18 run, which never ran the 14-only fence: no run control for it,
        // and it is not replayed before the snippet after it (which keeps its own).
        assertEquals("", figures.get(1).select("[data-kensho-run]").attr("data-kensho-run"));
        assertEquals("ブラウザーでは実行できません（PostgreSQL 14 だけで検証した例（versions=）で、ブラウザーが再現して比べる最新版の実行には含まれないため）",
                figures.get(1).select(".run-unavailable").text());
        assertFalse(figures.get(2).select("[data-kensho-run]").isEmpty(), figures.get(2)::toString);
        JsonNode plan = new ObjectMapper().readTree(site.out.resolve("a/index.run.json").toFile());
        List<Integer> replayed = new ArrayList<>();
        plan.get("runs").forEach(r -> replayed.add(r.get("snippet").asInt()));
        assertEquals(List.of(0, 2), replayed);
    }

    /**
     * A scenario's end state is read and its restore proven on the newest version only (the run the browser replays and
     * compares with): on a site checked on 14 and 18 the snippet after the scenario still runs in the browser from the
     * restore, which the 18 run recorded; had the state been taken from the 14 run, or from none, it would not.
     */
    @SuppressWarnings("unchecked")
    @Test
    void aSiteOnSeveralVersionsRestoresAScenarioFromTheNewestVersionsRun() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "postgres:\n  versions: [14, 18]\n")
                .page("a.md", TestSite.source("A", BrowserRunPlanTest.RESTORED_PAGE));
        TestSite.Run run = site.build("--jobs", "2");
        assertEquals(0, run.status(), run::toString);
        java.util.Map<String, Object> plan = new ObjectMapper().readValue(site.out.resolve("a/index.run.json").toFile(), java.util.Map.class);
        List<java.util.Map<String, Object>> runs = (List<java.util.Map<String, Object>>) plan.get("runs");
        assertEquals(true, runs.get(1).get("restored"), runs::toString);
        assertEquals(List.of(0, 1, 2), runs.stream().map(r -> r.get("snippet")).toList());
    }

    @Test
    void aBuildNarrowedByPostgresVersionMarksNoFenceItDidNotRunAndCountsOnlyWhatHeld() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "postgres:\n  versions: [14, 18]\n")
                .page("a.md", TestSite.source("A", "\n```sql\nCREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\n```\n\n"
                        + "```sql versions=\"14\" result\nSELECT 14 AS major;\n```\n\n"
                        + "```sql result\nSELECT count(*) AS n FROM t;\n```\n"));
        TestSite.Run run = site.build("--postgres-version", "18");
        assertEquals(0, run.status(), run::toString);
        org.jsoup.nodes.Document html = org.jsoup.Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        org.jsoup.select.Elements figures = html.select("figure.code-block");
        assertEquals(List.of("✓ PostgreSQL 18.6 で検証済み", "", "✓ PostgreSQL 18.6 で検証済み"),
                figures.stream().map(f -> f.select(".evidence > summary").text()).toList());
        assertEquals("未検証：このビルドはこの例を実行していません（このビルドが確かめた版を、versions= が含みません）",
                figures.get(1).select(".not-verified-label").text());
        assertEquals("このページの SQL 2 件（検証項目 2 件）は、", html.select(".verification-note").text().replaceAll("(は、).*", "$1"));
    }

    @Test
    void aClaimHoldingOnlyOn18FailsAtItsLineNamingTheOthers() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", EVERY_VERSION)
                .page("returning.md", TestSite.source("Returning", "\n```sql\nCREATE TABLE t (id int, v int);\nINSERT INTO t VALUES (1, 1);\n```\n\n"
                        + "```sql\nUPDATE t SET v = v + 1 RETURNING old.v AS before, new.v AS after;\n```\n"));
        TestSite.Run run = site.check("--jobs", "5");
        assertEquals(1, run.status(), run::toString);
        assertTrue(run.err().contains(site.display("returning.md") + ":11:34: error: holds on 18; on 14, 15, 16, 17: missing FROM-clause entry for table \"old\""),
                run::toString);
    }

    @Test
    void postgresVersionChecksOnThatVersionAlone() throws Exception {
        TestSite site = passingSite(temp);
        TestSite.Run run = site.check("--postgres-version", "15");
        assertEquals(0, run.status(), run::toString);
        assertTrue(run.out().contains("Kensho: [15] PostgreSQL 15.14 via embedded"), run::toString);
        for (int major : List.of(14, 16, 17, 18)) {
            assertFalse(run.out().contains("PostgreSQL " + major + "."), run::toString);
        }
        JsonNode report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals("[15]", report.get("postgresVersions").toString());
        JsonNode fenced = report.get("snippets").get(3);
        assertEquals("skipped", fenced.get("status").asText());
        assertEquals("not run: versions=\">=17\" does not name PostgreSQL 15, the only version(s) this run checks", fenced.get("message").asText());
    }

    @Test
    void versionsOutsideTheSiteOrKenshoAreRefusedBeforeAnyServerStarts() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql\nSELECT 1;\n```\n"));
        TestSite.Run notNamed = site.check("--postgres-version", "16");
        assertEquals(1, notNamed.status(), notNamed::toString);
        assertTrue(notNamed.err().contains("--postgres-version 16 is not one of the versions " + site.display("site.yml")
                + " names in postgres.versions (18)"), notNamed::toString);
        TestSite.Run unknown = site.check("--postgres-version", "13");
        assertEquals(2, unknown.status(), unknown::toString);
        assertTrue(unknown.err().contains("--postgres-version takes a PostgreSQL major version Kensho checks on (14–18), not 13"), unknown::toString);
        site.page("site.yml", "postgres:\n  versions: [13, 18]\n");
        TestSite.Run old = site.check();
        assertEquals(1, old.status(), old::toString);
        assertTrue(old.err().contains(site.display("site.yml") + ":2:1: error: site settings: postgres.versions: '13' is not a PostgreSQL major version "
                + "Kensho checks on (14–18)"), old::toString);
        site.page("site.yml", "postgres:\n  versions: [18]\n").page("a.md", TestSite.source("A", "\n```sql versions=\"15-\"\nSELECT 1;\n```\n"));
        TestSite.Run badFence = site.check();
        assertEquals(1, badFence.status(), badFence::toString);
        assertTrue(badFence.err().contains(site.display("a.md") + ":5:1: error: versions=\"15-\": write versions=\">=17\", \"<=16\", \"15-17\" or \"15,16\" (PostgreSQL 14–18)"),
                badFence::toString);
        site.page("a.md", TestSite.source("A", "\n```sql versions=\"<=16\"\nSELECT 1;\n```\n"));
        TestSite.Run outside = site.check();
        assertEquals(1, outside.status(), outside::toString);
        assertTrue(outside.err().contains(site.display("a.md") + ":6:1: error: versions=\"<=16\" names none of the versions this site checks "
                + "(PostgreSQL 18, site.yml postgres.versions)"), outside::toString);
    }

    /**
     * PostgreSQL 17 drops a filter the table's NOT NULL already guarantees (a real plan change between versions): the
     * page shows 16's plan with its Filter and 17's and 18's, the same, once under "17, 18"; a plan every version
     * shares is shown once, naming them.
     */
    @Test
    void aPlanThatDiffersBetweenVersionsIsShownForEachAndOneThatDoesNotOnceNamingThem() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "postgres:\n  versions: [16, 17, 18]\n")
                .page("a.md", TestSite.source("A", "\n```sql\nCREATE TABLE t (id int NOT NULL, v int);\nINSERT INTO t VALUES (1, 10), (2, 20);\n```\n\n"
                        + "```sql explain\nSELECT v FROM t WHERE id IS NOT NULL;\n```\n\n"
                        + "```sql explain\nSELECT v FROM t WHERE v > 10;\n```\n"));
        TestSite.Run run = site.build("--jobs", "3");
        assertEquals(0, run.status(), run::toString);
        org.jsoup.nodes.Document html = org.jsoup.Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        org.jsoup.select.Elements figures = html.select("figure.code-block");
        org.jsoup.nodes.Element differs = figures.get(1);
        assertEquals("主張は検証したすべての版で成り立ちました。下の行は PostgreSQL 18.6 の実行のものです。プランは版によって異なったため、版ごとに示します。",
                differs.select(".evidence-version").text());
        assertEquals(List.of("PostgreSQL 16（時間・バッファ数・ヒープ読み取り数は 16.10 の実行のもの）", "PostgreSQL 17, 18（時間・バッファ数・ヒープ読み取り数は 18.6 の実行のもの）"),
                differs.select("details.evidence-plan-version > summary").eachText());
        assertEquals(List.of("Seq Scan on public.t  (actual time=T rows=2.00 loops=1)\n  Filter: (t.id IS NOT NULL)\n  Buffers: shared hit=1",
                        "Seq Scan on public.t  (actual time=T rows=2.00 loops=1)\n  Buffers: shared hit=1"),
                differs.select("details.evidence-plan-version pre.plan").stream().map(p -> untimed(p.wholeText())).toList());
        assertTrue(differs.select(".evidence-plan-same").isEmpty(), differs::toString);
        org.jsoup.nodes.Element same = figures.get(2);
        assertEquals("主張は検証したすべての版で成り立ちました。下の行とプランは PostgreSQL 18.6 の実行のものです。", same.select(".evidence-version").text());
        assertEquals("PostgreSQL 16–18 で同じプランでした。時間・バッファ数・ヒープ読み取り数は 18.6 の実行のものです。", same.select(".evidence-plan-same").text());
        assertEquals(List.of("Seq Scan on public.t  (actual time=T rows=1.00 loops=1)\n  Filter: (t.v > 10)\n  Rows Removed by Filter: 1\n  Buffers: shared hit=1"),
                same.select("pre.plan").stream().map(p -> untimed(p.wholeText())).toList());
        assertTrue(same.select("details.evidence-plan-version").isEmpty(), same::toString);
    }

    /**
     * What a claim was checked for can differ between versions: 14 does not report its parse of a PREPAREd statement's
     * query (its PREPARE analyses it without debug_print_parse), so the order a parameterised query promises cannot be
     * known there and its rows are compared as the server returned them; 18 compares them in order, ties in any order.
     * The page lists each version's claims, not 18's as if 14 had read the ORDER BY too.
     */
    @Test
    void claimsCheckedDifferentlyOnTwoVersionsAreListedForEach() throws Exception {
        TestSite site = new TestSite(temp)
                .page("site.yml", "postgres:\n  versions: [14, 18]\n")
                .page("a.md", TestSite.source("A", "\n```sql\nCREATE TABLE t (id int, v int);\nINSERT INTO t VALUES (1, 10), (2, 20);\n```\n\n"
                        + "```sql $1:integer=0\nSELECT id FROM t WHERE v > $1 ORDER BY id DESC;\n```\n\n"
                        + "```rows\n id\n----\n  2\n  1\n(2 rows)\n```\n"));
        TestSite.Run run = site.build("--jobs", "2");
        assertEquals(0, run.status(), run::toString);
        org.jsoup.nodes.Document html = org.jsoup.Jsoup.parse(Files.readString(site.out.resolve("a/index.html")));
        org.jsoup.nodes.Element ordered = html.select("figure.code-block").get(1);
        assertEquals("確かめた内容は版によって異なりました（サーバーが文について報告した内容が異なったため）。版ごとの内容：",
                ordered.select(".evidence-claims-differ").text());
        assertEquals(List.of("PostgreSQL 14 では", "PostgreSQL 18 では"), ordered.select("details.evidence-claims-version > summary").eachText());
        assertEquals(List.of("[エラーなく最後まで実行できる（文 1 個）, 下の表の 2 行をそのまま返す（文が約束する順序をサーバーの報告から読めなかったので、サーバーが返した順に比較）]",
                        "[エラーなく最後まで実行できる（文 1 個）, 下の表の 2 行をそのまま返す（サーバーが解析したクエリに ORDER BY があるので順序も比較。"
                                + "ORDER BY のキーがすべて等しい行どうしは順不同）]"),
                ordered.select("details.evidence-claims-version").stream()
                .map(d -> d.select("li").eachText().toString()).toList());
        // A snippet checked alike on both lists its claims once.
        assertTrue(html.select("figure.code-block").get(0).select(".evidence-claims-version").isEmpty());
    }

    /** A plan's text with its timings, which change from run to run, written T. */
    private static String untimed(String plan) {
        return plan.replaceAll("time=[0-9.]+\\.\\.[0-9.]+", "time=T").replaceAll("\\nExecution Time: [0-9.]+ ms", "");
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }
}
