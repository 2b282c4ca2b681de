package dev.kensho.sqlchecks.execution;

import java.sql.SQLException;

/**
 * A statement Kensho itself had to stop, or a result Kensho would not hold. Whatever the server
 * reported on the way, it is never an outcome a lesson's claim can expect.
 */
public final class KenshoLimitException extends SQLException {

    public KenshoLimitException(String message, Throwable cause) {
        super(message, (String) null, cause);
    }
}
