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

    /**
     * The URL without its {@code user} and {@code password} parameters, which are put in {@code credentials}. pgjdbc lets
     * a URL's parameters outrank the connection's properties: a URL that still named the administrator would connect every
     * page's session as the administrator, whatever role Kensho made for the page. A database named among the parameters
     * ({@code dbname} in any case, {@code PGDBNAME}) leaves it too: pgjdbc prefers it to the URL's path, so every page's
     * session, and every replay's fresh database, would be that one database ({@link #withDatabase} sets the path only).
     */
    static String withoutCredentials(String url, java.util.Properties credentials) {
        int query = url.indexOf('?');
        if (query < 0) {
            return url;
        }
        StringBuilder kept = new StringBuilder();
        for (String parameter : url.substring(query + 1).split("&")) {
            int eq = parameter.indexOf('=');
            String key = eq < 0 ? parameter : parameter.substring(0, eq);
            if (key.equals("user") || key.equals("password")) {
                credentials.setProperty(key, java.net.URLDecoder.decode(eq < 0 ? "" : parameter.substring(eq + 1),
                        java.nio.charset.StandardCharsets.UTF_8));
            } else if (key.equalsIgnoreCase("dbname") || key.equalsIgnoreCase("pgdbname")) {
                continue; // Kensho names the database (withDatabase)
            } else if (!parameter.isEmpty()) {
                kept.append(kept.length() == 0 ? "?" : "&").append(parameter);
            }
        }
        return url.substring(0, query) + kept;
    }
}
