package dev.kensho.generator;

/** Kensho's version, as the CLI, the reports and the verification cache name it. */
public final class KenshoVersion {

    public static final String VALUE = "0.1.0";

    private KenshoVersion() {
    }
}
