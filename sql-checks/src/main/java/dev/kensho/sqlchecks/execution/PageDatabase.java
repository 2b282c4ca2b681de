package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.ScenarioParser;

import dev.kensho.sqlchecks.postgres.RunningPostgres;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;

/** A database and its owning role, made for one page and dropped afterwards. */
final class PageDatabase implements AutoCloseable {

    /** Most a result may take in memory (the driver's maxResultBuffer); a larger one fails the statement. */
    static final String MAX_RESULT_BUFFER = "64M";

    private final RunningPostgres server;
    private final DatabaseDropper dropper;
    private final String name;
    private final Properties credentials;
    private final Connection connection;
    /** Whether this database's run is the page's evidence (the real run): then it hands out no {@link KenshoConnections}. */
    private final boolean evidence;

    private PageDatabase(RunningPostgres server, DatabaseDropper dropper, String name, Properties credentials, Connection connection,
                         boolean evidence) {
        this.evidence = evidence;
        this.server = server;
        this.dropper = dropper;
        this.name = name;
        this.credentials = credentials;
        this.connection = connection;
    }

    /**
     * Superuser-only settings a page's role may SET, because they decide what a scenario shows and the
     * isolation tester's specs set them (it runs as a superuser): which session of a deadlock detects it
     * is decided by each one's deadlock_timeout. Granting SET changes no default and no result; it
     * only lets the reader's own SET run as it would for the tester.
     */
    static final java.util.List<String> SETTABLE_BY_PAGES = java.util.List.of("deadlock_timeout");

    /** GRANT SET ON PARAMETER came with PostgreSQL 15: on 14 a page's SET of these fails as it would for any non-superuser there. */
    private static List<String> settableOn(int major) {
        return major >= 15 ? SETTABLE_BY_PAGES : List.of();
    }

