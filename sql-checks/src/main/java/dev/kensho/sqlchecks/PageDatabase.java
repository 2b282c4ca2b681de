package dev.kensho.sqlchecks;

import dev.kensho.sqlchecks.postgres.RunningPostgres;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Properties;

/** A database and its owning role, made for one page and dropped afterwards. */
final class PageDatabase implements AutoCloseable {

    private final RunningPostgres server;
    private final String name;
    private final Connection connection;

    private PageDatabase(RunningPostgres server, String name, Connection connection) {
        this.server = server;
        this.name = name;
        this.connection = connection;
    }

    static PageDatabase create(RunningPostgres server, String name, VerifierSettings settings) throws SQLException {
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        try (Connection admin = server.connectAdmin(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE " + name + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION"
                    + " NOBYPASSRLS PASSWORD '" + password + "'");
            statement.execute("ALTER ROLE " + name + " SET statement_timeout = '" + settings.statementTimeout().toMillis() + "ms'");
            statement.execute("ALTER ROLE " + name + " SET lock_timeout = '" + settings.lockTimeout().toMillis() + "ms'");
            statement.execute("ALTER ROLE " + name + " SET idle_in_transaction_session_timeout = '"
                    + settings.statementTimeout().multipliedBy(3).toMillis() + "ms'");
            statement.execute("CREATE DATABASE " + name + " OWNER " + name + " TEMPLATE template1");
            statement.execute("REVOKE ALL ON DATABASE " + name + " FROM PUBLIC");
        }
        Properties credentials = new Properties();
        credentials.setProperty("user", name);
        credentials.setProperty("password", password);
        credentials.setProperty("ApplicationName", "kensho");
        // Text results exactly as the server prints them, so rows compare like psql shows them.
        credentials.setProperty("binaryTransfer", "false");
        credentials.setProperty("options", "-c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=postgres -c extra_float_digits=1");
        Connection connection;
        try {
            connection = DriverManager.getConnection(server.urlFor(name), credentials);
        } catch (SQLException e) {
            drop(server, name);
            throw e;
        }
        return new PageDatabase(server, name, connection);
    }

    Connection connection() {
        return connection;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // The database is dropped with FORCE below.
        }
        drop(server, name);
    }

    private static void drop(RunningPostgres server, String name) {
        try (Connection admin = server.connectAdmin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            statement.execute("DROP ROLE IF EXISTS " + name);
        } catch (SQLException e) {
            System.err.println("warning: could not drop page database " + name + ": " + e.getMessage());
        }
    }
}
