package dev.kensho.sqlchecks;

import dev.kensho.sqlchecks.assertion.BoundedMatch;
import dev.kensho.sqlchecks.assertion.PlanCheck;
import dev.kensho.sqlchecks.assertion.RowComparison;
import dev.kensho.sqlchecks.assertion.SqlText;
import dev.kensho.sqlchecks.scenario.ScenarioRunner;
import dev.kensho.sqlchecks.script.SqlLexer;
import dev.kensho.sqlchecks.script.SqlSplitter;
import dev.kensho.sqlchecks.script.SqlStatement;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.LinkedHashMap;

/**
 * Runs a page's snippets on one connection, like psql running a script: setup snippets first, then
 * the rest in document order. Each snippet's directives are checked against what the server did.
 */
final class ScriptRunner {

    /** Below this many rows the planner rightly prefers reading the whole table. */
    private static final long SMALL_TABLE_ROWS = 1000;
    private static final String UNDEFINED_PARAMETER = "42P02";
    private static final String OUT_OF_MEMORY = "53200";

    private final Connection connection;
    private final ScenarioRunner scenarios;
    private final StatementGuard guard;
    private final PlanCatalog catalog;
    /** Snippets in the order they ran, to say where a setting was changed. */
    private final List<Snippet> ran = new ArrayList<>();
    private int preparedCounter;

    private final Duration pageTimeout;

    ScriptRunner(Connection connection, ScenarioRunner.SessionFactory sessions, StatementGuard guard, Duration pageTimeout) {
        this.connection = connection;
        this.pageTimeout = pageTimeout;
        this.scenarios = new ScenarioRunner(connection, sessions, guard);
        this.guard = guard;
        this.catalog = new PlanCatalog(connection);
    }

