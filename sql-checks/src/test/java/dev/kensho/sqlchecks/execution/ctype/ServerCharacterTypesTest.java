package dev.kensho.sqlchecks.execution.ctype;

import dev.kensho.sqlchecks.postgres.DatabaseLocale;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build's server is asked on Kensho's own database, in the page locale, which no other role may connect to, once per
 * code point. Assumes glibc 2.36 (Debian 12) under the embedded server, as CharacterTypeCheckTest does.
 */
class ServerCharacterTypesTest {

    @Test
    void askedOnceOnADatabaseOfItsOwnThatOthersCannotReachAndThatIsDroppedAfterwards() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin()) {
            ServerCharacterTypes types = new ServerCharacterTypes(server, admin, "kensho_test");
            assertEquals(0, types.queries());
            var rows = types.rows(Set.of(0x1F972, 0xE9, 0x3042));
            assertEquals(1, types.queries());
            assertEquals(PlaygroundCharacterTypes.load().row(0xE9), rows.get(0xE9));
            assertEquals(PlaygroundCharacterTypes.load().row(0x3042), rows.get(0x3042));
            // glibc 2.36: 🥲 is [[:punct:]]; PGlite 0.5.16: not.
            assertEquals("t", rows.get(0x1F972).get(CharacterTypeQuery.COLUMNS.indexOf("pu")));
            assertEquals("f", PlaygroundCharacterTypes.load().row(0x1F972).get(CharacterTypeQuery.COLUMNS.indexOf("pu")));
            types.rows(Set.of(0xE9, 0x3042));
            assertEquals(1, types.queries());

            try (Connection ctype = DriverManager.getConnection(server.urlFor(types.database()), server.adminCredentials())) {
                assertNull(DatabaseLocale.PAGE.differenceIn(ctype));
            }
            try (Statement statement = admin.createStatement()) {
                statement.execute("CREATE ROLE kensho_test_reader LOGIN PASSWORD 'r'");
            }
            Properties reader = new Properties();
            reader.setProperty("user", "kensho_test_reader");
            reader.setProperty("password", "r");
            SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(server.urlFor(types.database()), reader).close());
            assertTrue(refused.getMessage().contains("permission denied for database"), refused.getMessage());

            types.close();
            try (Statement statement = admin.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT datname FROM pg_database WHERE datname = '" + types.database() + "'")) {
                assertFalse(rs.next());
            }
        }
    }

    @Test
    void noCodePointsNoDatabase() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin()) {
            ServerCharacterTypes types = new ServerCharacterTypes(server, admin, "kensho_test2");
            assertEquals(java.util.Map.of(), types.rows(Set.of()));
            assertEquals(0, types.queries());
            try (Statement statement = admin.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'kensho_test2%'")) {
                assertFalse(rs.next());
            }
            types.close();
        }
    }

    @Test
    void whenTheServerCannotBeAskedThePageFailsLoudlyAtItsFirstNonAsciiCharacter() throws Exception {
        try (RunningPostgres server = new EmbeddedPostgres().start(); Connection admin = server.connectAdmin()) {
            // A name CREATE DATABASE refuses: the server cannot be asked.
            ServerCharacterTypes broken = new ServerCharacterTypes(server, admin, "kensho test");
            java.util.function.BiFunction<Integer, String, dev.kensho.sqlchecks.model.Outcome> passed = (line, sql) ->
                    new dev.kensho.sqlchecks.model.Outcome(dev.kensho.sqlchecks.model.Snippet.of(
                            new dev.kensho.sqlchecks.model.SourceLocation("p.md", line, 1), sql),
                            dev.kensho.sqlchecks.model.Outcome.Status.PASSED, null, java.util.List.of(), java.util.List.of(), null, null,
                            java.time.Duration.ZERO);
            var outcomes = new CharacterTypeCheck(PlaygroundCharacterTypes.load(), broken, "18.6").checked(java.util.List.of(
                    passed.apply(1, "SELECT 1;"), passed.apply(5, "SELECT 'é';"), passed.apply(9, "SELECT 2;")));
            assertEquals(dev.kensho.sqlchecks.model.Outcome.Status.PASSED, outcomes.get(0).status());
            assertEquals(dev.kensho.sqlchecks.model.Outcome.Status.FAILED, outcomes.get(1).status());
            assertTrue(outcomes.get(1).failure().message().startsWith(
                    "the build's server could not be asked how it treats the page's characters: "), outcomes.get(1).failure().message());
            assertEquals("p.md:5:9", outcomes.get(1).failure().location().toString());
            assertEquals("not marked: it ran after the snippet at p.md:5:9, whose characters could not be compared with the "
                    + "browser playground's", outcomes.get(2).failure().message());
            broken.close();
        }
    }
}
