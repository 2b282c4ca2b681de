package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.StateAfter;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads what a scenario left in the page's database ({@link StateAfter}), for the browser to restore in its place. It reads
 * only on a capture run ({@link CaptureRun}), the page run again on a database of its own, never in the real run.
 *
 * <p>It reads on a connection of its own, opened after the scenario's sessions ended and closed at once, never on the
 * page's: the capture run's page session keeps no snapshot, lock, setting or temporary object of Kensho's. That connection
 * is Kensho's superuser with track_counts off (KenshoConnections.stateReader): its scans count in no relation's statistics,
 * so the capture run's snippets up to a later scenario still end as the real run's did. Its transaction is read-only
 * (so nothing the page defined, a policy's function or an output function, may write or draw a sequence number while it
 * reads) and repeatable read (every table as of one moment). What it cannot record, it leaves unrecorded (null): the
 * snippets after the scenario then keep their "cannot run in the browser" note.
 */
final class StateCapture {

    /** Values, all tables together, the build keeps of a scenario's end state: more is not recorded. */
    static final int MAX_VALUES = 20_000;
    /** Characters of those values together. */
    static final int MAX_CHARACTERS = 200_000;

    private static final String EQ = " OPERATOR(pg_catalog.=) ";
    private static final String USER_RELATIONS = "SELECT n.nspname, c.relname, c.relkind, c.oid::pg_catalog.int8 FROM pg_catalog.pg_class c"
            + " JOIN pg_catalog.pg_namespace n ON n.oid" + EQ + "c.relnamespace WHERE c.relkind" + EQ + "ANY ('{r,S}'::pg_catalog.\"char\"[])"
            + " AND n.nspname" + EQ + "ANY (ARRAY['public']::pg_catalog.name[])"
            + " ORDER BY c.relkind, n.nspname, c.relname";
    private static final String COLUMNS = "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attidentity" + EQ
            + "ANY ('{a,d}'::pg_catalog.\"char\"[]) FROM pg_catalog.pg_attribute a WHERE a.attrelid" + EQ + "%d::pg_catalog.oid"
            + " AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped AND a.attgenerated" + EQ + "'' ORDER BY a.attnum";

    /** Which of the page's tables each table's foreign keys point to (conrelid → confrelid), other than itself. */
    private static final String REFERENCES = "SELECT c.conrelid::pg_catalog.int8, c.confrelid::pg_catalog.int8 FROM pg_catalog.pg_constraint c"
            + " WHERE c.contype" + EQ + "'f' AND c.conrelid OPERATOR(pg_catalog.<>) c.confrelid";

    private StateCapture() {
    }

    /**
     * The page's tables and sequences in schema public (a scenario's rows elsewhere are left out: the restore would
     * not know the schema's other objects), or null when they could not be read whole within the bounds.
     */
    static StateAfter read(KenshoConnections kensho) {
        try (Connection connection = kensho.stateReader()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                statement.execute("SET LOCAL statement_timeout = '10s'");
                statement.execute("SET LOCAL search_path = pg_catalog");
                List<String[]> relations = new ArrayList<>();
                try (ResultSet rs = statement.executeQuery(USER_RELATIONS)) {
                    while (rs.next()) {
                        relations.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
                    }
                }
                java.util.Map<String, java.util.Set<String>> references = new java.util.HashMap<>();
                try (ResultSet rs = statement.executeQuery(REFERENCES)) {
                    while (rs.next()) {
                        references.computeIfAbsent(rs.getString(1), k -> new java.util.HashSet<>()).add(rs.getString(2));
                    }
                }
                relations = referencedFirst(relations, references);
                if (relations == null) {
                    return null; // tables that refer to each other in a cycle: no order of INSERTs satisfies their keys
                }
                List<StateAfter.TableRows> tables = new ArrayList<>();
                List<StateAfter.SequencePosition> sequences = new ArrayList<>();
                long values = 0;
                long characters = 0;
                for (String[] relation : relations) {
                    String name = identifier(relation[0]) + "." + identifier(relation[1]);
                    if (relation[2].equals("S")) {
                        try (ResultSet rs = statement.executeQuery("SELECT last_value::pg_catalog.text, is_called FROM " + name)) {
                            rs.next();
                            sequences.add(new StateAfter.SequencePosition(relation[0], relation[1], rs.getString(1), rs.getBoolean(2)));
                        }
                        continue;
                    }
                    List<String> columns = new ArrayList<>();
                    List<String> types = new ArrayList<>();
                    boolean identity = false;
                    try (ResultSet rs = statement.executeQuery(String.format(java.util.Locale.ROOT, COLUMNS, Long.parseLong(relation[3])))) {
                        while (rs.next()) {
                            columns.add(rs.getString(1));
                            types.add(rs.getString(2));
                            identity |= rs.getBoolean(3);
                        }
                    }
                    List<List<String>> rows = new ArrayList<>();
                    String select = columns.isEmpty() ? "SELECT FROM ONLY " + name
                            : "SELECT " + String.join(", ", columns.stream().map(StateCapture::identifier).toList()) + " FROM ONLY " + name;
                    try (ResultSet rs = statement.executeQuery(select)) {
                        while (rs.next()) {
                            if (columns.isEmpty()) {
                                return null; // a row with no column to give: INSERT cannot say it
                            }
                            List<String> row = new ArrayList<>();
                            for (int c = 1; c <= columns.size(); c++) {
                                String value = rs.getString(c);
                                row.add(value);
                                values++;
                                characters += value == null ? 0 : value.length();
                            }
                            if (values > MAX_VALUES || characters > MAX_CHARACTERS) {
                                return null;
                            }
                            rows.add(row);
                        }
                    }
                    tables.add(new StateAfter.TableRows(relation[0], relation[1], columns, types, identity, rows));
                }
                // Nothing to restore is nothing the restore could be proven by: not recorded.
                return tables.isEmpty() && sequences.isEmpty() ? null : new StateAfter(tables, sequences, -1);
            } finally {
                connection.rollback();
            }
        } catch (SQLException | RuntimeException e) {
            return null; // unread: the browser does not restore what the build could not read
        }
    }

    /**
     * The relations in an order in which every table comes after the tables its foreign keys point to (a restored row
     * must find the row it refers to), else by name; null when the keys form a cycle. A key to itself is checked at the
     * end of the one INSERT that restores the table, so its rows may come in any order.
     */
    private static List<String[]> referencedFirst(List<String[]> relations, java.util.Map<String, java.util.Set<String>> references) {
        List<String[]> ordered = new ArrayList<>();
        java.util.Set<String> placed = new java.util.HashSet<>();
        List<String[]> waiting = new ArrayList<>(relations);
        while (!waiting.isEmpty()) {
            String[] next = null;
            for (String[] relation : waiting) {
                java.util.Set<String> needs = references.getOrDefault(relation[3], java.util.Set.of());
                if (needs.stream().allMatch(oid -> placed.contains(oid) || !known(relations, oid))) {
                    next = relation;
                    break;
                }
            }
            if (next == null) {
                return null;
            }
            waiting.remove(next);
            placed.add(next[3]);
            ordered.add(next);
        }
        return ordered;
    }

    /** Whether the relation is one of those read (a key may point to a table outside schema public, which is not restored). */
    private static boolean known(List<String[]> relations, String oid) {
        return relations.stream().anyMatch(r -> r[3].equals(oid));
    }

    private static String identifier(String name) {
        return dev.kensho.sqlchecks.script.SqlQuoting.identifier(name);
    }
}
