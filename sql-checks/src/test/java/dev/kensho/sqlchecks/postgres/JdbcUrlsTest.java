package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An existing server's URL may carry the administrator's user and password (the README says so): they must leave the URL
 * that page connections are made from, or pgjdbc connects every page's session as the administrator (URL parameters
 * outrank the page role's properties).
 */
class JdbcUrlsTest {

    @Test
    void credentialsLeaveTheUrlForTheProperties() {
        Properties credentials = new Properties();
        credentials.setProperty("user", "from_environment");
        String url = JdbcUrls.withoutCredentials("jdbc:postgresql://db:5432/app?sslmode=require&user=admin&password=p%26ss&connectTimeout=5",
                credentials);
        assertEquals("jdbc:postgresql://db:5432/app?sslmode=require&connectTimeout=5", url);
        assertEquals("admin", credentials.getProperty("user"));
        assertEquals("p&ss", credentials.getProperty("password"));
        assertEquals("jdbc:postgresql://db:5432/kensho_1?sslmode=require&connectTimeout=5", JdbcUrls.withDatabase(url, "kensho_1"));
        assertEquals("jdbc:postgresql://db/app", JdbcUrls.withoutCredentials("jdbc:postgresql://db/app?user=admin", new Properties()));
    }
    /**
     * Red team: pgjdbc takes a {@code dbname} parameter (any case) or {@code PGDBNAME} over the URL's path, so an existing
     * server's URL that carried one sent every page's session, and every replay's "fresh database", to that one database
     * (the maintenance database, shared by every page and run). Kensho chooses the database: such parameters leave the URL.
     */
    @Test
    void aDatabaseNamedInTheParametersLeavesTheUrl() {
        for (String parameter : new String[] {"dbname", "DBNAME", "PGDBNAME", "pgdbname"}) {
            String url = JdbcUrls.withDatabase(JdbcUrls.withoutCredentials("jdbc:postgresql://db:5432/app?" + parameter
                    + "=postgres&sslmode=require", new Properties()), "kensho_1");
            assertEquals("jdbc:postgresql://db:5432/kensho_1?sslmode=require", url);
            assertEquals("kensho_1", org.postgresql.Driver.parseURL(url, new Properties()).getProperty("PGDBNAME"), url);
        }
    }
}
