package dev.kensho.sqlchecks.script;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Which SQL depends on the clock or on chance, read with the project's lexer. */
class TimeDependentSqlTest {

    @Test
    void theClockAndChanceAreFoundWhereverTheyRun() {
        assertEquals("now", TimeDependentSql.find("SELECT now() - interval '1 day';"));
        assertEquals("current_date", TimeDependentSql.find("SELECT * FROM orders WHERE placed_on = CURRENT_DATE;"));
        assertEquals("current_timestamp", TimeDependentSql.find("CREATE TABLE t (at timestamptz DEFAULT CURRENT_TIMESTAMP(0));"));
        assertEquals("'now'", TimeDependentSql.find("SELECT 'now'::timestamptz > '2000-01-01';"));
        assertEquals("'today'", TimeDependentSql.find("SELECT date 'today';"));
        assertEquals("random", TimeDependentSql.find("CREATE FUNCTION f() RETURNS float8 LANGUAGE sql AS $body$ SELECT random() $body$;"));
        assertEquals("clock_timestamp", TimeDependentSql.find("CREATE FUNCTION g() RETURNS timestamptz AS 'SELECT clock_timestamp()' LANGUAGE sql;"));
        assertEquals("gen_random_uuid", TimeDependentSql.find("INSERT INTO t VALUES (gen_random_uuid());"));
        assertEquals("uuidv7", TimeDependentSql.find("SELECT uuidv7 ();"));
        assertEquals("tablesample", TimeDependentSql.find("SELECT count(*) FROM t TABLESAMPLE SYSTEM (10);"));
        assertEquals("age", TimeDependentSql.find("SELECT age(birth) FROM people;"));
        assertEquals("setseed", TimeDependentSql.find(List.of("SELECT 1;", "SELECT setseed(0.5);")));
        assertEquals("pg_backend_pid", TimeDependentSql.find("SELECT pg_backend_pid() > 0;"));
    }

    @Test
    void wordsThatOnlyLookLikeThemAreNot() {
        assertNull(TimeDependentSql.find("-- now() is not called here\nSELECT 1; /* random() */"));
        assertNull(TimeDependentSql.find("SELECT 'now is the time', age, now_ish FROM people;"));
        assertNull(TimeDependentSql.find("CREATE TABLE people (age int, \"random\" text);"));
        assertNull(TimeDependentSql.find("SELECT timestamptz '2026-01-01 00:00+00' + interval '1 day';"));
        assertNull(TimeDependentSql.find(List.of("SELECT 1;", "SELECT current_setting('TimeZone');")));
    }

    /**
     * Red team: the clock read through escapes the server decodes was not found, so such a page's cache entry was kept as
     * long as one that reads no clock: a U&amp; function name, an E'' or U&amp;'' input string, a UESCAPE of the page's own.
     */
    @Test
    void theClockBehindAnEscapeIsFoundAsItsPlainSpelling() {
        assertEquals("now", TimeDependentSql.find("SELECT U&\"n\\006fw\"();"));
        assertEquals("now", TimeDependentSql.find("SELECT U&\"n!006fw\" UESCAPE '!' ();"));
        assertEquals("'now'", TimeDependentSql.find("SELECT E'n\\157w'::timestamptz;"));
        assertEquals("'today'", TimeDependentSql.find("SELECT U&'t\\006fday'::date;"));
        assertEquals("random", TimeDependentSql.find("DO $$ BEGIN EXECUTE E'SELECT r\\141ndom()'; END $$;"));
        // An unterminated string or body is read to its end, once.
        assertNull(TimeDependentSql.find("SELECT $$ 1"));
        assertNull(TimeDependentSql.find("SELECT '"));
    }

    /** A page reading both is a clock page (its marks expire); the verifier's draws include the clock read afresh. */
    @Test
    void theClockDecidesAPagesKindAndClockTimestampIsADraw() {
        TimeDependentSql.Reading both = TimeDependentSql.read(List.of("SELECT random();", "SELECT now();"));
        assertEquals(TimeDependentSql.Kind.CLOCK, both.kind());
        assertEquals("now", both.word());
        assertEquals("clock_timestamp", TimeDependentSql.firstDraw("SELECT now(), clock_timestamp();").word());
        assertEquals("random", TimeDependentSql.firstDraw("SELECT now(), random();").word());
        assertNull(TimeDependentSql.firstDraw("SELECT now(), current_date;"));
    }
}
