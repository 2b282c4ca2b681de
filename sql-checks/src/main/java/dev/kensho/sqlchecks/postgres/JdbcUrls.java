package dev.kensho.sqlchecks.postgres;

/** Builds JDBC URLs that differ only in the database name. */
final class JdbcUrls {

    private JdbcUrls() {
    }

    /** Replaces the database path segment of a {@code jdbc:postgresql://host:port/db?params} URL. */
    static String withDatabase(String url, String database) {
        int hostStart = url.indexOf("//");
        int slash = url.indexOf('/', hostStart + 2);
        int query = url.indexOf('?');
        String prefix = slash < 0 ? (query < 0 ? url : url.substring(0, query)) : url.substring(0, slash);
        String suffix = query < 0 ? "" : url.substring(query);
        return prefix + "/" + database + suffix;
    }
}
