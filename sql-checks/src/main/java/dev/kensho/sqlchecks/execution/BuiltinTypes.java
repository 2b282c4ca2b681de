package dev.kensho.sqlchecks.execution;

import java.util.HashMap;
import java.util.Map;

/**
 * Names of PostgreSQL's built-in types by OID, as {@code pg_type.typname} spells them. A result
 * column's type is read from the row description the server sends with the rows: asking the JDBC
 * driver for a type's name instead makes it query the catalogs on the page's own session (its
 * {@code getColumnTypeName} reads pg_class, pg_attribute and pg_attrdef to tell a serial column),
 * which takes locks that last until the reader's transaction ends. A type not listed here (an enum,
 * a composite) is named by its OID; nothing that names it needs more than "not built in".
 */
final class BuiltinTypes {

    private static final Map<Integer, String> NAMES = new HashMap<>();

    static {
        Object[] pairs = {
                16, "bool", 17, "bytea", 18, "char", 19, "name", 20, "int8", 21, "int2", 22, "int2vector", 23, "int4",
                24, "regproc", 25, "text", 26, "oid", 27, "tid", 28, "xid", 29, "cid", 30, "oidvector", 114, "json",
                142, "xml", 194, "pg_node_tree", 600, "point", 601, "lseg", 602, "path", 603, "box", 604, "polygon",
                628, "line", 650, "cidr", 700, "float4", 701, "float8", 705, "unknown", 718, "circle", 774, "macaddr8",
                790, "money", 829, "macaddr", 869, "inet", 1033, "aclitem", 1042, "bpchar", 1043, "varchar", 1082, "date",
                1083, "time", 1114, "timestamp", 1184, "timestamptz", 1186, "interval", 1266, "timetz", 1560, "bit",
                1562, "varbit", 1700, "numeric", 1790, "refcursor", 2202, "regprocedure", 2203, "regoper",
                2204, "regoperator", 2205, "regclass", 2206, "regtype", 2249, "record", 2275, "cstring", 2278, "void",
                2950, "uuid", 3220, "pg_lsn", 3614, "tsvector", 3615, "tsquery", 3734, "regconfig", 3769, "regdictionary",
                3802, "jsonb", 3904, "int4range", 3906, "numrange", 3908, "tsrange", 3910, "tstzrange", 3912, "daterange",
                3926, "int8range", 4089, "regnamespace", 4096, "regrole", 4072, "jsonpath", 4191, "regcollation",
                5038, "pg_snapshot", 5069, "xid8", 4451, "int4multirange", 4532, "nummultirange", 4533, "tsmultirange",
                4534, "tstzmultirange", 4535, "datemultirange", 4536, "int8multirange",
                // arrays
                1000, "_bool", 1001, "_bytea", 1002, "_char", 1003, "_name", 1005, "_int2", 1007, "_int4", 1009, "_text",
                1014, "_bpchar", 1015, "_varchar", 1016, "_int8", 1021, "_float4", 1022, "_float8", 1028, "_oid",
                1115, "_timestamp", 1182, "_date", 1183, "_time", 1185, "_timestamptz", 1187, "_interval", 1231, "_numeric",
                1270, "_timetz", 1561, "_bit", 1563, "_varbit", 199, "_json", 143, "_xml", 2951, "_uuid", 3807, "_jsonb",
                791, "_money", 1040, "_macaddr", 1041, "_inet", 651, "_cidr", 2287, "_record", 1017, "_point", 1020, "_box",
                3643, "_tsvector", 3905, "_int4range", 3927, "_int8range", 3907, "_numrange", 271, "_xid8", 1011, "_xid"};
        for (int i = 0; i < pairs.length; i += 2) {
            NAMES.put((Integer) pairs[i], (String) pairs[i + 1]);
        }
    }

    private BuiltinTypes() {
    }

    static String name(int oid) {
        String name = NAMES.get(oid);
        return name != null ? name : Integer.toString(oid);
    }
}
