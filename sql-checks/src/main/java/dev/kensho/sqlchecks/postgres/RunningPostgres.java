package dev.kensho.sqlchecks.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/** A server that accepts connections until {@link #close()}. */
public interface RunningPostgres extends AutoCloseable {

    /** JDBC URL of the server's maintenance database; other databases are reached by {@link #urlFor}. */
    String jdbcUrl();

    /** Credentials of an account allowed to create roles and databases. */
    Properties adminCredentials();

    /** One line for the author: which provider, and where. */
    String description();

    /** JDBC URL of another database on the same server. */
    String urlFor(String database);

    default Connection connectAdmin() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), adminCredentials());
    }

    /**
     * Whether the server is Kensho's alone and goes away on {@link #close()} (an embedded cluster, a
     * container), so that settings which would disturb a shared server are fine.
     */
    default boolean disposable() {
        return true;
    }

    /** Stops what the provider started and removes its files; never throws. */
    @Override
    void close();
}
