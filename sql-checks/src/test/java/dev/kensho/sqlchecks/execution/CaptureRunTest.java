package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.model.StateAfter;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scenario's end state is read on a capture run of its own ({@link CaptureRun}), never in the real run: nothing the
 * page's later statements can observe (the statistics, the buffers' hint bits) is changed by the read, however the page
 * spells what it reads; and a state is kept only when the capture run reached the scenario as the real run did.
 */
class CaptureRunTest extends VerifierFixture {


    private static PageResult page(String... sql) throws Exception {
        List<Snippet> snippets = new java.util.ArrayList<>();
        for (int i = 0; i < sql.length; i++) {
            Snippet snippet = Snippet.of(new SourceLocation("page.md", 1 + 10 * i, 1), sql[i]);
            snippets.add(sql[i].startsWith("session ") ? snippet.withScenario(ScenarioParser.parse(sql[i])) : snippet);
        }
        return verifier.verifyPage("page.md", snippets);
    }

    /** a2 releases two inserting steps at once (b1, c1), no sequence named: the runner asks whether the database holds one. */
    private static final String RELEASED_INSERTS = TestPage.releasedAtOnce("orders", "('from b', 2)", "('from c', 3)");

    private static final String TWO_SESSIONS = """
            session a
            step a1 { INSERT INTO orders VALUES ('from a', 1.50); }
            session b
            step b1 { INSERT INTO orders VALUES ('from b', 2); }
            permutation a1 b1
            """;

    /** The database's counters, read before the scenario into a table (the page's own transactions flushed by the sleep). */
    private static final String BEFORE = "SELECT pg_sleep(1.1) IS NOT NULL AS slept; CREATE TABLE seen AS SELECT sessions, xact_commit,"
            + " xact_rollback FROM U&\"pg\\005fstat_database\" WHERE datname = current_database();";
    /** How they moved since: the sleep lets the scenario's ended sessions (and a reader's, if any) reach the shared counters. */
    private static final String AFTER = "SELECT pg_sleep(1.5) IS NOT NULL AS slept; SELECT d.sessions - s.sessions AS sessions,"
            + " d.xact_commit - s.xact_commit AS xact_commit, d.xact_rollback - s.xact_rollback AS xact_rollback, d.numbackends"
            + " FROM U&\"pg\\005fstat_database\" d, seen s WHERE d.datname = current_database();";

    /**
     * pg_stat_database, named so that no text test sees it (a U&amp; identifier), moves after a scenario only by what the
     * scenario's own sessions did: the same as on the same page whose text names pg_stat (which the build's old text
     * guard read as "read nothing"), and its state is still recorded. Before the capture run, the read beside the page's
     * session counted one session more (3), one rollback more and four commits more.
     */
    @Test
    void theStatisticsAfterAScenarioCountOnlyTheScenariosSessionsHoweverThePageNamesThem() throws Exception {
        String create = "CREATE TABLE orders (note text, amount numeric);";
        PageResult result = page(create, BEFORE, TWO_SESSIONS, AFTER);
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        PageResult named = page(create + " -- pg_stat", BEFORE, TWO_SESSIONS, AFTER);
        assertTrue(named.passed(), () -> String.valueOf(named.outcomes()));
        List<List<String>> moved = result.outcomes().get(3).results().get(1).rows();
        assertEquals(named.outcomes().get(3).results().get(1).rows(), moved);
        assertEquals("2", moved.get(0).get(0), "sessions: the scenario's two, no reader's");
        assertEquals("0", moved.get(0).get(2), "xact_rollback: no reader's rolled-back read");
        assertEquals("1", moved.get(0).get(3), "numbackends: the page's own session only");
        StateAfter after = result.outcomes().get(2).transcript().after();
        assertNotNull(after, "the state is recorded (on the capture run)");
        assertEquals(List.of(List.of("from a", "1.50"), List.of("from b", "2")), after.tables().get(0).rows());
    }

