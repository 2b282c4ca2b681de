package dev.kensho.generator.render.page;

import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.script.PsqlFormat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Rows as the theme shows them: each cell says whether it is NULL (shown as {@value PsqlFormat#NULL}
 * and styled apart, so that it cannot be read as the text "NULL" or an empty string), and a long
 * result shows its first rows and says how many it had in all.
 */
final class ResultView {

    /** Rows shown on a page; the build compared all of them. */
    static final int ROWS_SHOWN = 50;

    private ResultView() {
    }

    static Map<String, Object> of(ResultTable table) {
        List<List<Map<String, Object>>> rows = new ArrayList<>();
        for (List<String> row : table.rows().subList(0, Math.min(ROWS_SHOWN, table.rows().size()))) {
            List<Map<String, Object>> cells = new ArrayList<>();
            for (String value : row) {
                cells.add(value == null ? Map.of("text", PsqlFormat.NULL, "null", true) : Map.of("text", value, "null", false));
            }
            rows.add(cells);
        }
        return Map.of("columns", table.columns(), "rows", rows, "total", table.totalRows(),
                "hidden", Math.max(0, table.totalRows() - rows.size()));
    }
}
