package dev.kensho.sqlchecks.postgres;

/** No usable server could be had; the message says why and what to do about it. */
public class PostgresUnavailableException extends Exception {

    public PostgresUnavailableException(String message) {
        super(message);
    }

    public PostgresUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