    /**
     * A step that returns the clock ends otherwise on the capture run than on the real run: what the capture run left is not
     * the real run's state, so none is recorded (the transcript's {@code after} stays null) and the snippets after the
     * scenario keep their "cannot run in the browser" note, as when nothing could be read.
     */
    @Test
    void aScenarioWhoseCaptureRunEndsOtherwiseRecordsNoState() throws Exception {
        String clock = TWO_SESSIONS.replace("step b1 { INSERT INTO orders VALUES ('from b', 2); }",
                "step b1 { INSERT INTO orders VALUES ('from b', 2); SELECT clock_timestamp()::text AS at; }");
        PageResult result = page("CREATE TABLE orders (note text, amount numeric);", clock, "SELECT count(*) AS n FROM orders;");
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        assertEquals(List.of(List.of("2")), result.outcomes().get(2).results().get(0).rows());
        assertNull(result.outcomes().get(1).transcript().after());
        // The same page without the clock has its state recorded and proven by the snippet after it.
        PageResult steady = page("CREATE TABLE orders (note text, amount numeric);", TWO_SESSIONS, "SELECT count(*) AS n FROM orders;");
        assertEquals(1, steady.outcomes().get(1).transcript().after().reproduced());
    }

    /**
     * A version the browser does not replay is checked without browser states (VerifierSettings.browserStates): the page's
     * outcomes are the real run's, its scenario has no state and no capture or proof run is made; the same page asked with
     * states has one, proven by the snippet after it.
     */
    @Test
    void aRunWithoutBrowserStatesReadsAndProvesNoState() throws Exception {
        List<Snippet> snippets = List.of(Snippet.of(new SourceLocation("page.md", 1, 1), "CREATE TABLE orders (note text, amount numeric);"),
                Snippet.of(new SourceLocation("page.md", 11, 1), TWO_SESSIONS).withScenario(ScenarioParser.parse(TWO_SESSIONS)),
                Snippet.of(new SourceLocation("page.md", 21, 1), "SELECT count(*) AS n FROM orders;"));
        PageResult without = verifier.verifyPage("page.md", snippets, false);
        assertTrue(without.passed(), () -> String.valueOf(without.outcomes()));
        assertEquals(List.of(List.of("2")), without.outcomes().get(2).results().get(0).rows());
        assertNull(without.outcomes().get(1).transcript().after());
        assertEquals(1, verifier.verifyPage("page.md", snippets, true).outcomes().get(1).transcript().after().reproduced());
        assertNull(verifier.verifyPage("page.md", snippets, VerifierSettings.DEFAULTS.withoutBrowserStates().browserStates())
                .outcomes().get(1).transcript().after());
    }

    /** A real run's outcome of the snippet at {@code line}: a scenario when its SQL says so, passed or failed. */
    private static dev.kensho.sqlchecks.model.Outcome ran(int line, String sql, boolean passed) throws Exception {
        Snippet snippet = Snippet.of(new SourceLocation("page.md", line, 1), sql);
        if (sql.startsWith("session ")) {
            snippet = snippet.withScenario(ScenarioParser.parse(sql));
        }
        return new dev.kensho.sqlchecks.model.Outcome(snippet, passed ? dev.kensho.sqlchecks.model.Outcome.Status.PASSED
                : dev.kensho.sqlchecks.model.Outcome.Status.FAILED, null, List.of(), List.of(), null, null, Duration.ZERO);
    }

    /**
     * Which scenarios pay for a capture run, told from the real run alone: those a verified snippet follows, through any
     * scenarios right after them (the browser restores each in its place); none before a failed snippet or after the last
     * verified one, none that ended inside the page's transaction.
     */
    @Test
    void theStatesWantedAreThoseOfScenariosAVerifiedSnippetFollows() throws Exception {
        List<dev.kensho.sqlchecks.model.Outcome> page = List.of(ran(1, "SELECT 1;", true), ran(2, TWO_SESSIONS, true),
                ran(3, TWO_SESSIONS, true), ran(4, "SELECT 2;", true), ran(5, TWO_SESSIONS, true), ran(6, "SELECT 3;", false),
                ran(7, "SELECT 4;", true), ran(8, TWO_SESSIONS, true), ran(9, "SELECT 5;", true), ran(10, TWO_SESSIONS, true));
        assertEquals(java.util.Set.of(1, 2, 7), CaptureRun.wanted(page, java.util.Set.of(1, 2, 4, 7, 9)));
        // The second of two scenarios ended inside the page's transaction: the first's state alone would not reach the SELECT.
        assertEquals(java.util.Set.of(7), CaptureRun.wanted(page, java.util.Set.of(1, 4, 7, 9)));
        assertEquals(java.util.Set.of(), CaptureRun.wanted(page.subList(0, 3), java.util.Set.of(1, 2)));
    }

