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
 * <p>The character type is the playground's: PGlite's databases are {@code LC_COLLATE C, LC_CTYPE C.UTF-8}
 * (libc). Under {@code LC_CTYPE C} the build's {@code upper('é')} was {@code 'é'} and {@code 'あ' ~ '[[:alpha:]]'}
 * false where a reader's run gives {@code 'É'} and true. Two C libraries' Unicode tables still differ on rare code
 * points (glibc 2.36 against PGlite's: {@code upper('ß')}, the circled letters, letters of recent Unicode versions;
 * none in kana, the CJK punctuation or the full-width forms); bench/RESULTS.md has the count. A page holding such a
 * character is not marked ({@link dev.kensho.sqlchecks.execution.ctype.CharacterTypeCheck}).
 *
 * @param encoding server encoding, as CREATE DATABASE's ENCODING names it
 * @param provider locale provider (libc: the same on every PostgreSQL build)
 * @param collate  LC_COLLATE (C: byte order, the same on every machine)
 * @param ctype    LC_CTYPE
 */
public record DatabaseLocale(String encoding, String provider, String collate, String ctype) {

    /** Every page's: UTF8, byte order for text (C), the C library's Unicode character type (C.UTF-8), as in PGlite. */
    public static final DatabaseLocale PAGE = new DatabaseLocale("UTF8", "libc", "C", "C.UTF-8");

    /** The CREATE DATABASE options that give a new database this locale, e.g. {@code ENCODING 'UTF8' LOCALE_PROVIDER libc LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'}. */
    public String createOptions() {
        return createOptions(PostgresReleases.BUNDLED_MAJOR);
    }

    /** {@link #createOptions()} as PostgreSQL {@code major} takes them: before 15 libc was the only provider, and unnamed. */
    public String createOptions(int major) {
        if (major < 15 && !"libc".equals(provider)) {
            throw new IllegalStateException("PostgreSQL " + major + " has no locale provider " + provider);
        }
        return "ENCODING '" + encoding + "'" + (major >= 15 ? " LOCALE_PROVIDER " + provider : "") + " LC_COLLATE '" + collate + "' LC_CTYPE '" + ctype + "'";
    }

    /** What the evidence and the cache key say, e.g. {@code UTF8, collation C, character type C.UTF-8 (libc)}. */
    public String describe() {
        return encoding + ", collation " + collate + ", character type " + ctype + " (" + provider + ")";
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
            DatabaseLocale actual = new DatabaseLocale(rs.getString(1), actualProvider, rs.getString(3), rs.getString(4));
            return actual.equals(this) ? null : "the page database is " + actual.describe() + ", not " + describe();
        }
    }
}
