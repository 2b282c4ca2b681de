package dev.kensho.sqlchecks.model;

import java.util.List;
import java.util.stream.Collectors;

/**
 * How a snippet's parameters ($1 … $n) reach the server: its one statement is prepared with the
 * parameters' types and executed with their values as literals, then deallocated. The build runs
 * exactly these statements, and so does the reader's browser when it replays the page.
 *
 * @param prepare    {@code PREPARE name (types) AS statement}
 * @param execute    {@code EXECUTE name (values)}
 * @param deallocate {@code DEALLOCATE name}
 * @param shift      characters {@code prepare} puts before the statement (an error's position moves back by it)
 */
public record Binding(String prepare, String execute, String deallocate, int shift) {

    public static Binding of(String name, List<Directives.Parameter> parameters, String statement) {
        String types = parameters.stream().map(Directives.Parameter::type).collect(Collectors.joining(", "));
        String prefix = "PREPARE " + name + " (" + types + ") AS ";
        String values = parameters.stream().map(p -> literal(p.value())).collect(Collectors.joining(", "));
        return new Binding(prefix + statement, "EXECUTE " + name + " (" + values + ")", "DEALLOCATE " + name, prefix.length());
    }

    /** A string literal as standard_conforming_strings reads it (the page database's setting when parameters bind). */
    private static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
