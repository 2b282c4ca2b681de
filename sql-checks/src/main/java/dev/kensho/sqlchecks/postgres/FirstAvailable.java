package dev.kensho.sqlchecks.postgres;

import java.util.ArrayList;
import java.util.List;

/**
 * Tries providers in order and keeps the first that starts: {@code --postgres auto} prefers a
 * container and falls back to the embedded binaries when the container cannot be had (an image
 * that cannot be pulled, say). The reasons for passing over a provider are kept for the report.
 */
public final class FirstAvailable implements PostgresProvider {

    private final List<PostgresProvider> providers;
    private final List<String> passedOver = new ArrayList<>();
    private PostgresProvider started;

    public FirstAvailable(List<PostgresProvider> providers) {
        this.providers = List.copyOf(providers);
    }

    @Override
    public String name() {
        return started == null ? providers.get(0).name() : started.name();
    }

    public List<PostgresProvider> providers() {
        return providers;
    }

    @Override
    public String identity() {
        return started == null ? providers.get(0).identity() : started.identity();
    }

    /** Why earlier providers were passed over, in order; empty when the first one started. */
    public List<String> passedOver() {
        return List.copyOf(passedOver);
    }

    @Override
    public RunningPostgres start() throws PostgresUnavailableException {
        PostgresUnavailableException last = null;
        for (PostgresProvider provider : providers) {
            try {
                RunningPostgres running = provider.start();
                started = provider;
                return running;
            } catch (PostgresUnavailableException e) {
                passedOver.add(provider.name() + ": " + e.getMessage());
                last = e;
            }
        }
        throw last == null ? new PostgresUnavailableException("no PostgreSQL provider configured") : last;
    }
}