    /**
     * Red team: two steps released at once that INSERT: the scenario runner asks on a connection of its own whether the
     * page's database has a sequence (ScenarioRunner.mayHaveSequences). That connection is Kensho's, not the reader's:
     * pg_stat_database must move by the scenario's three sessions only.
     */
    @Test
    void aScenarioReleasingTwoInsertsCountsOnlyItsOwnSessions() throws Exception {
        String released = RELEASED_INSERTS;
        PageResult result = page("CREATE TABLE orders (note text, amount numeric);", BEFORE, released, AFTER);
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        List<List<String>> moved = result.outcomes().get(3).results().get(1).rows();
        assertEquals("3", moved.get(0).get(0), "sessions: the scenario's three, no connection of Kensho's");
        assertEquals("1", moved.get(0).get(3), "numbackends: the page's own session only");
    }

    /**
     * Red team: a plan claim makes Kensho open a catalog connection of its own to the page's database (PlanCatalog); a
     * later snippet counting the database's backends must see the page's own session only.
     */
    @Test
    void aPlanClaimLeavesNoConnectionOfKenshosForLaterSnippets() throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("", "CREATE TABLE orders (id int PRIMARY KEY, note text); INSERT INTO orders SELECT g, 'x' FROM generate_series(1, 1000) g; ANALYZE orders;")
                .add("uses-index=orders_pkey", "SELECT note FROM orders WHERE id = 7;")
                .add("", "SELECT numbackends FROM U&\"pg\\005fstat_database\" WHERE datname = current_database();").run();
        assertTrue(result.passed(), () -> String.valueOf(result.outcomes()));
        assertEquals(List.of(List.of("1")), result.outcomes().get(2).results().get(0).rows(), "the page's own session only");
    }

    /**
     * A plan claim's names are resolved on the capture run, which must reach the claim as the real run did: after a snippet
     * whose rows differ on every run (the clock), the claim fails at its own line, saying why it could not be checked.
     */
    @Test
    void aPlanClaimTheReplayCannotReachAlikeFailsAtItsLine() throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("", "CREATE TABLE orders (id int PRIMARY KEY, note text); INSERT INTO orders SELECT g, 'x' FROM generate_series(1, 1000) g; ANALYZE orders;")
                .add("", "SELECT clock_timestamp() AS at;")
                .add("uses-index=orders_pkey", "SELECT note FROM orders WHERE id = 7;").run();
        var claim = result.outcomes().get(2);
        assertEquals("plan claims cannot be checked: the names and keys they rest on (uses-index=, no-seq-scan=, an index's keys, a "
                + "table's TOAST size) are read from the page's catalog on a replay of the page on a fresh database, never beside "
                + "the reader's statements, and the replay did not reach this snippet as the real run did (the snippet at "
                + "page.md:5:1 ended otherwise on the replay); make the snippets before it end the same on every run",
                claim.failure().message());
        assertEquals("page.md:9:1", claim.failure().location().toString());
        assertEquals(List.of(List.of("x")), claim.results().get(0).rows(), "the statement ran as written");
    }

    /**
     * Whether the database holds a sequence when a scenario releases two inserting steps at once is asked on the capture
     * run; after a snippet whose rows differ on every run it cannot be asked there, and the scenario fails at its line.
     */
    @Test
    void aReleaseWhoseSequenceQuestionTheReplayCannotReachFailsAtTheScenario() throws Exception {
        String released = RELEASED_INSERTS;
        PageResult result = page("CREATE TABLE orders (note text, amount numeric);", "SELECT clock_timestamp() AS at;", released);
        var scenario = result.outcomes().get(2);
        assertEquals("this scenario cannot be checked: it releases inserting steps at once, and whether the page's database then "
                + "held a sequence (whose numbers are drawn in wake order) is asked on a replay of the page on a fresh database, "
                + "never beside the reader's sessions; the replay did not reach the scenario as the real run did (the snippet at "
                + "page.md:11:1 ended otherwise on the replay)", scenario.failure().message());
        assertEquals("page.md:21:1", scenario.failure().location().toString());
    }

    /**
     * The database's session count, kept before the snippet that may make Kensho look. The sleep comes first, as a snippet of
     * its own, so that the page's own session, idle after it, has reached the counters on every run.
     */
    private static final String SETTLE = "SELECT pg_sleep(1.1) IS NOT NULL AS slept;";
    private static final String COUNT_SESSIONS = "CREATE TABLE seen AS SELECT sessions FROM pg_catalog.pg_stat_database"
            + " WHERE datname = current_database();";

    /**
     * A snippet whose output is the same on every run, but which runs {@code then} only when the database counted
     * {@code sessions} more sessions since {@link #COUNT_SESSIONS}: when no connection of Kensho's came in between, which is
     * the real run's case (the sleep lets an ended connection reach the counters).
     */
    private static String onlyWithoutKensho(int sessions, String then) {
        return "SELECT pg_sleep(1.5) IS NOT NULL AS slept; DO $$ BEGIN IF (SELECT d.sessions - s.sessions FROM"
                + " pg_catalog.pg_stat_database d, seen s WHERE d.datname = current_database()) = " + sessions + " THEN " + then
                + " END IF; END $$;";
    }

    /**
     * A page whose {@code claim} comes after a uses-index= claim (a look-up on a replay) and a snippet that runs
     * {@code onRealRunOnly} only where that look-up left no session behind: on the real run.
     */
    private static Outcome afterALookUp(String setup, String onRealRunOnly, String meta, String claim) throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("", SETTLE)
                .add("", CATALOG_READ_BEFORE + " " + setup + " " + COUNT_SESSIONS)
                .add("uses-index=docs_pkey", "SELECT v FROM docs WHERE id = 7;")
                .add("", onlyWithoutKensho(0, onRealRunOnly))
                .add(meta, claim).run();
        assertTrue(result.outcomes().get(2).passed(), () -> String.valueOf(result.outcomes().get(2)));
        return result.outcomes().get(4);
    }

    /** An index docs_v in the role's own schema, first on the default search_path ("$user", public): it shadows public.docs_v. */
    static final String SHADOW_DOCS_V = "EXECUTE format('CREATE SCHEMA %I', current_user);"
            + " EXECUTE format('CREATE TABLE %I.other (v int)', current_user);"
            + " EXECUTE format('CREATE INDEX docs_v ON %I.other (v)', current_user);";

    private static final String CATALOG_READ_BEFORE = "CREATE TABLE docs (id int PRIMARY KEY, v int, body text);"
            + " INSERT INTO docs SELECT g, g, 'x' FROM generate_series(1, 1000) g; ANALYZE docs;";

    /**
     * Red team: the look-up of an earlier claim (Kensho's catalog connection) is visible to later snippets of a replay, and
     * the real run has none. A page that stores a 128 kB out-of-line value only when it sees no such connection gets a later
     * max-buffers claim judged against a catalog without TOAST. The answer must come from a replay that, up to the question,
     * is the real run: the claim then fails, as its statement reads out-of-line values no plan counts. On main it passed.
     */
    @Test
    void aMaxBuffersClaimSeesTheToastTheRealRunStoredAfterAnEarlierLookUp() throws Exception {
        var claim = afterALookUp("", "UPDATE docs SET body = (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 4000) g)"
                + " WHERE id = 7;", "max-buffers=10", "SELECT body FROM docs WHERE id = 7;");
        assertNotNull(claim.failure(), "the real run stored a TOASTed value: the bound cannot be checked");
        assertEquals("plan assertion failed: touches at most 10 shared buffers: the rows it returns are read from public.docs, which "
                + "holds values stored out of line (TOAST, 136 kB); PostgreSQL reads those while sending the rows, after every plan "
                + "node is done, so no plan counts those buffers and the bound cannot be checked. Claim max-buffers on a statement "
                + "over tables without out-of-line values", claim.failure().message());
    }

    /**
     * Red team: a scenario's look for sequences (a connection of Kensho's on the replay) is visible to later snippets; a page
     * that adds a serial column only when it sees none (the real run) gets two released inserts judged order-free, since the
     * replay answered "no sequence". On main the second scenario passed.
     */
    @Test
    void aReleaseSeesTheSequenceTheRealRunAddedAfterAnEarlierLook() throws Exception {
        String released = RELEASED_INSERTS;
        PageResult result = page(SETTLE, "CREATE TABLE orders (note text, amount numeric); " + COUNT_SESSIONS, released,
                onlyWithoutKensho(3, "ALTER TABLE orders ADD COLUMN id serial;"), released);
        assertTrue(result.outcomes().get(2).passed(), () -> String.valueOf(result.outcomes().get(2)));
        var second = result.outcomes().get(4);
        assertNotNull(second.failure(), "the real run's table draws from a sequence in wake order");
        assertEquals("step a2 releases b1 and c1 at once (each waited for a), and b1 may draw sequence numbers (insert), which are "
                + "taken in wake order: which the server wakes first is not determined, so what they do can differ from run to run; "
                + "release them one at a time (for example, issue one of them only after the other has finished)",
                second.failure().message());
        assertEquals("page.md:44:1", second.failure().location().toString(), "at the releasing step");
    }

    /**
     * Red team: a partition added only on the real run (after an earlier look-up showed the replay) is read by a seq scan;
     * no-seq-scan= on the partitioned table must count it. On main the replay's catalog knew only the first partition.
     */
    @Test
    void aNoSeqScanClaimCountsThePartitionTheRealRunAdded() throws Exception {
        var claim = afterALookUp("CREATE TABLE parts (k int, v int) PARTITION BY RANGE (k);"
                        + " CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (10000);"
                        + " INSERT INTO parts_1 SELECT g, g FROM generate_series(1, 5000) g; CREATE INDEX ON ONLY parts_1 (v); ANALYZE parts;",
                "CREATE TABLE parts_2 PARTITION OF parts FOR VALUES FROM (10000) TO (20000); INSERT INTO parts_2 VALUES (10001, 7);"
                        + " ANALYZE parts_2;", "no-seq-scan=parts", "SELECT count(*) > 0 AS found FROM parts WHERE v = 7;");
        assertNotNull(claim.failure(), () -> "the real run's plan reads parts_2 by a seq scan: " + claim.plan());
        assertEquals("plan assertion failed: no Seq Scan on parts: the plan reads public.parts with Seq Scan on parts_2",
                claim.failure().message());
    }

    /**
     * Red team: an index of the same name in the role's own schema (first on the default search_path), made only on the real
     * run, changes what uses-index= names; on main the replay resolved the name to the index the plan used and the claim passed.
     */
    @Test
    void aUsesIndexClaimResolvesTheNameAsTheRealRunsCatalogDoes() throws Exception {
        var claim = afterALookUp("CREATE INDEX docs_v ON docs (v);", SHADOW_DOCS_V, "uses-index=docs_v", "SELECT id FROM docs WHERE v = 7;");
        assertNotNull(claim.failure(), () -> "docs_v names the real run's other index, which the plan did not use: " + claim.plan());
        assertTrue(claim.failure().message().matches("plan assertion failed: uses index docs_v: the claim names docs_v, which the page's session resolves to "
                + "kensho_\\w+\\.docs_v, and the plan reads public\\.docs_v: the name meant another relation when the statement was "
                + "planned; write it with its schema \\(public\\.docs_v\\) to claim that one"), claim.failure().message());
    }

    /**
     * Red team: the replay's database and role are named as the real run's, so a page cannot tell them apart by
     * current_database() or current_user. On main the replay's name was the next of the build's counter: on a fresh
     * server the real run's database ends in _1 and the replay's in _2, and a page that shadows an index name only under
     * the first name got its uses-index= claim judged against a catalog without the shadow, and passed.
     */
    @Test
    void theReplayIsNamedAsTheRealRun() throws Exception {
        try (Verifier fresh = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)))) {
            PageResult result = TestPage.on(fresh)
                    .add("", CATALOG_READ_BEFORE + " CREATE INDEX docs_v ON docs (v);")
                    .add("", "DO $$ DECLARE first boolean; BEGIN"
                            // The name's suffix read through dynamic SQL: the run-name gate refuses a name compared with a
                            // constant, and this test is of the replay's naming, which dynamic SQL can still observe.
                            + " EXECUTE 'SELECT ' || quote_literal(current_database()) || ' LIKE ''%\\_1''' INTO first;"
                            + " IF first AND current_user::text = current_database() THEN " + SHADOW_DOCS_V + " END IF; END $$;")
                    .add("uses-index=docs_v", "SELECT id FROM docs WHERE v = 7;").run();
            var claim = result.outcomes().get(2);
            assertNotNull(claim.failure(), () -> "docs_v names the real run's index in the role's schema: " + claim.plan());
            assertTrue(claim.failure().message().matches("plan assertion failed: uses index docs_v: the claim names docs_v, which the page's session resolves to "
                    + "kensho_\\w+_1\\.docs_v, and the plan reads public\\.docs_v: the name meant another relation when the "
                    + "statement was planned; write it with its schema \\(public\\.docs_v\\) to claim that one"), claim.failure().message());
        }
    }

    /**
     * A time a few seconds ahead: the real run reaches the page's second snippet before it, and the replays, which start only
     * after the real run's closing sleep ({@link #PAST_THE_MOMENT}), after it. A page gating its DDL on the clock so runs it
     * on the real run alone while every snippet ends alike on both ("DO").
     */
    private static String realRunOnly(String then) {
        String moment = java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC).plusSeconds(3).toString();
        return "DO $$ BEGIN IF clock_timestamp() < '" + moment + "'::timestamptz THEN " + then + " END IF; END $$;";
    }

    /** The real run's last snippet: past the moment of {@link #realRunOnly}, so that no replay reaches it before. */
    private static final String PAST_THE_MOMENT = "SELECT pg_sleep(4) IS NOT NULL AS slept;";

    /** Why a plan claim after {@link #realRunOnly} at page.md:5:1 cannot be checked. */
    private static final String PARSED_OTHERWISE = "plan claims cannot be checked: the names and keys they rest on (uses-index=, "
            + "no-seq-scan=, an index's keys, a table's TOAST size) are read from the page's catalog on a replay of the page on a "
            + "fresh database, never beside the reader's statements, and the replay did not reach this snippet as the real run did "
            + "(the snippet at page.md:5:1 ended alike, but the server parsed other statements in it on the replay: a function or "
            + "dynamic SQL ran other statements, or built other names, than on the real run (from the clock, random(), a "
            + "backend's number, an OID), so its DDL may differ); make the snippets before it end the same on every run";

    /**
     * Red team: DDL that depends on something other between the real run and its replay (here the clock; random(), a
     * backend's number or an OID do as well) ends alike on both, so "ended alike" does not make the replay's catalog the
     * real run's. The real run shadows docs_v in the role's own schema; the replay, past the moment, does not, and resolved
     * the name to the index the plan used: on integ the claim passed, describing a catalog the real run did not have.
     */
    @Test
    void aUsesIndexClaimIsNotPassedOnAReplayWhoseCatalogTheRealRunDidNotHave() throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("", CATALOG_READ_BEFORE + " CREATE INDEX docs_v ON docs (v);")
                .add("", realRunOnly(SHADOW_DOCS_V))
                .add("uses-index=docs_v", "SELECT id FROM docs WHERE v = 7;")
                .add("", PAST_THE_MOMENT).run();
        var claim = result.outcomes().get(2);
        assertNotNull(claim.failure(), () -> "docs_v names the real run's index in the role's schema: " + claim.plan());
        assertEquals(PARSED_OTHERWISE, claim.failure().message());
        assertEquals("page.md:9:1", claim.failure().location().toString());
    }

    /**
     * Red team: the real run alone stores a 128 kB out-of-line value before a max-buffers claim; the replay, past the moment,
     * stores none and answered "no TOAST". On integ the claim passed.
     */
    @Test
    void aMaxBuffersClaimIsNotPassedOnAReplayWithoutTheRealRunsToast() throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("", CATALOG_READ_BEFORE)
                .add("", realRunOnly("UPDATE docs SET body = (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 4000) g)"
                        + " WHERE id = 7;"))
                .add("max-buffers=10", "SELECT body FROM docs WHERE id = 7;")
                .add("", PAST_THE_MOMENT).run();
        var claim = result.outcomes().get(2);
        assertNotNull(claim.failure(), "the real run stored a TOASTed value: the bound cannot be checked");
        assertEquals(PARSED_OTHERWISE, claim.failure().message());
        assertEquals("page.md:9:1", claim.failure().location().toString());
    }

    /**
     * Red team: a serial column added on the real run alone, before a scenario that releases two inserts at once; the
     * replay's look, past the moment, found no sequence. On integ the scenario passed, judged order-free.
     */
    @Test
    void aReleaseIsNotJudgedOrderFreeOnAReplayWithoutTheRealRunsSequence() throws Exception {
        PageResult result = page("CREATE TABLE orders (note text, amount numeric);",
                realRunOnly("ALTER TABLE orders ADD COLUMN id serial;"), RELEASED_INSERTS, PAST_THE_MOMENT);
        var scenario = result.outcomes().get(2);
        assertNotNull(scenario.failure(), "the real run's table draws from a sequence in wake order");
        assertEquals("this scenario cannot be checked: it releases inserting steps at once, and whether the page's database then "
                + "held a sequence (whose numbers are drawn in wake order) is asked on a replay of the page on a fresh database, "
                + "never beside the reader's sessions; the replay did not reach the scenario as the real run did (the snippet at "
                + "page.md:11:1 ended alike, but the server parsed other statements in it on the replay: a function or dynamic SQL "
                + "ran other statements, or built other names, than on the real run (from the clock, random(), a backend's number, "
                + "an OID), so its DDL may differ)", scenario.failure().message());
        assertEquals("page.md:21:1", scenario.failure().location().toString());
    }

    /**
     * The same pages with the DDL on every run: the replay parsed what the real run parsed, and its answers are used (the
     * claim holds, or fails for the catalog's own reason). A page's own OIDs, new on every run, and a regclass constant
     * naming one, leave the trees alike.
     */
    @Test
    void theSameDdlOnEveryRunIsAnsweredOnTheReplay() throws Exception {
        PageResult result = TestPage.on(verifier)
                .add("", CATALOG_READ_BEFORE + " CREATE INDEX docs_v ON docs (v);")
                .add("", "DO $$ BEGIN IF clock_timestamp() > '2000-01-01'::timestamptz THEN " + SHADOW_DOCS_V + " END IF; END $$;"
                        + " SELECT pg_catalog.pg_relation_size('docs') > 0 AS sized;")
                .add("uses-index=docs_pkey", "SELECT v FROM docs WHERE id = 7;")
                .add("uses-index=docs_v", "SELECT id FROM docs WHERE v = 7;").run();
        assertTrue(result.outcomes().get(2).passed(), () -> String.valueOf(result.outcomes().get(2)));
        var shadowed = result.outcomes().get(3);
        assertNotNull(shadowed.failure(), "docs_v names the index in the role's schema on every run");
        assertTrue(shadowed.failure().message().matches("plan assertion failed: uses index docs_v: the claim names docs_v, which the page's session resolves to "
                + "kensho_\\w+\\.docs_v, and the plan reads public\\.docs_v: the name meant another relation when the statement was "
                + "planned; write it with its schema \\(public\\.docs_v\\) to claim that one"), shadowed.failure().message());
    }
}
