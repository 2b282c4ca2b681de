package dev.kensho.sqlchecks.execution;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** {@link StatementGuard.ServerControl} through the verifier's superuser connection, with pg_catalog functions named in full. */
final class AdminControl implements StatementGuard.ServerControl {

    private final Connection admin;

    AdminControl(Connection admin) {
        this.admin = admin;
    }

    @Override
    public void cancel(int pid) throws SQLException {
        call("SELECT pg_catalog.pg_cancel_backend(?)", pid);
    }

    @Override
    public void terminate(int pid) throws SQLException {
        call("SELECT pg_catalog.pg_terminate_backend(?)", pid);
    }

    @Override
    public boolean waitsForLock(int pid) throws SQLException {
        return blockingPids(pid).length > 0;
    }

    @Override
    public boolean isBlockedBy(int pid, int[] interesting) throws SQLException {
        synchronized (admin) {
            try (PreparedStatement statement = admin.prepareStatement("SELECT pg_catalog.pg_isolation_test_session_is_blocked(?, ?)")) {
                Integer[] boxed = Arrays.stream(interesting).boxed().toArray(Integer[]::new);
                Array array = admin.createArrayOf("int4", boxed);
                statement.setInt(1, pid);
                statement.setArray(2, array);
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1);
                }
            }
        }
    }

    @Override
    public int[] blockingPids(int pid) throws SQLException {
        synchronized (admin) {
            // A wait for a safe snapshot (SERIALIZABLE READ ONLY DEFERRABLE) is a wait too, as
            // pg_isolation_test_session_is_blocked counts it; its blockers are reported separately.
            try (PreparedStatement statement = admin.prepareStatement("SELECT DISTINCT pg_catalog.unnest("
                    + "pg_catalog.array_cat(pg_catalog.pg_blocking_pids(?), pg_catalog.pg_safe_snapshot_blocking_pids(?)))")) {
                statement.setInt(1, pid);
                statement.setInt(2, pid);
                try (ResultSet rs = statement.executeQuery()) {
                    List<Integer> pids = new ArrayList<>();
                    while (rs.next()) {
                        pids.add(rs.getInt(1));
                    }
                    return pids.stream().mapToInt(Integer::intValue).toArray();
                }
            }
        }
    }

    @Override
    public String awaitedLock(int pid) throws SQLException {
        synchronized (admin) {
            try (PreparedStatement statement = admin.prepareStatement("SELECT pg_catalog.concat_ws('/', locktype, database, "
                    + "relation, page, tuple, virtualxid, transactionid, classid, objid, objsubid, mode) FROM pg_catalog.pg_locks "
                    + "WHERE pid = ? AND NOT granted")) {
                statement.setInt(1, pid);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            }
        }
    }

    private void call(String sql, int pid) throws SQLException {
        synchronized (admin) {
            try (PreparedStatement statement = admin.prepareStatement(sql)) {
                statement.setInt(1, pid);
                statement.execute();
            }
        }
    }
}
