package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A page that draws from chance runs a second time, and a claim that held on one draw but not the other fails at its
 * line ({@link SecondDraw}). A lucky claim of probability ½ passes the build's run half the time and is then caught half
 * the time: each test builds its page until the catch comes (40 tries: missed by chance with probability 0.75⁴⁰ ≈ 10⁻⁵),
 * and asserts that every other try ended in one of the two ways a single honest draw can end.
 */
class SecondDrawTest extends VerifierFixture {

    private static final String HEADS = " heads \n-------\n t\n(1 row)\n";

    private static String message(String drawn) {
        return "this held on the build's run but not on a second run of the page on a fresh database: the page draws from "
                + "chance (" + drawn + "), and a reader's run draws again; claim only what holds on every draw, or fix the draw "
                + "(setseed() before random(), TABLESAMPLE … REPEATABLE)";
    }

    /**
     * Builds the page until its last snippet fails for chance, and returns that outcome; every other build either passed
     * (both draws gave heads) or failed on the build's own draw, with the rows' difference.
     */
    /** A page to build again on every try. */
    private interface Page {
        TestPage build() throws Exception;
    }

    private static Outcome caught(Page page) throws Exception {
        return caught(page, "this held on the build's run");
    }

    private static Outcome caught(Page page, String start) throws Exception {
        return caught(verifier, page, start);
    }

    private static Outcome caught(Verifier verifier, Page page, String start) throws Exception {
        for (int attempt = 0; attempt < 40; attempt++) {
            int before = verifier.secondDraws();
            PageResult result = page.build().run();
            Outcome last = result.outcomes().get(result.outcomes().size() - 1);
            for (int i = 0; i < result.outcomes().size() - 1; i++) {
                assertPassed(result.outcomes().get(i));
            }
            if (last.failure() == null) {
                assertEquals(before + 1, verifier.secondDraws(), "a page that passed its draw runs again");
                continue;
            }
            if (last.failure().message().startsWith(start)) {
                assertEquals(before + 1, verifier.secondDraws());
                return last;
            }
            // The build's own draw failed the claim: its rows differ, or the statement failed (a CHECK it broke).
            assertTrue(!last.failure().message().startsWith("this held") && !last.failure().message().startsWith("the rows this"),
                    () -> "failed otherwise: " + last.failure());
            // Runs again only when a snippet before the failed one passed (it may have held by chance too).
            assertEquals(before + (result.outcomes().size() > 1 ? 1 : 0), verifier.secondDraws());
        }
        fail("no build in 40 caught the claim that holds on half the draws");
        return null;
    }

