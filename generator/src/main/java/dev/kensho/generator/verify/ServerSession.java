package dev.kensho.generator.verify;

import dev.kensho.sqlchecks.execution.Verifier;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;

/**
 * Where a build gets its server from: one started for this build and stopped after it, or (in
 * {@code serve}) one that stays up across rebuilds until the preview ends.
 */
public interface ServerSession {

    /** A running verifier on the chosen provider's server. */
    Verifier acquire(ProviderChoice choice, VerifierSettings settings) throws PostgresUnavailableException;

    /** Called when the build is done with the verifier. */
    void release(Verifier verifier);

    /** Whether {@link #acquire} starts a server (false once a long-lived one is up). */
    boolean starts();

    /** A server per build. */
    static ServerSession perBuild() {
        return new ServerSession() {
            @Override
            public Verifier acquire(ProviderChoice choice, VerifierSettings settings) throws PostgresUnavailableException {
                return Verifier.start(choice.provider(), settings);
            }

            @Override
            public void release(Verifier verifier) {
                verifier.close();
            }

            @Override
            public boolean starts() {
                return true;
            }
        };
    }

    /** One server for many builds; {@link #close()} stops it. */
    final class LongLived implements ServerSession, AutoCloseable {
        private Verifier verifier;

        @Override
        public synchronized Verifier acquire(ProviderChoice choice, VerifierSettings settings) throws PostgresUnavailableException {
            if (verifier == null) {
                verifier = Verifier.start(choice.provider(), settings);
            }
            return verifier;
        }

        @Override
        public void release(Verifier ignored) {
            // Kept for the next rebuild.
        }

        @Override
        public synchronized boolean starts() {
            return verifier == null;
        }

        @Override
        public synchronized void close() {
            if (verifier != null) {
                verifier.close();
                verifier = null;
            }
        }
    }
}