    /**
     * @param admin   a connection of an account that may create roles and databases; PageDatabase
     *                uses it but does not close it
     * @param dropper drops the database when the page is done
     * @param template    the guarded database it is copied from ({@link ExtensionGuard}): nothing of Kensho's connects to it
     * @param claimsPlans whether a snippet of the page claims or shows a plan: only then do the page's sessions load auto_explain
     * @param evidence    whether the run on it is the page's evidence (the real run): such a database hands out no
     *                    connection of Kensho's ({@link #kenshoConnections()})
     */
    static PageDatabase create(RunningPostgres server, Connection admin, DatabaseDropper dropper, String name, String template,
                               VerifierSettings settings,
                               boolean claimsPlans, boolean evidence) throws SQLException {
        long diskBytes = settings.databaseBytes();
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        // What this major version's CREATE ROLE/DATABASE accept (pgjdbc knows it from the connection's start-up).
        int major = admin.getMetaData().getDatabaseMajorVersion();
        synchronized (admin) {
            try (Statement statement = admin.createStatement()) {
                // The role lives for one page and its password is 128 random bits: a costly SCRAM
                // verifier would only slow every page's login down.
                // One round trip for the role and its settings (the simple protocol sends them as one query).
                StringBuilder role = new StringBuilder((ParametersByVersion.exists("scram_iterations", major) ? "SET scram_iterations = 16; " : "") + "CREATE ROLE " + name
                        + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD '" + password + "'");
                for (String stock : SessionSettings.roleStatements(name, major)) {
                    role.append("; ").append(stock);
                }
                // Kensho's own bound on temporary files; only a superuser can change it, so an error it
                // causes is always Kensho's (see KenshoLimits).
                // temp_file_limit binds each process; a page has its own connection and up to MAX_SESSIONS
                // scenario sessions, so its share is split between them and the page as a whole stays within.
                long perProcess = Math.max(1, (diskBytes / (1 + ScenarioParser.MAX_SESSIONS)) >> 10);
                role.append("; ALTER ROLE ").append(name).append(" SET temp_file_limit = '").append(perProcess).append("kB'");
                List<String> settable = settableOn(major);
                if (!settable.isEmpty()) {
                    // One pg_parameter_acl row per parameter is shared by every page's role, and the dropper
                    // revokes on its own connection meanwhile (deleting the row with the last grant): taken in
                    // turn, or a grant fails with "tuple concurrently deleted".
                    role.append("; ").append(PARAMETER_ACL_LOCK);
                }
                for (String parameter : settable) {
                    role.append("; GRANT SET ON PARAMETER ").append(parameter).append(" TO ").append(name);
                }
                if (claimsPlans) {
                    // Decided here, before any session of the page opens: a page without plan claims loads no auto_explain.
                    for (String setting : PlanCapture.roleStatements(name, major)) {
                        role.append("; ").append(setting);
                    }
                }
                statement.execute(role.toString());
                // Every provider gives page databases the same encoding and locale (text ORDER BY depends on them).
                statement.execute("CREATE DATABASE " + name + " OWNER " + name + " TEMPLATE " + template + " "
                        + server.databaseLocale().createOptions(major) + (server.disposable() && major >= 15 ? " STRATEGY FILE_COPY" : ""));
                statement.execute("REVOKE ALL ON DATABASE " + name + " FROM PUBLIC");
            }
        }
        Properties credentials = new Properties();
        credentials.setProperty("user", name);
        credentials.setProperty("password", password);
        credentials.setProperty("ApplicationName", "kensho");
        // Every supported server (14 on) is newer than 9.0: pgjdbc then puts the application name in the start-up packet
        // instead of sending a SET after the login, one round trip less for every session a page opens. (It also asks
        // for extra_float_digits 3 there instead of 2; SessionSettings sets the session's own value before anything runs.)
        credentials.setProperty("assumeMinServerVersion", "9.0");
        // Text results exactly as the server prints them, so rows compare like psql shows them.
        credentials.setProperty("binaryTransfer", "false");
        // Never server-side prepared: pgjdbc would switch to binary results and format values itself.
        credentials.setProperty("prepareThreshold", "0");
        // psql's simple query protocol: the server sees exactly what psql would send (an unbound $1 is
        // "there is no parameter $1", a rule's rows come back), and nothing is prepared behind the author's back.
        credentials.setProperty("preferQueryMode", "simple");
        credentials.setProperty("maxResultBuffer", MAX_RESULT_BUFFER);
        credentials.setProperty("options", SessionSettings.startupOptions());
        Connection connection;
        try {
            connection = DriverManager.getConnection(server.urlFor(name), credentials);
            SessionSettings.apply(connection);
            StockSession.reset(connection);
            String locale = server.databaseLocale().differenceIn(connection);
            if (locale != null) {
                throw new SQLException("the page database's locale is not the one Kensho names on its marks: " + locale);
            }
        } catch (SQLException e) {
            drop(admin, name);
            throw e;
        }
        return new PageDatabase(server, dropper, name, credentials, connection, evidence);
    }

    /** True when page databases are copied from a template1 Kensho guarded at start ({@link Verifier#start}). */
    static boolean guardedTemplate(RunningPostgres server) {
        return server.disposable() && server.pageTemplate().equals("template1");
    }

    Connection connection() {
        return connection;
    }

    /** Another connection to the page's database as the page's role (a scenario's session). */
    Connection openSession() throws SQLException {
        Connection session = DriverManager.getConnection(server.urlFor(name), credentials);
        SessionSettings.apply(session);
        return session;
    }

    /**
     * Connections of Kensho's own to this database: only on a database whose run is not the page's evidence. The real run
     * is given none (see {@link KenshoConnections}); asking for them there is a bug of Kensho's, not of the page.
     */
    KenshoConnections kenshoConnections() {
        if (evidence) {
            throw new IllegalStateException("the real run's database hands out no connection of Kensho's: it would show to the page");
        }
        return new KenshoConnections(this);
    }

    /**
     * A connection that reads what a scenario left ({@link StateCapture}), on a capture run's database only ({@link
     * CaptureRun}), leaving as little trace as it can there, so that the capture run's snippets after it still end as the
     * real run's (else a later scenario's state is not accepted): the server's statistics count every scan of the page's
     * role (pg_stat_user_tables.seq_scan, n_tup_read and the rest), and a page may read them however it spells the view.
     * track_counts may only be switched off by a superuser, hence Kensho's account, set in the startup packet so that no
     * relation is counted from the first catalog read on. search_path is set there too: it outranks a search_path the page
     * (which owns its database) set with ALTER DATABASE, so no name of the page's resolves in this session. Nothing of the
     * page's runs while it reads: row security does not apply to a superuser, and a type's output function is C, which only
     * a superuser may create. Opened through {@link #kenshoConnections()} only.
     */
    Connection openStateReader() throws SQLException {
        Properties reader = new Properties();
        reader.putAll(credentials);
        reader.putAll(server.adminCredentials());
        // Settings the page may have given its database (ALTER DATABASE … SET) are outranked here too: a SERIALIZABLE READ ONLY
        // DEFERRABLE default would make this read wait for the page's open transaction for ever (red team helper-100).
        reader.setProperty("options", "-c track_counts=off -c search_path=pg_catalog -c default_transaction_isolation=read\\ committed"
                + " -c default_transaction_read_only=off -c default_transaction_deferrable=off -c statement_timeout=60s -c lock_timeout=60s");
        reader.setProperty("socketTimeout", "120");
        Connection session = DriverManager.getConnection(server.urlFor(name), reader);
        SessionSettings.apply(session);
        return session;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // The database is dropped with FORCE.
        }
        dropper.drop(name);
    }

    /**
     * Grants and revokes on a parameter update its one pg_parameter_acl row, shared by all page roles;
     * this transaction-scoped lock (on Kensho's superuser connections only) takes them in turn.
     */
    private static final String PARAMETER_ACL_LOCK = "SELECT pg_catalog.pg_advisory_xact_lock(1262831443, 1)";

    static void drop(Connection admin, String name) {
        synchronized (admin) {
            try (Statement statement = admin.createStatement()) {
                // The page owns its database and may have marked it a template, which DROP refuses.
                statement.execute("ALTER DATABASE " + name + " IS_TEMPLATE false");
                statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                int major = admin.getMetaData().getDatabaseMajorVersion();
                for (String parameter : settableOn(major)) {
                    // One query string, so the lock is held until the revoke commits (see PARAMETER_ACL_LOCK).
                    statement.execute(PARAMETER_ACL_LOCK + "; DO $$BEGIN IF EXISTS (SELECT FROM pg_roles WHERE rolname = '"
                            + name + "') THEN REVOKE SET ON PARAMETER " + parameter + " FROM " + name + "; END IF; END$$");
                }
                statement.execute("DROP ROLE IF EXISTS " + name);
            } catch (SQLException e) {
                System.err.println("warning: could not drop page database " + name + ": " + e.getMessage());
            }
        }
    }
}
