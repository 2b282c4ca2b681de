package dev.kensho.sqlchecks.execution.ctype;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The shipped table gives PGlite 0.5.16's rows, as bench/ctype/pglite.mjs printed them under node. */
class PlaygroundCharacterTypesTest {

    private static final PlaygroundCharacterTypes TABLE = PlaygroundCharacterTypes.load();

    private static String column(int codePoint, String name) {
        return TABLE.row(codePoint).get(CharacterTypeQuery.COLUMNS.indexOf(name));
    }

    @Test
    void holdsEveryCodePointButTheSurrogates() {
        assertEquals(1_112_063, TABLE.size());
        assertNull(TABLE.row(0xD800));
        assertNull(TABLE.row(0x110000));
        assertEquals(List.of("f", "f", "1", "1", "1", "f", "f", "f", "f", "f", "f", "f", "f", "t", "t", "f", "f"), TABLE.row(1));
    }

    @Test
    void rowsAsPgliteGivesThem() {
        // pglite.txt: 223|t|f|7838|223|7838|t|f|f|f|t|f|t|t|t|t|t|t (upper('ß') is 'ẞ')
        assertEquals(List.of("t", "f", "7838", "223", "7838", "t", "f", "f", "f", "t", "f", "t", "t", "t", "t", "t", "t"), TABLE.row(0xDF));
        assertEquals("f", column(0x1F972, "pu"));
        assertEquals("t", column(0x1F44D, "pu"));
        assertEquals("t", column(0x1FA77, "pr"));
        assertEquals("t", column(0x3042, "al"));
        assertEquals("201", column(0xE9, "uc"));
        assertEquals("t", column(0x3000, "sp"));
    }

    @Test
    void theQueryNamesItsCodePointsOnce() {
        String query = CharacterTypeQuery.overArrayParameter();
        assertEquals(1, query.split("pg_catalog\\.unnest\\(\\?", -1).length - 1);
        assertEquals(-1, query.indexOf(CharacterTypeQuery.CODEPOINTS));
    }
}
