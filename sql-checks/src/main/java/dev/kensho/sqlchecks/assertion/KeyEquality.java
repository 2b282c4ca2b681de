package dev.kensho.sqlchecks.assertion;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether two rows tie on one sort key, decided as the sort's own equality operator decides it, from
 * the values as the server printed them. A printed value is all Kensho has, so it answers "equal"
 * only when the printed texts prove it:
 * <ul>
 * <li>Identical text is equal for types whose output is exact (integers, numeric, text, dates and
 * times, interval, uuid, …): every btree equality is reflexive. Not for float4/float8 (and anything
 * that may hold them): with {@code extra_float_digits} below 1 two different doubles print alike.</li>
 * <li>Different text is equal where the type's standard equality makes it so and the text can be
 * read back exactly: numeric ({@code 1.0 = 1.00}), float ({@code -0 = 0}), and interval in the
 * {@code postgres} style ({@code 1 day = 24:00:00}, months as 30 days, as {@code interval_eq}).</li>
 * </ul>
 * Anything else is "not shown equal": those rows must then come in the server's order. That can
 * reject a true claim that lists such ties in another order, never accept a wrong one.
 */
final class KeyEquality {

    /** pg_operator OIDs of the standard equalities read above (fixed in PostgreSQL's catalog). */
    private static final long FLOAT4_EQ = 620, FLOAT8_EQ = 670, INTERVAL_EQ = 1330, NUMERIC_EQ = 1752;

    /** Types whose printed value is exact, so that identical text means equal values (arrays of them too). */
    private static final Set<String> EXACT_OUTPUT = Set.of("int2", "int4", "int8", "numeric", "text", "varchar", "bpchar", "name",
            "char", "bool", "date", "time", "timetz", "timestamp", "timestamptz", "interval", "uuid", "oid", "bytea", "money",
            "jsonb", "inet", "cidr", "macaddr", "macaddr8", "bit", "varbit", "xid8", "pg_lsn");

    private static final Pattern INTERVAL = Pattern.compile(
            "(?:(-?\\d+) years? ?)?(?:(-?\\d+) mons? ?)?(?:(-?\\d+) days? ?)?(?:([+-]?)(\\d+):(\\d{2}):(\\d{2})(?:\\.(\\d{1,6}))?)?");
    private static final BigInteger MICROS_PER_DAY = BigInteger.valueOf(86_400_000_000L);

    private KeyEquality() {
    }

    /** Whether identical printed values of {@code type} are always equal keys (its output is exact). */
    static boolean exactOutput(String type) {
        String base = type == null ? "" : type.startsWith("_") ? type.substring(1) : type;
        return EXACT_OUTPUT.contains(base);
    }

    /** @param a,b printed values, null for NULL (NULLs tie with each other, as the sort places them together) */
    static boolean equal(String type, long eqop, String a, String b) {
        if (a == null || b == null) {
            return a == b;
        }
        String base = type == null ? "" : type.startsWith("_") ? type.substring(1) : type;
        if (a.equals(b)) {
            return EXACT_OUTPUT.contains(base);
        }
        if (eqop == NUMERIC_EQ) {
            BigDecimal x = decimal(a), y = decimal(b);
            return x != null && y != null && x.compareTo(y) == 0;
        }
        if (eqop == FLOAT8_EQ || eqop == FLOAT4_EQ) {
            try {
                // Different texts of one value: -0 and 0 (NaN prints alike, so it is not met here).
                return Double.parseDouble(a) == Double.parseDouble(b);
            } catch (NumberFormatException e) {
                return false;
            }
        }
        if (eqop == INTERVAL_EQ) {
            BigInteger x = span(a), y = span(b);
            return x != null && x.equals(y);
        }
        return false;
    }

    private static BigDecimal decimal(String text) {
        try {
            return new BigDecimal(text);
        } catch (NumberFormatException e) {
            return null; // NaN, Infinity: printed alike when equal
        }
    }

    /** interval_cmp_value: (months * 30 + days) days plus the time, in microseconds; null when not the postgres style. */
    static BigInteger span(String text) {
        Matcher m = INTERVAL.matcher(text);
        if (text.isEmpty() || !m.matches()) {
            return null;
        }
        long months = number(m.group(1)) * 12 + number(m.group(2));
        BigInteger days = BigInteger.valueOf(months).multiply(BigInteger.valueOf(30)).add(BigInteger.valueOf(number(m.group(3))));
        BigInteger time = BigInteger.ZERO;
        if (m.group(5) != null) {
            String fraction = m.group(8) == null ? "" : m.group(8);
            long micros = ((number(m.group(5)) * 60 + number(m.group(6))) * 60 + number(m.group(7))) * 1_000_000L
                    + Long.parseLong((fraction + "000000").substring(0, 6));
            time = BigInteger.valueOf(m.group(4).equals("-") ? -micros : micros);
        }
        return days.multiply(MICROS_PER_DAY).add(time);
    }

    private static long number(String digits) {
        return digits == null ? 0 : Long.parseLong(digits);
    }
}
