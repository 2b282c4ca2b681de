package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server receives the query string psql sends: the statement up to and including its semicolon. What it
 * records of it (pg_prepared_statements, current_query()) is then what a reader's psql run shows; PostgreSQL's own
 * regression test prepare.sql prints it ("PREPARE q1 AS SELECT 1 AS a;").
 */
class QueryStringTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    @Test
    void aPreparedStatementRecordsTheQueryStringPsqlSends() throws Exception {
        // prepare.sql and its expected output, PostgreSQL 18.6.
        String psql = " name |          statement           | parameter_types | result_types \n"
                + "------+------------------------------+-----------------+--------------\n"
                + " q1   | PREPARE q1 AS SELECT 1 AS a; | {}              | {integer}\n"
                + "(1 row)\n";
        Outcome outcome = TestPage.on(verifier)
                .add("", "PREPARE q1 AS SELECT 1 AS a;")
                .add("", "SELECT name, statement, parameter_types, result_types FROM pg_prepared_statements;", psql).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
        // What stands before the semicolon (a comment, a line break) is sent too: psql's own table (psql 15.18, 18.6 server).
        Outcome spaced = TestPage.on(verifier).add("", "SELECT current_query() AS q -- mine\n ;",
                "                  q\n-------------------------------------\n SELECT current_query() AS q -- mine+\n  ;\n(1 row)\n").last();
        assertTrue(spaced.passed(), () -> String.valueOf(spaced.failure()));
    }

    @Test
    void aClaimOfTheQueryWithoutItsSemicolonFails() throws Exception {
        Outcome outcome = TestPage.on(verifier)
                .add("", "PREPARE q1 AS SELECT 1 AS a;")
                .add("", "SELECT statement FROM pg_prepared_statements;",
                        "          statement\n-----------------------------\n PREPARE q1 AS SELECT 1 AS a\n(1 row)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
        // A last statement without a semicolon is sent as written, as psql sends it at the end of its input.
        Outcome bare = TestPage.on(verifier).add("", "SELECT current_query() AS q", " q\n---\n SELECT current_query() AS q;\n(1 row)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", bare.failure().message());
    }
}
