package dev.kensho.generator;

/** Kensho's version, as the CLI, the reports and the verification cache name it. */
public final class KenshoVersion {

    public static final String VALUE = "0.1.0";

    /** Where Kensho is published on GitHub: its releases (kensho.jar) and its action ({@code uses: REPOSITORY@vVERSION}). */
    public static final String REPOSITORY = "kensho-docs/kensho";

    private KenshoVersion() {
    }
}
