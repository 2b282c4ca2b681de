package dev.kensho.sqlchecks.postgres;

/**
 * Somewhere a PostgreSQL server can come from: binaries shipped in a jar, a container, or a server
 * the author already runs. Chosen at run time; everything after {@link #start()} is the same.
 */
public interface PostgresProvider {

    /** Short name shown to the author ("embedded", "container", "jdbc"). */
    String name();

    /**
     * Starts (or connects to) a server. The caller owns the result and must close it; closing stops
     * whatever this call started and removes its files.
     *
     * @throws PostgresUnavailableException with a message that tells the author what to fix
     */
    RunningPostgres start() throws PostgresUnavailableException;

    /**
     * What the server this provider gives will be, as far as it is known without starting it
     * (binaries, image or address); callers use it to tell whether stored outcomes still apply.
     */
    String identity();
}
