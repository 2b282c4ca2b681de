package dev.kensho.sqlchecks.execution;

/**
 * The pieces of Kensho's own SQL that runs where the page's names resolve: on the page's session, or on another session
 * as the page's role. There the page may have made a function, operator or type of a pg_catalog name, a better match for
 * the arguments or first on a search_path it set ({@code SET search_path = public, pg_catalog}), and an unqualified name
 * would run the page's code in Kensho's read (red team helper-94: a {@code public.format(text, name, name, bigint)} that
 * inserted on one call and deleted on the next made an exercise case's rows). So every function, operator and type there
 * is named by its pg_catalog name; operators written as keywords ({@code LIKE}, {@code IN}, {@code IS DISTINCT FROM})
 * resolve by name too and are spelled with {@code OPERATOR()}. {@code OwnSqlQualifiedTest} reads every such statement.
 */
final class CatalogSql {
    static final String EQ = " OPERATOR(pg_catalog.=) ";
    static final String NE = " OPERATOR(pg_catalog.<>) ";
    static final String CAT = " OPERATOR(pg_catalog.||) ";
    static final String LIKE = " OPERATOR(pg_catalog.~~) ";
    static final String NOT_LIKE = " OPERATOR(pg_catalog.!~~) ";

    private CatalogSql() {
    }
}
