package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.RowOrder;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.script.PsqlFormat;
import dev.kensho.sqlchecks.script.TimeDependentSql;

import java.util.ArrayList;
import java.util.List;

/**
 * A page that draws from chance (random(), gen_random_uuid(), TABLESAMPLE, array_shuffle(), a backend's number…) runs a
 * second time to its end, on a fresh database of its own, and a claim that held on the build's run but not on the second
 * fails at its line, as do rows a snippet shows ({@code result}) that the second run did not give: its mark would be a
 * promise about one draw that a reader's run, which draws again, need not keep.
 *
 * <p>Why a second run and not a rule against chance: PostgreSQL's own regression suite calls chance in 33 of its 233
 * files and seeds it in one, with claims that hold on every draw ({@code random() BETWEEN 0 AND 1}, a count of distinct
 * UUIDs); refusing unseeded chance would refuse true claims. A claim true on every draw passes both runs; one that holds
 * with probability p on a draw passed the build's run and is caught with probability 1 − p, so a lucky claim is found
 * with probability 1 − p², not always: the message tells its author that the page's result is a draw.
 *
 * <p>What counts as a draw is read from what the server parsed ({@link TreeReads.Seen}): a pg_catalog function of
 * {@link TimeDependentSql}'s chance list, or clock_timestamp() or timeofday(), called anywhere (a function's body, SQL
 * built at run time, a column's default on INSERT after rewriting, an operator's function), any volatile function of an
 * allowed extension, a chance name in a utility statement's raw tree (a CHECK, an aggregate's SFUNC), a TABLESAMPLE
 * or an ANALYZE, check_function_bodies turned off, a tree let go unread; and from the snippet's text. Only snippets from
 * the page's first draw on are compared: before it, the two runs differ only by what no draw decides. Nothing of it
 * runs in the reader's session or in the build's real run: the second run is a run of the page as written, like the
 * capture run's. Not compared: a scenario's transcript (its steps' rows), rows shown on a page that reads the clock.
 */
final class SecondDraw {

    private SecondDraw() {
    }

    /**
     * What the snippet, as it ran, drew from chance: "random()" or "TABLESAMPLE" and where; null when nothing. {@code
     * parsed}: the server's reports of its statements (a scenario's, every session's).
     */
    static String drawnIn(Snippet snippet, List<ParseCapture> parsed, TreeReads.Catalog catalog) {
        for (ParseCapture capture : parsed) {
            TreeReads.Seen seen = capture.seen();
            for (long function : seen.allFunctions()) {
                String name = chanceFunction(catalog, function);
                if (name != null) {
                    return name + "() at " + snippet.location();
                }
            }
            if (seen.samples) {
                return "a sample of rows (TABLESAMPLE, ANALYZE) at " + snippet.location();
            }
            if (seen.unreadSome) {
                return "statements Kensho did not read at " + snippet.location();
            }
            for (String name : seen.names) {
                if (TimeDependentSql.drawingFunction(name)) {
                    return name + "() at " + snippet.location(); // a raw tree's call: a CHECK, a DEFAULT
                }
            }
            if (seen.names.contains("xmin") || seen.names.contains("xmax")) {
                return "a transaction ID (xmin, xmax) at " + snippet.location(); // the server's counter: other on every run
            }
            if (seen.names.contains(UNPARSED_BODIES)) {
                return UNPARSED_BODIES + " set at " + snippet.location() + " (function bodies then run unreported)";
            }
            for (int i = 0; i < seen.trees.size(); i++) {
                String name = chanceIn(seen.trees.get(i), catalog);
                if (name != null) {
                    return name + "() at " + snippet.location();
                }
            }
        }
        TimeDependentSql.Reading reading = TimeDependentSql.firstDraw(snippet.sql());
        if (reading != null) {
            return reading.word() + (reading.word().equals("tablesample") ? "" : "()") + " at " + snippet.location();
        }
        if (snippet.sql().toLowerCase(java.util.Locale.ROOT).contains(UNPARSED_BODIES)) {
            return UNPARSED_BODIES + " named at " + snippet.location() + " (function bodies then run unreported)";
        }
        return null;
    }

