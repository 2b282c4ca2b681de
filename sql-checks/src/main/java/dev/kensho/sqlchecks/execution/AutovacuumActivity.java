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
 * nothing the page does can see it. A claim whose plan read a table autovacuum vacuumed or analyzed during the run fails,
 * whenever that was: the statistics keep counts and last times only, so they cannot say what stood at the claim, and
 * the page's own VACUUM or ANALYZE after autovacuum's need not have replaced its work (red team helper-99: {@code ANALYZE
 * t (a)} left autoanalyze's statistics of {@code b}; {@code BEGIN; ANALYZE t; ROLLBACK} kept them too and still moved
 * {@code last_analyze}). A page avoids it by running VACUUM ANALYZE on its data right after loading it: autovacuum then
 * has nothing to do. A table the claim read that is gone by the end of the run (dropped, or dropped and made again under
 * its name, told by its OID from the statement's parse tree; renamed, told by the plan's name) cannot be cleared, and
 * fails the claim too. Not seen: an autovacuum cancelled before its end (a lock the page asked for stops it), which
 * reports nothing.
 */
final class AutovacuumActivity {

    /**
     * A plan claim's snippet on the client's clock, the tables its plans read (schema-qualified names from the plan) and
     * the OIDs of the relations its statement's trees name.
     */
    /** {@code oids} is null when the statement's trees were not all kept (then which relations it read is not known). */
    record PlanWindow(Instant started, Instant ended, Set<String> relations, Set<Long> oids, PlanVerdict.Pending pending) {
        PlanWindow(Instant started, Instant ended, Set<String> relations, Set<Long> oids) {
            this(started, ended, relations, oids, null);
        }
    }

    /** One table's counts and last times since its database was made (all zero and null on a fresh database). */
    record TableActivity(long autovacuums, long autoanalyzes, Instant lastAutovacuum, Instant lastAutoanalyze, String unreported) {
        TableActivity(long autovacuums, long autoanalyzes, Instant lastAutovacuum, Instant lastAutoanalyze) {
            this(autovacuums, autoanalyzes, lastAutovacuum, lastAutoanalyze, null);
        }
    }

    /** Nothing read: the page claims no plan. */
    static final AutovacuumActivity NONE = new AutovacuumActivity(Map.of(), Map.of(), Set.of(), 0, null);

    /**
     * Every table with its counts; besides the runs that reported, autovacuum's work not reported yet (a run in progress,
     * told by the progress views) or never (a run cancelled before its end leaves all-visible pages no VACUUM reported,
     * which a later ANALYZE or CREATE INDEX copies into relallvisible).
     */
    private static final String TABLES = "SELECT pg_catalog.clock_timestamp(), s.relid::pg_catalog.int8, s.schemaname,"
            + " s.relname, s.autovacuum_count, s.autoanalyze_count, s.last_autovacuum, s.last_autoanalyze,"
            + " CASE WHEN s.relid IN (SELECT p.relid FROM pg_catalog.pg_stat_progress_vacuum p WHERE p.datid OPERATOR(pg_catalog.=)"
            + " (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())"
            + " UNION ALL SELECT a.relid FROM pg_catalog.pg_stat_progress_analyze a WHERE a.datid OPERATOR(pg_catalog.=)"
            + " (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()))"
            + " THEN 'was working on it when Kensho looked'"
            + " WHEN c.relallvisible OPERATOR(pg_catalog.>) 0 AND s.vacuum_count OPERATOR(pg_catalog.=) 0"
            + " AND s.autovacuum_count OPERATOR(pg_catalog.=) 0"
            + " THEN 'left all-visible pages that no VACUUM reported (an autovacuum stopped before its end)' END"
            + " FROM pg_catalog.pg_stat_all_tables s JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid";
    private static final String RELATIONS = "SELECT c.oid::pg_catalog.int8 FROM pg_catalog.pg_class c";

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS 'UTC'").withZone(ZoneOffset.UTC);

    /** Every table of the page's database by schema-qualified name, and by OID. */
    private final Map<String, TableActivity> tables;
    private final Map<Long, String> names;
    /** Every relation's OID at the end of the run (views and sequences too). */
    private final Set<Long> relations;
    /** The server's clock less the client's, in milliseconds. */
    private final long offsetMillis;
    /** Why the statistics could not be read (then every plan claim fails), or null. */
    private final String unreadable;

