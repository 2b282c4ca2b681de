package dev.kensho.generator;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Kensho's version and the git commit it was built from, as the CLI, the reports, {@code kensho init} and the
 * verification cache name them. Both are written into the jar at package time (generator/pom.xml, "build-identity"):
 * the version is the POM's, so that {@code --version} says "0.1.0-SNAPSHOT" where a checkout installs 0.1.0-SNAPSHOT.
 */
public final class KenshoVersion {

    /** Where Kensho is published on GitHub: its releases (kensho.jar) and its action ({@code uses: REPOSITORY@REF}). */
    public static final String REPOSITORY = "kensho-docs/kensho";

    /** What a build outside a git checkout (a source archive) says in place of its commit. */
    public static final String UNKNOWN_COMMIT = "unknown";

    private static final Properties BUILD = load();

    /** The POM's version: "0.1.0" for a release, "0.1.0-SNAPSHOT" for any other build. */
    public static final String VALUE = BUILD.getProperty("version", "unknown");

    /** The full commit this jar was built from, or {@link #UNKNOWN_COMMIT}. */
    public static final String COMMIT = BUILD.getProperty("commit", UNKNOWN_COMMIT);

    /** Whether the checkout had changes to tracked files when it was built (its commit then names only where it began). */
    public static final boolean MODIFIED = Boolean.parseBoolean(BUILD.getProperty("modified", "false"));

    private KenshoVersion() {
    }

    /** "Kensho 0.1.0-SNAPSHOT (commit 3f2a…)", "… (commit 3f2a…, with uncommitted changes)", "… (unknown commit)". */
    public static String describe() {
        return describe(VALUE, COMMIT, MODIFIED);
    }

    static String describe(String version, String commit, boolean modified) {
        return "Kensho " + version + " (" + (commit.equals(UNKNOWN_COMMIT) ? "unknown commit"
                : "commit " + commit + (modified ? ", with uncommitted changes" : "")) + ")";
    }

    /** A release is built from a version without a qualifier, by the release workflow. */
    public static boolean isRelease() {
        return VALUE.matches("\\d+\\.\\d+\\.\\d+");
    }

    /**
     * What a workflow names after {@code uses:} to run this Kensho as a GitHub Action, with a comment for a person:
     * a release's tag; until then the commit this jar was built from, which the action builds with Maven; a build
     * from outside git knows no commit, so it names the main branch and says to pin one.
     */
    public static String actionReference() {
        return actionReference(VALUE, COMMIT);
    }

    static String actionReference(String version, String commit) {
        if (version.matches("\\d+\\.\\d+\\.\\d+")) {
            return REPOSITORY + "@v" + version;
        }
        if (!commit.equals(UNKNOWN_COMMIT)) {
            return REPOSITORY + "@" + commit + "   # Kensho " + version + ", not released: the action builds this commit with Maven";
        }
        return REPOSITORY + "@main   # this Kensho was built outside git: replace main with a commit of " + REPOSITORY + " to pin it";
    }

    private static Properties load() {
        Properties properties = new Properties();
        try (InputStream in = KenshoVersion.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // A jar without it says "unknown": nothing else depends on it.
        }
        return properties;
    }
}
