package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Outcome;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Column names with spaces of their own, compared as psql 18 prints them (from PostgreSQL's strings regression test). */
class ColumnNamesAsPsqlPrintsThemTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(2)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    /** psql's output, byte for byte (the header's trailing padding included). */
    private static final String BLANKS = """
               bunch o blanks\s
            ------------------
                            1
            (1 row)
            """;

    @Test
    void aNameWithLeadingSpacesIsReadAsPsqlPrintsIt() throws Exception {
        assertEquals(List.of("  bunch o blanks"), ExpectedRows.parse(BLANKS).columns());
        Outcome outcome = TestPage.on(verifier).add("", "SELECT 1 AS \"  bunch o blanks\";", BLANKS).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }

    @Test
    void theSameTableDoesNotStateANameWithoutTheSpaces() throws Exception {
        Outcome outcome = TestPage.on(verifier).add("", "SELECT 1 AS \"bunch o blanks\";", BLANKS).last();
        assertEquals("columns differ: expected [  bunch o blanks], got [bunch o blanks]", outcome.failure().message());
    }

    @Test
    void centringPaddingIsNotPartOfAName() throws Exception {
        // psql centres a name narrower than its values: the spaces around "n" are padding.
        String centred = """
               n  \s
            -------
             abcde
            (1 row)
            """;
        assertEquals(List.of("n"), ExpectedRows.parse(centred).columns());
        Outcome outcome = TestPage.on(verifier).add("", "SELECT 'abcde' AS n;", centred).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }
}
