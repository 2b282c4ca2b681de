package dev.kensho.sqlchecks.execution;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
 * <p>Trees are compared as multisets per snippet (a scenario's sessions report theirs in the order the server wakes
 * them), with what differs between two runs of the same statements by construction left out: object identifiers of the
 * page's own objects (a fresh database's OIDs are new on every run), in the trees' fields and in constants of the OID
 * types (a {@code 'docs'::regclass}), and a query's identifier, a hash of them.
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
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])-?\\d{5,}(?![\\w.])");

    private final Map<Integer, List<String>> bySnippet = new HashMap<>();

    /** Adds what the server reported for {@code captures}, statements of the snippet at {@code snippet} (its index). */
    void record(int snippet, List<ParseCapture> captures) {
        List<String> trees = bySnippet.computeIfAbsent(snippet, s -> new ArrayList<>());
        for (ParseCapture capture : captures) {
            trees.addAll(capture.digests());
        }
    }

    /** The digests of the trees reported in the snippet at {@code snippet}, sorted; empty when none were. */
    List<String> of(int snippet) {
        List<String> trees = new ArrayList<>(bySnippet.getOrDefault(snippet, List.of()));
        trees.sort(null);
        return trees;
    }

    /** A tree's digest, with what differs between runs of the same statements left out (see the class comment). */
    static String digest(String tree) {
        String steady = OID_CONSTANT.matcher(tree).replaceAll("$1#");
        steady = NUMBER.matcher(steady).replaceAll(m -> {
            String digits = m.group().startsWith("-") ? m.group().substring(1) : m.group();
            return digits.length() > 18 || Long.parseLong(digits) >= FIRST_NORMAL_OID ? "#" : m.group();
        });
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(steady.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
