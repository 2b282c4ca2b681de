package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.assertion.PlanCheck;
import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Directives.PlanExpectations;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a snippet's plan claims came to: the assertions, and the first problem (null when every claim held) with the others
 * and the advice as its detail. Judged on the real run's own plan; what the plan's fields cannot tell (which relation a
 * written name resolves to, an index's keys, a table's TOAST size) comes from the page's catalog, which the real run
 * never asks (no connection of Kensho's reaches its database, see {@link KenshoConnections}): such a claim is judged on
 * a replay of the page that has nothing of Kensho's before that point and stops right after it ({@link Pending#judge},
 * {@link CaptureRun#questions}, {@link CaptureRun#answered}).
 */
record PlanVerdict(List<Assertion> assertions, String problem, String detail, String sqlState) {

    /** A plan claim as the real run saw it, waiting for the catalog. */
    record Pending(PlanExpectations expected, PlanCheck shape, String advice) {

        /**
         * The verdict, when the claims ask nothing of the catalog; null when they do (then {@link #judge} on the capture
         * run). Told by asking a catalog that answers nothing: the claims' own code says what it needs, no list to keep.
         */
        PlanVerdict withoutCatalog() {
            if (expected.usesIndex() != null || expected.noSeqScanOn() != null) {
                return null;
            }
            try {
                return of(null, null, UNANSWERED);
            } catch (Unanswered e) {
                return null;
            } catch (SQLException e) {
                throw new IllegalStateException("a plan claim asked nothing of the catalog, yet failed: " + e.getMessage(), e);
            }
        }

        /** The verdict with the capture run's catalog, at the point where the real run checked the plan. */
        PlanVerdict judge(PlanCatalog catalog) {
            try {
                return of(catalog.index(expected.usesIndex()), catalog.table(expected.noSeqScanOn()), catalog);
            } catch (SQLException e) {
                return new PlanVerdict(List.of(), "Kensho could not resolve the names the plan claims use: " + e.getMessage(), null,
                        e.getSQLState());
            }
        }

        private PlanVerdict of(PlanCheck.IndexClaim index, PlanCheck.TableClaim table, PlanCheck.Catalog catalog) throws SQLException {
            List<PlanCheck.Result> checked = new ArrayList<>(shape.check(expected, index, table, catalog));
            checked.addAll(shape.checkWork(expected, catalog));
            List<Assertion> assertions = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            for (PlanCheck.Result result : checked) {
                assertions.add(new Assertion(result.kind(), result.facts(), result.assertion(), result.passed()));
                if (!result.passed()) {
                    problems.add(result.assertion() + ": " + result.problem());
                }
            }
            if (problems.isEmpty()) {
                return new PlanVerdict(assertions, null, null, null);
            }
            List<String> details = new ArrayList<>(problems.subList(1, problems.size()));
            if (advice != null) {
                details.add(advice);
            }
            return new PlanVerdict(assertions, "plan assertion failed: " + problems.get(0), String.join("\n", details), null);
        }
    }

    /** Thrown by {@link #UNANSWERED}: the claims need the catalog. */
    private static final class Unanswered extends SQLException {
        Unanswered() {
            super("the catalog is asked on the capture run");
        }
    }

    private static final PlanCheck.Catalog UNANSWERED = new PlanCheck.Catalog() {
        @Override
        public List<String> indexKeys(String schema, String index) throws SQLException {
            throw new Unanswered();
        }

        @Override
        public long toastBytes(String schema, String table) throws SQLException {
            throw new Unanswered();
        }
    };

    PlanVerdict {
        assertions = List.copyOf(assertions);
    }
}
