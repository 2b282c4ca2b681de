package dev.kensho.generator.render.playground;

import dev.kensho.sqlchecks.assertion.RowComparison;
import dev.kensho.sqlchecks.model.RowOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the reader's browser decides that two rows of a sorted result tie, as the build decides it (sql-checks'
 * RowComparison and its key equality): for each sort key, the result column, the OID of the equality operator the sort
 * pairs with its ordering operator, and whether identical printed text is sure to be equal for the column's type. The
 * browser then groups tied rows by the sort's own equality (numeric {@code 1.0 = 1.00}, float {@code -0 = 0}, interval
 * {@code 1 day = 24:00:00}), not by text, so that the rows it lets come in any order are the ones the server may return
 * in any order, no more.
 */
public final class TieRules {

    private TieRules() {
    }

    /** The rules of a sorted result's keys, or null when its ties are not known (no sort, a hidden key, no parse). */
    public static List<Map<String, Object>> of(RowOrder order, List<String> types) {
        if (order == null || !order.tiesKnown() || order.keyColumns().isEmpty()) {
            return null;
        }
        List<Map<String, Object>> rules = new ArrayList<>();
        for (int k = 0; k < order.keyColumns().size(); k++) {
            int column = order.keyColumns().get(k);
            long eq = order.keyEquality().get(k);
            Map<String, Object> rule = new LinkedHashMap<>();
            rule.put("column", column);
            rule.put("eq", eq);
            // The build's own word on the column's type (one source: RowComparison), asked of this key alone.
            rule.put("exact", RowComparison.tiesByText(RowOrder.sorted(List.of(column), List.of(eq), order.basis()), types));
            rules.add(rule);
        }
        return rules;
    }

    /** The same rules from a rows claim's facts (its sort keys and their equality operators), or null. */
    public static List<Map<String, Object>> ofFacts(Map<String, String> facts, List<String> types) {
        String keys = facts.get("sortKeys");
        String equality = facts.get("keyEquality");
        if (!"true".equals(facts.get("ties")) || keys == null || keys.isEmpty() || keys.equals("hidden") || equality == null) {
            return null;
        }
        String[] columns = keys.split(",");
        String[] operators = equality.split(",");
        if (columns.length != operators.length) {
            return null;
        }
        List<Integer> keyColumns = new ArrayList<>();
        List<Long> keyEquality = new ArrayList<>();
        for (int i = 0; i < columns.length; i++) {
            keyColumns.add(Integer.valueOf(columns[i].trim()));
            keyEquality.add(Long.valueOf(operators[i].trim()));
        }
        return of(RowOrder.sorted(keyColumns, keyEquality, facts.getOrDefault("basis", "")), types);
    }
}
