package dev.kensho.sqlchecks.model;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kensho.sqlchecks.fuzz.FuzzInput;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the reader of psql-style tables (```rows fences and rows { … } blocks). A table that cannot
 * be read is an {@link InvalidDirectiveException} (reported at the fence's line), and a line it names
 * is a line of the table; one that can be read has a cell per column in every row.
 */
class ExpectedRowsFuzzTest {

    private static final Pattern LINE = Pattern.compile("^line (\\d+)");

    @FuzzTest(maxDuration = "10s")
    void rows(byte[] input) throws Exception {
        String text = FuzzInput.text(input);
        FuzzInput.withinBound("a rows table", input.length, () -> {
            try {
                ExpectedRows rows = ExpectedRows.parse(text);
                for (List<String> row : rows.rows()) {
                    assertEquals(rows.columns().size(), row.size(), "a cell per column");
                }
            } catch (InvalidDirectiveException e) {
                Matcher line = LINE.matcher(e.getMessage());
                if (line.find()) {
                    int named = Integer.parseInt(line.group(1));
                    int lines = FuzzInput.lineCount(text);
                    assertTrue(named >= 1 && named <= lines, "line " + named + " of a table of " + lines + " lines: " + e.getMessage());
                }
            }
        });
    }
}
