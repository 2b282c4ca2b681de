package dev.kensho.sqlchecks.script;

/** How Kensho writes a name or a value into SQL text it makes: one place, so every statement quotes alike. */
public final class SqlQuoting {

    private SqlQuoting() {
    }

    /** Always quoted: a name is the page's text, and quoting keeps it one identifier whatever it holds. */
    public static String identifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** A standard string literal (standard_conforming_strings on, as on a stock server). */
    public static String literal(String value) {
        return '\'' + value.replace("'", "''") + '\'';
    }
}
