package dev.kensho.sqlchecks.execution;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every statement the server parsed in each snippet of one run, functions' and dynamic SQL's included, as the server itself
 * reported them on the page's session (its parse trees, which a run receives anyway: {@link ParseCapture}), one digest per
 * tree. It is the real run's own evidence of what its statements did to the catalog, read without asking anything.
 *
 * <p>Why: a replay's answer about the catalog ({@link CaptureRun#answered}) is used when the replay reached the question as
 * the real run did, and "every snippet ended alike" does not prove that. A page can make its DDL depend on something that
 * differs from run to run while every statement still ends alike: {@code DO $$ BEGIN IF clock_timestamp() < … THEN
 * CREATE INDEX … END IF; END $$} (or random(), a backend's number, an OID, a shared counter). The run that took the branch
 * reports the CREATE INDEX's tree (and the trees of the statements it ran to build the name), the other does not; dynamic
 * SQL built from such a value reports other names. So two runs whose snippets parsed the same statements ran the same DDL.
 *
 * <p>Trees are compared per snippet regardless of order (a scenario's sessions report theirs in the order the server wakes
 * them), dynamic SQL's counted and every other tree as present or absent ({@link #parsedOnce}), with what differs between two runs of the same statements by construction left out: object identifiers of the
 * page's own objects (a fresh database's OIDs are new on every run), in the trees' OID fields and lists and in constants
 * of the OID types (a {@code 'docs'::regclass}), and a query's identifier, a hash of them. Numbers in other fields are the
 * statement's own ({@code LIMIT 20000} in a raw statement, {@code varchar(20000)}'s typmod) and tell statements apart.
 *
 * <p>What it cannot see: a statement that ran on both runs and did otherwise on one, inside a function (an UPDATE whose
 * WHERE reads the clock stores a value out of line on one run only; a CREATE INDEX rolled back by an exception block on
 * one run only). Those are left open: see {@link CaptureRun}.
 */
final class RunTrace {

    /** OIDs below this are the server's own (FirstNormalObjectId): the same on every run. */
    private static final long FIRST_NORMAL_OID = 16384;
    /** Constants of the OID types: their value is an object's OID, printed as the datum's bytes. */
    private static final Pattern OID_CONSTANT = Pattern.compile(
            "(:consttype (?:24|26|2202|2203|2204|2205|2206|3734|3769|4089|4096|4191) [^{}]*?:constvalue )\\d+ \\[[^\\]]*\\]");
    /**
     * The node fields that hold an object's OID (a relation, type, function, operator, collation, role, constraint,
     * sequence) or a query's identifier, as the server's node output names them: only their numbers differ between runs
     * of the same statements. Every other number (a LIMIT, a typmod, a constant in a raw statement) is the statement's own.
     */
    private static final String OID_FIELDS = "relid|checkAsUser|resorigtbl|tsmhandler|vartype|varcollid|consttype|constcollid"
            + "|paramtype|paramcollid|aggfnoid|aggtype|aggcollid|aggtranstype|winfnoid|wintype|wincollid|inputcollid"
            + "|refcontainertype|refelemtype|refrestype|refcollid|funcid|funcresulttype|funccollid|opno|opfuncid|opresulttype"
            + "|opcollid|hashfuncid|negfuncid|firstColType|firstColCollation|resulttype|resultcollid|collOid|casetype|casecollid"
            + "|typeId|typeid|typid|typeOid|collation|array_typeid|array_collid|element_typeid|row_typeid|coalescetype"
            + "|coalescecollid|minmaxtype|minmaxcollid|type|seqid|infercollid|inferopclass|eqop|sortop|startInRangeFunc"
            + "|endInRangeFunc|inRangeColl|constraint|queryId|relationOid|objid|classid|ownerId|roleid";
    private static final Pattern OID_FIELD = Pattern.compile("(:(?:" + OID_FIELDS + ") )(\\d+)(?![\\w.])");
    /** A list of OIDs ({@code (o 23 16390)}: funccoltypes, colTypes, aggargtypes, opnos and the like). */
    private static final Pattern OID_LIST = Pattern.compile("\\(o((?: \\d+)*)\\)");
    /** Lists of OIDs that older servers print as plain integer lists. */
    private static final Pattern OID_LIST_FIELD = Pattern.compile(
            "(:(?:coltypes|colcollations|funccoltypes|funccolcollations|colTypes|colCollations|ctecoltypes|ctecolcollations"
                    + "|aggargtypes|opnos|opfamilies|inputcollids) \\()([^()]*)(\\))");
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern BLANKS = Pattern.compile("\\s+");

