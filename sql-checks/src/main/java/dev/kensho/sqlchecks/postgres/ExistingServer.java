package dev.kensho.sqlchecks.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * A server the author already runs, given as a JDBC URL. Its account must be allowed to create
 * roles and databases; Kensho creates one throw-away database and role per page and drops them.
 */
public final class ExistingServer implements PostgresProvider {

    private final String url;

    public ExistingServer(String url) {
        this.url = url;
    }

    @Override
    public String name() {
        return "jdbc";
    }

    @Override
    public String identity() {
        return "jdbc:" + redact(url);
    }

    @Override
    public RunningPostgres start() throws PostgresUnavailableException {
        Properties credentials = new Properties();
        String user = System.getenv("PGUSER");
        String password = System.getenv("PGPASSWORD");
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (password != null) {
            credentials.setProperty("password", password);
        }
        // The URL's own user and password win over the environment's, and leave the URL every connection is made from.
        String url = JdbcUrls.withoutCredentials(this.url, credentials);
        try (Connection probe = DriverManager.getConnection(url, credentials)) {
            probe.isValid(5);
        } catch (SQLException e) {
            throw new PostgresUnavailableException("cannot connect to " + redact(url) + ": " + e.getMessage()
                    + " (give user and password in the URL or in PGUSER/PGPASSWORD)", e);
        }
        return new RunningPostgres() {
            @Override
            public String jdbcUrl() {
                return url;
            }

            @Override
            public Properties adminCredentials() {
                return credentials;
            }

            @Override
            public String description() {
                return "existing server at " + redact(url);
            }

            @Override
            public String urlFor(String database) {
                return JdbcUrls.withDatabase(url, database);
            }

            @Override
            public boolean disposable() {
                return false;
            }

            @Override
            public void close() {
                // Not ours to stop.
            }
        };
    }

    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }
}
