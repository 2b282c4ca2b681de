package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.Snippet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Autovacuum and what a page's run showed. A reader's run in the browser (PGlite) has no autovacuum, and a build's run on
 * another day gets it at another moment; on the build's stock server it may vacuum or analyze a page's table while the
 * page runs (a table that took a thousand inserts is vacuumed within a minute, since PostgreSQL 13). Its VACUUM sets the
 * visibility map and the table's page and row counts, its ANALYZE the statistics every estimate rests on: a plan claim,
 * or an EXPLAIN compared as rows, may then hold because of autovacuum, not the reader's SQL.
 *
 * <p>Telling, from the server's statistics, what autovacuum changed did not work (a VACUUM that changed nothing counts as
 * one that did; session 2026-12-05). So where autovacuum worked on the page's tables during the real run, the page is run
 * once more, whole, on a database where the server's autovacuum does not reach the tables the page makes ({@link #turnOff}:
 * each gets thresholds no page reaches as it is made, by an event trigger of Kensho's on that database only), as a
 * reader's browser runs it. A snippet that held on the real run and does not hold there fails, saying so. The real run
 * stays the page's evidence; nothing is added to it.
 *
 * <p>Whether any worker was at work on the server while the page ran is read first, on Kensho's own connection to the
 * server ({@link #workedBetween}, from 16 on): when none was, nothing a worker did can show, and nothing else is read. Else
 * the page's database is read on a superuser connection of Kensho's ({@link PageDatabase#openStateReader()}) once the real
 * run has ended: no statement of the page runs after it. The database's system catalogs and every TOAST table count too
 * (a claim may be about pg_class, or a TOAST table's size); a page that ran a DROP ({@link #HIDES_TABLES}) is run again
 * whatever the statistics say, since a table gone from them hides what autovacuum did to it.
 */
final class AutovacuumActivity {

    /**
     * Each table the page made, with whether autovacuum worked on it: counted runs (a VACUUM that changed nothing counts
     * too), a run in progress, or all-visible pages that no VACUUM reported (an autovacuum cancelled before its end, by a
     * lock the page asked for, reports nothing; a later ANALYZE or CREATE INDEX copies its work into relallvisible).
     */
    private static final String TABLES = "WITH s AS (SELECT s.*, o.oid AS owner FROM pg_catalog.pg_stat_all_tables s"
            + " LEFT JOIN pg_catalog.pg_class o ON o.reltoastrelid OPERATOR(pg_catalog.=) s.relid)"
            // A TOAST table is named by the table it holds the values of (red team helper-105: autovacuum vacuumed a page's
            // TOAST table alone, and pg_relation_size(reltoastrelid) showed it).
            + " SELECT CASE WHEN s.owner IS NULL THEN s.schemaname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) s.relname"
            + " ELSE 'the TOAST table of ' OPERATOR(pg_catalog.||) s.owner::pg_catalog.regclass::pg_catalog.text END,"
            + " s.autovacuum_count, s.autoanalyze_count,"
            + " s.relid IN (SELECT p.relid FROM pg_catalog.pg_stat_progress_vacuum p UNION ALL"
            + " SELECT a.relid FROM pg_catalog.pg_stat_progress_analyze a),"
            + " c.relallvisible OPERATOR(pg_catalog.>) 0 AND s.vacuum_count OPERATOR(pg_catalog.=) 0"
            + " AND s.autovacuum_count OPERATOR(pg_catalog.=) 0"
            // A catalog (and its TOAST table) comes from the template with its pages all-visible (vacuumed when the cluster
            // was made).
            + " AND s.schemaname OPERATOR(pg_catalog.<>) 'pg_catalog' AND NOT COALESCE((SELECT o.relnamespace OPERATOR(pg_catalog.=)"
            + " 'pg_catalog'::pg_catalog.regnamespace FROM pg_catalog.pg_class o WHERE o.oid OPERATOR(pg_catalog.=) s.owner), false)"
            + " FROM s JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid"
            // Shared catalogs (pg_database, pg_db_role_setting, …) are every database's: Kensho's own roles write them.
            + " WHERE s.schemaname OPERATOR(pg_catalog.<>) 'information_schema' AND NOT c.relisshared"
            + " AND s.schemaname NOT LIKE 'pg\\_temp\\_%' AND s.schemaname NOT LIKE 'pg\\_toast\\_temp\\_%'"
            + " ORDER BY 1";

    /**
     * Statements after which the statistics read at the end may no longer show what autovacuum did to a table: it may be
     * gone. Every DROP counts, not only DROP TABLE (red team helper-105: DROP TYPE … CASCADE took a typed table along, as
     * DROP FUNCTION, DROP COLLATION or DROP ACCESS METHOD with CASCADE can), and DROP OWNED. Told by the statement's tree,
     * never its text; dynamic SQL and function bodies count by theirs ({@link ParseCapture#mayDrop}).
     */
    static final java.util.Set<String> HIDES_TABLES = java.util.Set.of("DROPSTMT", "DROPOWNEDSTMT");

    /**
     * What {@link #read} stands for when no table shows autovacuum's work but a worker was at work on the server while the
     * page or a replay of it ran (16 on): a VACUUM cancelled by the page's lock leaves the visibility map set and reports
     * nothing, a BRIN range summarized is no table's count (red team helper-106).
     */
    static final String WORKERS_ABOUT = "had a worker at work on the server, which may have worked on the page's tables in ways no"
            + " statistic shows,";

    /** What {@link #read} stands for when the page dropped a table: whatever autovacuum did to it is not known. */
    static final String HIDDEN = "may have worked on a table the page then dropped (the statistics no longer show it)";

    /**
     * The event trigger of a run with autovacuum off, and its function: in pg_catalog, so that a page listing its schemas
     * sees none of Kensho's on that run either (red team helper-105: a listing of pg_namespace was refused there).
     */
    static final String TRIGGER = "kensho_autovacuum_off";

    /**
     * Autovacuum's thresholds out of reach: no count of dead, inserted or changed rows a page makes reaches them. Not
     * {@code autovacuum_enabled = false}, nor {@code track_counts = off}: on PostgreSQL 18 either one also stops CREATE INDEX
     * from writing the table's page and row counts (index.c, "if autovacuum is off, user may not be expecting table relstats
     * to change"), and plans differed (the isolation suite's drop-index-concurrently-1). PGlite keeps both on.
     */
    static final String OUT_OF_REACH = "autovacuum_vacuum_threshold = 2147483647, autovacuum_vacuum_insert_threshold = -1,"
            + " autovacuum_analyze_threshold = 2147483647";

    /**
     * Every other option that would bring autovacuum back, set so that none does, on the table and on its TOAST table (red
     * team helper-105: a page's own {@code autovacuum_vacuum_max_threshold = 50} capped the threshold above on 18, and a
     * TOAST table's options were never set): the cap off (18 has it), and the freeze ages above the server's, which
     * autovacuum then ignores (a per-table one may only lower it: a low one forces a vacuum against wraparound).
     */
    static String outOfReach(int major, boolean toast) {
        String prefix = toast ? "toast." : "";
        return (toast ? "toast.autovacuum_vacuum_threshold = 2147483647, toast.autovacuum_vacuum_insert_threshold = -1" : OUT_OF_REACH)
                + (major >= 18 ? ", " + prefix + "autovacuum_vacuum_max_threshold = -1" : "")
                + ", " + prefix + "autovacuum_freeze_max_age = 2000000000, " + prefix + "autovacuum_multixact_freeze_max_age = 2000000000";
    }

    /** The reloptions {@link #outOfReach} leaves, as pg_class shows them: a relation that has them all is left as it is. */
    private static String optionsArray(int major, boolean toast) {
        return "'{" + String.join(",", java.util.Arrays.stream(outOfReach(major, toast).split(", "))
                .map(option -> option.replace("toast.", "").replace(" = ", "=")).toList()) + "}'::pg_catalog.text[]";
    }

    /**
     * Every table or materialized view the page makes or alters (a page's own option is set back) gets autovacuum's
     * thresholds out of reach ({@link #outOfReach}), on its TOAST table too. The function runs as its owner, a superuser,
     * and only touches relations not already so, so its own ALTER, which fires the trigger again, ends there.
     */
    private static List<String> turnOffStatements(int major) {
        String already = "COALESCE(c.reloptions OPERATOR(pg_catalog.@>) " + optionsArray(major, false) + ", false)"
                + " AND (c.reltoastrelid OPERATOR(pg_catalog.=) 0 OR COALESCE((SELECT t.reloptions OPERATOR(pg_catalog.@>) "
                + optionsArray(major, true) + " FROM pg_catalog.pg_class t WHERE t.oid OPERATOR(pg_catalog.=) c.reltoastrelid), false))";
        return List.of(
                "CREATE FUNCTION pg_catalog." + TRIGGER + "() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog"
                        + " AS $kensho$ DECLARE made record; BEGIN"
                        + " FOR made IN SELECT DISTINCT c.oid::pg_catalog.regclass AS relation, c.relkind"
                        + " FROM pg_catalog.pg_event_trigger_ddl_commands() d JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid"
                        + " WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
                        + " AND c.relkind IN ('r', 'm') AND c.relpersistence OPERATOR(pg_catalog.<>) 't'"
                        + " AND NOT (" + already + ") LOOP"
                        + " EXECUTE pg_catalog.format(CASE made.relkind WHEN 'm' THEN 'ALTER MATERIALIZED VIEW %s SET (%s)'"
                        + " ELSE 'ALTER TABLE %s SET (%s)' END, made.relation,"
                        + " '" + outOfReach(major, false) + ", " + outOfReach(major, true) + "');"
                        + " END LOOP;"
                        // A BRIN index asks autovacuum to summarize each range it fills (autosummarize): not on this run.
                        + " FOR made IN SELECT DISTINCT c.oid::pg_catalog.regclass AS relation"
                        + " FROM pg_catalog.pg_event_trigger_ddl_commands() d JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid"
                        + " JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.relam"
                        + " WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass"
                        + " AND c.relkind OPERATOR(pg_catalog.=) 'i' AND a.amname OPERATOR(pg_catalog.=) 'brin'"
                        + " AND NOT COALESCE(c.reloptions OPERATOR(pg_catalog.@>) '{autosummarize=off}'::pg_catalog.text[], false) LOOP"
                        + " EXECUTE pg_catalog.format('ALTER INDEX %s SET (autosummarize = off)', made.relation);"
                        + " END LOOP; END $kensho$",
                "CREATE EVENT TRIGGER " + TRIGGER + " ON ddl_command_end EXECUTE FUNCTION pg_catalog." + TRIGGER + "()",
                // The database's own system catalogs too (a plan claim on pg_class: red team helper-104); shared ones belong to
                // every database and are left alone. Only a superuser's session may change a catalog's options.
                "SET allow_system_table_mods = on",
                // Read into an array first: pg_class cannot be altered while a query of the session still reads it.
                "DO $kensho$ DECLARE catalogs pg_catalog.regclass[]; catalog pg_catalog.regclass; BEGIN"
                        + " SELECT pg_catalog.array_agg(c.oid) INTO catalogs FROM pg_catalog.pg_class c"
                        + " WHERE c.relnamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace AND c.relkind OPERATOR(pg_catalog.=) 'r'"
                        + " AND NOT c.relisshared; FOREACH catalog IN ARRAY catalogs LOOP"
                        + " EXECUTE pg_catalog.format('ALTER TABLE %s SET (" + outOfReach(major, false) + ", " + outOfReach(major, true)
                        + ")', catalog); END LOOP; END $kensho$");
    }

    /**
     * Words a statement reads autovacuum's work with: a plan, the counts and statistics it writes (every pg_stat… and
     * pg_statistic… view, extended statistics among them: red team helper-105), pg_class itself, sizes, page inspection,
     * and what a table's physical order decides (LIMIT, aggregates and windows in the order rows are read). Only pages on
     * PostgreSQL 14 and 15 are read by these words, and only for a dropped table: from 16 on every page is read
     * ({@link #workedBetween}).
     */
    private static final Pattern READS_ITS_WORK = Pattern.compile(
            "\\b(explain|reltuples|relpages|relallvisible|relfrozenxid|relminmxid|pg_class|pg_stat\\w*|n_live_tup|n_dead_tup"
                    + "|pg_relation_size|pg_table_size|pg_total_relation_size|pg_indexes_size|pg_database_size|pg_size_\\w*"
                    + "|pg_visibility\\w*|pg_freespace\\w*|pgstat\\w*|get_raw_page|\\w*page_items|page_header|\\w*_metap"
                    + "|ctid|limit|fetch|offset|tablesample|\\w*_agg|over|distinct\\s+on|first_value|last_value|nth_value)\\b",
            Pattern.CASE_INSENSITIVE);

    private AutovacuumActivity() {
    }

    /** Whether any of the page's results could show autovacuum's work: a plan claim, a plan, or the counts it writes. */
    static boolean couldShow(List<Snippet> snippets) {
        return ScriptRunner.claimsPlans(snippets) || snippets.stream().anyMatch(s -> READS_ITS_WORK.matcher(s.sql()).find());
    }

    /**
     * Which of the page's tables autovacuum worked on during the run just ended, described ("vacuumed and analyzed
     * public.t"), or null when it worked on none.
     *
     * @param collector whether the server is PostgreSQL 14, whose statistics collector takes reports asynchronously and
     *                  hands out a stats file up to half a second old: the read then waits that long first
     */
    static String read(PageDatabase database, boolean collector) {
        if (collector) {
            try {
                Thread.sleep(600);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "(Kensho was interrupted before it could read whether autovacuum worked on the page's tables)";
            }
        }
        List<String> worked = new ArrayList<>();
        try (Connection reader = database.openStateReader(); Statement statement = reader.createStatement();
             ResultSet rs = statement.executeQuery(TABLES)) {
            while (rs.next()) {
                String table = rs.getString(1);
                boolean vacuumed = rs.getLong(2) > 0;
                boolean analyzed = rs.getLong(3) > 0;
                if (vacuumed || analyzed) {
                    worked.add((vacuumed && analyzed ? "vacuumed and analyzed " : vacuumed ? "vacuumed " : "analyzed ") + table);
                } else if (rs.getBoolean(4)) {
                    worked.add("was working on " + table + " when Kensho looked");
                } else if (rs.getBoolean(5)) {
                    worked.add("left all-visible pages of " + table + " that no VACUUM reported");
                }
            }
        } catch (SQLException e) {
            return "(Kensho could not read whether autovacuum worked on the page's tables: " + e.getMessage() + ")";
        }
        return worked.isEmpty() ? null : String.join(", ", worked);
    }

    /**
     * What autovacuum's workers have done on the whole server so far, as PostgreSQL 16 and later count it (pg_stat_io: every
     * worker reads the catalogs of the database it visits, so a visit that did nothing counts too), and how many are at work
     * now; null before 16, which does not count it.
     */
    record Workers(String done, long atWork) {
    }

    /**
     * The workers at work first, then what they have done: a worker leaves pg_stat_activity a moment before its counts
     * reach pg_stat_io (its exit runs the one before the other), so in this order both reads would have to fall inside
     * that moment for a worker to be missed; in the other, only one.
     */
    private static final String WORKERS = "SELECT (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity a"
            + " WHERE a.backend_type OPERATOR(pg_catalog.=) 'autovacuum worker'),"
            + " (SELECT pg_catalog.sum(COALESCE(i.reads, 0) OPERATOR(pg_catalog.+) COALESCE(i.hits, 0)"
            + " OPERATOR(pg_catalog.+) COALESCE(i.writes, 0) OPERATOR(pg_catalog.+) COALESCE(i.extends, 0))::pg_catalog.text"
            + " FROM pg_catalog.pg_stat_io i WHERE i.backend_type OPERATOR(pg_catalog.=) 'autovacuum worker')";

    /** Reads {@link Workers} on Kensho's own connection to the server (not the page's database); null before 16 or when it cannot. */
    static Workers workers(Connection admin, int major) {
        if (major < 16) {
            return null;
        }
        synchronized (admin) {
            try (Statement statement = admin.createStatement(); ResultSet rs = statement.executeQuery(WORKERS)) {
                rs.next();
                return new Workers(String.valueOf(rs.getString(2)), rs.getLong(1));
            } catch (SQLException e) {
                return null;
            }
        }
    }

    /**
     * Whether an autovacuum worker may have worked anywhere on the server between {@code before} (read before the page's
     * database was made) and {@code now} (read after its run): one was at work at either time, or what they have done
     * changed. True when it cannot be told (before 16): the page's own tables are then read ({@link #read}). When false,
     * no worker visited the page's database while it ran, so nothing a worker did can show, whatever the page reads or drops.
     */
    static boolean workedBetween(Workers before, Workers now) {
        return before == null || now == null || before.atWork() > 0 || now.atWork() > 0 || !now.done().equals(before.done());
    }

    /** Turns the server's autovacuum off for every table the page makes on {@code database} (a run that is not the evidence). */
    static void turnOff(PageDatabase database, int major) throws SQLException {
        try (Connection superuser = database.openStateReader(); Statement statement = superuser.createStatement()) {
            for (String sql : turnOffStatements(major)) {
                statement.execute(sql);
            }
        }
    }

    /**
     * The real run's outcomes, each that held there and not on the run without autovacuum failed.
     *
     * @param touched      what autovacuum did on the real run ({@link #read})
     * @param without      the outcomes of the run without autovacuum, or null when it could not run
     * @param stillTouched what autovacuum did on that run all the same, or null; when {@code without} is null, why it could
     *                     not run
     */
    static List<Outcome> judged(List<Outcome> real, List<Outcome> without, String touched, String stillTouched) {
        List<Outcome> judged = new ArrayList<>(real);
        for (int i = 0; i < judged.size(); i++) {
            Outcome o = judged.get(i);
            if (o == null || !o.passed()) {
                continue;
            }
            Outcome w = without == null || i >= without.size() ? null : without.get(i);
            String why = without == null ? "Kensho's run of the page without autovacuum could not run " + stillTouched
                    : stillTouched != null ? "on Kensho's run of the page without autovacuum, autovacuum "
                    + stillTouched + " all the same, so Kensho cannot tell what the page's SQL alone shows"
                    : w == null ? "Kensho's run of the page without autovacuum did not reach it"
                    : w.status() == Outcome.Status.SKIPPED ? "on a run of the page without autovacuum it was not reached (an earlier snippet failed there)"
                    : !w.passed() ? "on a run of the page without autovacuum it fails: " + w.failure().message()
                    : null;
            if (why != null) {
                judged.set(i, failed(o, "this snippet held on the build's run, where autovacuum " + touched + " while the page ran;"
                        + " a reader's run in the browser has no autovacuum, and " + why + " (on that run autovacuum's thresholds on"
                        + " the page's tables and catalogs are out of reach). Run VACUUM ANALYZE on the table in a visible snippet"
                        + " right after its data is in"));
            }
        }
        return judged;
    }

    private static Outcome failed(Outcome o, String message) {
        Failure failure = new Failure(message, null, o.snippet().location(), o.snippet().lineAt(0), null, null);
        return new Outcome(o.snippet(), Outcome.Status.FAILED, failure, o.results(), o.assertions(), null, o.transcript(),
                o.duration());
    }
}
