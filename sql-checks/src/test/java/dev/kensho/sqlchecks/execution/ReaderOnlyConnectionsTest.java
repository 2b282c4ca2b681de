package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * During the real run the only connections to the page's database are the reader's (the page's session, a scenario's
 * sessions): whatever claim a fence carries, a later snippet reading the database's sessions, through a spelling no text
 * test sees, reads what the same page without the claim reads. Over every kind of claim a fence can carry, the counters
 * of {@code pg_stat_database} (sessions, xact_commit, xact_rollback, numbackends) and the other backends of
 * {@code pg_stat_activity} (count, application names) are the same, exactly.
 */
class ReaderOnlyConnectionsTest extends VerifierFixture {


    private static final String SETUP = "CREATE TABLE t (id int PRIMARY KEY, note text); "
            + "INSERT INTO t SELECT g, 'x' || g FROM generate_series(1, 2000) g; ANALYZE t;";
    private static final String QUERY = "SELECT note FROM t WHERE id = 7;";
    /**
     * Read last: the sleep lets every ended session and the page's own transactions reach the shared counters. The page's
     * database is new, so its counters start at zero: the values are the page's alone.
     */
    private static final String SESSIONS = "SELECT pg_sleep(1.1) IS NOT NULL AS slept; "
            + "SELECT sessions, xact_commit, xact_rollback, numbackends FROM U&\"pg\\005fstat_database\" WHERE datname = current_database(); "
            + "SELECT count(*) AS others, coalesce(string_agg(DISTINCT application_name, ','), '') AS names FROM U&\"pg\\005fstat_activity\""
            + " WHERE datname = current_database() AND pid <> pg_backend_pid();";

    /** A scenario whose b1 and c1 wait for a and are released at once, both inserting (the sequence question). */
    private static final String RELEASED_AT_ONCE = TestPage.releasedAtOnce("t", "(5001, 'b')", "(5002, 'c')");

    /** The same sessions and statements with no wait claimed: b waits for nothing it is told to. */
    private static final String RELEASED_UNCLAIMED = """
            session a
            setup { BEGIN; }
            step a1 { SELECT 1 AS one; }
            step a2 { COMMIT; }
            session b
            setup { BEGIN; }
            step b1 { INSERT INTO t VALUES (5001, 'b'); }
            step b2 { COMMIT; }
            session c
            setup { BEGIN; }
            step c1 { INSERT INTO t VALUES (5002, 'c'); }
            step c2 { COMMIT; }
            permutation a1 b1 c1 a2 b2 c2
            """;

    /** The middle snippet of a page: its fence's meta, its SQL (or scenario), its rows (or null). */
    private record Middle(String meta, String sql, String rows) {
    }

    private static PageResult page(Middle middle, boolean browserStates) throws Exception {
        List<Snippet> snippets = new ArrayList<>();
        snippets.add(Snippet.of(new SourceLocation("page.md", 1, 1), SETUP));
        Map<String, String> meta = new LinkedHashMap<>();
        for (String part : middle.meta().split(" ")) {
            if (!part.isBlank()) {
                int eq = part.indexOf('=');
                meta.put(eq < 0 ? part : part.substring(0, eq), eq < 0 ? "true" : part.substring(eq + 1));
            }
        }
        Snippet claim = Snippet.of(new SourceLocation("page.md", 5, 1), middle.sql())
                .with(Directives.parse(meta), middle.rows() == null ? null : ExpectedRows.parse(middle.rows()));
        snippets.add(middle.sql().startsWith("session ") ? claim.withScenario(ScenarioParser.parse(middle.sql())) : claim);
        snippets.add(Snippet.of(new SourceLocation("page.md", 30, 1), SESSIONS));
        PageResult result = verifier.verifyPage("page.md", snippets, browserStates);
        assertTrue(result.passed(), () -> middle + ": " + result.outcomes());
        return result;
    }

    /** What the last snippet read: the pg_stat_database row, then the pg_stat_activity row. */
    private static List<List<String>> read(Middle middle, boolean browserStates) throws Exception {
        Outcome last = page(middle, browserStates).outcomes().get(2);
        List<List<String>> read = new ArrayList<>(last.results().get(1).rows());
        read.addAll(last.results().get(2).rows());
        return read;
    }

    /**
     * Every claim a query's fence can carry (rows; each plan claim, those that ask the catalog for a name, an index's keys
     * or a table's TOAST size included; a shown plan) reads what the unclaimed query reads: the page's own session, one
     * backend, nothing else in the database; the plan claims still hold.
     */
    @Test
    void noClaimOnAQueryShowsAConnectionOfKenshosToTheSnippetsAfterIt() throws Exception {
        List<List<String>> bare = read(new Middle("", QUERY, null), true);
        // One session and one backend (the page's own: a session counts when it connects), no other backend in the database.
        // The nine commits are the page session's: its snippets', and Kensho's settings and checks made on it before the
        // first snippet, the same for every page.
        assertEquals(List.of(List.of("1", "9", "0", "1"), List.of("0", "")), bare);
        List<Middle> claims = List.of(
                new Middle("", QUERY, "note\n----\nx7"),
                new Middle("uses-index=t_pkey", QUERY, null),
                new Middle("uses-index=t_pkey no-seq-scan=t no-sort max-buffers=12 max-rows-removed=0", QUERY, null),
                new Middle("no-sort", "SELECT id FROM t WHERE id < 50 ORDER BY id;", null),
                new Middle("index-cond-contains=id", QUERY, null),
                new Middle("explain", QUERY, null));
        for (Middle claim : claims) {
            assertEquals(bare, read(claim, true), claim.toString());
        }
    }

    /**
     * A scenario whose claimed waits release two inserting steps at once (Kensho must know whether the database holds a
     * sequence) shows its three sessions and nothing of Kensho's: the same as its steps without the waits, and the same
     * whether or not the build records the scenario's end state for the browser (a capture run, on a database of its own).
     */
    @Test
    void aScenarioShowsItsOwnSessionsOnlyWhateverItClaims() throws Exception {
        // The page's session and the scenario's three; one backend left, the page's.
        List<List<String>> unclaimed = read(new Middle("", RELEASED_UNCLAIMED, null), false);
        assertEquals(List.of(List.of("4", "20", "0", "1"), List.of("0", "")), unclaimed);
        List<List<String>> claimed = read(new Middle("", RELEASED_AT_ONCE, null), false);
        assertEquals(unclaimed, claimed);
        assertEquals(claimed, read(new Middle("", RELEASED_AT_ONCE, null), true), "with the end state recorded");
    }

    /** An expected error adds the failed statement's rollback and nothing else: one commit fewer, one rollback more. */
    @Test
    void anExpectedErrorShowsOnlyItsOwnRollback() throws Exception {
        assertEquals(List.of(List.of("1", "9", "0", "1"), List.of("0", "")), read(new Middle("", "SELECT 1 / 1;", null), true));
        assertEquals(List.of(List.of("1", "8", "1", "1"), List.of("0", "")),
                read(new Middle("expect-error=22012", "SELECT 1 / 0;", null), true));
    }
}
