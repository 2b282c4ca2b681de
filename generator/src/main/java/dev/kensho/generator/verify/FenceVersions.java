package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.postgres.PostgresReleases;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code versions=} of a fence: the PostgreSQL major versions a snippet is meant to hold on
 * ({@code ">=17"}, {@code "<=16"}, a list {@code "15,16"}, a range {@code "15-17"}, or one version).
 * Without it a snippet must hold on every version the site names.
 */
public final class FenceVersions {

    /** The fence meta key. */
    public static final String KEY = "versions";
    private static final Pattern ITEM = Pattern.compile("(>=|<=|>|<)?(\\d{1,3})(?:-(\\d{1,3}))?");

    private FenceVersions() {
    }

    /** Thrown with what was wrong, for a diagnostic at the fence. */
    public static final class Invalid extends Exception {
        Invalid(String message) {
            super(message);
        }
    }

    /** The supported versions {@code text} selects, oldest first. */
    public static List<Integer> parse(String text) throws Invalid {
        String usage = "versions=\"" + text + "\": write versions=\">=17\", \"<=16\", \"15-17\" or \"15,16\" (PostgreSQL "
                + PostgresReleases.describe(PostgresReleases.SUPPORTED) + ")";
        if (text == null || text.isBlank()) {
            throw new Invalid(usage);
        }
        TreeSet<Integer> chosen = new TreeSet<>();
        for (String item : text.split(",", -1)) {
            Matcher m = ITEM.matcher(item.strip());
            if (!m.matches() || m.group(1) != null && m.group(3) != null) {
                throw new Invalid(usage);
            }
            int first = Integer.parseInt(m.group(2));
            int last = m.group(3) == null ? first : Integer.parseInt(m.group(3));
            for (int version : m.group(3) == null && m.group(1) == null || m.group(3) != null ? List.of(first, last) : List.of(first)) {
                if (!PostgresReleases.supported(version)) {
                    throw new Invalid("versions=\"" + text + "\": PostgreSQL " + version + " is not one Kensho checks on ("
                            + PostgresReleases.describe(PostgresReleases.SUPPORTED) + ")");
                }
            }
            if (last < first) {
                throw new Invalid(usage);
            }
            for (int version : PostgresReleases.SUPPORTED) {
                boolean in = m.group(1) == null ? version >= first && version <= last : switch (m.group(1)) {
                    case ">=" -> version >= first;
                    case ">" -> version > first;
                    case "<=" -> version <= first;
                    default -> version < first;
                };
                if (in) {
                    chosen.add(version);
                }
            }
        }
        if (chosen.isEmpty()) {
            throw new Invalid("versions=\"" + text + "\" selects no version Kensho checks on ("
                    + PostgresReleases.describe(PostgresReleases.SUPPORTED) + ")");
        }
        return new ArrayList<>(chosen);
    }
}
