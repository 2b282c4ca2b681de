package dev.kensho.sqlchecks.assertion;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ties as the sort's equality decides them, from printed values (OIDs: float8 = 670, interval = 1330, numeric = 1752, int4 = 96). */
class KeyEqualityTest {

    @Test
    void intervalsCompareAsIntervalEqDoes() {
        assertTrue(KeyEquality.equal("interval", 1330, "1 day", "24:00:00"));
        assertTrue(KeyEquality.equal("interval", 1330, "1 mon", "30 days"));
        assertTrue(KeyEquality.equal("interval", 1330, "-1 days +24:00:00", "00:00:00"));
        assertFalse(KeyEquality.equal("interval", 1330, "1 day", "24:00:00.000001"));
        assertEquals(KeyEquality.span("-3 years -2 mons -1 days -04:05:06.5"),
                KeyEquality.span("-1141 days -04:05:06.5"));
    }

    @Test
    void doublesTieByValueButNeverByRoundedText() {
        assertFalse(KeyEquality.equal("float8", 670, "0.3", "0.3"));
        assertTrue(KeyEquality.equal("float8", 670, "-0", "0"));
        assertFalse(KeyEquality.equal("float8", 670, "0.30000000000000004", "0.3"));
    }

    @Test
    void numericTiesByValueAndExactTypesByText() {
        assertTrue(KeyEquality.equal("numeric", 1752, "1.0", "1.00"));
        assertTrue(KeyEquality.equal("int4", 96, "7", "7"));
        assertFalse(KeyEquality.equal("int4", 96, "7", "8"));
        assertTrue(KeyEquality.equal("int4", 96, null, null));
        assertFalse(KeyEquality.equal("int4", 96, null, "7"));
        assertFalse(KeyEquality.equal("16384", 0, "happy", "happy"), "an unknown type's printed value may be lossy");
    }
}
