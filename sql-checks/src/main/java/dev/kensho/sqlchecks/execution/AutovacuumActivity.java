package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What autovacuum did to the tables a plan claim's plan read while the real run ran, and the claims it may have made
 * true. A reader's run in the browser (PGlite) has no autovacuum, and a build's run on another day may get it at another
 * moment, so a plan that held because autovacuum had just run is not the reader's SQL's doing: its VACUUM sets the
 * visibility map and {@code relallvisible} (index-only scans cost less, and read fewer heap pages), writes {@code
 * relpages} and {@code reltuples}; its ANALYZE writes the statistics every estimate rests on. A table that took more than
 * a thousand inserts is vacuumed within a minute of it (the insert threshold, since PostgreSQL 13), during a page's run.
 *
 * <p>Read once the real run has ended, from the server's cumulative statistics of the page's database (a superuser
 * connection that counts nothing, {@link PageDatabase#openStateReader()}): no statement of the page runs after it, so
 * nothing the page does can see it. What the statistics keep is each table's counts and last times; a claim is clear of
 * autovacuum when no autovacuum ran on the tables its plan read, or when the page's own VACUUM (for autovacuum's
 * vacuums) and ANALYZE (for its analyzes) of the table came after the last of them and before the claim: what the page
 * ran itself then decides, as it does in the reader's run. Not seen: an autovacuum cancelled before its end (a lock the
 * page asked for stops it), which reports nothing; the page's own VACUUM after it redoes its work.
 */
final class AutovacuumActivity {

    /** A plan claim's snippet on the client's clock, and the tables its plans read (schema-qualified). */
    record PlanWindow(Instant started, Instant ended, Set<String> relations) {
    }

    /** One table's counts and last times since its database was made (all zero and null on a fresh database). */
    record TableActivity(long autovacuums, long autoanalyzes, Instant lastAutovacuum, Instant lastAutoanalyze,
                         Instant lastVacuum, Instant lastAnalyze) {
    }

    /** Nothing read: the page claims no plan. */
    static final AutovacuumActivity NONE = new AutovacuumActivity(Map.of(), 0, 0, null);

    private static final String QUERY = "SELECT pg_catalog.clock_timestamp(), schemaname, relname, autovacuum_count,"
            + " autoanalyze_count, last_autovacuum, last_autoanalyze, last_vacuum, last_analyze"
            + " FROM pg_catalog.pg_stat_all_tables"
            + " WHERE autovacuum_count OPERATOR(pg_catalog.>) 0 OR autoanalyze_count OPERATOR(pg_catalog.>) 0";

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS 'UTC'").withZone(ZoneOffset.UTC);

    private final Map<String, TableActivity> tables;
    /** The server's clock less the client's, in milliseconds, and how far that may be off either way. */
    private final long offsetMillis;
    private final long uncertaintyMillis;
    /** Why the statistics could not be read (then every plan claim fails), or null. */
    private final String unreadable;

    private AutovacuumActivity(Map<String, TableActivity> tables, long offsetMillis, long uncertaintyMillis, String unreadable) {
        this.tables = tables;
        this.offsetMillis = offsetMillis;
        this.uncertaintyMillis = uncertaintyMillis;
        this.unreadable = unreadable;
    }

    /** Reads the page database's autovacuum activity; call only once the real run has ended. */
    static AutovacuumActivity read(PageDatabase database) {
        try (Connection reader = database.openStateReader(); Statement statement = reader.createStatement()) {
            statement.execute("SET statement_timeout = 0");
            long before = System.currentTimeMillis();
            try (ResultSet rs = statement.executeQuery(QUERY)) {
                long after = System.currentTimeMillis();
                Map<String, TableActivity> tables = new HashMap<>();
                Instant server = null;
                while (rs.next()) {
                    server = instant(rs, 1);
                    tables.put(rs.getString(2) + "." + rs.getString(3), new TableActivity(rs.getLong(4), rs.getLong(5),
                            instant(rs, 6), instant(rs, 7), instant(rs, 8), instant(rs, 9)));
                }
                // No row: no autovacuum ran, and no clock is needed.
                long offset = server == null ? 0 : server.toEpochMilli() - (before + after) / 2;
                return new AutovacuumActivity(tables, offset, (after - before) / 2 + 2, null);
            }
        } catch (SQLException e) {
            return new AutovacuumActivity(Map.of(), 0, 0, e.getMessage());
        }
    }