    @Test
    void aClaimThatHoldsOnHalfTheDrawsFailsAtItsLineWhenTheSecondDrawDisagrees() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "SELECT random() < 0.5 AS heads;", HEADS));
        assertEquals(message("random() at " + outcome.snippet().location()), outcome.failure().message());
        assertEquals("page.md:1:1", outcome.failure().location().toString());
        assertTrue(outcome.failure().detail().startsWith("on the second run: "), outcome.failure().detail());
        assertTrue(outcome.failure().detail().contains("f"), outcome.failure().detail());
    }

    /**
     * SQL built at run time hides the call from the text: the server's tree of the dynamic statement names random() by its
     * OID, and the claim on the table it filled fails where it stands, naming where the draw was.
     */
    @Test
    void aDrawHiddenInDynamicSqlIsReadFromTheServersTrees() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin AS SELECT %s() < 0.5 AS heads', 'ran' || 'dom'); END $$;")
                .add("", "SELECT heads FROM coin;", HEADS));
        assertEquals(message("random() at page.md:1:1"), outcome.failure().message());
        assertEquals("page.md:5:1", outcome.failure().location().toString());
    }

    /**
     * A column's default built at run time: the CREATE's raw tree names the function by its spelling, the INSERT's
     * rewritten tree calls it by OID. The draw is found at the CREATE (the page's first), the claim fails where it stands.
     */
    @Test
    void aDrawInAColumnsDefaultIsFoundWhereTheInsertRunsIt() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin (heads boolean DEFAULT %s() < 0.5)', 'ran' || 'dom');"
                        + " END $$;")
                .add("", "INSERT INTO coin DEFAULT VALUES;")
                .add("", "SELECT heads FROM coin;", HEADS));
        assertEquals(message("random() at page.md:1:1"), outcome.failure().message());
        assertEquals("page.md:9:1", outcome.failure().location().toString());
    }

    /**
     * Rows shown with {@code result} are the build's, inside its mark: a draw the second run does not repeat fails at the
     * snippet, saying what the second run gave; rows every draw gives pass.
     */
    @Test
    void rowsShownFromADrawFailWhenTheSecondDrawShowsOthers() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("result", "SELECT random() < 0.5 AS heads;"), "the rows this snippet shows");
        assertEquals("the rows this snippet shows (result) differ on a second run of the page on a fresh database: the page "
                + "draws from chance (random() at page.md:1:1), and a reader's run draws again; show only rows every draw "
                + "gives, or fix the draw (setseed() before random(), TABLESAMPLE … REPEATABLE)", outcome.failure().message());
        String first = outcome.results().get(0).rows().get(0).get(0);
        assertEquals("on the build's run: " + first + "; on the second run: " + (first.equals("t") ? "f" : "t"),
                outcome.failure().detail());

        PageResult seeded = page().add("result", "SELECT setseed(0.25) IS NULL AS seeded, random() < 0.5 AS heads;").run();
        assertTrue(seeded.passed(), () -> String.valueOf(seeded.outcomes()));
    }

    /**
     * An allowed extension's function (pgcrypto's gen_random_bytes) has an OID of its own, the same in every page's
     * database (copied from the template): called through SQL built at run time, it is found by that OID.
     */
    @Test
    void anExtensionsDrawHiddenInDynamicSqlIsFoundByItsOid() throws Exception {
        try (Verifier withPgcrypto = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10),
                Duration.ofSeconds(60), 1L << 30, List.of("pgcrypto", "tablefunc")))) {
            Outcome outcome = caught(withPgcrypto, () -> TestPage.on(withPgcrypto)
                    .add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin AS SELECT "
                            + "get_byte(%s(1), 0) < 128 AS heads', 'gen_random' || '_bytes'); END $$;")
                    .add("", "SELECT heads FROM coin;", HEADS), "this held on the build's run");
            assertEquals(message("gen_random_bytes() at page.md:1:1"), outcome.failure().message());
            assertEquals("page.md:5:1", outcome.failure().location().toString());
            // tablefunc's normal_rand(), named in the text (red team helper-90)
            Outcome normal = caught(withPgcrypto, () -> TestPage.on(withPgcrypto)
                    .add("", "SELECT x > 0 AS heads FROM normal_rand(1, 0, 1) AS x;", HEADS), "this held on the build's run");
            assertEquals(message("normal_rand() at page.md:1:1"), normal.failure().message());
            // …and through SQL built at run time: any volatile function of an allowed extension, by its OID
            Outcome hidden = caught(withPgcrypto, () -> TestPage.on(withPgcrypto)
                    .add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin AS SELECT x > 0 AS heads FROM %s(1, 0, 1) x', "
                            + "'normal' || '_rand'); END $$;")
                    .add("", "SELECT heads FROM coin;", HEADS), "this held on the build's run");
            assertEquals(message("normal_rand() at page.md:1:1"), hidden.failure().message());
        }
    }

    /**
     * Chance the parse trees name only by spelling or through an operator (red team helper-89): an operator made on
     * random(int, int), found where it is called, and a CHECK constraint built at run time, found where it is made.
     */
    @Test
    void drawsMadeByOperatorsAndConstraintsAreFoundWhereTheyAreMade() throws Exception {
        Outcome operator = caught(() -> page()
                .add("", "CREATE OPERATOR <?> (FUNCTION = random, LEFTARG = integer, RIGHTARG = integer);")
                .add("", "SELECT (0 <?> 1) = 1 AS heads;", HEADS));
        // The failing snippet's own draw: the operator's function, by OID (:opfuncid).
        assertEquals(message("random() at page.md:5:1"), operator.failure().message());
        assertEquals("page.md:5:1", operator.failure().location().toString());

        // An aggregate whose state function is random(int, int): the CREATE's raw tree spells it, the call shows only the
        // aggregate's own OID.
        Outcome aggregate = caught(() -> page()
                .add("", "CREATE AGGREGATE coin_agg(integer) (SFUNC = random, STYPE = integer, INITCOND = '0');")
                .add("", "SELECT coin_agg(1) = 1 AS heads;", HEADS));
        assertEquals(message("random() at page.md:1:1"), aggregate.failure().message());

        Outcome check = caught(() -> page()
                .add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin (x int CHECK (%s() < 0.5))', 'ran' || 'dom'); END $$;")
                .add("", "INSERT INTO coin VALUES (1);"), "this held on the build's run");
        assertEquals(message("random() at page.md:1:1"), check.failure().message());
        assertEquals("page.md:5:1", check.failure().location().toString(), "the INSERT the CHECK refused on the second run");
        assertEquals("on the second run: new row for relation \"coin\" violates check constraint \"coin_check\"",
                check.failure().detail());
    }

    /**
     * With check_function_bodies off, a SQL function's body is parsed unreported where the server inlines it: the page
     * is taken to draw (a second run) however it spells the setting; ANALYZE samples large tables at random.
     */
    @Test
    void pagesThatHideBodiesOrSampleTablesRunTwice() throws Exception {
        int before = verifier.secondDraws();
        PageResult unparsed = page().add("", "SET check_function_bodies = off;")
                .add("", "SELECT 1 AS one;", " one \n-----\n   1\n(1 row)\n").run();
        assertTrue(unparsed.passed(), () -> String.valueOf(unparsed.outcomes()));
        assertEquals(before + 1, verifier.secondDraws());
        PageResult analyzed = page().add("", "CREATE TABLE t AS SELECT g FROM generate_series(1, 10) g; ANALYZE t;")
                .add("", "SELECT count(*) AS n FROM t;", " n  \n----\n 10\n(1 row)\n").run();
        assertTrue(analyzed.passed(), () -> String.valueOf(analyzed.outcomes()));
        assertEquals(before + 2, verifier.secondDraws());
    }

    /** A snippet that draws itself is named as the draw, not the page's first (which may hold on every draw). */
    @Test
    void theFailingSnippetsOwnDrawIsNamed() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "SELECT random() BETWEEN 0 AND 1 AS heads;", HEADS)
                .add("result", "SELECT random() < 0.5 AS coin;"), "the rows this snippet shows");
        assertEquals("page.md:5:1", outcome.failure().location().toString());
        assertTrue(outcome.failure().message().contains("(random() at page.md:5:1)"), outcome.failure().message());
        String first = outcome.results().get(0).rows().get(0).get(0);
        assertEquals("on the build's run: " + first + "; on the second run: " + (first.equals("t") ? "f" : "t"),
                outcome.failure().detail());
    }

    /**
     * A plan claim that names the catalog is answered on a replay of its own; on a page that draws, the replay's own plan
     * of the snippet is judged too (red team helper-89: an index used on 100,000 rows and not on 10, the count drawn).
     */
    @Test
    void aPlanClaimThatHoldsOnOneDrawFailsOnTheReplaysOwnPlan() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "CREATE TABLE t (x int); INSERT INTO t SELECT g FROM generate_series(1, CASE WHEN "
                        + "random() < 0.5 THEN 10 ELSE 100000 END) g; CREATE INDEX t_x ON t (x); ANALYZE t;")
                .add("uses-index=t_x", "SELECT x FROM t WHERE x = 5;"), "this plan claim held on the build's run");
        assertEquals("this plan claim held on the build's run but not on a replay of the page on a fresh database: the "
                + "page draws from chance (random() at page.md:1:1), and a reader's run draws again; claim only what holds on "
                + "every draw, or fix the draw (setseed() before random(), TABLESAMPLE … REPEATABLE)", outcome.failure().message());
        assertEquals("page.md:5:1", outcome.failure().location().toString());
        assertTrue(outcome.failure().detail().startsWith("on the replay: plan assertion failed: uses index t_x: the plan "
                + "uses no index public.t_x; it scans with Seq Scan on t"), outcome.failure().detail());
    }

    /**
     * What differs between any two runs without chance stays unflagged on a page that draws (red team helper-90): an
     * EXPLAIN ANALYZE's timings shown after an ANALYZE, a clock value shown beside a draw.
     */
    @Test
    void timingsAndTheClockShownOnAPageThatDrawsAreNotTakenForChance() throws Exception {
        int before = verifier.secondDraws();
        PageResult explained = page().add("", "CREATE TABLE t AS SELECT g FROM generate_series(1, 10) g; ANALYZE t;")
                .add("result", "EXPLAIN (ANALYZE) SELECT * FROM t;").run();
        assertTrue(explained.passed(), () -> String.valueOf(explained.outcomes()));
        PageResult clock = page().add("", "SELECT random() BETWEEN 0 AND 1 AS heads;", HEADS)
                .add("result", "SELECT clock_timestamp()::text AS t;").run();
        assertTrue(clock.passed(), () -> String.valueOf(clock.outcomes()));
        assertEquals(before + 2, verifier.secondDraws(), "both pages draw, and ran twice");
    }

    /** The clock read afresh in a statement is a draw: its microseconds are a coin (red team helper-90). */
    @Test
    void theClocksMicrosecondsAreADraw() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "SELECT extract(microseconds FROM clock_timestamp())::bigint % 2 = 0 AS heads;", HEADS));
        assertEquals(message("clock_timestamp() at page.md:1:1"), outcome.failure().message());
    }

    /** Shown rows compare as the reader's run is compared: in order only where the statement promises one. */
    @Test
    void shownRowsCompareAsAMultisetWhereNoOrderIsPromised() throws Exception {
        dev.kensho.sqlchecks.model.Snippet snippet = dev.kensho.sqlchecks.model.Snippet.of(
                new dev.kensho.sqlchecks.model.SourceLocation("page.md", 1, 1), "SELECT g FROM big;");
        java.util.function.BiFunction<dev.kensho.sqlchecks.model.RowOrder, List<List<String>>, Outcome> run = (order, rows) ->
                new Outcome(snippet, Outcome.Status.PASSED, null, List.of(new dev.kensho.sqlchecks.model.ResultTable("SELECT g FROM big",
                        List.of("g"), List.of("int4"), rows, rows.size(), order)), List.of(), null, null, Duration.ZERO);
        var unordered = dev.kensho.sqlchecks.model.RowOrder.unordered("no ORDER BY");
        var sorted = dev.kensho.sqlchecks.model.RowOrder.sortedOnHiddenKey("ORDER BY");
        assertTrue(SecondDraw.sameRows(run.apply(unordered, List.of(List.of("1"), List.of("2"))),
                run.apply(unordered, List.of(List.of("2"), List.of("1")))));
        assertTrue(!SecondDraw.sameRows(run.apply(sorted, List.of(List.of("1"), List.of("2"))),
                run.apply(sorted, List.of(List.of("2"), List.of("1")))));
        assertTrue(!SecondDraw.sameRows(run.apply(unordered, List.of(List.of("1"), List.of("1"))),
                run.apply(unordered, List.of(List.of("1"), List.of("2")))));
        // Ties in any order, as a reader's run is compared; the keys' order still counts.
        var byFirst = dev.kensho.sqlchecks.model.RowOrder.sorted(List.of(0), List.of(96L), "ORDER BY g");
        List<List<String>> ab = List.of(List.of("1", "a"), List.of("1", "b"), List.of("2", "c"));
        List<List<String>> ba = List.of(List.of("1", "b"), List.of("1", "a"), List.of("2", "c"));
        assertTrue(SecondDraw.sameRows(run.apply(byFirst, ab), run.apply(byFirst, ba)));
        // Rows of both runs come sorted on the same keys: the same multiset means the same key sequence.
        assertTrue(!SecondDraw.sameRows(run.apply(byFirst, ab), run.apply(byFirst,
                List.of(List.of("1", "a"), List.of("1", "a"), List.of("2", "c")))));
        // NULL is no text, not even U+0001's.
        java.util.List<String> nullCell = new java.util.ArrayList<>();
        nullCell.add(null);
        assertTrue(!SecondDraw.sameRows(run.apply(unordered, List.of(nullCell)), run.apply(unordered, List.of(List.of("\u0001")))));
    }

    /**
     * How each kind of second-run ending is judged (reviews helper-91, helper-92): a difference before the page's first
     * draw fails without blaming chance; Kensho's stop of the second run fails the first claim from the first draw on as
     * one that cannot be checked (a page may make its time depend on a draw); a page's own cancel (57014) is its outcome;
     * a snippet failed already keeps its reason; an exercise's waiting case does not end the comparison.
     */
    @Test
    void eachEndingOfTheSecondRunIsJudgedForWhatItIs() {
        dev.kensho.sqlchecks.model.Snippet a = dev.kensho.sqlchecks.model.Snippet.of(
                new dev.kensho.sqlchecks.model.SourceLocation("page.md", 1, 1), "SELECT 1;");
        dev.kensho.sqlchecks.model.Snippet b = dev.kensho.sqlchecks.model.Snippet.of(
                new dev.kensho.sqlchecks.model.SourceLocation("page.md", 5, 1), "SELECT random() < 2;");
        java.util.function.BiFunction<dev.kensho.sqlchecks.model.Snippet, dev.kensho.sqlchecks.model.Failure, Outcome> outcome =
                (snippet, failure) -> new Outcome(snippet, failure == null ? Outcome.Status.PASSED : Outcome.Status.FAILED,
                        failure, List.of(), List.of(), null, null, Duration.ZERO);
        dev.kensho.sqlchecks.model.Failure differs = new dev.kensho.sqlchecks.model.Failure("rows differ", null, a.location(),
                a.sql(), null, null);
        List<Outcome> real = List.of(outcome.apply(a, null), outcome.apply(b, null));
        List<Outcome> secondFailsA = java.util.Arrays.asList(outcome.apply(a, differs), null);

        assertEquals("this held on the build's run but not on a second run of the page on a fresh database, before any draw "
                + "of the page's (the page draws from chance at random() at page.md:5:1): what it shows differs from run to "
                + "run, and a reader's run is a run too", SecondDraw.judged(real, real, secondFailsA,
                java.util.Map.of(1, "random() at page.md:5:1"), false).get(0).failure().message());
        assertEquals(message("random() at page.md:1:1"), SecondDraw.judged(real, real, secondFailsA,
                java.util.Map.of(0, "random() at page.md:1:1"), false).get(0).failure().message());

        dev.kensho.sqlchecks.model.Failure stopped = new dev.kensho.sqlchecks.model.Failure("Kensho stopped the page before "
                + "this snippet: its snippets ran longer than 60 s", null, a.location(), a.sql(), null, null);
        List<Outcome> stoppedAtA = SecondDraw.judged(real, real, java.util.Arrays.asList(outcome.apply(a, stopped), null),
                java.util.Map.of(1, "random() at page.md:5:1"), false);
        assertNull(stoppedAtA.get(0).failure(), "before the first draw");
        assertEquals("this claim cannot be checked: the page draws from chance (random() at page.md:5:1), so it runs a second "
                + "time, and that run did not reach this snippet as the build's did (Kensho stopped the page before this "
                + "snippet: its snippets ran longer than 60 s)", stoppedAtA.get(1).failure().message());

        // A page's own cancel (a statement_timeout it set, a RAISE with 57014) is the page's outcome, not Kensho's stop.
        dev.kensho.sqlchecks.model.Failure cancelled = new dev.kensho.sqlchecks.model.Failure("Kensho stopped the page: "
                + "canceling statement due to statement timeout", "57014", a.location(), a.sql(), null, null);
        assertEquals(message("random() at page.md:1:1"), SecondDraw.judged(real, real, java.util.Arrays.asList(
                outcome.apply(a, cancelled), null), java.util.Map.of(0, "random() at page.md:1:1"), false).get(0).failure().message());

        List<Outcome> into = List.of(outcome.apply(a, differs), outcome.apply(b, null));
        assertEquals(into, SecondDraw.judged(real, into, secondFailsA, java.util.Map.of(0, "random() at page.md:1:1"), false),
                "a failure of its own stays");

        // An exercise's case between: the second run leaves it waiting, as the real run does, and goes on.
        dev.kensho.sqlchecks.model.Snippet tie = dev.kensho.sqlchecks.model.Snippet.of(
                new dev.kensho.sqlchecks.model.SourceLocation("page.md", 3, 1), "INSERT INTO t VALUES (1);")
                .with(new dev.kensho.sqlchecks.model.Directives(false, false, null, null, List.of(), null, false, false, "tie"), null);
        dev.kensho.sqlchecks.model.Failure tails = new dev.kensho.sqlchecks.model.Failure("rows differ", null, b.location(),
                b.sql(), null, null);
        List<Outcome> withCase = List.of(outcome.apply(a, null), CaptureRun.caseWaiting(tie), outcome.apply(b, null));
        List<Outcome> caught = SecondDraw.judged(withCase, withCase, List.of(outcome.apply(a, null), CaptureRun.caseWaiting(tie),
                outcome.apply(b, tails)), java.util.Map.of(2, "random() at page.md:5:1"), false);
        assertEquals(message("random() at page.md:5:1"), caught.get(2).failure().message());
    }

    /** now()'s microseconds are a coin like clock_timestamp()'s: a page reading the clock runs twice (red team helper-92). */
    @Test
    void theClockOfTheTransactionIsADrawToo() throws Exception {
        Outcome outcome = caught(() -> page()
                .add("", "SELECT extract(microseconds FROM now())::bigint % 2 = 0 AS heads;", HEADS));
        assertEquals(message("the clock at page.md:1:1"), outcome.failure().message());
    }

    /** Claims true on every draw pass both runs; a page without chance runs once; a sample counts as a draw. */
    @Test
    void claimsTrueOnEveryDrawPassAndOnlyPagesThatDrawRunTwice() throws Exception {
        int before = verifier.secondDraws();
        PageResult always = page().add("", "SELECT random() BETWEEN 0 AND 1 AS within, count(DISTINCT gen_random_uuid()) AS uuids"
                        + " FROM generate_series(1, 3);", " within | uuids \n--------+-------\n t      |     3\n(1 row)\n").run();
        assertTrue(always.passed(), () -> String.valueOf(always.outcomes()));
        assertEquals(before + 1, verifier.secondDraws());

        PageResult steady = page().add("", "SELECT 1 + 1 AS two;", " two \n-----\n   2\n(1 row)\n").run();
        assertTrue(steady.passed(), () -> String.valueOf(steady.outcomes()));
        assertEquals(before + 1, verifier.secondDraws(), "a page without chance runs once");

        PageResult sampled = page().add("", "CREATE TABLE t AS SELECT g FROM generate_series(1, 100) g;")
                .add("", "SELECT count(*) <= 100 AS at_most FROM t TABLESAMPLE BERNOULLI (50);",
                        " at_most \n---------\n t\n(1 row)\n").run();
        assertTrue(sampled.passed(), () -> String.valueOf(sampled.outcomes()));
        assertEquals(before + 2, verifier.secondDraws(), "TABLESAMPLE draws");
    }

    /** The build's own failure stays its own: a page none of whose snippets passed is not run again. */
    @Test
    void aPageThatFailedItsOwnDrawIsNotRunAgain() throws Exception {
        int before = verifier.secondDraws();
        PageResult result = page().add("", "SELECT random() > 2 AS impossible;", " impossible \n------------\n t\n(1 row)\n").run();
        assertTrue(result.outcomes().get(0).failure() != null);
        String message = result.outcomes().get(0).failure().message();
        assertTrue(!message.startsWith("this held"), message);
        assertEquals(before, verifier.secondDraws());
    }
}
