package dev.kensho.sqlchecks.execution;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Pages create no extensions. A page's role owns its database, and PostgreSQL lets a database's
 * owner create any trusted extension, procedural languages such as pltcl and plperl among them
 * (whose loops ignore cancel and terminate). An event trigger, owned by Kensho's superuser and out of
 * the page's reach, refuses every extension a page's session creates or alters. The extensions a
 * site owner allows ({@link VerifierSettings#extensions()}) are created by Kensho's own account
 * before the page runs, so a page's {@code CREATE EXTENSION IF NOT EXISTS} finds them; an extension
 * that brings a procedural language is refused even there.
 */
public final class ExtensionGuard {

    /** Opens the message of the error a page gets, which {@link KenshoLimits} knows as Kensho's. */
    static final String REFUSAL = "Kensho: pages may not create or alter extensions";
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");

    private ExtensionGuard() {
    }

    /** The guard's objects, created in a database by the superuser (idempotent). */
    static String installSql(List<String> allowed) {
        String list = allowed.isEmpty() ? "none" : String.join(", ", allowed);
        // The function lives in pg_catalog, not in a schema of its own, so that the page's database has no schema the
        // reader's lacks (a list of pg_namespace would show it); the event trigger itself is read as Kensho's (ServerWideReaders).
        return "CREATE OR REPLACE FUNCTION pg_catalog.kensho_refuse_extensions() RETURNS event_trigger LANGUAGE plpgsql"
                + " SET search_path = pg_catalog AS $guard$ DECLARE command record; BEGIN"
                + " IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) SESSION_USER) THEN RETURN; END IF;"
                + " FOR command IN SELECT * FROM pg_catalog.pg_event_trigger_ddl_commands() LOOP"
                + " IF command.object_type OPERATOR(pg_catalog.=) 'extension' THEN"
                + " RAISE EXCEPTION '" + REFUSAL + " (here %); the site''s allowed extensions (" + list.replace("'", "''")
                + ") are created by Kensho itself, so CREATE EXTENSION IF NOT EXISTS finds them', command.object_identity"
                + " USING ERRCODE = '42501'; END IF; END LOOP; END $guard$;"
                + " DROP EVENT TRIGGER IF EXISTS kensho_refuse_extensions;"
                + " CREATE EVENT TRIGGER kensho_refuse_extensions ON ddl_command_end"
                + " WHEN TAG IN ('CREATE EXTENSION', 'ALTER EXTENSION') EXECUTE FUNCTION pg_catalog.kensho_refuse_extensions()";
    }

    /**
     * Installs the guard and the allowed extensions on {@code superuser}, a
     * connection to the database they protect.
     */
    /** The OIDs of the guard's function and event trigger in the database of {@code connection} (copied to every page's). */
    static java.util.Set<Long> oids(Connection connection) throws SQLException {
        java.util.Set<Long> oids = new java.util.HashSet<>();
        try (Statement statement = connection.createStatement();
             java.sql.ResultSet rs = statement.executeQuery("SELECT oid::bigint FROM pg_catalog.pg_proc WHERE proname = "
                     + "'kensho_refuse_extensions' UNION ALL SELECT oid::bigint FROM pg_catalog.pg_event_trigger WHERE evtname = "
                     + "'kensho_refuse_extensions'")) {
            while (rs.next()) {
                oids.add(rs.getLong(1));
            }
        }
        return oids;
    }

    static void install(Connection superuser, List<String> allowed) throws SQLException {
        try (Statement statement = superuser.createStatement()) {
            statement.execute(installSql(allowed));
            for (String extension : allowed) {
                statement.execute("CREATE EXTENSION IF NOT EXISTS " + extension);
            }
        }
        for (String extension : allowed) {
            try (PreparedStatement statement = superuser.prepareStatement("SELECT l.lanname FROM pg_catalog.pg_language l"
                    + " JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_language'::pg_catalog.regclass AND d.objid = l.oid"
                    + " JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid WHERE e.extname = ?")) {
                statement.setString(1, extension);
                try (ResultSet rs = statement.executeQuery()) {
                    if (rs.next()) {
                        throw new SQLException("the extension " + extension + " brings the procedural language " + rs.getString(1)
                                + ", which Kensho does not allow: a loop in it ignores cancel and terminate. Remove it from the "
                                + "allowed extensions");
                    }
                }
            }
        }
    }

    /** An extension name as CREATE EXTENSION takes it unquoted (pg_trgm, btree_gist): the one rule site.yml is read by too. */
    public static boolean isName(String name) {
        return NAME.matcher(name).matches();
    }

    /** @throws IllegalArgumentException for a name that is not a plain extension name */
    static void checkName(String name) {
        if (!isName(name)) {
            throw new IllegalArgumentException("an allowed extension is named like pg_trgm (lower-case letters, digits and _), not '"
                    + name + "'");
        }
    }
}
