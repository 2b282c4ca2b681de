package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.assertion.PlanCheck.IndexClaim;
import dev.kensho.sqlchecks.assertion.PlanCheck.Relation;
import dev.kensho.sqlchecks.assertion.PlanCheck.TableClaim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Resolves the names plan claims use in the page's database on a connection of Kensho's own to it, as
 * the page's role, on a capture run only ({@link KenshoConnections}: the real run has no connection of Kensho's beside
 * the reader's, so its plan claims are judged with the answers read here, at the same point of a replay of the page
 * that had nothing of Kensho's before it, see {@link CaptureRun#questions}). Why not on the page's connection: a catalog query on the page's connection would take locks that the reader's open
 * transaction then holds (and a later {@code pg_locks} read would show). Only an object that
 * connection cannot see (one the page's still open transaction created, a temporary one of the
 * page's session) is looked up on the page's connection, since no other can see it; inside the
 * reader's transaction that read runs in a savepoint of Kensho's which is then rolled back and
 * released ({@link #onPage}), so the catalog locks it took are gone and an error it raised leaves the
 * reader's transaction as it was. Every catalog object, function and operator is schema-qualified, so that nothing the page
 * defined or put on its search_path can change the answer.
 */
final class PlanCatalog implements dev.kensho.sqlchecks.assertion.PlanCheck.Catalog, AutoCloseable {

    /** Whether a name is a relation (the page's role's Kensho session resolves it as the page does). */
    static final String SEES = "SELECT pg_catalog.to_regclass(?) IS NOT NULL";
    static final String INDEX_KEYS = "SELECT a.attname, (i.indoption[k.n OPERATOR(pg_catalog.-) 1] OPERATOR(pg_catalog.&) 1)"
            + " OPERATOR(pg_catalog.=) 1 FROM pg_catalog.pg_index i CROSS JOIN LATERAL pg_catalog.unnest(i.indkey::pg_catalog.int2[])"
            + " WITH ORDINALITY AS k(attnum, n) LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) i.indrelid"
            + " AND a.attnum OPERATOR(pg_catalog.=) k.attnum AND k.attnum OPERATOR(pg_catalog.<>) 0"
            + " WHERE i.indexrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(?) AND k.n OPERATOR(pg_catalog.<=) i.indnkeyatts ORDER BY k.n";
    static final String TOAST_BYTES = "SELECT pg_catalog.pg_relation_size(c.reltoastrelid) FROM pg_catalog.pg_class c"
            + " WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(?) AND c.reltoastrelid OPERATOR(pg_catalog.<>) 0";

    static final String RESOLVE = "SELECT n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c"
            + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
            + " WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(?)";
    static final String FAMILY = "WITH RECURSIVE f(oid) AS ("
            + " SELECT pg_catalog.to_regclass(?)::pg_catalog.oid"
            + " UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN f ON i.inhparent OPERATOR(pg_catalog.=) f.oid)"
            + " SELECT n.nspname, c.relname FROM f JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) f.oid"
            + " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace";

    private final KenshoConnections kensho;
    private final Connection page;
    private Connection connection;

    /**
     * @param kensho opens Kensho's own connection to the (capture run's) page database when a claim first needs it
     * @param page   the (capture run's) page connection, asked only about what Kensho's connection cannot see
     */
    PlanCatalog(KenshoConnections kensho, Connection page) {
        this.kensho = kensho;
        this.page = page;
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = kensho.asPageRole();
        }
        return connection;
    }

    /**
     * Closes Kensho's connection, if one is open. A capture run asks one snippet's questions and stops right after
     * ({@link CaptureRun#questions}): no later snippet of it is judged, whatever this connection left for it to see.
     */
    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // The page's database is dropped with FORCE.
            }
            connection = null;
        }
    }

    /**
     * The (capture run's) page connection, where the name resolves as the page's statement resolved it: its search_path,
     * set by the page with SET or set_config, is the session's own, and a connection of Kensho's, even as the page's role,
     * starts with the role's (red team helper-96: {@code SET search_path = s, public} made {@code no-seq-scan=t} judge
     * public.t while the plan scanned s.t). The capture run stops right after this snippet's question, so the read leaves
     * nothing a later judged statement sees. Kensho's own connection only when the page's transaction has failed, where
     * nothing can be read.
     */
    private Connection seeing(String name) throws SQLException {
        if (page.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState() != org.postgresql.core.TransactionState.FAILED) {
            return page;
        }
        Connection own = connection();
        try (PreparedStatement statement = own.prepareStatement(SEES)) {
            statement.setString(1, name);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return own;
            }
        } catch (SQLException notAName) {
            return own; // RESOLVE says what is wrong with the name
        }
    }

    IndexClaim index(String written) throws SQLException {
        if (written == null) {
            return null;
        }
        String[] found = resolve(written);
        if (found == null) {
            return new IndexClaim(written, List.of(), "there is no index named " + written + " in the page's database "
                    + "(names are resolved as PostgreSQL resolves them: unquoted names fold to lower case)");
        }
        if (!found[2].equals("i") && !found[2].equals("I")) {
            return new IndexClaim(written, List.of(), written + " is not an index (relkind '" + found[2] + "')");
        }
        // An index on a partitioned table is used through its partitions' indexes, which inherit from it.
        return new IndexClaim(written, family(written, new Relation(found[0], found[1])), null);
    }

    /** The relation and everything that inherits from it (partitions, their indexes, inheritance children), the named one first. */
    private List<Relation> family(String written, Relation named) throws SQLException {
        List<Relation> family = query(FAMILY, written, rs -> {
            List<Relation> found = new ArrayList<>();
            while (rs.next()) {
                found.add(new Relation(rs.getString(1), rs.getString(2)));
            }
            return found;
        });
        family.remove(named);
        family.add(0, named);
        return family;
    }

    TableClaim table(String written) throws SQLException {
        if (written == null) {
            return null;
        }
        String[] found = resolve(written);
        if (found == null) {
            return new TableClaim(written, List.of(), "there is no table named " + written + " in the page's database "
                    + "(names are resolved as PostgreSQL resolves them: unquoted names fold to lower case)" + "; the claim cannot be checked");
        }
        if (found[2].equals("v")) {
            return new TableClaim(written, List.of(), written + " is a view: a plan reads the tables under it; name one of them");
        }
        if ("iI".contains(found[2])) {
            return new TableClaim(written, List.of(), written + " is an index, not a table");
        }
        return new TableClaim(written, family(written, new Relation(found[0], found[1])), null);
    }

    @Override
    public List<String> indexKeys(String schema, String index) throws SQLException {
        List<String> keys = query(INDEX_KEYS, qualified(schema, index), rs -> {
            List<String> found = new ArrayList<>();
            while (rs.next()) {
                if (rs.getString(1) == null) {
                    return List.of(); // an expression key
                }
                found.add(rs.getString(1) + (rs.getBoolean(2) ? " DESC" : ""));
            }
            return found;
        });
        return keys.isEmpty() ? null : keys;
    }

    @Override
    public long toastBytes(String schema, String table) throws SQLException {
        return query(TOAST_BYTES, qualified(schema, table), rs -> rs.next() ? rs.getLong(1) : 0L);
    }

    private static String qualified(String schema, String name) {
        return schema == null || schema.isEmpty() ? quoteIdentifier(name) : quoteIdentifier(schema) + "." + quoteIdentifier(name);
    }

    /** {schema, name, relkind}, or null when the name resolves to nothing. */
    private String[] resolve(String written) throws SQLException {
        try {
            return query(RESOLVE, written, rs -> rs.next() ? new String[]{rs.getString(1), rs.getString(2), rs.getString(3)} : null);
        } catch (SQLException e) {
            if ("42602".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
                return null; // not a valid name, or an unknown schema
            }
            throw e;
        }
    }

    private interface Rows<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Runs one catalog query about {@code name} on the connection that sees it ({@link #seeing}). */
    private <T> T query(String sql, String name, Rows<T> rows) throws SQLException {
        Connection on = seeing(name);
        if (on == page) {
            return onPage(sql, name, rows);
        }
        try (PreparedStatement statement = on.prepareStatement(sql)) {
            statement.setString(1, name);
            try (ResultSet rs = statement.executeQuery()) {
                return rows.read(rs);
            }
        }
    }

    /**
     * A catalog read on the page's connection. Outside a transaction block it is a read-only statement of
     * its own. Inside the reader's transaction it runs in a savepoint that is rolled back and released
     * at once: the locks it took are released with the rollback, an error it raises is undone, and the
     * savepoint takes no transaction ID (nothing is written), so the reader's transaction is left with
     * its own locks, snapshot and state. The savepoint's name is random, so it cannot be one of the page's.
     */
    private <T> T onPage(String sql, String name, Rows<T> rows) throws SQLException {
        org.postgresql.core.TransactionState state = page.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState();
        if (state == org.postgresql.core.TransactionState.FAILED) {
            throw new SQLException("the page's transaction has failed, so " + name + " cannot be looked up in it");
        }
        boolean inTransaction = state == org.postgresql.core.TransactionState.OPEN;
        String savepoint = "kensho_" + java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(8));
        try (java.sql.Statement control = page.createStatement()) {
            if (inTransaction) {
                control.execute("SAVEPOINT " + savepoint);
            }
            try (PreparedStatement statement = page.prepareStatement(sql)) {
                statement.setString(1, name);
                try (ResultSet rs = statement.executeQuery()) {
                    return rows.read(rs);
                }
            } finally {
                if (inTransaction) {
                    control.execute("ROLLBACK TO SAVEPOINT " + savepoint + "; RELEASE SAVEPOINT " + savepoint);
                }
            }
        }
    }

    private static String quoteIdentifier(String name) {
        return dev.kensho.sqlchecks.script.SqlQuoting.identifier(name);
    }
}
