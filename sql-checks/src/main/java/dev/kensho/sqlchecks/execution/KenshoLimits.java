package dev.kensho.sqlchecks.execution;

import org.postgresql.util.PSQLException;

import java.sql.SQLException;

/**
 * Errors that come from a limit of Kensho's rather than from the lesson's SQL on a stock server.
 * None of them may satisfy a claim: an author who expects an error must get it from PostgreSQL
 * doing what the lesson says.
 */
public final class KenshoLimits {


    private KenshoLimits() {
    }

    /** Why the error is Kensho's doing, or null when the server reported it for the lesson's SQL. */
    public static String ownLimit(SQLException error) {
        if (error instanceof KenshoLimitException) {
            return error.getMessage();
        }
        if (!(error instanceof PSQLException psql) || psql.getServerErrorMessage() == null) {
            return "the JDBC driver reported it, not the server: " + error.getMessage();
        }
        String message = String.valueOf(psql.getServerErrorMessage().getMessage());
        if (message.contains("temp_file_limit")) {
            return "it hit the temp_file_limit Kensho sets (its limit on disk per page): " + message;
        }
        if (message.startsWith(ExtensionGuard.REFUSAL)) {
            return message;
        }
        if ("53200".equals(error.getSQLState())) {
            return "the server ran out of memory under Kensho's limits: " + message;
        }
        return null;
    }
}
