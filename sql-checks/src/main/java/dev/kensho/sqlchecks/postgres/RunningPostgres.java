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

    /**
     * The locale page databases are created with ({@code CREATE DATABASE … TEMPLATE pageTemplate() }
     * {@link DatabaseLocale#createOptions()}): the same for every provider, so that text order does not
     * depend on where the server came from.
     */
    default DatabaseLocale databaseLocale() {
        return DatabaseLocale.PAGE;
    }

    /**
     * The template page databases are copied from. template0 by default: only it may be copied with a
     * locale other than the server's default. A server whose template1 already has
     * {@link #databaseLocale()} (the embedded cluster) may name template1.
     */
    default String pageTemplate() {
        return "template0";
    }

    /** Stops what the provider started and removes its files; never throws. */
    @Override
    void close();
}