    /**
     * With it off, the server creates a function without parsing its body, and a SQL function inlined into a query runs
     * its body without reporting its tree: a draw inside it is then never seen (red team helper-89).
     */
    private static final String UNPARSED_BODIES = "check_function_bodies";
    /** How an author makes a drawing page's claims hold on every run: the end of each message that blames chance. */
    private static final String FIX_THE_DRAW = "or fix the draw (setseed() before random(), TABLESAMPLE … REPEATABLE)";

    /**
     * The name of the chance function {@code oid} is, or null: pg_catalog's of the chance list, or any volatile function of
     * an allowed extension (whose code Kensho does not know: tablefunc's normal_rand() was on no list). pg_catalog's
     * volatile functions are too many to count (nextval() on every serial insert), so they are listed.
     */
    private static String chanceFunction(TreeReads.Catalog catalog, long oid) {
        String extension = catalog.extensionFunctions().get(oid);
        if (extension != null) {
            return extension; // any volatile function of an allowed extension: no list of theirs to keep (red team helper-90)
        }
        String name = catalog.functions().get(oid);
        return name != null && TimeDependentSql.drawingFunction(name) ? name : null;
    }

    /**
     * Whether the snippet, as it ran, read the clock (its text, or a clock function or SQL value function in what the
     * server parsed): on such a page two runs show other times, so rows shown with {@code result} are not compared.
     */
    static boolean readsClock(Snippet snippet, List<ParseCapture> parsed, TreeReads.Catalog catalog) {
        for (ParseCapture capture : parsed) {
            TreeReads.Seen seen = capture.seen();
            for (long function : seen.allFunctions()) {
                String name = catalog.functions().get(function);
                if (name != null && TimeDependentSql.clockFunction(name)) {
                    return true;
                }
            }
            for (String tree : seen.trees) {
                if (tree == null || tree.contains(CLOCK_VALUE)) {
                    // CURRENT_TIMESTAMP and the like (CURRENT_USER too: it only skips a comparison); a tree not kept may
                    // have read it (such a page is also taken to draw, drawnIn): its shown rows go uncompared
                    return true;
                }
            }
        }
        return TimeDependentSql.readsClock(snippet.sql());
    }

    /** CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIME… as an analysed tree writes them. */
    private static final String CLOCK_VALUE = "{SQLVALUEFUNCTION";

    /**
     * A chance function a tree names where {@link TreeReads.Seen} does not look: an operator's function ({@code :opfuncid},
     * an operator made on random()), and, in a utility statement's raw tree, a chance function's name as a quoted atom
     * (a CHECK constraint, an aggregate's SFUNC, an operator's FUNCTION, built at run time: only their spelling is there).
     */
    private static String chanceIn(String tree, TreeReads.Catalog catalog) {
        if (tree == null) {
            return null;
        }
        for (int at = tree.indexOf(OPERATOR_FUNCTION); at >= 0; at = tree.indexOf(OPERATOR_FUNCTION, at + 1)) {
            int start = at + OPERATOR_FUNCTION.length();
            while (start < tree.length() && Character.isWhitespace(tree.charAt(start))) {
                start++;
            }
            int end = start;
            while (end < tree.length() && end - start < 12 && tree.charAt(end) >= '0' && tree.charAt(end) <= '9') {
                end++;
            }
            String name = end > start ? chanceFunction(catalog, Long.parseLong(tree.substring(start, end))) : null;
            if (name != null) {
                return name;
            }
        }
        if (!tree.contains(":utilityStmt {")) {
            return null;
        }
        for (String name : TimeDependentSql.drawingFunctions()) {
            if (tree.contains("\"" + name + "\"")) {
                return name;
            }
        }
        return null;
    }

    private static final String OPERATOR_FUNCTION = ":opfuncid";

