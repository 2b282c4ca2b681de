package dev.kensho.sqlchecks.execution.ctype;

import dev.kensho.sqlchecks.postgres.RunningPostgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The build's server's character type: codepoints.sql's row of each code point a page holds, asked once per code point per
 * verifier and kept. Asked on a database of Kensho's own ({@code <prefix>_ctype}), made from template0 in the page locale
 * when first needed, with CONNECT revoked from PUBLIC so that no page's role reaches it, and dropped on {@link #close()}:
 * never in a page's database or session, so nothing asked here changes what a reader's statements do.
 */
public final class ServerCharacterTypes implements AutoCloseable {

    private final RunningPostgres server;
    private final Connection admin;
    private final String database;
    private final Map<Integer, List<String>> rows = new HashMap<>();
    private final AtomicInteger queries = new AtomicInteger();
    private Connection connection;
    private boolean created;

    /**
     * @param admin  a connection that may create databases; used (under its own lock, as the verifier does) but not closed
     * @param prefix the verifier's name prefix: the database is {@code <prefix>_ctype}
     */
    public ServerCharacterTypes(RunningPostgres server, Connection admin, String prefix) {
        this.server = server;
        this.admin = admin;
        this.database = prefix + "_ctype";
    }

    /** How many times the server was asked (one query per call that needed code points not asked before). */
    public int queries() {
        return queries.get();
    }

    /** The database asked, {@code <prefix>_ctype}. */
    public String database() {
        return database;
    }

    /** The server's row of each of {@code codePoints} (columns as {@link CharacterTypeQuery#COLUMNS}). */
    public synchronized Map<Integer, List<String>> rows(Set<Integer> codePoints) throws SQLException {
        Set<Integer> missing = new TreeSet<>(codePoints);
        missing.removeAll(rows.keySet());
        if (!missing.isEmpty()) {
            ask(missing);
        }
        Map<Integer, List<String>> asked = new HashMap<>();
        for (int codePoint : codePoints) {
            asked.put(codePoint, rows.get(codePoint));
        }
        return asked;
    }

    private void ask(Set<Integer> codePoints) throws SQLException {
        Connection on = connection();
        queries.incrementAndGet();
        try (PreparedStatement statement = on.prepareStatement(CharacterTypeQuery.overArrayParameter())) {
            Array array = on.createArrayOf("int4", codePoints.toArray(Integer[]::new));
            statement.setArray(1, array);
            try (ResultSet rs = statement.executeQuery()) {
                int columns = CharacterTypeQuery.COLUMNS.size();
                while (rs.next()) {
                    List<String> row = new ArrayList<>(columns);
                    for (int i = 2; i <= columns + 1; i++) {
                        if (rs.getMetaData().getColumnType(i) == Types.BIT || rs.getMetaData().getColumnType(i) == Types.BOOLEAN) {
                            boolean value = rs.getBoolean(i);
                            row.add(rs.wasNull() ? "" : value ? "t" : "f");
                        } else {
                            String value = rs.getString(i);
                            row.add(value == null ? "" : value);
                        }
                    }
                    rows.put(rs.getInt(1), List.copyOf(row));
                }
            }
        }
        for (int codePoint : codePoints) {
            // A surrogate has no row; nor has a code point the server left out: neither is compared.
            rows.putIfAbsent(codePoint, null);
        }
    }

    private Connection connection() throws SQLException {
        if (connection != null) {
            return connection;
        }
        int major = admin.getMetaData().getDatabaseMajorVersion();
        synchronized (admin) {
            try (Statement statement = admin.createStatement()) {
                statement.execute("CREATE DATABASE " + database + " TEMPLATE template0 " + server.databaseLocale().createOptions(major));
                created = true;
                statement.execute("REVOKE ALL ON DATABASE " + database + " FROM PUBLIC");
            }
        }
        Connection opened = DriverManager.getConnection(server.urlFor(database), server.adminCredentials());
        try {
            String locale = server.databaseLocale().differenceIn(opened);
            if (locale != null) {
                throw new SQLException("Kensho's database for the character type is not in the page locale: " + locale);
            }
        } catch (SQLException e) {
            opened.close();
            throw e;
        }
        connection = opened;
        return connection;
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // Dropped with FORCE below.
            }
            connection = null;
        }
        if (created) {
            synchronized (admin) {
                try (Statement statement = admin.createStatement()) {
                    statement.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
                } catch (SQLException e) {
                    // A server that went away takes its databases with it.
                }
            }
            created = false;
        }
    }
}
