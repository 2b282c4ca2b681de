package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Red team: the text gates read the page's SQL, and a name built from pieces at run time ({@code 'pg_' || 'database'}), a
 * regclass cast of computed text, or a view the page made from computed text is not in the text. Each claim below passed
 * before. The server's own parse trees of every statement it ran for the page (functions and dynamic SQL included) show
 * what was read ({@link TreeReads}): each claim now fails, naming what the server reported and the snippet that read it.
 */
class TreeGateTest extends VerifierFixture {

    private static final String BUILT = ", read by a statement the page built at run time, in the snippet at ";


    private static void assertAllPassed(PageResult result) {
        result.outcomes().forEach(o -> assertNull(o.failure(), () -> o.snippet().sql() + " -> " + o.failure()));
    }

    @Test
    void aNameBuiltFromPiecesInDynamicSqlFailsTheClaim() throws Exception {
        TestPage.assertRefused(TestPage.DATABASES + "pg_database" + BUILT + "page.md:1:1" + TestPage.DATABASES_WHY, "page.md:1:1", page().add("",
                "SELECT (xpath('//n/text()', query_to_xml('SELECT count(*) AS n FROM pg_' || 'database', false, false, '')))[1]::text::int > 1 AS several;",
                " several\n---------\n t\n").last());
    }

    /** Stored by one snippet, claimed by a later one: the claim fails at its own line, naming the snippet that read. */
    @Test
    void rolesReadByDynamicSqlFailALaterClaim() throws Exception {
        PageResult roles = page()
                .add("", "DO $$ BEGIN EXECUTE format('CREATE TABLE r AS SELECT count(*) AS n FROM %I', 'pg_' || 'roles'); END $$;")
                .add("", "SELECT n > 1 AS several FROM r;", " several\n---------\n t\n").run();
        TestPage.assertRefused("this claim cannot be checked: the page reads the server's roles (pg_roles" + BUILT + "page.md:1:1; every role a "
                + "page sees is Kensho's making, the page's own included; a reader's session is the role kensho_reader, beside PGlite's superuser postgres)", "page.md:5:1",
                roles.outcomes().get(1));
    }

    /** Through a regclass cast of computed text. */
    @Test
    void statisticsReachedThroughARegclassOfComputedTextFailTheClaim() throws Exception {
        TestPage.assertRefused("this claim cannot be checked: the page reads the server's cumulative statistics (pg_stat_io" + BUILT
                + "page.md:1:1; they count Kensho's own work and other pages' beside this page's)", "page.md:1:1", page().add("",
                "SELECT (xpath('//n/text()', query_to_xml('SELECT sum(reads) >= 0 AS n FROM ' || ('pg_stat_' || 'io')::regclass, "
                        + "false, false, '')))[1]::text AS counted;", " counted\n---------\n true\n").last());
    }

    @Test
    void aViewMadeFromComputedTextOverTheServersDatabasesFailsTheClaimOnIt() throws Exception {
        PageResult viewed = page()
                .add("", "DO $$ BEGIN EXECUTE 'CREATE VIEW dbs AS SELECT datname FROM pg_' || 'database'; END $$;")
                .add("", "SELECT count(*) > 1 AS several FROM dbs;", " several\n---------\n t\n").run();
        TestPage.assertRefused(TestPage.DATABASES + "pg_database" + BUILT + "page.md:1:1" + TestPage.DATABASES_WHY, "page.md:5:1", viewed.outcomes().get(1));
    }

    /** What the text gate reads and allows (restricted to the page's own database, in the text or literal dynamic SQL) still passes. */
    @Test
    void readsTheTextGateAllowsStillPass() throws Exception {
        assertAllPassed(page()
                .add("", "DO $$ BEGIN EXECUTE 'CREATE TABLE mine AS SELECT datname = current_database() AS own FROM pg_database "
                        + "WHERE datname = current_database()'; END $$;")
                .add("", "SELECT own FROM mine;", " own\n-----\n t\n")
                .add("", "SELECT count(*) AS n FROM pg_stat_database WHERE datname = current_database();", " n\n---\n 1\n")
                .add("", "SELECT (xpath('//n/text()', query_to_xml('SELECT count(*) AS n FROM pg_class WHERE relname = ''pg_' "
                        + "|| 'database''', false, false, '')))[1]::text AS n;", " n\n---\n 1\n")
                .run());
    }

    /** Kensho's own statements on the page's session (conditions, sort probes, the capture switch) are not the page's. */
    @Test
    void kenshosOwnStatementsDoNotCount() throws Exception {
        assertAllPassed(page()
                .add("setup hidden", "CREATE TABLE t (k int, v text); INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 5) g;")
                .add("", "SET work_mem = '8MB';")
                .add("", "BEGIN;")
                .add("", "SELECT k, v FROM t WHERE k < 3;", " k | v\n---+----\n 1 | v1\n 2 | v2\n")
                .add("", "COMMIT;")
                .add("max-buffers=100", "SELECT count(*) FROM t;", " count\n-------\n     5\n")
                .run());
    }

    /**
     * What Kensho's extension guard reads on the page's CREATE EXTENSION is Kensho's (PageBoundsTest: an allowed extension's
     * page passes); a page function whose name writes the guard's CONTEXT line is the page's.
     */
    @Test
    void aFunctionNamedLikeKenshosGuardIsThePages() throws Exception {
        String name = "\"x\nPL/pgSQL function kensho_refuse_extensions() line 1 at IF\"";
        PageResult forged = page()
                .add("", "CREATE FUNCTION " + name + "() RETURNS bigint LANGUAGE plpgsql AS $$ DECLARE n bigint; BEGIN "
                        + "EXECUTE 'SELECT count(*) FROM pg_' || 'database' INTO n; RETURN n; END $$;")
                .add("", "SELECT " + name + "() > 1 AS several;", " several\n---------\n t\n").run();
        TestPage.assertRefused(TestPage.DATABASES + "pg_database" + BUILT + "page.md:6:1" + TestPage.DATABASES_WHY, "page.md:6:1", forged.outcomes().get(1));
    }

    /** A page that silences the parse trees and runs SQL built at run time cannot be checked: what it read is unknown. */
    @Test
    void silencedTreesWithRunTimeSqlFailTheClaim() throws Exception {
        PageResult silenced = page()
                .add("", "SET client_min_messages = warning;")
                .add("", "DO $$ BEGIN EXECUTE 'CREATE TABLE r AS SELECT count(*) AS n FROM pg_' || 'database'; END $$;")
                .add("", "SELECT n > 1 AS several FROM r;", " several\n---------\n t\n").run();
        TestPage.assertRefused("this claim cannot be checked: the server did not report what a statement of the page read at run time "
                + "(the statement at page.md:5:1 ran unreported: Kensho's session settings debug_print_parse = on, "
                + "debug_pretty_print = off and client_min_messages = log deliver the reports, and the page changed one of them; "
                + "RESET it before anything but DROP, GRANT, SET and the like runs)",
                "page.md:9:1", silenced.outcomes().get(2));
    }
}
