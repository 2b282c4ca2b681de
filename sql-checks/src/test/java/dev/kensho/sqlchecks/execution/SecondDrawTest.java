package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    private static Outcome caught(Supplier<TestPage> page) {
        return caught(page, "this held on the build's run");
    }

    private static Outcome caught(Supplier<TestPage> page, String start) {
        for (int attempt = 0; attempt < 40; attempt++) {
            int before = verifier.secondDraws();
            PageResult result = page.get().run();
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
            assertTrue(last.failure().message().contains("missing") || last.failure().detail() != null
                    && last.failure().detail().contains("missing"), () -> "failed otherwise: " + last.failure());
            // Runs again only when a snippet before the failed one passed (it may have held by chance too).
            assertEquals(before + (result.outcomes().size() > 1 ? 1 : 0), verifier.secondDraws());
        }
        fail("no build in 40 caught the claim that holds on half the draws");
        return null;
    }

    @Test
    void aClaimThatHoldsOnHalfTheDrawsFailsAtItsLineWhenTheSecondDrawDisagrees() {
        Outcome outcome = caught(() -> {
            try {
                return page().add("", "SELECT random() < 0.5 AS heads;", HEADS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
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
    void aDrawHiddenInDynamicSqlIsReadFromTheServersTrees() {
        Outcome outcome = caught(() -> {
            try {
                return page().add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin AS SELECT %s() < 0.5 AS heads', 'ran' || 'dom'); END $$;")
                        .add("", "SELECT heads FROM coin;", HEADS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(message("random() at page.md:1:1"), outcome.failure().message());
        assertEquals("page.md:5:1", outcome.failure().location().toString());
    }

    /**
     * A column's default built at run time: the CREATE's raw tree names the function only by its spelling, the INSERT's
     * rewritten tree calls it by OID. The draw is found at the INSERT.
     */
    @Test
    void aDrawInAColumnsDefaultIsFoundWhereTheInsertRunsIt() {
        Outcome outcome = caught(() -> {
            try {
                return page().add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE coin (heads boolean DEFAULT %s() < 0.5)', 'ran' || 'dom'); END $$;")
                        .add("", "INSERT INTO coin DEFAULT VALUES;")
                        .add("", "SELECT heads FROM coin;", HEADS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(message("random() at page.md:5:1"), outcome.failure().message());
        assertEquals("page.md:9:1", outcome.failure().location().toString());
    }

    /**
     * Rows shown with {@code result} are the build's, inside its mark: a draw the second run does not repeat fails at the
     * snippet, saying what the second run gave; rows every draw gives pass.
     */
    @Test
    void rowsShownFromADrawFailWhenTheSecondDrawShowsOthers() throws Exception {
        Outcome outcome = caught(() -> {
            try {
                return page().add("result", "SELECT random() < 0.5 AS heads;");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "the rows this snippet shows");
        assertEquals("the rows this snippet shows (result) differ on a second run of the page on a fresh database: the page "
                + "draws from chance (random() at page.md:1:1), and a reader's run draws again; show only rows every draw "
                + "gives, or fix the draw (setseed() before random(), TABLESAMPLE … REPEATABLE)", outcome.failure().message());
        String first = outcome.results().get(0).rows().get(0).get(0);
        assertEquals("on the second run: " + (first.equals("t") ? "f" : "t"), outcome.failure().detail());

        PageResult seeded = page().add("result", "SELECT setseed(0.25) IS NULL AS seeded, random() < 0.5 AS heads;").run();
        assertTrue(seeded.passed(), () -> String.valueOf(seeded.outcomes()));
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
        assertTrue(!result.outcomes().get(0).failure().message().startsWith("this held"), result.outcomes().get(0).failure().message());
        assertEquals(before, verifier.secondDraws());
    }
}
