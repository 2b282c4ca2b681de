package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.InvalidDirectiveException;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds snippets on consecutive lines of one page, from (meta, sql, rows) triples, and verifies them. */
final class TestPage {

    /** How a claim on the server's other databases or sessions is refused ({@link ServerWideReaders}): the message's start and end. */
    static final String DATABASES = "this claim cannot be checked: the page reads the server's other databases or sessions (";
    static final String DATABASES_WHY = "; the build's server also holds Kensho's own database and sessions and, with --jobs, "
            + "other pages' databases and sessions; a reader's holds the page's database only)";

    /** That the outcome failed with exactly this message at exactly this location. */
    static void assertRefused(String message, String location, Outcome outcome) {
        org.junit.jupiter.api.Assertions.assertTrue(outcome.failure() != null, () -> "passed: " + outcome.snippet().sql());
        org.junit.jupiter.api.Assertions.assertEquals(message, outcome.failure().message(), outcome.snippet().sql());
        org.junit.jupiter.api.Assertions.assertEquals(location, outcome.failure().location().toString(), outcome.snippet().sql());
    }

    private final Verifier verifier;
    final List<Snippet> snippets = new ArrayList<>();
    private int line = 1;

    private TestPage(Verifier verifier) {
        this.verifier = verifier;
    }

    static TestPage on(Verifier verifier) {
        return new TestPage(verifier);
    }

    TestPage add(String meta, String sql) throws InvalidDirectiveException {
        return add(meta, sql, null);
    }

    TestPage add(String meta, String sql, String rows) throws InvalidDirectiveException {
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String part : meta.split(" (?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            parsed.put(eq < 0 ? part : part.substring(0, eq), eq < 0 ? "true" : part.substring(eq + 1).replace("\"", ""));
        }
        Snippet snippet = Snippet.of(new SourceLocation("page.md", line, 1), sql)
                .with(Directives.parse(parsed), rows == null ? null : ExpectedRows.parse(rows));
        snippets.add(snippet);
        line += sql.split("\n").length + 3;
        return this;
    }

    /** Adds a scenario (a concurrency snippet, in the scenario syntax). */
    TestPage addScenario(String scenario) throws dev.kensho.sqlchecks.model.ScenarioSyntaxException {
        snippets.add(Snippet.of(new SourceLocation("page.md", line, 1), scenario)
                .withScenario(dev.kensho.sqlchecks.model.ScenarioParser.parse(scenario)));
        line += scenario.split("\n").length + 3;
        return this;
    }

    PageResult run() {
        return verifier.verifyPage("page.md", snippets);
    }

    Outcome last() {
        PageResult result = run();
        return result.outcomes().get(result.outcomes().size() - 1);
    }

    /**
     * A scenario whose a2 releases b1 and c1 at once (each waited for a), both inserting {@code b} and {@code c} into
     * {@code table}, no sequence named: the runner asks whether the database holds one.
     */
    static String releasedAtOnce(String table, String b, String c) {
        return """
                session a
                setup { BEGIN; }
                step a1 { LOCK TABLE %1$s; }
                step a2 { COMMIT; }
                session b
                setup { BEGIN; }
                step b1 waits-for=a { INSERT INTO %1$s VALUES %2$s; }
                step b2 { COMMIT; }
                session c
                setup { BEGIN; }
                step c1 waits-for=a { INSERT INTO %1$s VALUES %3$s; }
                step c2 { COMMIT; }
                permutation a1 b1 c1 a2 b2 c2
                """.formatted(table, b, c);
    }
}
