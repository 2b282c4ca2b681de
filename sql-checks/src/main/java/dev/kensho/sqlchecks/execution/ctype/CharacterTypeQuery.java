package dev.kensho.sqlchecks.execution.ctype;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * codepoints.sql, the query that says per code point what the character type decides: the one text Kensho asks the build's
 * server and bench/ctype/pglite.mjs asks PGlite (whose rows ship as {@link PlaygroundCharacterTypes#RESOURCE}).
 */
public final class CharacterTypeQuery {

    /** The word the query's code points stand in for: a set of integers. */
    static final String CODEPOINTS = "CODEPOINTS";

    /** The columns after {@code cp}, in the query's order. */
    public static final List<String> COLUMNS = List.of("u", "l", "uc", "lc", "ic", "al", "dg", "sp", "up", "lo", "pu", "an", "w",
            "ci", "il", "pr", "gr");

    private CharacterTypeQuery() {
    }

    /** The query's text as the file holds it. */
    public static String text() {
        try (InputStream in = CharacterTypeQuery.class.getResourceAsStream("codepoints.sql")) {
            if (in == null) {
                throw new IllegalStateException("codepoints.sql is missing from sql-checks' resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The query over the code points of one {@code int[]} parameter. */
    public static String overArrayParameter() {
        String text = text();
        int at = text.indexOf(CODEPOINTS);
        if (at < 0 || text.indexOf(CODEPOINTS, at + 1) >= 0) {
            throw new IllegalStateException("codepoints.sql must name " + CODEPOINTS + " once");
        }
        return text.replace(CODEPOINTS, "pg_catalog.unnest(?::pg_catalog.int4[])");
    }
}
