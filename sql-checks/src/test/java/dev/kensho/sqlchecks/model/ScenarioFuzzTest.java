package dev.kensho.sqlchecks.model;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.sqlchecks.fuzz.FuzzInput;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the scenario parser with any text a ```scenario fence may hold. The only answer to a bad
 * scenario is a {@link ScenarioSyntaxException} whose line is a line of the block (the page's
 * diagnostic then names file:line); any other exception, or a line outside the block, fails.
 */
class ScenarioFuzzTest {

    @FuzzTest(maxDuration = "10s")
    void scenario(byte[] input) throws Exception {
        String text = FuzzInput.text(input);
        FuzzInput.withinBound("a scenario block", input.length, () -> {
            try {
                Scenario scenario = ScenarioParser.parse(text);
                assertTrue(scenario.sessions().size() >= 2 && scenario.sessions().size() <= ScenarioParser.MAX_SESSIONS);
            } catch (ScenarioSyntaxException e) {
                int lines = FuzzInput.lineCount(text);
                assertTrue(e.line() >= 0 && e.line() < lines, "line " + e.line() + " of a block of " + lines + " lines: " + e.getMessage());
            }
        });
    }
}