    static AutovacuumActivity of(Map<String, TableActivity> tables, long offsetMillis, long uncertaintyMillis) {
        return new AutovacuumActivity(Map.copyOf(tables), offsetMillis, uncertaintyMillis, null);
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }

    /** The outcomes, each passed plan claim whose plan read a table autovacuum worked on (see the class comment) failed. */
    List<Outcome> judged(List<Outcome> outcomes, Map<Integer, PlanWindow> windows) {
        List<Outcome> judged = new ArrayList<>(outcomes);
        for (Map.Entry<Integer, PlanWindow> entry : windows.entrySet()) {
            Outcome o = judged.get(entry.getKey());
            if (o == null || !o.passed()) {
                continue;
            }
            String why = unreadable != null
                    ? "Kensho could not read whether autovacuum worked on the tables it read while the page ran: " + unreadable
                    : reason(entry.getValue());
            if (why != null) {
                judged.set(entry.getKey(), failed(o, "this plan claim cannot be checked: " + why));
            }
        }
        return judged;
    }

    private String reason(PlanWindow window) {
        for (String planned : window.relations()) {
            Map.Entry<String, TableActivity> found = activityOf(planned);
            if (found == null) {
                continue;
            }
            String relation = found.getKey();
            TableActivity a = found.getValue();
            String vacuum = unsettled(a.autovacuums(), a.lastAutovacuum(), a.lastVacuum(), window) ? "vacuumed" : null;
            String analyze = unsettled(a.autoanalyzes(), a.lastAutoanalyze(), a.lastAnalyze(), window) ? "analyzed" : null;
            if (vacuum == null && analyze == null) {
                continue;
            }
            String did = vacuum != null && analyze != null ? "vacuumed and analyzed" : vacuum != null ? vacuum : analyze;
            Instant last = vacuum != null ? a.lastAutovacuum() : a.lastAutoanalyze();
            return "autovacuum " + did + " " + relation + " while the page ran (last at " + TIME.format(last)
                    + ", the claimed statement ran " + TIME.format(window.started().plusMillis(offsetMillis)) + " to "
                    + TIME.format(window.ended().plusMillis(offsetMillis)) + "), which the page's own VACUUM and ANALYZE did "
                    + "not redo before the claim. Its VACUUM sets the visibility map and the table's page and row counts, its "
                    + "ANALYZE the statistics the planner estimates with; a reader's run in the browser has no autovacuum, and "
                    + "another build gets it at another moment, so the plan may differ. Run VACUUM ANALYZE " + relation
                    + " in a visible snippet after the data is in and before the claim";
        }
        return null;
    }

    /** A plan's relation (schema-qualified where the plan says the schema, as it does under VERBOSE) among the tables read. */
    private Map.Entry<String, TableActivity> activityOf(String planned) {
        TableActivity exact = tables.get(planned);
        if (exact != null) {
            return Map.entry(planned, exact);
        }
        if (planned.contains(".")) {
            return null;
        }
        return tables.entrySet().stream().filter(e -> e.getKey().endsWith("." + planned)).findFirst().orElse(null);
    }

    /**
     * Whether autovacuum's work of one kind may still stand when the claim ran: it ran at all, and the page's own run of
     * that kind did not come after the last of it and before the claim (the statistics keep last times only).
     */
    private boolean unsettled(long autoCount, Instant lastAuto, Instant lastOwn, PlanWindow window) {
        if (autoCount == 0) {
            return false;
        }
        if (lastAuto == null || lastOwn == null || !lastAuto.isBefore(lastOwn)) {
            return true;
        }
        Instant ownOnClientClock = lastOwn.minusMillis(offsetMillis);
        return !ownOnClientClock.plusMillis(uncertaintyMillis).isBefore(window.started());
    }

    private static Outcome failed(Outcome o, String message) {
        Failure failure = new Failure(message, null, o.snippet().location(), o.snippet().lineAt(0), null, null);
        return new Outcome(o.snippet(), Outcome.Status.FAILED, failure, o.results(), o.assertions(), null, o.transcript(),
                o.duration());
    }
}
