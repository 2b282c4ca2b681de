package dev.kensho.sqlchecks.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The encoding and locale a page database is created with. Text comparison follows it ({@code ORDER BY
 * name} puts {@code 'B'} before {@code 'a'} under C and after it under en_US.UTF-8, and {@code upper()},
 * {@code ILIKE} and regular expressions follow the character type), so it is part of what a mark is
 * about, and every provider uses the same one by default whatever the server's own default (initdb's
 * locale of a container image, a server the author runs). The embedded cluster is made with it.
 *
 * @param encoding server encoding, as CREATE DATABASE's ENCODING names it
 * @param provider locale provider (libc: the same on every PostgreSQL build)
 * @param locale   LC_COLLATE and LC_CTYPE
 */
public record DatabaseLocale(String encoding, String provider, String locale) {

    /** Every page's: UTF8 with the C locale, byte order for text, ASCII-only case rules. */
    public static final DatabaseLocale PAGE = new DatabaseLocale("UTF8", "libc", "C");

    /** The CREATE DATABASE options that give a new database this locale, e.g. {@code ENCODING 'UTF8' LOCALE_PROVIDER libc LOCALE 'C'}. */
    public String createOptions() {
        return createOptions(PostgresReleases.BUNDLED_MAJOR);
    }

    /** {@link #createOptions()} as PostgreSQL {@code major} takes them: before 15 libc was the only provider, and unnamed. */
    public String createOptions(int major) {
        if (major < 15 && !"libc".equals(provider)) {
            throw new IllegalStateException("PostgreSQL " + major + " has no locale provider " + provider);
        }
        return "ENCODING '" + encoding + "'" + (major >= 15 ? " LOCALE_PROVIDER " + provider : "") + " LOCALE '" + locale + "'";
    }

    /** What the evidence and the cache key say, e.g. {@code UTF8, locale C (libc)}. */
    public String describe() {
        return encoding + ", locale " + locale + " (" + provider + ")";
    }

    /**
     * Null when the connection's current database has this locale, else what differs (for an error
     * that names it): a provider that cannot create a database as asked must not produce a mark.
     */
    public String differenceIn(Connection connection) throws SQLException {
        // pg_database.datlocprovider came with PostgreSQL 15; before it every database was libc's.
        String providerColumn = connection.getMetaData().getDatabaseMajorVersion() >= 15 ? "datlocprovider" : "'c'::\"char\"";
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT pg_catalog.pg_encoding_to_char(encoding), " + providerColumn + ", datcollate, datctype"
                     + " FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()")) {
            rs.next();
            String actualProvider = switch (rs.getString(2)) {
                case "c" -> "libc";
                case "i" -> "icu";
                case "b" -> "builtin";
                default -> rs.getString(2);
            };
            DatabaseLocale actual = new DatabaseLocale(rs.getString(1), actualProvider, rs.getString(3));
            if (actual.equals(this) && locale.equals(rs.getString(4))) {
                return null;
            }
            return "the page database is " + actual.describe() + " with LC_CTYPE " + rs.getString(4) + ", not " + describe();
        }
    }
}
