package dev.kensho.sqlchecks.execution;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the server's own configuration (its configuration files, command line or environment) changes
 * from a cluster {@code initdb} just made, where no page session puts it back: a container image's
 * {@code fsync = off}, a shared server's {@code shared_buffers} or {@code synchronous_commit}. A page
 * cannot see such settings, so they are stated with the server, as hidden setup is stated with a mark.
 *
 * <p>Left out, because every page session sets them itself: settings a session may change in the
 * categories {@link StockSession} and {@link SessionSettings} reset, and Kensho's role settings. Left
 * out because they only say where clients connect or what goes to the server's log: listen addresses,
 * port and socket, authentication and SSL, file locations, logging.
 */
public final class ServerConfiguration {

    /** What initdb writes into postgresql.conf where it differs from the built-in value (in pg_settings' units). */
    static final Map<String, String> INITDB = Map.of("shared_buffers", "16384", "max_connections", "100");

    private static final String QUERY = "SELECT name, pg_catalog.current_setting(name), source, setting,"
            + " (context = 'user' AND (category LIKE 'Client Connection Defaults%' OR category LIKE 'Version and Platform Compatibility%'"
            + " OR category LIKE 'Query Tuning%' OR name IN ('work_mem', 'hash_mem_multiplier'))) AS reset_per_session"
            + " FROM pg_catalog.pg_settings"
            + " WHERE source IN ('configuration file', 'command line', 'environment variable')"
            + " AND setting IS DISTINCT FROM boot_val"
            + " AND category NOT LIKE 'Reporting and Logging%' AND category NOT LIKE 'File Locations%'"
            + " AND category NOT LIKE 'Connections and Authentication / Authentication%'"
            + " AND category NOT LIKE 'Connections and Authentication / SSL%'"
            + " AND name NOT IN ('listen_addresses', 'port', 'unix_socket_directories', 'unix_socket_group', 'unix_socket_permissions',"
            + " 'bonjour', 'bonjour_name')"
            + " ORDER BY name";

    private ServerConfiguration() {
    }

    /**
     * Each setting as {@code name = value (source)}, e.g. {@code fsync = off (command line)}; empty for a stock server.
     * When the account cannot read them, that is what is stated: a server whose configuration is unknown is not
     * passed off as a stock one.
     */
    public static List<String> read(Connection admin) {
        try {
            return changes(admin);
        } catch (SQLException e) {
            return List.of("(unknown: the account cannot read the server's settings: " + e.getMessage() + ")");
        }
    }

    static List<String> changes(Connection admin) throws SQLException {
        List<String> changes = new ArrayList<>();
        try (Statement statement = admin.createStatement(); ResultSet rs = statement.executeQuery(QUERY)) {
            while (rs.next()) {
                String name = rs.getString(1);
                boolean resetPerSession = rs.getBoolean(5);
                boolean roleSetting = SessionSettings.ROLE.keySet().stream().anyMatch(name::equalsIgnoreCase);
                if (resetPerSession || roleSetting || rs.getString(4).equals(INITDB.get(name))) {
                    continue;
                }
                changes.add(name + " = " + rs.getString(2) + " (" + rs.getString(3) + ")");
            }
        }
        return changes;
    }
}
