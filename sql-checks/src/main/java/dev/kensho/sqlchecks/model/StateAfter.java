package dev.kensho.sqlchecks.model;

import java.util.ArrayList;
import java.util.List;

/**
 * What a scenario left in the page's database, as the build read it right after the scenario's sessions ended: every
 * row of the page's tables, as the server printed each value, and where each sequence stood. A reader's browser has one
 * connection and cannot run the scenario; it restores this state instead ({@link #restoreStatements()}), so that the
 * snippets after the scenario run there. Whether that reproduces the build's run is proven by the build itself, which
 * runs the same restore on a fresh database and compares the snippets after it ({@code reproduced}).
 *
 * @param tables     each table's rows, in the order a scan of it returned them (a later query without ORDER BY reads
 *                   a restored table in the order its rows were inserted, which is this one)
 * @param sequences  each sequence's position
 * @param reproduced how many snippets after the scenario (in run order, up to the next scenario) ended, after the
 *                   restore on a fresh database, exactly as they did after the real scenario; -1 before the proof ran
 */
public record StateAfter(List<TableRows> tables, List<SequencePosition> sequences, int reproduced) {

    public StateAfter {
        tables = List.copyOf(tables);
        sequences = List.copyOf(sequences);
    }

    /**
     * @param columns the columns a row may be given (generated ones are left out: the server computes them again)
     * @param types   each column's type as {@code format_type} names it, so that a value is read back as what it was
     * @param identity whether a column is an identity column, whose recorded values an INSERT must be allowed to give
     * @param rows    each value as the server printed it, or null
     */
    public record TableRows(String schema, String name, List<String> columns, List<String> types, boolean identity,
                            List<List<String>> rows) {
        public TableRows {
            columns = List.copyOf(columns);
            types = List.copyOf(types);
            rows = rows.stream().map(row -> java.util.Collections.unmodifiableList(new ArrayList<>(row))).toList();
        }
    }

    /** A sequence's {@code last_value} and {@code is_called}, which {@code setval} sets back exactly. */
    public record SequencePosition(String schema, String name, String lastValue, boolean called) {
    }

    public StateAfter withReproduced(int count) {
        return new StateAfter(tables, sequences, count);
    }

    /**
     * The statements that bring a database holding the page's tables to this state: every table emptied at once (foreign
     * keys between them allow nothing less), its rows inserted again in their recorded order with each value read as its
     * recorded type, and every sequence set where it stood. The browser replays exactly these in place of the scenario,
     * and the build runs exactly these in its proof.
     */
    public List<String> restoreStatements() {
        List<String> statements = new ArrayList<>();
        if (!tables.isEmpty()) {
            statements.add("TRUNCATE " + String.join(", ", tables.stream().map(t -> qualified(t.schema(), t.name())).toList()));
        }
        for (TableRows table : tables) {
            if (table.rows().isEmpty()) {
                continue;
            }
            StringBuilder insert = new StringBuilder("INSERT INTO ").append(qualified(table.schema(), table.name())).append(" (")
                    .append(String.join(", ", table.columns().stream().map(StateAfter::identifier).toList())).append(')');
            if (table.identity()) {
                insert.append(" OVERRIDING SYSTEM VALUE");
            }
            insert.append(" VALUES");
            String separator = " ";
            for (List<String> row : table.rows()) {
                insert.append(separator).append('(');
                for (int c = 0; c < row.size(); c++) {
                    String value = row.get(c);
                    insert.append(c == 0 ? "" : ", ").append(value == null ? "NULL" : literal(value) + "::" + table.types().get(c));
                }
                insert.append(')');
                separator = ", ";
            }
            statements.add(insert.toString());
        }
        for (SequencePosition sequence : sequences) {
            statements.add("SELECT pg_catalog.setval(" + literal(qualified(sequence.schema(), sequence.name())) + ", " + sequence.lastValue()
                    + ", " + sequence.called() + ")");
        }
        return statements;
    }

    private static String qualified(String schema, String name) {
        return identifier(schema) + "." + identifier(name);
    }

    /** Always quoted: a name is the page's text, and quoting keeps it one identifier whatever it holds. */
    static String identifier(String name) {
        return dev.kensho.sqlchecks.script.SqlQuoting.identifier(name);
    }

    /** A standard string literal (standard_conforming_strings is on: a page that turns it off is not run in the browser). */
    static String literal(String value) {
        return dev.kensho.sqlchecks.script.SqlQuoting.literal(value);
    }
}
