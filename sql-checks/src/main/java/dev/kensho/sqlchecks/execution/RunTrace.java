package dev.kensho.sqlchecks.execution;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    static final long FIRST_NORMAL_OID = 16384;
    /** Constants of the OID types: their value is an object's OID, printed as the datum's bytes. */
    static final Pattern OID_CONSTANT = Pattern.compile(
            "(:consttype (?:24|26|2202|2203|2204|2205|2206|3734|3769|4089|4096|4191) [^{}]*?:constvalue )\\d+ \\[[^\\]]*\\]");
    /**
     * The node fields that hold an object's OID (a relation, type, function, operator, collation, role, constraint,
     * sequence) or a query's identifier, as the server's node output names them: only their numbers differ between runs
     * of the same statements. Every other number (a LIMIT, a typmod, a constant in a raw statement) is the statement's own.
     */
    static final String OID_FIELDS = "relid|checkAsUser|resorigtbl|tsmhandler|vartype|varcollid|consttype|constcollid"
            + "|paramtype|paramcollid|aggfnoid|aggtype|aggcollid|aggtranstype|winfnoid|wintype|wincollid|inputcollid"
            + "|refcontainertype|refelemtype|refrestype|refcollid|funcid|funcresulttype|funccollid|opno|opfuncid|opresulttype"
            + "|opcollid|hashfuncid|negfuncid|firstColType|firstColCollation|resulttype|resultcollid|collOid|casetype|casecollid"
            + "|typeId|typeid|typid|typeOid|collation|array_typeid|array_collid|element_typeid|row_typeid|coalescetype"
            + "|coalescecollid|minmaxtype|minmaxcollid|type|seqid|infercollid|inferopclass|eqop|sortop|startInRangeFunc"
            + "|endInRangeFunc|inRangeColl|constraint|queryId|relationOid|objid|classid|ownerId|roleid";
    private static final Set<String> OID_FIELD_NAMES = Set.of(OID_FIELDS.split("\\|"));
    /** A list of OIDs ({@code (o 23 16390)}: funccoltypes, colTypes, aggargtypes, opnos and the like). */
    static final Pattern OID_LIST = Pattern.compile("\\(o((?: \\d+)*)\\)");
    /** Lists of OIDs that older servers print as plain integer lists. */
    static final Set<String> OID_LIST_FIELD_NAMES = Set.of("coltypes", "colcollations", "funccoltypes", "funccolcollations",
            "colTypes", "colCollations", "ctecoltypes", "ctecolcollations", "aggargtypes", "opnos", "opfamilies", "inputcollids");
    private static final Pattern NUMBER = Pattern.compile("\\d+");

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
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(steady(tree).getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** The tree as digested: blanks as one space, the page's OIDs as {@code #}. */
    static String steady(String tree) {
        // The server's log formatter breaks long trees into lines at any blank, a field's name and value apart too.
        String steady = OID_CONSTANT.matcher(oneBlank(tree)).replaceAll("$1#");
        steady = maskedFields(steady);
        return OID_LIST.matcher(steady).replaceAll(m -> Matcher.quoteReplacement("(o" + maskedAll(m.group(1)) + ")"));
    }

    /**
     * {@code text} with the numbers of its OID fields ({@code :relid 16390}, as {@code (:(?:OID_FIELDS) )(\d+)(?![\w.])} would
     * match them) and of its OID lists in older servers' integer form ({@code :colTypes (23 16390)}, as
     * {@code (:(?:OID_LIST_FIELD_NAMES) \()([^()]*)(\))} would) masked. One pass from colon to colon: those two alternations,
     * tried at every colon of a 25 KB tree, were most of a run's digest time. A field's name is letters and underscores
     * and is followed by a blank, so a name is the whole run of them.
     */
    private static String maskedFields(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        int n = text.length();
        int colon = text.indexOf(':');
        while (colon >= 0) {
            int nameEnd = colon + 1;
            while (nameEnd < n && isNameChar(text.charAt(nameEnd))) {
                nameEnd++;
            }
            int value = nameEnd + 1;
            int next = colon + 1;
            if (nameEnd > colon + 1 && value < n && text.charAt(nameEnd) == ' ') {
                String name = text.substring(colon + 1, nameEnd);
                if (OID_FIELD_NAMES.contains(name)) {
                    int end = value;
                    while (end < n && isDigit(text.charAt(end))) {
                        end++;
                    }
                    if (end > value && (end == n || !isWordChar(text.charAt(end)) && text.charAt(end) != '.')) {
                        out.append(text, copied, value).append(masked(text.substring(value, end)));
                        copied = next = end;
                    }
                } else if (OID_LIST_FIELD_NAMES.contains(name) && text.charAt(value) == '(') {
                    int end = value + 1;
                    while (end < n && text.charAt(end) != '(' && text.charAt(end) != ')') {
                        end++;
                    }
                    if (end < n && text.charAt(end) == ')') {
                        out.append(text, copied, value + 1).append(maskedAll(text.substring(value + 1, end)));
                        copied = next = end;
                    }
                }
            }
            colon = text.indexOf(':', next);
        }
        return copied == 0 ? text : out.append(text, copied, n).toString();
    }

    private static boolean isNameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** {@code \w}: an ASCII letter, digit or underscore. */
    private static boolean isWordChar(char c) {
        return isNameChar(c) || isDigit(c);
    }

    /** {@code text} with every run of blanks ({@code \s+}: space, tab, line feed, vertical tab, form feed, carriage return) as one space. */
    private static String oneBlank(String text) {
        StringBuilder out = null;
        int copied = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isBlank(c) || c == ' ' && (i + 1 == text.length() || !isBlank(text.charAt(i + 1)))) {
                continue; // not a blank, or a lone space: kept as it is
            }
            int end = i;
            while (end < text.length() && isBlank(text.charAt(end))) {
                end++;
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, copied, i).append(' ');
            copied = end;
            i = end - 1;
        }
        return out == null ? text : out.append(text, copied, text.length()).toString();
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }
}
