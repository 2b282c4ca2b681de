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

    /** Whether {@link #acquire} with these settings starts a server (false once a long-lived one is up with them). */
    boolean starts(ProviderChoice choice, VerifierSettings settings);

    /** A server per build. */
    static ServerSession perBuild() {
        return new ServerSession() {
            @Override
            public Verifier acquire(ProviderChoice choice, VerifierSettings settings) throws PostgresUnavailableException {
                return Verifier.start(choice.provider(), settings, choice.major());
            }

            @Override
            public void release(Verifier verifier) {
                verifier.close();
            }

            @Override
            public boolean starts(ProviderChoice choice, VerifierSettings settings) {
                return true;
            }
        };
    }

    /** One server per PostgreSQL version for many builds; {@link #close()} stops them. */
    final class LongLived implements ServerSession, AutoCloseable {
        private final java.util.Map<Integer, Verifier> verifiers = new java.util.concurrent.ConcurrentHashMap<>();
        /** What each version's server was started with: a rebuild asking for other settings (site.yml's extensions) gets a new one. */
        private final java.util.Map<Integer, VerifierSettings> startedWith = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public Verifier acquire(ProviderChoice choice, VerifierSettings settings) throws PostgresUnavailableException {
            // Versions start in parallel (one thread each), so the lock is per version, not on the session.
            synchronized (lockFor(choice.major())) {
                Verifier verifier = verifiers.get(choice.major());
                if (verifier != null && !settings.equals(startedWith.get(choice.major()))) {
                    // The server's template holds the extensions it was started with, and its limits are fixed at start:
                    // kept, it would verify (and the cache would keep) pages under settings they were not run with.
                    verifiers.remove(choice.major()).close();
                    verifier = null;
                }
                if (verifier == null) {
                    verifier = Verifier.start(choice.provider(), settings, choice.major());
                    verifiers.put(choice.major(), verifier);
                    startedWith.put(choice.major(), settings);
                }
                return verifier;
            }
        }

        private final java.util.Map<Integer, Object> locks = new java.util.concurrent.ConcurrentHashMap<>();

        private Object lockFor(int major) {
            return locks.computeIfAbsent(major, m -> new Object());
        }

        @Override
        public void release(Verifier ignored) {
            // Kept for the next rebuild.
        }

        @Override
        public boolean starts(ProviderChoice choice, VerifierSettings settings) {
            return !verifiers.containsKey(choice.major()) || !settings.equals(startedWith.get(choice.major()));
        }

        @Override
        public void close() {
            verifiers.values().forEach(Verifier::close);
            verifiers.clear();
            startedWith.clear();
        }
    }
}