    private final Map<Integer, List<String>> bySnippet = new HashMap<>();

    /** Adds what the server reported for {@code captures}, statements of the snippet at {@code snippet} (its index). */
    void record(int snippet, List<ParseCapture> captures) {
        for (ParseCapture capture : captures) {
            recordDigests(snippet, capture.digests());
        }
    }

    /**
     * Adds trees' digests ({@link ParseCapture#digests}, each with its {@link #parsedOnce} prefix) to a snippet's. A cached
     * statement's tree counts where the run first parsed it: parsed again in a later snippet (its plan invalidated), it is
     * left out, since only one of two runs of the same page may see that invalidation there.
     */
    void recordDigests(int snippet, List<String> digests) {
        List<String> trees = bySnippet.computeIfAbsent(snippet, s -> new ArrayList<>());
        for (String digest : digests) {
            if (!digest.startsWith(ONCE) || firstParsedIn.putIfAbsent(digest, snippet) == null
                    || firstParsedIn.get(digest) == snippet) {
                trees.add(digest);
            }
        }
    }

    /**
     * The session's cached plans were discarded (Kensho's DISCARD PLANS after a hidden snippet, or the page's own DISCARD):
     * every cached statement is parsed again where it next runs, at the same point on every run, so that parse counts again
     * (red team helper-86: a function's static INSERT run again, after the discard, only when random() said so).
     */
    void plansDiscarded() {
        firstParsedIn.clear();
    }

    /** Each cached statement's tree, and the snippet that first parsed it. */
    private final Map<String, Integer> firstParsedIn = new HashMap<>();

    /** The digests of the trees reported in the snippet at {@code snippet}, sorted; empty when none were. */
    List<String> of(int snippet) {
        List<String> trees = new ArrayList<>(new java.util.LinkedHashSet<>(bySnippet.getOrDefault(snippet, List.of()).stream()
                .filter(digest -> digest.startsWith(ONCE)).toList()));
        bySnippet.getOrDefault(snippet, List.of()).stream().filter(digest -> !digest.startsWith(ONCE)).forEach(trees::add);
        trees.sort(null);
        return trees;
    }

    /** Marks a digest compared as present or absent, not counted ({@link #parsedOnce}). */
    private static final String ONCE = "once:";
    private static final Pattern PLPGSQL_LINE = Pattern.compile("(?m)^PL/pgSQL function .*$");
    /** The PL/pgSQL context of a dynamic statement: each EXECUTE parses its string once, every time it runs. */
    private static final Pattern DYNAMIC = Pattern.compile("(?m)^PL/pgSQL function .* at (?:EXECUTE|FOR over EXECUTE statement|OPEN|RETURN QUERY)$");

    /**
     * The prefix of the digest of a tree reported in the context {@code where} (null: the statement's own). How often the
     * server parses a function's static statement, an inlined SQL function or a prepared statement is not the page's doing
     * alone: a cached plan is parsed again when an invalidation reaches it (autovacuum's ANALYZE, at a moment no page
     * controls), so two runs of the same statements may report it once and twice. Those are compared as present or absent.
     * Dynamic SQL is parsed exactly once per EXECUTE: its trees are counted, so that a branch running one EXECUTE once more
     * on one run is seen. The innermost PL/pgSQL line of the context says which.
     */
    static String parsedOnce(String where) {
        if (where == null) {
            return ONCE;
        }
        Matcher plpgsql = PLPGSQL_LINE.matcher(where);
        return plpgsql.find() && DYNAMIC.matcher(plpgsql.group()).matches() ? "" : ONCE;
    }

    /** An OID of the page's (at or above the first normal OID) as {@code #}; the server's own stay. */
    private static String masked(String digits) {
        return digits.length() > 18 || Long.parseLong(digits) >= FIRST_NORMAL_OID ? "#" : digits;
    }

    private static String maskedAll(String numbers) {
        return NUMBER.matcher(numbers).replaceAll(m -> masked(m.group()));
    }

    /** A tree's digest, with what differs between runs of the same statements left out (see the class comment). */
    static String digest(String tree) {
        // The server's log formatter breaks long trees into lines at any blank, a field's name and value apart too.
        String steady = OID_CONSTANT.matcher(BLANKS.matcher(tree).replaceAll(" ")).replaceAll("$1#");
        steady = OID_FIELD.matcher(steady).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + masked(m.group(2))));
        steady = OID_LIST.matcher(steady).replaceAll(m -> Matcher.quoteReplacement("(o" + maskedAll(m.group(1)) + ")"));
        steady = OID_LIST_FIELD.matcher(steady).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + maskedAll(m.group(2)) + m.group(3)));
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(steady.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
