package dev.kensho.sqlchecks.execution.ctype;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * The browser playground's character type: PGlite 0.5.16's row of codepoints.sql for every code point, read from the
 * run-length coded table bench/ctype/encode.py made from bench/ctype/pglite.mjs's output (its format is described there).
 */
public final class PlaygroundCharacterTypes {

    /** The engine the table was measured on, as messages name it. */
    public static final String ENGINE = "PGlite 0.5.16";
    static final String RESOURCE = "pglite-0.5.16.ctype.gz";
    /** The boolean columns in the order of FLAGS' bits (encode.py's FLAGS). */
    private static final List<String> FLAGS = List.of("u", "l", "al", "dg", "sp", "up", "lo", "pu", "an", "w", "ci", "il", "pr", "gr");

    private static volatile PlaygroundCharacterTypes loaded;

    private final int[] starts;
    private final int[] lengths;
    private final int[] flags;
    private final String[][] maps;

    private PlaygroundCharacterTypes(int[] starts, int[] lengths, int[] flags, String[][] maps) {
        this.starts = starts;
        this.lengths = lengths;
        this.flags = flags;
        this.maps = maps;
    }

    /** The table shipped in sql-checks, read once. */
    public static PlaygroundCharacterTypes load() {
        PlaygroundCharacterTypes table = loaded;
        if (table == null) {
            synchronized (PlaygroundCharacterTypes.class) {
                if (loaded == null) {
                    loaded = read();
                }
                table = loaded;
            }
        }
        return table;
    }

    private static PlaygroundCharacterTypes read() {
        try (InputStream raw = PlaygroundCharacterTypes.class.getResourceAsStream(RESOURCE)) {
            if (raw == null) {
                throw new IllegalStateException(RESOURCE + " is missing from sql-checks' resources");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(new GZIPInputStream(raw), StandardCharsets.UTF_8));
            List<int[]> runs = new ArrayList<>();
            List<String[]> maps = new ArrayList<>();
            int end = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split(" ");
                if (fields.length != 6) {
                    throw new IllegalStateException(RESOURCE + ": a run of " + fields.length + " fields, not 6: " + line);
                }
                int start = end + Integer.parseInt(fields[0]);
                int length = Integer.parseInt(fields[1]);
                runs.add(new int[] {start, length, Integer.parseInt(fields[2], 16)});
                maps.add(new String[] {fields[3], fields[4], fields[5]});
                end = start + length;
            }
            int n = runs.size();
            int[] starts = new int[n];
            int[] lengths = new int[n];
            int[] flags = new int[n];
            for (int i = 0; i < n; i++) {
                starts[i] = runs.get(i)[0];
                lengths[i] = runs.get(i)[1];
                flags[i] = runs.get(i)[2];
            }
            return new PlaygroundCharacterTypes(starts, lengths, flags, maps.toArray(String[][]::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Code points the table holds (every one but the surrogates: 1,112,063). */
    public long size() {
        return Arrays.stream(lengths).asLongStream().sum();
    }

    /**
     * The row of {@code codePoint}: codepoints.sql's columns after {@code cp} ({@link CharacterTypeQuery#COLUMNS}) as psql
     * prints them ({@code t}/{@code f}, case maps as dot-joined code points); null for a code point the table does not hold.
     */
    public List<String> row(int codePoint) {
        int i = Arrays.binarySearch(starts, codePoint);
        if (i < 0) {
            i = -i - 2;
        }
        if (i < 0 || codePoint >= starts[i] + lengths[i]) {
            return null;
        }
        String[] row = new String[CharacterTypeQuery.COLUMNS.size()];
        for (int bit = 0; bit < FLAGS.size(); bit++) {
            row[CharacterTypeQuery.COLUMNS.indexOf(FLAGS.get(bit))] = (flags[i] >> bit & 1) == 1 ? "t" : "f";
        }
        row[CharacterTypeQuery.COLUMNS.indexOf("uc")] = absolute(codePoint, maps[i][0]);
        row[CharacterTypeQuery.COLUMNS.indexOf("lc")] = absolute(codePoint, maps[i][1]);
        row[CharacterTypeQuery.COLUMNS.indexOf("ic")] = absolute(codePoint, maps[i][2]);
        return List.of(row);
    }

    private static String absolute(int codePoint, String relative) {
        if (relative.equals("=")) {
            return Integer.toString(codePoint);
        }
        if (relative.startsWith("+") || relative.startsWith("-")) {
            return Integer.toString(codePoint + Integer.parseInt(relative));
        }
        return relative;
    }
}
