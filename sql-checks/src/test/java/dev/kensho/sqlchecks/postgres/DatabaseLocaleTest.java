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
            assertEquals("UTF8, collation C, character type C.UTF-8 (libc)", server.databaseLocale().describe());
            // As PageDatabase creates them on the embedded server, and on any other (template0).
            statement.execute("CREATE DATABASE warm TEMPLATE " + server.pageTemplate() + " " + server.databaseLocale().createOptions());
            statement.execute("CREATE DATABASE other TEMPLATE template0 " + server.databaseLocale().createOptions());
            assertEquals("B,Z,a,é / null", sortedIn(server, "warm"));
            assertEquals("B,Z,a,é / null", sortedIn(server, "other"));
            statement.execute("CREATE DATABASE builtin TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' LOCALE 'C'");
            assertEquals("B,Z,a,é / the page database is UTF8, collation C, character type C (builtin), not UTF8, collation C,"
                    + " character type C.UTF-8 (libc)", sortedIn(server, "builtin"));
            statement.execute("CREATE DATABASE asciictype TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER libc LOCALE 'C'");
            assertEquals("B,Z,a,é / the page database is UTF8, collation C, character type C (libc), not UTF8, collation C,"
                    + " character type C.UTF-8 (libc)", sortedIn(server, "asciictype"));
        }
    }

    /**
     * The character type is the playground's (PGlite 0.5.16: LC_CTYPE C.UTF-8, libc), so case rules and character classes
     * of non-ASCII text give what a reader's run gives; under LC_CTYPE C they were ASCII-only. The expected values are
     * PGlite's, read under node.
     */
    @Test
    void caseRulesAndCharacterClassesOfNonAsciiTextAreThePlaygrounds() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin();
             Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE page TEMPLATE " + server.pageTemplate() + " " + server.databaseLocale().createOptions());
            try (Connection page = DriverManager.getConnection(server.urlFor("page"), server.adminCredentials());
                 Statement query = page.createStatement();
                 ResultSet rs = query.executeQuery("SELECT upper('émile'), lower('ÉCOLE'), initcap('ångström'),"
                         + " 'あ' ~ '^[[:alpha:]]$', '\u3000' ~ '^[[:space:]]$', 'Ｂ' ~* 'ｂ', 'Straße' ILIKE 'STRASSE',"
                         + " 'ÉTÉ' ILIKE 'été', regexp_replace('東京\u3000都', '[[:space:]]', '', 'g')")) {
                rs.next();
                assertEquals("ÉMILE", rs.getString(1));
                assertEquals("école", rs.getString(2));
                assertEquals("Ångström", rs.getString(3));
                assertEquals(true, rs.getBoolean(4));
                assertEquals(true, rs.getBoolean(5));
                assertEquals(true, rs.getBoolean(6));
                assertEquals(false, rs.getBoolean(7));
                assertEquals(true, rs.getBoolean(8));
                assertEquals("東京都", rs.getString(9));
            }
        }
    }

    @Test
    void theEmbeddedClusterIsMadeWithThePageLocale() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin()) {
            assertNull(DatabaseLocale.PAGE.differenceIn(admin));
        }
    }
}
