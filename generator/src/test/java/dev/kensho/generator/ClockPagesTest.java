package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pages whose SQL reads the clock keep their marks from the cache for the time site.yml allows and say when they were
 * verified; pages reading chance run on every build; CI and {@code cache: {clockPagesFor: 0}} run clock pages afresh.
 * The environment is the test's own, so that a CI variable of the machine running the tests changes nothing.
 */
class ClockPagesTest {

    @TempDir
    Path temp;

    private static final String CLOCK_PAGE = TestSite.source("Today", """

            ```sql
            SELECT current_date >= DATE '2000-01-01' AS after_y2k;
            ```
            """);
    private static final String CHANCE_PAGE = TestSite.source("Lucky", """

            ```sql
            SELECT random() < 1 AS below_one;
            ```
            """);
    private static final String FIXED_PAGE = TestSite.source("Fixed", """

            ```sql
            SELECT DATE '2000-01-01' AS y2k;
            ```
            """);

    private TestSite.Run build(TestSite site, Map<String, String> extraEnvironment) {
        List<String> args = new ArrayList<>(List.of("build", "--content", site.content.toString(), "--theme", TestSite.THEME.toString(),
                "--out", site.out.toString(), "--report", site.report.toString(), "--postgres", "embedded",
                "--cache", temp.resolve("cache").toString()));
        Map<String, String> environment = new HashMap<>(Map.of("XDG_CACHE_HOME", temp.resolve("xdg").toString(), "HOME", temp.toString()));
        environment.putAll(extraEnvironment);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), environment, args.toArray(String[]::new));
        return new TestSite.Run(status, out.toString(), err.toString());
    }

    private static final Pattern CHECKED_AT_JA = Pattern.compile(
            "このページの SQL は現在時刻（current_date）を読みます。検証項目は (\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC) の時点で確かめたもので、その時点で成り立っていました。");

    private String checkedAt(TestSite site, String page) throws Exception {
        Matcher found = CHECKED_AT_JA.matcher(Files.readString(site.out.resolve(page + "/index.html")));
        assertTrue(found.find(), "the clock page says when it was verified");
        return found.group(1);
    }

    private static final Pattern BUILT_AT_JA = Pattern.compile("は、(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC) のビルドで PostgreSQL");

    private String builtAt(TestSite site, String page) throws Exception {
        Matcher found = BUILT_AT_JA.matcher(Files.readString(site.out.resolve(page + "/index.html")));
        assertTrue(found.find(), "the page's footer says which build ran its SQL");
        return found.group(1);
    }

    @Test
    void aPageFromTheCacheNamesWhenItsSqlRanNotThisBuildsTime() throws Exception {
        // The build's own time is pinned to 1970 (as SOURCE_DATE_EPOCH would); the cache records when a page really ran.
        String pinned = System.getProperty("kensho.sourceDateEpoch");
        System.setProperty("kensho.sourceDateEpoch", "0");
        try {
            TestSite site = new TestSite(temp).page("fixed.md", FIXED_PAGE);
            assertEquals(0, build(site, Map.of()).status());
            assertEquals("1970-01-01 00:00 UTC", builtAt(site, "fixed"), "a page this build ran names this build's time");
            site.page("other.md", TestSite.source("Other", "\n```sql\nSELECT 2 AS two;\n```\n"));
            TestSite.Run second = build(site, Map.of());
            assertEquals(0, second.status(), second::toString);
            String cached = builtAt(site, "fixed");
            assertTrue(cached.matches("20\\d\\d-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC"), "the page from the cache names when its SQL ran: " + cached);
            assertEquals("1970-01-01 00:00 UTC", builtAt(site, "other"));
        } finally {
            if (pinned == null) {
                System.clearProperty("kensho.sourceDateEpoch");
            } else {
                System.setProperty("kensho.sourceDateEpoch", pinned);
            }
        }
    }

    @Test
    void aClockPageKeepsItsMarksFromTheCacheAndSaysWhenItWasVerifiedAndAChancePageIsReusedAsAnyPage() throws Exception {
        TestSite site = new TestSite(temp).page("today.md", CLOCK_PAGE).page("lucky.md", CHANCE_PAGE).page("fixed.md", FIXED_PAGE);
        TestSite.Run first = build(site, Map.of());
        assertEquals(0, first.status(), first::toString);
        String verifiedAt = checkedAt(site, "today");
        assertFalse(Files.readString(site.out.resolve("fixed/index.html")).contains("現在時刻"), "only a clock page says it");
        assertFalse(Files.readString(site.out.resolve("lucky/index.html")).contains("現在時刻"), "a draw has no moment to show");

        TestSite.Run second = build(site, Map.of());
        assertEquals(0, second.status(), second::toString);
        assertTrue(second.out().startsWith("Kensho: all 3 page(s) with SQL unchanged since PostgreSQL 18.6 verified them; "
                + "outcomes from the cache, no PostgreSQL server started"), second::toString);
        assertEquals(verifiedAt, checkedAt(site, "today"), "the clock page's evidence is the first build's run");
        JsonNode report = new ObjectMapper().readTree(site.report.toFile());
        assertEquals(3, report.get("totals").get("pagesFromCache").asInt());
    }

    @Test
    void inCiOrWithClockPagesForZeroTheClockPageRunsAgain() throws Exception {
        TestSite site = new TestSite(temp).page("today.md", CLOCK_PAGE).page("lucky.md", CHANCE_PAGE).page("fixed.md", FIXED_PAGE);
        assertEquals(0, build(site, Map.of()).status());

        TestSite.Run inCi = build(site, Map.of("CI", "true"));
        assertEquals(0, inCi.status(), inCi::toString);
        assertTrue(inCi.out().startsWith("Kensho: PostgreSQL 18.6 via embedded") && inCi.out().contains("; 1 unchanged page(s) from the cache; "
                + "2 page(s) that run read the clock or chance ("), "CI runs the clock and the chance page, the other comes from the cache: " + inCi);
        assertTrue(!checkedAt(site, "today").isEmpty());

        site.page("site.yml", "lang: en\ncache:\n  clockPagesFor: 0\n");
        TestSite.Run zero = build(site, Map.of());
        assertEquals(0, zero.status(), zero::toString);
        assertTrue(zero.out().startsWith("Kensho: PostgreSQL 18.6 via embedded") && zero.out().contains("; 2 unchanged page(s) from the cache; "
                + "1 page(s) that run read the clock or chance (current_date, …)"), zero::toString);
        assertTrue(Pattern.compile("SQL reads the clock \\(current_date\\): its claims were checked at "
                        + "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC and held at that moment\\.")
                .matcher(Files.readString(site.out.resolve("today/index.html"))).find(), "an English page says it in English");

        site.page("site.yml", "lang: en\ncache:\n  clockPagesFor: 6h\n");
        TestSite.Run sixHours = build(site, Map.of());
        assertTrue(sixHours.out().startsWith("Kensho: all 3 page(s) with SQL unchanged"), "verified under an hour ago: " + sixHours);
    }

    @Test
    void aClockPagesForLongerThanADayOrAnUnknownCacheKeyFailsAtItsLine() throws Exception {
        TestSite site = new TestSite(temp).page("fixed.md", FIXED_PAGE).page("site.yml", "title: T\ncache:\n  clockPagesFor: 2d\n");
        TestSite.Run tooLong = build(site, Map.of());
        assertEquals(1, tooLong.status(), tooLong::toString);
        assertTrue(tooLong.err().contains(site.display("site.yml") + ":3:1: error: site settings: cache takes clockPagesFor, a time of at most "
                + "a day such as 0, 30m, 6h or 1d (how long a page whose SQL reads the clock keeps its marks from the cache), not '2d'"),
                tooLong::toString);

        site.page("site.yml", "title: T\ncache:\n  clockPages: 1d\n");
        TestSite.Run unknown = build(site, Map.of());
        assertEquals(1, unknown.status(), unknown::toString);
        assertTrue(unknown.err().contains(site.display("site.yml") + ":2:1: error: site settings: cache takes clockPagesFor, a time of at most "
                + "a day such as 0, 30m, 6h or 1d (how long a page whose SQL reads the clock keeps its marks from the cache)\n"),
                unknown::toString);
    }
}
