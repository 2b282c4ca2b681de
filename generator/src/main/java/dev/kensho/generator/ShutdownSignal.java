package dev.kensho.generator;

/**
 * Whether the JVM has begun to shut down (Ctrl-C, SIGTERM). A build that sees it writes nothing
 * more: its server is already going away, so whatever it would write would describe a run that
 * did not happen.
 */
final class ShutdownSignal {

    private static volatile boolean shuttingDown;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> shuttingDown = true, "kensho-shutdown-signal"));
    }

    private ShutdownSignal() {
    }

    static boolean received() {
        return shuttingDown;
    }

    /** Loads the class, and so installs the hook, before a build starts. */
    static void install() {
        // The static initializer does the work.
    }
}