    /** Returns one outcome per snippet, in the order given (document order). */
    List<Outcome> run(List<Snippet> snippets) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            if (snippets.get(i).directives().setup()) {
                order.add(i);
            }
        }
        for (int i = 0; i < snippets.size(); i++) {
            if (!snippets.get(i).directives().setup()) {
                order.add(i);
            }
        }
        Outcome[] outcomes = new Outcome[snippets.size()];
        Outcome failed = null;
        long deadline = System.nanoTime() + pageTimeout.toNanos();
        for (int index : order) {
            Snippet snippet = snippets.get(index);
            if (failed == null && System.nanoTime() > deadline) {
                Failure reason = new Failure("Kensho stopped the page before this snippet: its snippets ran longer than "
                        + StatementGuard.seconds(pageTimeout) + " together (its limit per page, --page-timeout); a limit of "
                        + "Kensho's never satisfies a claim", null, snippet.location(), snippet.lineAt(0), null, null);
                failed = new Outcome(snippet, Outcome.Status.FAILED, reason, List.of(), List.of(), null, null, Duration.ZERO);
                outcomes[index] = failed;
                continue;
            }
            if (failed != null) {
                Failure reason = new Failure("not run: the snippet at " + failed.snippet().location()
                        + " failed and this one builds on it", null, snippet.location(), snippet.lineAt(0), null, null);
                outcomes[index] = new Outcome(snippet, Outcome.Status.SKIPPED, reason, List.of(), List.of(), null, null, Duration.ZERO);
                continue;
            }
            ran.add(snippet);
            Outcome outcome = snippet.scenario() != null ? scenarios.run(snippet) : new SnippetRun(snippet).run();
            outcomes[index] = outcome;
            if (!outcome.passed()) {
                failed = outcome;
            }
        }
        return Arrays.asList(outcomes);
    }

    /** The state of one snippet while it runs. */
    private final class SnippetRun {
        private final Snippet snippet;
        private final Directives directives;
        private final List<ResultTable> results = new ArrayList<>();
        private final List<Assertion> assertions = new ArrayList<>();
        private final long started = System.nanoTime();
        private String plan;
        private Outcome finished;

        SnippetRun(Snippet snippet) {
            this.snippet = snippet;
            this.directives = snippet.directives();
        }

        Outcome run() {
            List<SqlStatement> statements = SqlSplitter.split(snippet.sql());
            if (statements.isEmpty()) {
                return fail("the snippet holds no SQL statement", null, null);
            }
            if (!directives.parameters().isEmpty() && statements.size() != 1) {
                return fail("parameters ($1 … $n) bind to one statement, and this snippet has " + statements.size(), null, null);
            }
            if (directives.expectError() != null && snippet.expectedRows() != null) {
                return fail("expected rows cannot be compared under expect-error: the failing statement returns no rows", null, null);
            }
            SqlStatement last = statements.get(statements.size() - 1);
            Target target = directives.parameters().isEmpty() ? new Target(last.text(), 0, null) : prepare(last);
            if (target == null) {
                return finished;
            }
            try {
                for (SqlStatement statement : statements) {
                    try {
                        ResultTable table = execute(statement == last ? target.sql : statement.text());
                        if (table != null) {
                            results.add(statement == last ? table.withStatement(last.text()) : table);
                        }
                    } catch (SQLException e) {
                        return failedStatement(e, statement, statement == last ? target.shift : 0, statement == last);
                    }
                }
                if (directives.expectError() != null) {
                    return fail("expected the snippet to fail with SQLSTATE " + directives.expectError()
                            + ", but every statement succeeded", null, null);
                }
                assertions.add(Assertion.held("runs", Map.of("statements", Integer.toString(statements.size())),
                        "runs without error"));
                Outcome rows = checkRows(last);
                if (rows != null) {
                    return rows;
                }
                Outcome planOutcome = checkPlan(target);
                if (planOutcome != null) {
                    return planOutcome;
                }
                return outcome(Outcome.Status.PASSED, null);
            } finally {
                target.release();
            }
        }

        /** PREPAREs a parameterised statement; on failure records the outcome and returns null. */
        private Target prepare(SqlStatement statement) {
            String name = "kensho_p" + (++preparedCounter);
            String types = directives.parameters().stream().map(Directives.Parameter::type).collect(Collectors.joining(", "));
            String prefix = "PREPARE " + name + " (" + types + ") AS ";
            try {
                execute(prefix + statement.text());
            } catch (SQLException e) {
                finished = failedStatement(e, statement, -prefix.length(), true);
                return null;
            }
            String arguments = directives.parameters().stream().map(p -> quote(p.value())).collect(Collectors.joining(", "));
            return new Target("EXECUTE " + name + " (" + arguments + ")", -prefix.length(), name);
        }

        private Outcome failedStatement(SQLException e, SqlStatement statement, int shift, boolean isLast) {
            Failure failure = describe(e, snippet, statement, shift);
            String expected = directives.expectError();
            rollbackIfAborted(expected == null || !isLast);
            if (expected == null) {
                return new Outcome(snippet, Outcome.Status.FAILED, failure, results, assertions, null, null, elapsed());
            }
            if (KenshoLimits.ownLimit(e) != null) {
                return fail(KenshoLimits.ownLimit(e) + "; only an error the server reports for the lesson's own SQL satisfies "
                        + "expect-error", failure, null);
            }
            String sqlState = failure.sqlState();
            if (!expected.equals(sqlState)) {
                return fail("expected SQLSTATE " + expected + ", but the server reported " + sqlState + ": " + failure.message(),
                        failure, sqlState);
            }
            if (directives.errorPattern() != null) {
                try {
                    if (!BoundedMatch.find(directives.errorPattern(), failure.message())) {
                        return fail("the error message \"" + failure.message() + "\" does not match /" + directives.errorPattern().pattern() + "/",
                                failure, sqlState);
                    }
                } catch (BoundedMatch.TooSlow slow) {
                    return fail(slow.getMessage(), failure, sqlState);
                }
            }
            if (!isLast) {
                return fail("the expected error came from a statement before the last one, so the statements after it never ran; "
                        + "end the snippet with the failing statement", failure, sqlState);
            }
            // The failed transaction is left as it is: the lesson's next snippet may ROLLBACK TO SAVEPOINT.
            String pattern = directives.errorPattern() == null ? "" : directives.errorPattern().pattern();
            assertions.add(Assertion.held("fails-with", Map.of("sqlstate", expected, "pattern", pattern, "message", failure.message()),
                    "fails with SQLSTATE " + expected + (pattern.isEmpty() ? "" : " and a message matching /" + pattern + "/")));
            return outcome(Outcome.Status.PASSED, null);
        }

        private Outcome checkRows(SqlStatement last) {
            ExpectedRows expected = snippet.expectedRows();
            if (expected == null) {
                return null;
            }
            boolean ordered = SqlText.hasTopLevelOrderBy(last.text());
            if (results.isEmpty() || !results.get(results.size() - 1).statement().equals(last.text())) {
                return fail("expected rows are written under the snippet, but its last statement returned no rows; "
                        + "only a query or a statement with RETURNING can be compared", null, null);
            }
            ResultTable actual = results.get(results.size() - 1);
            String difference = RowComparison.compare(expected, actual);
            String description = "returns the " + expected.rows().size() + " expected row(s)" + (ordered ? " in order" : " (in any order)");
            Assertion claim = new Assertion("rows", Map.of("count", Integer.toString(expected.rows().size()),
                    "ordered", Boolean.toString(ordered)), description, difference == null);
            assertions.add(claim);
            if (difference != null) {
                int newline = difference.indexOf('\n');
                return fail(difference.substring(0, newline < 0 ? difference.length() : newline), null, null,
                        newline < 0 ? null : difference.substring(newline + 1));
            }
            return null;
        }

        private Outcome checkPlan(Target target) {
            Directives.PlanExpectations expected = directives.plan();
            if (expected == null && !directives.showPlan()) {
                return null;
            }
            try {
                if (expected != null) {
                    PlanCheck shape = PlanCheck.of(queryText("EXPLAIN (FORMAT JSON, COSTS OFF, SETTINGS, VERBOSE) " + target.sql));
                    // search_path is listed by EXPLAIN (SETTINGS) but decides which tables names mean, not how they are read.
                    Map<String, String> planner = new LinkedHashMap<>(shape.settings());
                    planner.remove("search_path");
                    if (!planner.isEmpty()) {
                        String settings = planner.entrySet().stream().map(e -> e.getKey() + " = " + e.getValue()
                                + " (" + whereSet(e.getKey()) + ")").collect(Collectors.joining(", "));
                        assertions.add(new Assertion("planner-defaults", Map.of("settings", settings),
                                "plan taken with the planner's default settings", false));
                        return fail("plan claims cannot be checked: the plan was made with " + settings + "; a plan forced by "
                                + "planner settings says nothing about what PostgreSQL chooses by default. Remove the setting "
                                + "(RESET it before this snippet) or drop the plan claims", null, null);
                    }
                    assertions.add(Assertion.held("planner-defaults", Map.of(), "plan taken with the planner's default settings"));
                    PlanCheck written = PlanCheck.of(queryText("EXPLAIN (FORMAT JSON, COSTS OFF) " + target.sql));
                    List<PlanCheck.Result> checked = new ArrayList<>(shape.check(expected,
                            catalog.index(expected.usesIndex()), catalog.table(expected.noSeqScanOn()), written));
                    if (expected.measuresWork()) {
                        checked.addAll(PlanCheck.of(explainAnalyze(target.sql, "FORMAT JSON, ANALYZE, BUFFERS")).checkWork(expected));
                    }
                    List<String> problems = new ArrayList<>();
                    for (PlanCheck.Result result : checked) {
                        assertions.add(new Assertion(result.kind(), result.facts(), result.assertion(), result.passed()));
                        if (!result.passed()) {
                            problems.add(result.assertion() + ": " + result.problem());
                        }
                    }
                    if (!problems.isEmpty()) {
                        String advice = smallTableAdvice(shape);
                        List<String> details = new ArrayList<>(problems.subList(1, problems.size()));
                        if (advice != null) {
                            details.add(advice);
                        }
                        return fail("plan assertion failed: " + problems.get(0), null, null, String.join("\n", details));
                    }
                }
                if (directives.showPlan()) {
                    plan = explainAnalyze(target.sql, "ANALYZE, BUFFERS");
                }
                return null;
            } catch (SQLException e) {
                rollbackIfAborted(true);
                return fail("EXPLAIN failed: " + e.getMessage(), null, e.getSQLState());
            }
        }

        /** The first place on the page, in run order, whose SQL names the setting. */
        private String whereSet(String setting) {
            for (Snippet earlier : ran) {
                for (SqlLexer.Token token : SqlLexer.tokens(earlier.sql())) {
                    if (token.kind() != SqlLexer.Kind.WHITESPACE && token.text().toLowerCase(Locale.ROOT).contains(setting.toLowerCase(Locale.ROOT))) {
                        return "set at " + earlier.locate(token.start());
                    }
                }
            }
            return "not set by a snippet on this page; the server's or role's configuration sets it";
        }

        private String smallTableAdvice(PlanCheck check) throws SQLException {
            if (!check.hasSeqScan()) {
                return null;
            }
            List<String> small = new ArrayList<>();
            for (String relation : check.relations()) {
                long rows = catalog.rowCount(relation);
                if (rows < SMALL_TABLE_ROWS) {
                    small.add(relation + " has " + rows + " row(s)");
                }
            }
            return small.isEmpty() ? null : "hint: " + String.join(", ", small) + "; on a table that small the planner rightly "
                    + "prefers a Seq Scan. Seed realistic data first (INSERT … SELECT … FROM generate_series(1, 10000)) and ANALYZE";
        }

        /** EXPLAIN with ANALYZE runs the statement; its effects are rolled back. */
        private String explainAnalyze(String sql, String options) throws SQLException {
            boolean inTransaction = connection.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE;
            execute(inTransaction ? "SAVEPOINT kensho_explain" : "BEGIN");
            try {
                return queryText("EXPLAIN (" + options + ") " + sql);
            } finally {
                execute(inTransaction ? "ROLLBACK TO SAVEPOINT kensho_explain" : "ROLLBACK");
            }
        }

        private String queryText(String sql) throws SQLException {
            ResultTable table = execute(sql);
            return table.rows().stream().map(r -> r.get(0)).collect(Collectors.joining("\n"));
        }

        private Outcome fail(String message, Failure cause, String sqlState) {
            return fail(message, cause, sqlState, cause == null ? null : cause.detail());
        }

        private Outcome fail(String message, Failure cause, String sqlState, String detail) {
            SourceLocation location = cause == null ? snippet.location() : cause.location();
            String line = cause == null ? snippet.lineAt(0) : cause.sourceLine();
            Failure failure = new Failure(message, sqlState, location, line, detail == null || detail.isBlank() ? null : detail,
                    cause == null ? null : cause.hint());
            return outcome(Outcome.Status.FAILED, failure);
        }

        /** Results are compared in full above; the outcome keeps a bounded number of rows for display and the cache. */
        private Outcome outcome(Outcome.Status status, Failure failure) {
            List<ResultTable> kept = results.stream().map(t -> t.truncated(SqlExecution.ROWS_KEPT)).toList();
            return new Outcome(snippet, status, failure, kept, assertions, status == Outcome.Status.PASSED ? plan : null, null, elapsed());
        }

        private Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - started);
        }
    }

    /**
     * The statement assertions look at: the snippet's last statement, or the EXECUTE of its prepared
     * form when parameters are bound.
     *
     * @param shift added to the server's error position to land in the author's text
     */
    private final class Target {
        final String sql;
        final int shift;
        final String preparedName;

        Target(String sql, int shift, String preparedName) {
            this.sql = sql;
            this.shift = shift;
            this.preparedName = preparedName;
        }

        void release() {
            if (preparedName == null) {
                return;
            }
            try {
                execute("DEALLOCATE " + preparedName);
            } catch (SQLException ignored) {
                // Inside a failed transaction DEALLOCATE fails too; the session ends with the page anyway.
            }
        }
    }

    private ResultTable execute(String sql) throws SQLException {
        return SqlExecution.execute(connection, sql, guard);
    }

    private static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    private Failure describe(SQLException e, Snippet snippet, SqlStatement statement, int shift) {
        ServerErrorMessage server = e instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
        if (server == null || e instanceof KenshoLimitException) {
            int at = statement.offset();
            return new Failure(e.getMessage(), null, snippet.locate(at), snippet.lineAt(at), null, null);
        }
        // The server counts characters (code points); Java strings count UTF-16 units.
        String sent = shift < 0 ? " ".repeat(-shift) + statement.text() : statement.text();
        int position = 0;
        if (server.getPosition() > 0) {
            int codePoints = Math.min(server.getPosition() - 1, sent.codePointCount(0, sent.length()));
            position = Math.max(0, sent.offsetByCodePoints(0, codePoints) + shift);
        }
        int at = statement.offset() + position;
        String hint = server.getHint();
        if (UNDEFINED_PARAMETER.equals(server.getSQLState()) && snippet.directives().parameters().isEmpty()) {
            hint = "bind a value to it in the fence's meta: $1:TYPE=VALUE";
        } else if (OUT_OF_MEMORY.equals(server.getSQLState())) {
            hint = "Kensho bounds the memory of each PostgreSQL process so that a snippet cannot take the build machine's; "
                    + "use less (a smaller work_mem, fewer rows at once)";
        }
        return new Failure(server.getMessage(), server.getSQLState(), snippet.locate(at), snippet.lineAt(at), server.getDetail(), hint);
    }

    /** Leaves no failed transaction behind, so that later pages' teardown is not held up. */
    private void rollbackIfAborted(boolean wanted) {
        if (!wanted) {
            return;
        }
        try {
            if (connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED) {
                execute("ROLLBACK");
            }
        } catch (SQLException ignored) {
            // A broken connection is dropped with the database.
        }
    }
}