    private AutovacuumActivity(Map<String, TableActivity> tables, Map<Long, String> names, Set<Long> relations, long offsetMillis,
                               String unreadable) {
        this.tables = tables;
        this.names = names;
        this.relations = relations;
        this.offsetMillis = offsetMillis;
        this.unreadable = unreadable;
    }

    /** Reads the page database's tables and autovacuum activity; call only once the real run has ended. */
    static AutovacuumActivity read(PageDatabase database) {
        return read(database, false);
    }

    /**
     * @param collector whether the server is PostgreSQL 14, whose statistics collector takes reports asynchronously and
     *                  hands out a stats file up to half a second old: the read then waits that long first
     */
    static AutovacuumActivity read(PageDatabase database, boolean collector) {
        if (collector) {
            try {
                Thread.sleep(600);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new AutovacuumActivity(Map.of(), Map.of(), Set.of(), 0, "interrupted");
            }
        }
        try (Connection reader = database.openStateReader(); Statement statement = reader.createStatement()) {
            Map<String, TableActivity> tables = new HashMap<>();
            Map<Long, String> names = new HashMap<>();
            Set<Long> relations = new java.util.HashSet<>();
            long offset = 0;
            long before = System.currentTimeMillis();
            try (ResultSet rs = statement.executeQuery(TABLES)) {
                long after = System.currentTimeMillis();
                while (rs.next()) {
                    offset = instant(rs, 1).toEpochMilli() - (before + after) / 2;
                    String name = rs.getString(3) + "." + rs.getString(4);
                    names.put(rs.getLong(2), name);
                    tables.put(name, new TableActivity(rs.getLong(5), rs.getLong(6), instant(rs, 7), instant(rs, 8), rs.getString(9)));
                }
            }
            try (ResultSet rs = statement.executeQuery(RELATIONS)) {
                while (rs.next()) {
                    relations.add(rs.getLong(1));
                }
            }
            return new AutovacuumActivity(tables, names, relations, offset, null);
        } catch (SQLException e) {
            return new AutovacuumActivity(Map.of(), Map.of(), Set.of(), 0, e.getMessage());
        }
    }

    /** For tests: the tables by name (OIDs 1, 2, … in the map's order), every OID given existing. */
    static AutovacuumActivity of(Map<String, TableActivity> tables, Set<Long> relations) {
        Map<Long, String> names = new HashMap<>();
        long oid = 1;
        for (String name : new java.util.TreeSet<>(tables.keySet())) {
            names.put(oid++, name);
        }
        return new AutovacuumActivity(Map.copyOf(tables), names, relations, 0, null);
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.toInstant();
    }

    /** The outcomes, each passed plan claim whose plan read a table autovacuum worked on (see the class comment) failed. */
    List<Outcome> judged(List<Outcome> outcomes, Map<Integer, PlanWindow> windows) {
        return judged(outcomes, affected(outcomes, windows), Set.of());
    }

    /** The passed plan claims autovacuum may have made true on this run, each with why (see the class comment). */
    Map<Integer, String> affected(List<Outcome> outcomes, Map<Integer, PlanWindow> windows) {
        Map<Integer, String> affected = new java.util.TreeMap<>();
        for (Map.Entry<Integer, PlanWindow> entry : windows.entrySet()) {
            Outcome o = outcomes.get(entry.getKey());
            if (o == null || !o.passed()) {
                continue;
            }
            String why = reason(entry.getValue(), false);
            if (why != null) {
                affected.put(entry.getKey(), why);
            }
        }
        return affected;
    }

    /**
     * The outcomes with each affected claim failed, but those {@code cleared}: held on a replay of the page, up to the
     * claim, on which autovacuum worked on none of the tables its plan read (Verifier asks it, as SecondDraw draws again).
     * {@code notAsked} says, per claim, why its replay could not tell (it is added to the claim's failure).
     */
    static List<Outcome> judged(List<Outcome> outcomes, Map<Integer, String> affected, Set<Integer> cleared, Map<Integer, String> notAsked) {
        List<Outcome> judged = new ArrayList<>(outcomes);
        for (Map.Entry<Integer, String> entry : affected.entrySet()) {
            if (!cleared.contains(entry.getKey())) {
                String replay = notAsked.get(entry.getKey());
                judged.set(entry.getKey(), failed(judged.get(entry.getKey()), "this plan claim cannot be checked: " + entry.getValue()
                        + (replay == null ? "" : " (" + replay + ")")));
            }
        }
        return judged;
    }

