package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Page databases get one locale whatever the provider; a database of another is named as such. */
class DatabaseLocaleTest {

    private static String sortedIn(RunningPostgres server, String database) throws Exception {
        try (Connection connection = DriverManager.getConnection(server.urlFor(database), server.adminCredentials());
             Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT string_agg(x, ',' ORDER BY x) FROM (VALUES ('a'), ('B'), ('é'), ('Z')) v(x)")) {
            rs.next();
            return rs.getString(1) + " / " + DatabaseLocale.PAGE.differenceIn(connection);
        }
    }

    @Test
    void everyTemplateGivesThePageLocaleAndAnotherLocaleIsNamed() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin();
             Statement statement = admin.createStatement()) {
            assertEquals("template1", server.pageTemplate());
            assertEquals("UTF8, locale C (libc)", server.databaseLocale().describe());
            // As PageDatabase creates them on the embedded server, and on any other (template0).
            statement.execute("CREATE DATABASE warm TEMPLATE " + server.pageTemplate() + " " + server.databaseLocale().createOptions());
            statement.execute("CREATE DATABASE other TEMPLATE template0 " + server.databaseLocale().createOptions());
            assertEquals("B,Z,a,é / null", sortedIn(server, "warm"));
            assertEquals("B,Z,a,é / null", sortedIn(server, "other"));
            statement.execute("CREATE DATABASE builtin TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' LOCALE 'C'");
            assertEquals("B,Z,a,é / the page database is UTF8, locale C (builtin) with LC_CTYPE C, not UTF8, locale C (libc)",
                    sortedIn(server, "builtin"));
        }
    }

    @Test
    void theEmbeddedClusterIsMadeWithThePageLocale() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin()) {
            assertNull(DatabaseLocale.PAGE.differenceIn(admin));
        }
    }
}