    /**
     * The outcomes ({@code into}, the build's as judged so far) with the first snippet, in run order, whose claims held on
     * the build's run ({@code real}) but not on the second ({@code again}: its outcomes, null past where it stopped; null
     * as a whole when its database could not be made), or whose shown rows the second did not give, failed. From the
     * page's first draw on ({@code draws}, by snippet index, in run order) the message says the page draws from chance,
     * naming the snippet's own draw when it made one, else the page's first; before it, that the snippet ended otherwise
     * on a second run (what no draw decides: it is not chance's, but a reader's run is a run too). A second run that
     * Kensho stopped, or that could not run, fails the first claim not compared from the first draw on as one that could
     * not be checked: a page can make its own time or size depend on a draw (red team helper-92). Shown rows are not
     * compared on a page that reads the clock ({@code readsClock}: two runs show other times, stored ones too, and its
     * marks say when they were made). Exercise cases run on replays of their own ({@link CaptureRun}), not here.
     */
    static List<Outcome> judged(List<Outcome> real, List<Outcome> into, List<Outcome> again, java.util.Map<Integer, String> draws,
                                boolean readsClock) {
        List<Outcome> judged = new ArrayList<>(into);
        if (draws.isEmpty()) {
            return judged;
        }
        String pagesDraw = draws.values().iterator().next();
        List<Integer> order = RunOrder.of(RestoreProof.snippets(real));
        int firstDraw = 0;
        while (!draws.containsKey(order.get(firstDraw))) {
            firstDraw++;
        }
        for (int at = 0; at < order.size(); at++) {
            int index = order.get(at);
            Outcome first = real.get(index);
            Outcome second = again == null ? null : again.get(index);
            boolean drawn = at >= firstDraw;
            if (first.snippet().directives().caseName() != null && second != null) {
                continue; // a case runs on a replay of its own; the second run, like the real one, leaves it waiting
            }
            if (second == null || second.failure() != null && stoppedByKensho(second.failure())) {
                // Not compared from here on: the first claim from the first draw on that held so far fails.
                for (int later = Math.max(at, firstDraw); later < order.size(); later++) {
                    int claim = order.get(later);
                    if (into.get(claim).passed() && real.get(claim).snippet().directives().caseName() == null) {
                        String why = again == null ? "its database could not be made"
                                : second == null ? "it stopped before the snippet at " + first.snippet().location()
                                : second.failure().message();
                        judged.set(claim, failed(into.get(claim), "this claim cannot be checked: the page draws from chance ("
                                + pagesDraw + "), so it runs a second time, and that run did not reach this snippet as the "
                                + "build's did (" + why + ")", null));
                        return judged;
                    }
                }
                return judged;
            }
            String draw = draws.getOrDefault(index, pagesDraw);
            if (first.passed() && into.get(index).passed() && !second.passed()) {
                String why = second.failure() == null ? "it did not run" : second.failure().message();
                judged.set(index, failed(into.get(index), drawn
                        ? "this held on the build's run but not on a second run of the page on a fresh database: the page "
                        + "draws from chance (" + draw + "), and a reader's run draws again; claim only what holds on every "
                        + "draw, " + FIX_THE_DRAW
                        : "this held on the build's run but not on a second run of the page on a fresh database, before any "
                        + "draw of the page's (the page draws from chance at " + pagesDraw + "): what it shows differs from "
                        + "run to run, and a reader's run is a run too", "on the second run: " + why));
                return judged;
            }
            if (drawn && first.passed() && into.get(index).passed() && first.snippet().directives().showResult() && !readsClock
                    && !sameRows(first, second)) {
                // The rows a `result` shows are the build's, inside its mark: a reader's run must give them too.
                judged.set(index, failed(into.get(index), "the rows this snippet shows (result) differ on a second run of the "
                        + "page on a fresh database: the page draws from chance (" + draw + "), and a reader's run draws "
                        + "again; show only rows every draw gives, " + FIX_THE_DRAW,
                        "on the build's run: " + shown(first) + "; on the second run: " + shown(second)));
                return judged;
            }
            if (!second.passed()) {
                return judged; // failed on both: the build's run says why; the two runs part here, nothing later compares
            }
        }
        return judged;
    }

    /**
     * A failure that is Kensho's stop (the page's time, its disk, a statement Kensho stopped), not the page's: the claim it
     * reaches cannot be checked, which fails it as surely, but says why. Told by Kensho's own message without a SQLSTATE,
     * which no server error lacks: a page can raise 57014 or any message of its own (red team helper-92).
     */
    private static boolean stoppedByKensho(Failure failure) {
        return failure.sqlState() == null && failure.message() != null && failure.message().startsWith("Kensho stopped the");
    }