    static List<Outcome> judged(List<Outcome> outcomes, Map<Integer, String> affected, Set<Integer> cleared) {
        return judged(outcomes, affected, cleared, Map.of());
    }

    /**
     * Why autovacuum may have made the claim true on this run, or null when it worked on none of the tables it read.
     *
     * @param atClaim whether this was read right after the claim (a replay's): the names are then the tables the claim
     *                read, and a table not there (made in the claim's transaction, not committed) is none autovacuum saw
     */
    String reason(PlanWindow window, boolean atClaim) {
        if (unreadable != null) {
            return "Kensho could not read whether autovacuum worked on the tables it read while the page ran: " + unreadable;
        }
        if (window.oids() == null) {
            return "Kensho could not read which relations the claimed statement read (its parse tree was not kept), so it "
                    + "cannot tell whether autovacuum worked on them while the page ran";
        }
        java.util.LinkedHashSet<String> read = new java.util.LinkedHashSet<>();
        for (long oid : window.oids()) {
            if (names.containsKey(oid)) {
                read.add(names.get(oid));
            } else if (!relations.contains(oid) && !atClaim) {
                return "a relation its statement read (OID " + oid + ") is gone by the end of the page, so Kensho cannot tell "
                        + "whether autovacuum worked on it while the page ran (a reader's run in the browser has no autovacuum)";
            }
        }
        for (String planned : window.relations()) {
            if (planned.startsWith("pg_temp.") || planned.startsWith("pg_temp_")) {
                continue; // autovacuum never works on a session's temporary tables
            }
            String found = nameOf(planned);
            if (found == null) {
                if (atClaim) {
                    continue;
                }
                return "the plan reads " + planned + ", which is not a table of the page's database by the end of the page "
                        + "(renamed or dropped), so Kensho cannot tell whether autovacuum worked on it while the page ran (a "
                        + "reader's run in the browser has no autovacuum)";
            }
            if (!atClaim && !names.entrySet().stream().anyMatch(e -> e.getValue().equals(found) && window.oids().contains(e.getKey()))) {
                // Read through a view or a function: by the end of the page the name may be another table's (renamed, or
                // dropped and made again); only a read right after the claim tells.
                return "the plan reads " + found + " through a view or a function, and by the end of the page the name may stand "
                        + "for another table, so Kensho cannot tell from it whether autovacuum worked on the table the claim read";
            }
            read.add(found);
        }
        for (String relation : read) {
            TableActivity a = tables.get(relation);
            if (a == null || a.autovacuums() == 0 && a.autoanalyzes() == 0 && a.unreported() == null) {
                continue;
            }
            if (a.autovacuums() == 0 && a.autoanalyzes() == 0) {
                return "autovacuum " + a.unreported() + " (" + relation + "); a reader's run in the browser has no autovacuum, so "
                        + "the plan may differ";
            }
            String did = a.autovacuums() > 0 && a.autoanalyzes() > 0 ? "vacuumed and analyzed" : a.autovacuums() > 0 ? "vacuumed" : "analyzed";
            Instant last = a.autovacuums() > 0 ? a.lastAutovacuum() : a.lastAutoanalyze();
            return "autovacuum " + did + " " + relation + " while the page ran (last at " + (last == null ? "an unknown time" : TIME.format(last))
                    + "; the claimed statement ran " + TIME.format(window.started().plusMillis(offsetMillis)) + " to "
                    + TIME.format(window.ended().plusMillis(offsetMillis)) + "). Its VACUUM sets the visibility map and the table's page and row counts, its ANALYZE the statistics the "
                    + "planner estimates with; a reader's run in the browser has no autovacuum, and another build gets it at "
                    + "another moment, so the plan may differ. Run VACUUM ANALYZE " + relation + " in a visible snippet right "
                    + "after its data is in, and keep the page's run short before the claim";
        }
        return null;
    }

    /** A plan's relation (schema-qualified where the plan says the schema, as it does under VERBOSE) among the tables. */
    private String nameOf(String planned) {
        if (tables.containsKey(planned)) {
            return planned;
        }
        if (planned.contains(".")) {
            return null;
        }
        return tables.keySet().stream().filter(k -> k.endsWith("." + planned)).findFirst().orElse(null);
    }

    private static Outcome failed(Outcome o, String message) {
        Failure failure = new Failure(message, null, o.snippet().location(), o.snippet().lineAt(0), null, null);
        return new Outcome(o.snippet(), Outcome.Status.FAILED, failure, o.results(), o.assertions(), null, o.transcript(),
                o.duration());
    }
}
