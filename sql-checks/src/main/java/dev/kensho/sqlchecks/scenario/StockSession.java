package dev.kensho.sqlchecks.scenario;

import dev.kensho.sqlchecks.SessionSettings;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a scenario's new session a stock one. A page may run {@code ALTER ROLE CURRENT_USER SET …}
 * or {@code ALTER DATABASE … SET …}; the page's own connection is already open and never sees them,
 * but every session opened later would start with them (a {@code lock_timeout} that turns a wait into
 * an error, a {@code default_transaction_isolation} that turns a wait into a serialization failure),
 * and nothing on the page shows that to a reader. So every setting a role or database default gave the
 * session goes back to its built-in value, except Kensho's own role settings, which go back to
 * Kensho's values.
 */
final class StockSession {

    private StockSession() {
    }

    static void reset(Connection session) throws SQLException {
        List<String[]> resets = new ArrayList<>();
        try (Statement statement = session.createStatement();
             ResultSet rs = statement.executeQuery("SELECT name, boot_val, setting FROM pg_catalog.pg_settings"
                     + " WHERE source IN ('database', 'user', 'database user') AND context = 'user'")) {
            while (rs.next()) {
                String name = rs.getString(1);
                String stock = SessionSettings.ROLE.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                        .map(java.util.Map.Entry::getValue).findFirst().orElse(rs.getString(2));
                if (!stock.equals(rs.getString(3))) {
                    resets.add(new String[] {name, stock});
                }
            }
        }
        if (resets.isEmpty()) {
            return;
        }
        try (PreparedStatement set = session.prepareStatement("SELECT pg_catalog.set_config(?, ?, false)")) {
            for (String[] reset : resets) {
                set.setString(1, reset[0]);
                set.setString(2, reset[1]);
                set.execute();
            }
        }
    }
}
