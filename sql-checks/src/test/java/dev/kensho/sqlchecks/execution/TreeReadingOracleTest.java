package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.RunningPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every statement's trees pass through {@link RunTrace#steady} and {@link ParseReports#treeNames}, which read them without
 * the regular expressions that once did it (a 67-way alternation tried at every colon, a case-insensitive one at every
 * character: most of the verifier's own CPU). Those expressions stay here as the oracle: on the server's own trees and on
 * generated text built from the trees' pieces, the fast readings must give exactly what they gave.
 */
class TreeReadingOracleTest {

    // The expressions as they were; the lists they alternate over are RunTrace's and ParseReports' own (one list each).
    private static final Pattern OID_FIELD = Pattern.compile("(:(?:" + RunTrace.OID_FIELDS + ") )(\\d+)(?![\\w.])");
    private static final Pattern OID_LIST_FIELD = Pattern.compile(
            "(:(?:" + String.join("|", RunTrace.OID_LIST_FIELD_NAMES) + ") \\()([^()]*)(\\))");
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    private static final Pattern TREE_NAMES = Pattern.compile(
            "(?i)" + String.join("|", ParseReports.SETTINGS) + "|:funcid\\s+2078\\s");

    /** Statements whose trees hold OIDs of the page's and the server's, lists of them, constants of OID types, the settings. */
    private static final List<String> STATEMENTS = List.of(
            "CREATE TABLE docs (id bigserial PRIMARY KEY, title varchar(200) NOT NULL, tags text[], body jsonb, at timestamptz DEFAULT now())",
            "CREATE TYPE mood AS ENUM ('ok', 'sad')",
            "CREATE TABLE \"Odd Name\" (\"x y\" int, m mood, r int4range)",
            "CREATE VIEW recent AS SELECT id, title FROM docs WHERE at > now() - interval '1 day'",
            "CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql IMMUTABLE RETURN $1 * 2",
            "INSERT INTO docs (title, tags, body) VALUES ('a', ARRAY['x','y'], '{\"k\": [1, 2.5]}'), ('b', NULL, NULL) RETURNING id",
            "SELECT d.id, twice(d.id::int), count(*) OVER (PARTITION BY d.title ORDER BY d.id) FROM docs d LEFT JOIN recent r USING (id) "
                    + "WHERE d.title = ANY (ARRAY['a', 'B']) AND d.body ? 'k' ORDER BY 1 DESC NULLS LAST LIMIT 20000 OFFSET 3",
            "SELECT 'docs'::regclass, 'docs'::regclass::oid, 'int4'::regtype, 'twice'::regproc, 'now()'::text, 1.5::numeric(10,2)",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT sum(i), array_agg(i ORDER BY i) FROM n",
            "SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a','b'])) AS t(a, b)",
            "SELECT set_config('work_mem', '8MB', true), current_setting('client_min_messages')",
            "SET LOCAL debug_print_rewritten = on",
            "SELECT CASE WHEN random() < 0.5 THEN 'x' ELSE NULL END, COALESCE(NULL, 1), GREATEST(1, 2), NULLIF(1, 1), 1 BETWEEN 0 AND 2",
            "SELECT x FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y) WHERE (x, y) IN (SELECT 1, 'a') FOR UPDATE",
            "UPDATE docs SET title = upper(title) || E'\\n\\t(x)' WHERE id IN (SELECT id FROM docs WHERE tags && ARRAY['x']) RETURNING *",
            "INSERT INTO docs (id, title) VALUES (1, 'dup') ON CONFLICT (id) DO UPDATE SET title = excluded.title",
            "DELETE FROM \"Odd Name\" WHERE m = 'ok' AND r @> 3",
            "EXPLAIN SELECT * FROM docs WHERE id = 42",
            "PREPARE p(int) AS SELECT $1::bigint + id FROM docs",
            "SELECT xmin, xmax, ctid, tableoid::regclass FROM docs",
            "SELECT 1 AS \":FUNCID\r2078\r\", E':FuncId\\f2078\\f' AS b",
            "SELECT jsonb_path_query(body, '$.k[*] ? (@ > 1)') FROM docs",
            "SELECT format('%I.%I', 'a b', 'c'), 'a\\\\b'::bytea, U&'\\0041', $q$ :relid 16400 $q$, '{\"(o 1 2)\"}'::text");

    private static RunningPostgres server;
    private static final List<String> trees = new ArrayList<>();

    @BeforeAll
    static void collectTrees() throws Exception {
        server = new EmbeddedPostgres().start();
        try (Connection connection = DriverManager.getConnection(server.jdbcUrl(), server.adminCredentials());
             Statement statement = connection.createStatement()) {
            statement.execute("SET client_min_messages = log; SET debug_print_parse = on; SET debug_print_rewritten = on; "
                    + "SET debug_pretty_print = off");
            connection.setAutoCommit(false);
            for (String sql : STATEMENTS) {
                int before = trees.size();
                statement.clearWarnings();
                try {
                    statement.execute(sql);
                } catch (SQLException e) {
                    throw new AssertionError(sql + ": " + e.getMessage(), e);
                }
                for (SQLWarning w = statement.getWarnings(); w != null; w = w.getNextWarning()) {
                    if (w instanceof org.postgresql.util.PSQLWarning p && p.getServerErrorMessage().getDetail() != null) {
                        trees.add(p.getServerErrorMessage().getDetail());
                    }
                }
                assertTrue(trees.size() > before, "the server reported no tree of " + sql);
            }
            connection.rollback();
        }
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    private static String oracleSteady(String tree) {
        String steady = RunTrace.OID_CONSTANT.matcher(BLANKS.matcher(tree).replaceAll(" ")).replaceAll("$1#");
        steady = OID_FIELD.matcher(steady).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + masked(m.group(2))));
        steady = RunTrace.OID_LIST.matcher(steady).replaceAll(m -> Matcher.quoteReplacement("(o" + maskedAll(m.group(1)) + ")"));
        return OID_LIST_FIELD.matcher(steady).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + maskedAll(m.group(2)) + m.group(3)));
    }

    private static String masked(String digits) {
        return digits.length() > 18 || Long.parseLong(digits) >= RunTrace.FIRST_NORMAL_OID ? "#" : digits;
    }

    private static String maskedAll(String numbers) {
        return NUMBER.matcher(numbers).replaceAll(m -> masked(m.group()));
    }

    @Test
    void theServersTreesReadAsTheOracleReadsThem() {
        int masked = 0;
        int named = 0;
        for (String tree : trees) {
            String steady = RunTrace.steady(tree);
            assertEquals(oracleSteady(tree), steady, tree);
            assertEquals(TREE_NAMES.matcher(tree).find(), ParseReports.treeNames(tree), tree);
            masked += steady.equals(BLANKS.matcher(tree).replaceAll(" ")) ? 0 : 1;
            named += ParseReports.treeNames(tree) ? 1 : 0;
        }
        // The comparison is not of two readings that leave everything alone: the page's OIDs were masked, settings seen.
        assertTrue(masked >= 10, "trees with an OID of the page's masked: " + masked);
        assertTrue(named >= 2, "trees naming a setting that delivers the reports: " + named);
    }

    /** Text made of the trees' pieces, blanks of every kind, case changes and non-ASCII letters, in any order. */
    @Test
    void generatedTreesReadAsTheOracleReadsThem() {
        String[] pieces = {":relid ", ":relid\n", ":array_typeid ", ":type ", ":typeid ", ":xtype ", ":funcid ", ":FUNCID ", ":FuncId\r", ":location ",
                ":coltypes (", ":colTypes (", ":opnos (", ":colnames (", "(o", "(o ", " 16384", " 16383", "23", "2078", "99999999999999999999",
                " ", "  ", "\n", "\t", "\r\n", "\u000B", "\f", ".", "5", ")", "(", "{", "}", "[", "]", "_", "a", "Z", "\\ ",
                ":consttype 26 ", ":consttype 23 ", ":constvalue 4 [ 16 64 0 0 ]", ":constvalue ", "[ 1 2 ]",
                "client_min_messages", "CLIENT_MIN_MESSAGES", "Debug_Print_Parse", "debug_print_rewritten", "SET_CONFIG",
                "set_confiG", "cl\u0130ent_min_messages", "debug_pr\u0130nt_parse", "\u212A", "debug_print", "_parse", "\u3042", "ſet_config"};
        Random random = new Random(20261204);
        int masked = 0;
        int named = 0;
        for (int n = 0; n < 40_000; n++) {
            StringBuilder text = new StringBuilder();
            int length = 1 + random.nextInt(30);
            for (int i = 0; i < length; i++) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String tree = text.toString();
            String steady = RunTrace.steady(tree);
            assertEquals(oracleSteady(tree), steady, tree);
            assertEquals(TREE_NAMES.matcher(tree).find(), ParseReports.treeNames(tree), tree);
            masked += steady.equals(BLANKS.matcher(tree).replaceAll(" ")) ? 0 : 1;
            named += ParseReports.treeNames(tree) ? 1 : 0;
        }
        // Neither reading is trivially alike on these texts: numbers were masked, and names both found and not found.
        assertTrue(masked > 1_000, "texts with a number masked: " + masked);
        assertTrue(named > 1_000 && named < 39_000, "texts naming a setting: " + named);
    }
}
