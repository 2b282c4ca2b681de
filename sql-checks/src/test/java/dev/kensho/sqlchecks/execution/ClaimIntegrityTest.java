package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.InvalidDirectiveException;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.SourceLocation;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.TimeZone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each class of false claim that once passed now fails at the claim, and each class of true claim
 * that was once rejected now passes, on the real PostgreSQL 18.
 */
class ClaimIntegrityTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    private static TestPage page() {
        return TestPage.on(verifier);
    }

    private static void assertPassed(Outcome outcome) {
        assertTrue(outcome.passed(), () -> outcome.failure() + "\n" + (outcome.failure() == null ? "" : outcome.failure().detail()));
    }

    // --- 1. statements run to completion; no row limit changes what the server does

    @Test
    void anErrorPastRowOneThousandIsSeen() throws Exception {
        Outcome outcome = page().add("", "SELECT 1 / (g - 1500) FROM generate_series(1, 2000) AS g;").last();
        assertEquals("division by zero", outcome.failure().message());
        assertEquals("22012", outcome.failure().sqlState());
    }

    @Test
    void aThousandAndOneRowsDoNotMatchAThousand() throws Exception {
        StringBuilder rows = new StringBuilder(" g\n------\n");
        for (int g = 1; g <= 1000; g++) {
            rows.append(' ').append(g).append('\n');
        }
        Outcome outcome = page().add("", "SELECT g FROM generate_series(1, 1001) AS g;", rows.toString()).last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        assertTrue(outcome.failure().detail().endsWith("extra:   1001"), outcome.failure().detail());
    }

    @Test
    void sideEffectsOfAStatementAreNotCutShort() throws Exception {
        Outcome outcome = page().add("", "CREATE SEQUENCE s; SELECT nextval('s') FROM generate_series(1, 1500);")
                .add("", "SELECT last_value FROM s;", " last_value\n------------\n       1500\n(1 row)\n").last();
        assertPassed(outcome);
    }

    @Test
    void aLongResultIsComparedInFullButKeptBounded() throws Exception {
        Outcome outcome = page().add("", "SELECT g FROM generate_series(1, 1500) AS g;").last();
        assertPassed(outcome);
        assertEquals(SqlExecution.ROWS_KEPT, outcome.results().get(0).rows().size());
        assertEquals(1500, outcome.results().get(0).totalRows());
    }

    @Test
    void aWideResultIsKeptToItsFirstRowsWithinTheCharacterBoundWhileItIsRead() throws Exception {
        // 100 rows of 4,000 characters: 65 fit in 256 Ki characters (65 × 4,000 = 260,000 ≤ 262,144 < 264,000).
        Outcome outcome = page().add("", "SELECT repeat('x', 4000) AS v FROM generate_series(1, 100);").last();
        assertPassed(outcome);
        assertEquals(262_144, SqlExecution.CHARS_KEPT);
        assertEquals(65, outcome.results().get(0).rows().size());
        assertEquals(100, outcome.results().get(0).totalRows());
    }

    // --- 3. plans forced by planner settings

    private static final String ORDERS = """
            CREATE TABLE orders (order_id int PRIMARY KEY, account_id int NOT NULL, note text);
            CREATE INDEX orders_account_idx ON orders (account_id);
            INSERT INTO orders SELECT g, g % 500, 'n' || g FROM generate_series(1, 20000) AS g;
            ANALYZE orders;
            """;

    @Test
    void aPlanForcedByAnEnableSettingInAHiddenSetupFails() throws Exception {
        Outcome outcome = page().add("setup hidden", ORDERS + "SET enable_seqscan = off;")
                .add("uses-index=orders_pkey", "SELECT count(*) FROM orders;").last();
        assertEquals("plan claims cannot be checked: the plan was made with enable_seqscan = off (set by the setup snippet at "
                + "page.md:1:1; seen in the statement); a plan forced by planner inputs the reader cannot see says nothing about what "
                + "PostgreSQL chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet",
                outcome.failure().message());
    }

    @Test
    void aPlanForcedByACostSettingInAHiddenSnippetFails() throws Exception {
        Outcome outcome = page().add("", ORDERS)
                .add("hidden", "SELECT set_config('random_page_cost', '0.01', false);")
                .add("no-seq-scan=orders", "SELECT * FROM orders WHERE account_id < 400;").last();
        assertEquals("plan claims cannot be checked: the plan was made with random_page_cost = 0.01 (set by the hidden snippet at "
                + "page.md:8:1; seen in the statement); a plan forced by planner inputs the reader cannot see says nothing about what "
                + "PostgreSQL chooses. Remove the change (RESET it before this snippet) or make it in a visible snippet",
                outcome.failure().message());
    }

    @Test
    void aPlanTakenWithDefaultSettingsAfterAResetPasses() throws Exception {
        Outcome outcome = page().add("", ORDERS + "SET enable_indexscan = off; RESET enable_indexscan;")
                .add("uses-index=orders_account_idx no-seq-scan=orders", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertPassed(outcome);
    }

    @Test
    void aSearchPathIsNotAPlannerSettingAndDoesNotBlockPlanClaims() throws Exception {
        Outcome outcome = page().add("", ORDERS + "SET search_path = public, pg_catalog;")
                .add("uses-index=orders_account_idx no-seq-scan=orders", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertPassed(outcome);
    }

    // --- 4. ORDER BY found by the SQL lexer

    private static final String LETTERS = "CREATE TABLE l (x text); INSERT INTO l VALUES ('a'), ('b'), ('c');";

    @Test
    void orderByInsideADollarQuotedLiteralDoesNotMakeTheResultOrdered() throws Exception {
        Outcome outcome = page().add("", LETTERS)
                .add("", "SELECT x FROM l WHERE x <> $$ ORDER BY $$;", " x\n---\n c\n a\n b\n").last();
        assertPassed(outcome);
        assertEquals("returns the 3 expected row(s) (in any order)", outcome.assertions().get(1).description());
    }

    @Test
    void orderByAfterANestedCommentIsStillChecked() throws Exception {
        Outcome outcome = page().add("", LETTERS)
                .add("", "SELECT x FROM l /* a /* nested */ comment */ ORDER BY x DESC;", " x\n---\n a\n b\n c\n").last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
    }

    @Test
    void orderByAfterAnEscapedQuoteAndAStrayParenthesisIsStillChecked() throws Exception {
        Outcome outcome = page().add("", LETTERS)
                .add("", "SELECT x, E'it\\'s (' AS q FROM l ORDER BY x DESC;", " x |   q\n---+-------\n a | it's (\n b | it's (\n c | it's (\n")
                .last();
        assertEquals("the same rows came back in another order, and the query has ORDER BY", outcome.failure().message());
    }

    // --- 5. no-seq-scan names a table the plan reads

    @Test
    void noSeqScanOnATypoCannotPass() throws Exception {
        Outcome outcome = page().add("", ORDERS).add("no-seq-scan=ordres", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertEquals("plan assertion failed: no Seq Scan on ordres: there is no table named ordres in the page's database (names are "
                + "resolved as PostgreSQL resolves them: unquoted names fold to lower case); the claim cannot be checked",
                outcome.failure().message());
    }

    @Test
    void noSeqScanOnATableThePlanDoesNotReadCannotPass() throws Exception {
        Outcome outcome = page().add("", ORDERS + "CREATE TABLE other (id int);")
                .add("no-seq-scan=other", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertEquals("plan assertion failed: no Seq Scan on other: public.other is not read by this plan (it scans public.orders); "
                + "the claim cannot be checked", outcome.failure().message());
    }

    @Test
    void noSeqScanOnAPartitionedParentCountsItsPartitions() throws Exception {
        Outcome outcome = page().add("", """
                        CREATE TABLE events (id int, kind text) PARTITION BY LIST (kind);
                        CREATE TABLE events_a PARTITION OF events FOR VALUES IN ('a');
                        CREATE TABLE events_b PARTITION OF events FOR VALUES IN ('b');
                        INSERT INTO events SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(1, 5000) AS g;
                        ANALYZE events;""")
                .add("no-seq-scan=Events", "SELECT count(*) FROM events;").last();
        assertTrue(outcome.failure().message().startsWith("plan assertion failed: no Seq Scan on Events: the plan reads public.events "
                + "with Seq Scan on events_"), outcome.failure().message());
    }

    @Test
    void noSeqScanOnAViewIsRefused() throws Exception {
        Outcome outcome = page().add("", ORDERS + "CREATE VIEW recent AS SELECT * FROM orders;")
                .add("no-seq-scan=recent", "SELECT * FROM recent WHERE account_id = 7;").last();
        assertEquals("plan assertion failed: no Seq Scan on recent: recent is a view: a plan reads the tables under it; name one of them",
                outcome.failure().message());
    }

    @Test
    void aSchemaQualifiedTrueClaimPasses() throws Exception {
        Outcome outcome = page().add("", ORDERS)
                .add("no-seq-scan=public.orders uses-index=public.orders_account_idx", "SELECT * FROM orders WHERE account_id = 7;").last();
        assertPassed(outcome);
    }

    // --- 8. NULL is (null); an empty cell is the empty string

    @Test
    void aBlankCellDoesNotMatchNull() throws Exception {
        Outcome outcome = page().add("", "SELECT NULL::text AS a;", " a\n---\n \n(1 row)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        assertTrue(outcome.failure().detail().contains("extra:   (null)"), outcome.failure().detail());
    }

    @Test
    void nullMarkerDoesNotMatchTheEmptyString() throws Exception {
        Outcome outcome = page().add("", "SELECT ''::text AS a;", "   a\n--------\n (null)\n(1 row)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
    }

    @Test
    void nullAndEmptyStringEachMatchTheirOwnNotation() throws Exception {
        Outcome outcome = page().add("", "SELECT NULL::text AS a, ''::text AS b, 'NULL' AS c;", """
                   a    | b |  c
                --------+---+------
                 (null) |   | NULL
                (1 row)
                """).last();
        assertPassed(outcome);
    }

    // --- 9. Kensho's limits never satisfy a claim

    @Test
    void aTimeoutClaimSatisfiedOnlyByKenshosLimitFails() throws Exception {
        Outcome outcome = page().add("expect-error=57014", "SELECT pg_sleep(30);").last();
        assertEquals("Kensho stopped the statement after 2 s (its own limit per statement, --statement-timeout); a limit of Kensho's "
                + "never satisfies a claim. To show a timeout, set statement_timeout or lock_timeout in the snippet itself; only an "
                + "error the server reports for the lesson's own SQL satisfies expect-error", outcome.failure().message());
    }

    @Test
    void aTimeoutTheLessonSetsCanBeClaimed() throws Exception {
        Outcome outcome = page().add("expect-error=57014 error-matches=\"statement timeout\"",
                "SET statement_timeout = '100ms'; SELECT pg_sleep(30);").last();
        assertPassed(outcome);
    }

    @Test
    void thePageSessionHasStockTimeouts() throws Exception {
        Outcome outcome = page().add("", "SELECT current_setting('statement_timeout') AS s, current_setting('lock_timeout') AS l;",
                " s | l\n---+---\n 0 | 0\n").last();
        assertPassed(outcome);
    }

    // --- 10. output does not depend on the build machine

    @Test
    void theJvmTimeZoneDoesNotShapeResults() throws Exception {
        TimeZone original = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Tokyo"));
        try {
            Outcome outcome = page().add("", "SELECT timestamptz '2026-01-01 10:04:00+00' AS t, 0.1::float8 AS f, interval '90 minutes' AS i;",
                    """
                                       t            |  f  |    i
                            ------------------------+-----+----------
                             2026-01-01 10:04:00+00 | 0.1 | 01:30:00
                            """).last();
            assertPassed(outcome);
        } finally {
            TimeZone.setDefault(original);
        }
    }

    @Test
    void aDateStyleTheDriverCannotReadIsRefusedWithAReason() throws Exception {
        Outcome outcome = page().add("", "SET DateStyle = 'Postgres, MDY';").last();
        assertEquals("Kensho reads results through the PostgreSQL JDBC driver, which needs DateStyle to begin with ISO (SET DateStyle "
                + "= 'ISO, DMY' is fine); to show another date format, use to_char()", outcome.failure().message());
        assertEquals(new SourceLocation("page.md", 1, 1), outcome.failure().location());
    }

    // --- true claims psql prints

    @Test
    void aRowOfEmptyCellsIsARow() throws Exception {
        Outcome outcome = page().add("", "SELECT ''::text AS a, ''::text AS b;", " a | b\n---+---\n   | \n(1 row)\n").last();
        assertPassed(outcome);
        Outcome single = page().add("", "SELECT ''::text AS a;", " a\n---\n\n(1 row)\n").last();
        assertPassed(single);
    }

    @Test
    void paddingSpacesAndColumnNamesWithSpacesAreWhatPsqlPrints() throws Exception {
        Outcome outcome = page().add("", "SELECT 'ab'::char(5) AS \"padded value\", '  lead' AS l, to_char(42, '00000') AS z;", """
                 padded value |   l    |   z
                --------------+--------+--------
                 ab           |   lead |  00042
                (1 row)
                """).last();
        assertPassed(outcome);
    }

    @Test
    void multiLineValuesBarsAndControlCharactersAreWhatPsqlPrints() throws Exception {
        Outcome outcome = page().add("", "SELECT E'x\\ny' AS ml, 'p|q' AS pipe, E'\\x01z' AS ctl, 7 AS n;", """
                 ml | pipe |  ctl  | n
                ----+------+-------+---
                 x +| p|q  | \\x01z | 7
                 y  |      |       |
                (1 row)
                """).last();
        assertPassed(outcome);
    }

    @Test
    void indentedExplainLinesCompareWithTheirIndentation() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE e (id int PRIMARY KEY);")
                .add("", "EXPLAIN (COSTS OFF) SELECT * FROM e WHERE id = 1;", """
                                 QUERY PLAN
                        ----------------------------
                         Index Only Scan using e_pkey on e
                           Index Cond: (id = 1)
                        (2 rows)
                        """).last();
        assertPassed(outcome);
    }

    @Test
    void dollarOneInsideFunctionBodiesIsNotAPlaceholder() throws Exception {
        Outcome outcome = page().add("", """
                CREATE FUNCTION plus_one(int) RETURNS int LANGUAGE sql AS $$ SELECT $1 + 1 $$;
                CREATE FUNCTION plus_two(int) RETURNS int LANGUAGE sql RETURN $1 + 2;""")
                .add("", "SELECT plus_one(1) AS a, plus_two(1) AS b;", " a | b\n---+---\n 2 | 3\n").last();
        assertPassed(outcome);
    }

    @Test
    void anUnboundPlaceholderIsTheServersErrorWithAHint() throws Exception {
        Outcome outcome = page().add("", "SELECT $1 + 1;").last();
        assertEquals("there is no parameter $1", outcome.failure().message());
        assertEquals("bind a value to it in the fence's meta: $1:TYPE=VALUE", outcome.failure().hint());
    }

    @Test
    void beginAtomicBodiesAndRuleActionListsAreOneStatement() throws Exception {
        Outcome outcome = page().add("", """
                CREATE TABLE log (msg text);
                CREATE TABLE t (id int);
                CREATE FUNCTION note(m text) RETURNS void LANGUAGE sql
                BEGIN ATOMIC
                  INSERT INTO log VALUES (m);
                  INSERT INTO log VALUES (m || '!');
                END;
                CREATE RULE t_log AS ON INSERT TO t DO ALSO (INSERT INTO log VALUES ('rule'); INSERT INTO log VALUES ('rule2'));
                SELECT note('hi');
                INSERT INTO t VALUES (1);""")
                .add("", "SELECT msg FROM log ORDER BY msg;", " msg\n-------\n hi\n hi!\n rule\n rule2\n").last();
        assertPassed(outcome);
    }

    @Test
    void anInsertRewrittenIntoASelectReturnsItsRows() throws Exception {
        Outcome outcome = page().add("", """
                CREATE TABLE target (id int);
                CREATE RULE instead AS ON INSERT TO target DO INSTEAD SELECT NEW.id * 10 AS tenfold;""")
                .add("", "INSERT INTO target VALUES (4);", " tenfold\n---------\n      40\n").last();
        assertPassed(outcome);
    }

    // --- cost claims

    private static final String DEEP = """
            CREATE TABLE feed (account_id int, created_at timestamptz, id int, PRIMARY KEY (account_id, created_at, id));
            INSERT INTO feed SELECT 1, timestamptz '2026-01-01' + g * interval '1 second', g FROM generate_series(1, 60000) AS g;
            ANALYZE feed;
            """;

    @Test
    void theOrFormOfKeysetReadsAsMuchAsOffsetAndAWorkClaimCatchesIt() throws Exception {
        Outcome outcome = page().add("", DEEP).add("uses-index=feed_pkey max-rows-removed=100", """
                SELECT id FROM feed
                WHERE account_id = 1
                  AND (created_at < timestamptz '2026-01-01 00:16:40+00'
                       OR (created_at = timestamptz '2026-01-01 00:16:40+00' AND id < 1000))
                ORDER BY created_at DESC, id DESC LIMIT 10;""").last();
        assertTrue(outcome.failure().message().startsWith("plan assertion failed: discards at most 100 rows by filter (measured "),
                outcome.failure().message());
        assertTrue(outcome.failure().message().contains("rows (Rows Removed by Filter, Join Filter and Index Recheck, times loops, in every plan of the execution), more than 100"),
                outcome.failure().message());
    }

    @Test
    void theRowComparisonFormTouchesAFewBuffers() throws Exception {
        Outcome outcome = page().add("", DEEP).add("uses-index=feed_pkey max-buffers=10 max-rows-removed=0 "
                + "index-cond-contains=\"ROW(created_at, id) < ROW(\"", """
                SELECT id FROM feed
                WHERE account_id = 1 AND (created_at, id) < (timestamptz '2026-01-01 00:16:40+00', 1000)
                ORDER BY created_at DESC, id DESC LIMIT 10;""").last();
        assertPassed(outcome);
        Assertion buffers = outcome.assertions().stream().filter(a -> a.kind().equals("max-buffers")).findFirst().orElseThrow();
        assertTrue(Integer.parseInt(buffers.facts().get("measured")) <= 10, buffers.toString());
    }

    @Test
    void aWorkClaimLeavesNoEffectBehind() throws Exception {
        Outcome outcome = page().add("", "CREATE TABLE w (id int PRIMARY KEY); INSERT INTO w SELECT generate_series(1, 2000); ANALYZE w;")
                .add("max-buffers=100", "DELETE FROM w WHERE id = 5;")
                .add("", "SELECT count(*) FROM w;", " count\n-------\n  1999\n").last();
        assertPassed(outcome);
    }

    @Test
    void directivesKeepEveryPlanClaimInOrder() throws Exception {
        Directives parsed = Directives.parse(java.util.Map.of("max-buffers", "12"));
        assertEquals(12L, parsed.plan().maxBuffers());
        assertNull(parsed.plan().maxRowsRemoved());
        assertFalse(parsed.plan().noSort());
        InvalidDirectiveException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidDirectiveException.class,
                () -> Directives.parse(java.util.Map.of("max-buffers", "many")));
        assertEquals("max-buffers takes a whole number, such as max-buffers=10, not 'many'", e.getMessage());
        assertEquals(List.of(), parsed.parameters());
    }

    @Test
    void aPlanClaimsNameResolvesOnTheSearchPathThePageSet() throws Exception {
        // Red team helper-96: the name was resolved on a connection of Kensho's with the role's search_path, so
        // no-seq-scan=t judged public.t while the plan scanned s.t, and the claim passed.
        Outcome outcome = page().add("setup", """
                        CREATE SCHEMA s;
                        CREATE TABLE public.t (id int, v int); CREATE TABLE s.t (id int, v int);
                        INSERT INTO public.t SELECT g, g FROM generate_series(1, 20000) g;
                        INSERT INTO s.t SELECT g, g FROM generate_series(1, 20000) g;
                        CREATE INDEX i ON public.t (v); ANALYZE public.t; ANALYZE s.t;""")
                .add("", "SET search_path = s, public;")
                .add("no-seq-scan=t", "SELECT t.id FROM t JOIN public.t AS p USING (id) WHERE p.v = 5;").last();
        assertEquals("plan assertion failed: no Seq Scan on t: the claim names t, which the page's session resolves to s.t, and the "
                + "plan reads public.t: the name meant another relation when the statement was planned; write it with its schema "
                + "(public.t) to claim that one", outcome.failure().message());
        // Red team helper-97: the claimed statement itself changed the search_path after it was planned; the name, looked up
        // afterwards, meant public.t, while the plan scanned s.t.
        Outcome changed = page().add("setup", """
                        CREATE SCHEMA s;
                        CREATE TABLE public.t (id int PRIMARY KEY, v int); CREATE TABLE s.t (id int, v int);
                        INSERT INTO public.t SELECT g, g FROM generate_series(1, 20000) g;
                        INSERT INTO s.t SELECT g, g FROM generate_series(1, 20000) g;
                        ANALYZE public.t; ANALYZE s.t;""")
                .add("", "SET search_path = s, public;")
                .add("no-seq-scan=t", "SELECT t.id, set_config('search_path', 'public', false) FROM t JOIN public.t p ON p.id = t.id "
                        + "WHERE t.v = 5;").last();
        assertEquals("plan assertion failed: no Seq Scan on t: the claim names t, which the page's session resolves to public.t, and "
                + "the plan reads s.t: the name meant another relation when the statement was planned; write it with its schema "
                + "(s.t) to claim that one", changed.failure().message());
    }
}