    /**
     * The outcomes with each plan claim that needs the catalog ({@code uses-index=}, {@code no-seq-scan=}), which the second
     * run leaves pending like the real run, failed when it passed on the real run's plan but not on its replay's own
     * ({@code replayPlans}: the claim judged on the plan the replay that answered it made of the snippet, by index), on a
     * page that draws ({@code draws}): the replay is a draw of its own up to that snippet. Only a claim its replay
     * answered passed (one whose replay ended otherwise already failed as unchecked, {@link CaptureRun#answered}).
     */
    static List<Outcome> plansJudged(List<Outcome> outcomes, java.util.Map<Integer, PlanVerdict> replayPlans,
                                     java.util.Map<Integer, String> draws) {
        List<Outcome> judged = new ArrayList<>(outcomes);
        if (draws.isEmpty()) {
            return judged;
        }
        java.util.Set<Integer> afterFirstDraw = new java.util.HashSet<>();
        boolean drawn = false;
        for (int index : RunOrder.of(RestoreProof.snippets(outcomes))) {
            drawn |= draws.containsKey(index);
            if (drawn) {
                afterFirstDraw.add(index); // before it, a replay differs by what no draw decides (as in judged)
            }
        }
        for (java.util.Map.Entry<Integer, PlanVerdict> plan : replayPlans.entrySet()) {
            Outcome o = judged.get(plan.getKey());
            if (afterFirstDraw.contains(plan.getKey()) && o.passed() && plan.getValue().problem() != null) {
                String draw = draws.getOrDefault(plan.getKey(), draws.values().iterator().next());
                judged.set(plan.getKey(), failed(o, "this plan claim held on the build's run but not on a replay of the page on "
                        + "a fresh database: the page draws from chance (" + draw + "), and a reader's run draws again; "
                        + "claim only what holds on every draw, " + FIX_THE_DRAW, "on the replay: " + plan.getValue().problem()));
            }
        }
        return judged;
    }

    /**
     * The same results, as a reader's run is compared with the shown rows: columns, types, and rows in order where the
     * statement's parse promises an order, else as a multiset (an unordered parallel scan returns them in another order
     * on every run, none of them promised). An EXPLAIN's rows are left out: its timings differ on every run (red team
     * helper-90: EXPLAIN ANALYZE shown after an ANALYZE).
     */
    static boolean sameRows(Outcome first, Outcome second) {
        if (first.results().size() != second.results().size()) {
            return false;
        }
        for (int i = 0; i < first.results().size(); i++) {
            ResultTable a = first.results().get(i);
            ResultTable b = second.results().get(i);
            if (explains(a)) {
                continue; // timings and estimates: a plan is claimed with plan claims, which the replays judge
            }
            if (!a.columns().equals(b.columns()) || !a.types().equals(b.types()) || a.totalRows() != b.totalRows()) {
                return false;
            }
            boolean whole = a.rows().size() == a.totalRows() && b.rows().size() == b.totalRows();
            RowOrder order = a.order();
            if (order == null || order.ordered() && !order.tiesKnown()) {
                if (!a.rows().equals(b.rows())) {
                    return false; // in order: the kept rows are the first ones on both runs
                }
            } else if (whole && !counted(a.rows()).equals(counted(b.rows()))) {
                // Tied rows in any order, as RowComparison takes them: both runs sorted the same rows on the same keys, so
                // the multiset decides (the keys' text would not: 1.0 and 1.00 tie, red team helper-92). Rows left out
                // past the kept ones are not compared.
                return false;
            }
        }
        return true;
    }

    private static java.util.Map<List<String>, Long> counted(List<List<String>> rows) {
        return rows.stream().collect(java.util.stream.Collectors.groupingBy(row -> row, java.util.stream.Collectors.counting()));
    }

    private static boolean explains(ResultTable table) {
        return table.statement() != null && dev.kensho.sqlchecks.script.SqlLexer.firstWord(table.statement(), true).equals("explain");
    }

    /** A run's rows as one line: cells joined by " | ", rows by "; ", results by " / ". */
    private static String shown(Outcome outcome) {
        return outcome.results().stream().map(table -> table.rows().stream()
                        .map(row -> String.join(" | ", row.stream().map(cell -> cell == null ? PsqlFormat.NULL : cell).toList()))
                .collect(java.util.stream.Collectors.joining("; "))).collect(java.util.stream.Collectors.joining(" / "));
    }

    private static Outcome failed(Outcome o, String message, String detail) {
        Failure failure = new Failure(message, null, o.snippet().location(), o.snippet().lineAt(0), detail, null);
        return new Outcome(o.snippet(), Outcome.Status.FAILED, failure, o.results(), o.assertions(), null,
                o.transcript() == null ? null : o.transcript().withAfter(null), o.duration());
    }
}
