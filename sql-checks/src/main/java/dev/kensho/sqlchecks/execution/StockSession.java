package dev.kensho.sqlchecks.execution;


import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes a newly opened session a stock one, whatever the server's configuration and whatever role or
 * database defaults the page set.
 * <ul>
 * <li>A page may run {@code ALTER ROLE CURRENT_USER SET …} or {@code ALTER DATABASE … SET …}; the page's
 * own connection is already open and never sees them, but every session opened later would start with
 * them (a {@code lock_timeout} that turns a wait into an error, a {@code default_transaction_isolation}
 * that turns a wait into a serialization failure), and nothing on the page shows that to a reader.
 * Every setting such a default gave the session goes back to its built-in value.</li>
 * <li>A server Kensho did not configure ({@code --postgres jdbc:…}, a container image) may set
 * result-shaping settings in its configuration file or command line ({@code transform_null_equals},
 * {@code search_path}, {@code standard_conforming_strings}, {@code default_text_search_config}, …):
 * every setting of the categories that shape what a statement means or returns (client connection
 * defaults, compatibility with other versions and clients) goes back to its built-in value too, so
 * that every provider gives the same session. Settings that shape only speed or durability
 * ({@code synchronous_commit}) are left as the server has them; planner settings are
 * {@link SessionSettings}' business.</li>
 * </ul>
 * Kensho's own role settings ({@link SessionSettings#ROLE}) go back to Kensho's values instead, and
 * settings whose stock value is the one initdb writes rather than the built-in one ({@link #INITDB})
 * go back to initdb's.
 */
public final class StockSession {

    private StockSession() {
    }

    /**
     * What initdb writes into a new cluster's configuration for the page databases' locale
     * ({@code DatabaseLocale.PAGE}: LC_CTYPE C.UTF-8, whose language part is C), where that differs from the built-in value: a stock server has it,
     * the embedded cluster and the postgres image have it.
     */
    static final Map<String, String> INITDB = Map.of("default_text_search_config", "pg_catalog.english");

    /** Where a setting's value came from, when it is not the built-in default nor the session's own SET. */
    static final String QUERY = "SELECT name, boot_val, setting FROM pg_catalog.pg_settings WHERE context" + CatalogSql.EQ + "'user' AND ("
            + "source" + CatalogSql.EQ + "ANY ('{database,user,database user}'::pg_catalog.text[]) OR (source" + CatalogSql.EQ
            + "ANY ('{configuration file,command line,environment variable}'::pg_catalog.text[]) AND (category" + CatalogSql.LIKE
            + "'Client Connection Defaults%' OR category" + CatalogSql.LIKE + "'Version and Platform Compatibility%')))";

    /** Resets, on the given session, every setting described above that differs from its stock value. */
    public static void reset(Connection session) throws SQLException {
        List<String[]> resets = new ArrayList<>();
        try (Statement statement = session.createStatement(); ResultSet rs = statement.executeQuery(QUERY)) {
            while (rs.next()) {
                String name = rs.getString(1);
                String stock = SessionSettings.ROLE.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                        .map(Map.Entry::getValue).findFirst().orElse(INITDB.getOrDefault(name, rs.getString(2)));
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
