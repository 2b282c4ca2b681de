package dev.kensho.sqlchecks;

import dev.kensho.sqlchecks.assertion.PlanCheck;
import dev.kensho.sqlchecks.assertion.RowComparison;
import dev.kensho.sqlchecks.assertion.SqlText;
import dev.kensho.sqlchecks.scenario.ScenarioRunner;
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
import java.util.stream.Collectors;

/**
 * Runs a page's snippets on one connection, like psql running a script: setup snippets first, then
 * the rest in document order. Each snippet's directives are checked against what the server did.
 */
final class ScriptRunner {

    /** Below this many rows the planner rightly prefers reading the whole table. */
    private static final long SMALL_TABLE_ROWS = 1000;
    private static final String TIMEOUT_SQLSTATE = "57014";
    private static final String LOCK_TIMEOUT_SQLSTATE = "55P03";

    private final Connection connection;
    private final ScenarioRunner scenarios;
    private final VerifierSettings settings;
    private int preparedCounter;

    ScriptRunner(Connection connection, ScenarioRunner.SessionFactory sessions, VerifierSettings settings) {
        this.connection = connection;
        this.scenarios = new ScenarioRunner(connection, sessions, settings);
        this.settings = settings;
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
        for (int index : order) {
            Snippet snippet = snippets.get(index);
            if (failed != null) {
                Failure reason = new Failure("not run: the snippet at " + failed.snippet().location()
                        + " failed and this one builds on it", null, snippet.location(), snippet.lineAt(0), null, null);
                outcomes[index] = new Outcome(snippet, Outcome.Status.SKIPPED, reason, List.of(), List.of(), null, null, Duration.ZERO);
                continue;
            }
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
            for (SqlStatement statement : statements) {
                int placeholders = SqlText.highestPlaceholder(statement.text());
                if (placeholders > directives.parameters().size()) {
                    return fail("the statement uses $" + placeholders + " but " + (directives.parameters().isEmpty() ? "no value is"
                            : "only $1 … $" + directives.parameters().size() + " are") + " bound; add $" + placeholders
                            + ":TYPE=VALUE to the fence", null, null);
                }
            }
            SqlStatement last = statements.get(statements.size() - 1);
            Target target = directives.parameters().isEmpty() ? new Target(last.text(), 0, null) : prepare(last);
            if (target == null) {
                return finished;
            }
            try {
                for (SqlStatement statement : statements) {
                    try {
                        ResultTable table = statement == last ? executeTarget(target, last) : execute(statement.text());
                        if (table != null) {
                            results.add(table);
                        }
                    } catch (SQLException e) {
                        return failedStatement(e, statement, statement == last ? target.shift : 0, statement == last);
                    }
                }
                if (directives.expectError() != null) {
                    return fail("expected the snippet to fail with SQLSTATE " + directives.expectError()
                            + ", but every statement succeeded", null, null);
                }
                assertions.add(new Assertion("runs without error", true));
                Outcome rows = checkRows(last);
                if (rows != null) {
                    return rows;
                }
                Outcome planOutcome = checkPlan(target);
                if (planOutcome != null) {
                    return planOutcome;
                }
                return new Outcome(snippet, Outcome.Status.PASSED, null, results, assertions, plan, null, elapsed());
            } finally {
                target.release();
            }
        }

        private Outcome finished;

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

        private ResultTable executeTarget(Target target, SqlStatement last) throws SQLException {
            ResultTable table = execute(target.sql);
            // Compare and display against the statement as the author wrote it, not the EXECUTE wrapper.
            return table == null || target.preparedName == null ? table
                    : new ResultTable(last.text(), table.columns(), table.rows());
        }

        private Outcome failedStatement(SQLException e, SqlStatement statement, int shift, boolean isLast) {
            Failure failure = describe(e, snippet, statement, shift);
            String expected = directives.expectError();
            if (expected == null) {
                rollbackIfAborted();
                return new Outcome(snippet, Outcome.Status.FAILED, failure, results, assertions, null, null, elapsed());
            }
            String sqlState = failure.sqlState();
            if (!expected.equals(sqlState)) {
                rollbackIfAborted();
                return fail("expected SQLSTATE " + expected + ", but the server reported " + sqlState + ": " + failure.message(),
                        failure, sqlState);
            }
            if (directives.errorPattern() != null && !directives.errorPattern().matcher(failure.message()).find()) {
                rollbackIfAborted();
                return fail("the error message \"" + failure.message() + "\" does not match /" + directives.errorPattern().pattern() + "/",
                        failure, sqlState);
            }
            if (!isLast) {
                rollbackIfAborted();
                return fail("the expected error came from a statement before the last one, so the statements after it never ran; "
                        + "end the snippet with the failing statement", failure, sqlState);
            }
            // The failed transaction is left as it is: the lesson's next snippet may ROLLBACK TO SAVEPOINT.
            assertions.add(new Assertion("fails with SQLSTATE " + expected
                    + (directives.errorPattern() == null ? "" : " and a message matching /" + directives.errorPattern().pattern() + "/"), true));
            return new Outcome(snippet, Outcome.Status.PASSED, null, results, assertions, null, null, elapsed());
        }

        private Outcome checkRows(SqlStatement last) {
            ExpectedRows expected = snippet.expectedRows();
            if (expected == null) {
                return null;
            }
            String claim = "returns the " + expected.rows().size() + " expected row(s)"
                    + (SqlText.hasTopLevelOrderBy(last.text()) ? " in order" : " (in any order)");
            if (results.isEmpty() || !results.get(results.size() - 1).statement().equals(last.text())) {
                return fail("expected rows are written under the snippet, but its last statement returned no rows; "
                        + "only a query or a statement with RETURNING can be compared", null, null);
            }
            String difference = RowComparison.compare(expected, results.get(results.size() - 1));
            if (difference != null) {
                assertions.add(new Assertion(claim, false));
                int newline = difference.indexOf('\n');
                return fail(difference.substring(0, newline < 0 ? difference.length() : newline), null, null,
                        newline < 0 ? null : difference.substring(newline + 1));
            }
            assertions.add(new Assertion(claim, true));
            return null;
        }

        private Outcome checkPlan(Target target) {
            if (directives.plan() == null && !directives.showPlan()) {
                return null;
            }
            try {
                if (directives.plan() != null) {
                    PlanCheck check = PlanCheck.of(queryText("EXPLAIN (FORMAT JSON, COSTS OFF) " + target.sql));
                    List<String> problems = new ArrayList<>();
                    for (PlanCheck.Result result : check.check(directives.plan())) {
                        assertions.add(new Assertion(result.assertion(), result.passed()));
                        if (!result.passed()) {
                            problems.add(result.assertion() + ": " + result.problem());
                        }
                    }
                    if (!problems.isEmpty()) {
                        String advice = smallTableAdvice(check);
                        List<String> details = new ArrayList<>(problems.subList(1, problems.size()));
                        if (advice != null) {
                            details.add(advice);
                        }
                        return fail("plan assertion failed: " + problems.get(0), null, null, String.join("\n", details));
                    }
                }
                if (directives.showPlan()) {
                    plan = explainAnalyze(target.sql);
                }
                return null;
            } catch (SQLException e) {
                rollbackIfAborted();
                return fail("EXPLAIN failed: " + e.getMessage(), null, e.getSQLState());
            }
        }

        private String smallTableAdvice(PlanCheck check) throws SQLException {
            if (!check.hasSeqScan()) {
                return null;
            }
            List<String> small = new ArrayList<>();
            for (String relation : check.relations()) {
                long rows = Long.parseLong(queryText("SELECT count(*) FROM " + relation));
                if (rows < SMALL_TABLE_ROWS) {
                    small.add(relation + " has " + rows + " row(s)");
                }
            }
            return small.isEmpty() ? null : "hint: " + String.join(", ", small) + "; on a table that small the planner rightly "
                    + "prefers a Seq Scan. Seed realistic data first (INSERT … SELECT … FROM generate_series(1, 10000)) and ANALYZE";
        }

        /** EXPLAIN (ANALYZE, BUFFERS) runs the statement; its effects are rolled back. */
        private String explainAnalyze(String sql) throws SQLException {
            boolean inTransaction = connection.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE;
            execute(inTransaction ? "SAVEPOINT kensho_explain" : "BEGIN");
            try {
                ResultTable table = execute("EXPLAIN (ANALYZE, BUFFERS) " + sql);
                return table.rows().stream().map(r -> r.get(0)).collect(Collectors.joining("\n"));
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
            return new Outcome(snippet, Outcome.Status.FAILED, failure, results, assertions, null, null, elapsed());
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
        return SqlExecution.execute(connection, sql, settings);
    }

    private static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    private Failure describe(SQLException e, Snippet snippet, SqlStatement statement, int shift) {
        ServerErrorMessage server = e instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
        if (server == null) {
            int at = statement.offset();
            return new Failure(e.getMessage(), e.getSQLState(), snippet.locate(at), snippet.lineAt(at), null, null);
        }
        int position = server.getPosition() > 0 ? server.getPosition() - 1 + shift : 0;
        int at = statement.offset() + Math.max(0, position);
        String hint = server.getHint();
        String state = server.getSQLState();
        if (TIMEOUT_SQLSTATE.equals(state)) {
            hint = "Kensho stops every statement after " + seconds(settings.statementTimeout())
                    + " so that a runaway snippet cannot hang the build";
        } else if (LOCK_TIMEOUT_SQLSTATE.equals(state)) {
            hint = "Kensho stops a statement that waits more than " + seconds(settings.lockTimeout())
                    + " for a lock; is another transaction on the page still open?";
        }
        return new Failure(server.getMessage(), state, snippet.locate(at), snippet.lineAt(at), server.getDetail(), hint);
    }

    private static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }

    /** Leaves no failed transaction behind, so that later pages' teardown is not held up. */
    private void rollbackIfAborted() {
        try {
            if (connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.FAILED) {
                execute("ROLLBACK");
            }
        } catch (SQLException ignored) {
            // A broken connection is dropped with the database.
        }
    }
}
