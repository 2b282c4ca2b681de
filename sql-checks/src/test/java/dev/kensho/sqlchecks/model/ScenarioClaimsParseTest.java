package dev.kensho.sqlchecks.model;


import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A scenario claim that would be shown but never checked is refused at its line. */
class ScenarioClaimsParseTest {

    private static final String HEAD = """
            setup { CREATE TABLE k (id int PRIMARY KEY); }
            session a
            step a1 { INSERT INTO k VALUES (1) RETURNING id; }
            """;

    private static ScenarioSyntaxException refused(String text) {
        return assertThrows(ScenarioSyntaxException.class, () -> ScenarioParser.parse(text));
    }

    @Test
    void rowsAfterAStepExpectedToFailAreRefused() {
        ScenarioSyntaxException e = refused(HEAD + """
                session b
                step b1 expect-error=23505 { INSERT INTO k VALUES (1) RETURNING id; }
                rows {
                 id
                ----
                (0 rows)
                }
                permutation a1 b1
                """);
        assertEquals("step b1 is expected to fail (expect-error), so it returns no rows to compare", e.getMessage());
        assertEquals(5, e.line());
    }

    @Test
    void severalRowsBlocksStateEveryResultInOrder() throws Exception {
        Scenario scenario = ScenarioParser.parse(HEAD + """
                rows {
                 id
                ----
                  1
                }
                rows {
                 id
                ----
                  2
                }
                session b
                step b1 { SELECT 1; }
                permutation a1 b1
                """);
        assertEquals(java.util.List.of("1", "2"), scenario.step("a1").orElseThrow()
                .expectedRows().stream().map(rows -> rows.rows().get(0).get(0).strip()).toList());
    }

    @Test
    void aSecondTopLevelSetupRunsAfterTheFirstAsTheTesterRunsIt() throws Exception {
        Scenario scenario = ScenarioParser.parse("setup { CREATE TABLE k (id int); }\nsetup { INSERT INTO k VALUES (1); }\n"
                + HEAD.substring(HEAD.indexOf("session")) + "session b\nstep b1 { SELECT 1; }\npermutation a1 b1\n");
        assertEquals(java.util.List.of("CREATE TABLE k (id int);", "INSERT INTO k VALUES (1);"), scenario.setup());
    }

    @Test
    void aSessionsSecondSetupIsRefusedNotSilentlyReplaced() {
        ScenarioSyntaxException e = refused(HEAD + """
                session b
                setup { BEGIN; }
                setup { SET lock_timeout = '1s'; }
                step b1 { SELECT 1; }
                permutation a1 b1
                """);
        assertEquals("session b already has a setup block; a session has one (put its statements in one block)", e.getMessage());
        assertEquals(5, e.line());
    }

    @Test
    void waitsForNamesSeveralSessionsOrAnyone() throws Exception {
        Scenario scenario = ScenarioParser.parse(HEAD + """
                session b
                step b1 waits-for=a,c { SELECT 1; }
                session c
                step c1 waits-for=* { SELECT 1; }
                permutation a1 b1 c1
                """);
        assertEquals(java.util.List.of("a", "c"), scenario.step("b1").orElseThrow().waitsFor());
        assertEquals(java.util.List.of("*"), scenario.step("c1").orElseThrow().waitsFor());
        ScenarioSyntaxException e = refused(HEAD + """
                session b
                step b1 waits-for=a,,a { SELECT 1; }
                permutation a1 b1
                """);
        assertEquals("waits-for takes session names separated by commas (waits-for=s1,s2), each once, or * (it waits, "
                + "whomever for), not 'a,,a'", e.getMessage());
    }

    @Test
    void anErrorMessageIsStatedAfterAStepExpectedToFail() throws Exception {
        Scenario scenario = ScenarioParser.parse(HEAD + """
                session b
                step b1 expect-error=40P01 { SELECT 1; }
                error { ERROR:  deadlock detected }
                permutation a1 b1
                """);
        assertEquals("deadlock detected", scenario.step("b1").orElseThrow().expectMessage());
        // As the tester's expected output shows it, the message alone is a claim too.
        Scenario messageOnly = ScenarioParser.parse(HEAD + """
                session b
                step b1 { SELECT 1; }
                error { ERROR:  deadlock detected }
                permutation a1 b1
                """);
        assertEquals(null, messageOnly.step("b1").orElseThrow().expectError());
        assertEquals("deadlock detected", messageOnly.step("b1").orElseThrow().expectMessage());
        ScenarioSyntaxException e = refused(HEAD + """
                rows {
                 id
                ----
                  1
                }
                error { deadlock detected }
                session b
                step b1 { SELECT 1; }
                permutation a1 b1
                """);
        assertEquals("step a1 states rows, so it cannot also state an error (a failed step returns no rows to compare)", e.getMessage());
    }

    @Test
    void aStepNoPermutationRunsIsRefused() {
        ScenarioSyntaxException e = refused(HEAD + """
                session b
                step b1 { SELECT 1; }
                step b2 expect-error=23505 { INSERT INTO k VALUES (1); }
                permutation a1 b1
                """);
        assertEquals("step b2 is in no permutation, so nothing it states would be checked; add it to a permutation or remove it",
                e.getMessage());
        assertEquals(5, e.line());
    }

    @Test
    void aStepOptionGivenTwiceIsRefused() {
        ScenarioSyntaxException e = refused(HEAD + """
                session b
                step b1 expect-error=23505 expect-error=40001 { INSERT INTO k VALUES (1); }
                permutation a1 b1
                """);
        assertEquals("step option expect-error is given twice; a step states it once", e.getMessage());
    }

    @Test
    void aRowsTableKeepsPsqlsLeadingSpace() throws Exception {
        Scenario scenario = ScenarioParser.parse(HEAD + """
                rows {
                 id
                ----
                  1
                }
                session b
                step b1 { SELECT 1; }
                permutation a1 b1
                """);
        assertEquals(java.util.List.of("id"), scenario.step("a1").orElseThrow().expectedRows().get(0).columns());
    }

    @Test
    void sqlAfterTheBraceOfABlockOfSeveralLinesIsRefusedNotDropped() {
        // Read as the block's first line, "UPDATE k SET id = 2;" would be shown but never run.
        ScenarioSyntaxException e = refused(HEAD + """
                session b
                step b1 { UPDATE k SET id = 2;
                  SELECT * FROM k;
                }
                permutation a1 b1
                """);
        assertEquals("step b1: a block of several lines opens with '{' at the end of its line and closes with a line "
                + "holding only '}'; move 'UPDATE k SET id = 2;' to the next line, or close the block on this line", e.getMessage());
        assertEquals(4, e.line());
    }

    @Test
    void aBlockOfSeveralLinesRunsEveryLine() throws Exception {
        Scenario scenario = ScenarioParser.parse(HEAD + """
                session b
                step b1 {
                  UPDATE k SET id = 2;
                  SELECT * FROM k;
                }
                permutation a1 b1
                """);
        assertEquals("  UPDATE k SET id = 2;\n  SELECT * FROM k;", scenario.step("b1").orElseThrow().sql());
    }
}
