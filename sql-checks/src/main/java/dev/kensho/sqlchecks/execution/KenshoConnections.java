package dev.kensho.sqlchecks.execution;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Connections of Kensho's own to a page's database (besides the reader's page session and a scenario's sessions): the
 * catalog look-ups of plan claims ({@link PlanCatalog}), the look for sequences of a scenario's simultaneous release
 * ({@link ScenarioRunner}) and the read of a scenario's end state ({@link StateCapture}).
 *
 * <p>Only a database whose run is not the page's evidence hands them out ({@link PageDatabase#kenshoConnections()}): a
 * capture run's ({@link CaptureRun}). The real run's {@link ScriptRunner} and {@link ScenarioRunner} are made without one,
 * so no code running beside the reader's statements can open such a connection, whatever it asks. Any connection to the
 * page's database shows to the page: {@code pg_stat_database} counts it ({@code numbackends}, {@code sessions}, its
 * transactions), {@code pg_stat_activity} lists it, its locks are in {@code pg_locks}. A question Kensho has about the
 * catalog is therefore asked on a capture run, a replay of the page on a fresh database that has no connection of
 * Kensho's before that question and stops after it ({@link CaptureRun#questions}), and its answer is used only when the
 * replay reached the asking snippet as the real run did ({@link CaptureRun#answered}).
 */
final class KenshoConnections {

    private final PageDatabase database;

    KenshoConnections(PageDatabase database) {
        this.database = database;
    }

    /** As the page's role, so that names resolve as the page's own statements resolve them (its search_path, its grants). */
    Connection asPageRole() throws SQLException {
        return database.openSession();
    }

    /** Kensho's superuser, leaving as little trace as it can ({@link PageDatabase#openStateReader()}). */
    Connection stateReader() throws SQLException {
        return database.openStateReader();
    }
}
