package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.script.PsqlFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * psql's own output (src/test/resources/psql-output, made by psql; see its README) against Kensho's
 * printer and parser: every table psql printed is printed the same by {@link PsqlFormat} and, written
 * as expected rows, is accepted for the statement psql ran; altered copies are refused.
 */
class PsqlOutputTest {

    private static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(5)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    record Case(String sql, String psql) {
    }

    static List<Case> cases() throws IOException {
        List<String> statements = resource("cases.sql").lines().filter(l -> !l.isBlank()).toList();
        String[] tables = resource("cases.out").split("\n\n");
        assertEquals(statements.size(), tables.length, "one psql table per statement");
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < tables.length; i++) {
            cases.add(new Case(statements.get(i), tables[i].stripTrailing()));
        }
        return cases;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = PsqlOutputTest.class.getResourceAsStream("/psql-output/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** psql keeps the header's padding at the end of a line; Kensho's printer trims every line, as an editor does. */
    private static String trimmed(String table) {
        return table.lines().map(String::stripTrailing).reduce((a, b) -> a + "\n" + b).orElse("");
    }

    @Test
    void kenshoPrintsEveryResultAsPsqlPrintedIt() throws Exception {
        for (Case c : cases()) {
            Outcome outcome = TestPage.on(verifier).add("", c.sql()).last();
            assertTrue(outcome.passed(), () -> c.sql() + ": " + outcome.failure());
            var table = outcome.results().get(0);
            assertEquals(trimmed(c.psql()), PsqlFormat.format(table.columns(), table.types(), table.rows(), null), c.sql());
        }
    }

    @Test
    void psqlsOwnOutputIsAcceptedAsTheExpectedRows() throws Exception {
        for (Case c : cases()) {
            for (String written : List.of(c.psql(), trimmed(c.psql()))) {
                Outcome outcome = TestPage.on(verifier).add("", c.sql(), written).last();
                assertTrue(outcome.passed(), () -> c.sql() + ": " + outcome.failure());
            }
        }
    }

    @Test
    void aResultWithoutColumnsIsReadFromItsFooter() throws Exception {
        ExpectedRows rows = ExpectedRows.parse("--\n(2 rows)\n");
        assertEquals(List.of(), rows.columns());
        assertEquals(2, rows.rows().size());
        Outcome outcome = TestPage.on(verifier).add("", "SELECT;", "--\n(2 rows)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
    }

    @Test
    void aResultWithoutColumnsNeedsItsFooter() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.kensho.sqlchecks.model.InvalidDirectiveException.class,
                () -> ExpectedRows.parse("--\n\n"));
        assertEquals("line 1: '--' with no header is how psql prints a result without columns, and then the '(N rows)' "
                + "footer must come right after it (psql prints no line per row)", e.getMessage());
    }

    @Test
    void aNamesTrailingSpacesCountAsTheColumnsWidthShowsThem() throws Exception {
        // psql's table for "  bunch o blanks  ", claimed for a name without its trailing spaces.
        String psql = cases().get(2).psql();
        Outcome outcome = TestPage.on(verifier).add("", "SELECT 1 AS \"  bunch o blanks\";", trimmed(psql)).last();
        assertEquals("columns differ: expected [  bunch o blanks  ], got [  bunch o blanks]", outcome.failure().message());
        // Not the last column: the spaces stand before the bar.
        String notLast = cases().get(3).psql();
        Outcome other = TestPage.on(verifier).add("", "SELECT 'y' AS \"  bunch o blanks\", 1 AS n;", notLast).last();
        assertEquals("columns differ: expected [  bunch o blanks  , n], got [  bunch o blanks, n]", other.failure().message());
    }

    @Test
    void aC1ControlIsSixColumnsWideAsItsEscape() throws Exception {
        assertEquals(List.of("a\\u0085b"), PsqlFormat.lines("a\u0085b"));
        assertEquals(8, PsqlFormat.width(PsqlFormat.lines("a\u0085b").get(0)));
        // The value written as a raw U+0085 is not what psql prints.
        Outcome outcome = TestPage.on(verifier).add("", "SELECT E'a\\u0085b' AS x;", " x\n---\n a\u0085b\n(1 row)\n").last();
        assertEquals("rows differ (as a multiset, because the query has no ORDER BY)", outcome.failure().message());
    }

    @Test
    void widthsArePsqlsOwnForEveryCodePointItsTablesName() throws Exception {
        // ucs_wcwidth with PostgreSQL 18.6's tables: emoji and symbols that Unicode made wide (⌚, 🚀, ﹐; ䷀ since Unicode 16,
        // which PostgreSQL 18's tables follow, so psql 15 still gives it one) take two columns; a code point no table names takes one, whatever block it stands in (U+2E9A, an unassigned
        // radical); a non-spacing one none (U+0600, an Arabic number sign; U+00AD, the soft hyphen).
        assertEquals(List.of(2, 2, 2, 2, 1, 0, 0, 1), java.util.stream.IntStream.of(0x231A, 0x1F680, 0x4DC0, 0xFE50, 0x2E9A, 0x0600, 0x00AD, 'a')
                .mapToObj(PsqlFormat::width).toList());
        // psql's own table (in cases.out) for a value holding a '|' after a wide character: laid out with the rocket one
        // column wide, its bars stand where the dashes do not put them, and it is refused at the line.
        String narrow = " a  | b\n----+---\n \uD83D\uDE80|+| y\n \u231A +|\n(1 row)\n";
        var e = org.junit.jupiter.api.Assertions.assertThrows(dev.kensho.sqlchecks.model.InvalidDirectiveException.class,
                () -> ExpectedRows.parse(narrow));
        assertEquals("line 3 has 3 cell(s) but the header has 2 column(s), and its '|' are not where the dashed line puts them: \uD83D\uDE80|+| y",
                e.getMessage());
        Outcome outcome = TestPage.on(verifier).add("", "SELECT E'\\U0001F680|\\n\\u231A' AS a, 'y' AS b;", cases().get(9).psql()).last();
        assertTrue(outcome.passed(), () -> String.valueOf(outcome.failure()));
    }
}
