package dev.kensho.sqlchecks.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What an author states about a snippet, parsed from the fence's meta (Expressive Code style:
 * {@code ```sql setup hidden}, {@code ```sql expect-error=23505}, {@code ```sql $1:uuid="…" uses-index=idx}).
 * The authoring guide (content/guide/directives.md) documents each one.
 *
 * @param setup          runs before the page's other snippets, whatever its position
 * @param hidden         not shown to readers (still run and counted)
 * @param expectError    the SQLSTATE the snippet must fail with, or null when it must succeed
 * @param errorPattern   a regular expression the error message must contain a match of, or null
 * @param parameters     values bound to $1…$n, in order
 * @param plan           assertions about the last statement's plan, or null
 * @param showResult     show readers the rows the last statement returned
 * @param showPlan       show readers EXPLAIN (ANALYZE, BUFFERS) of the last statement
 * @param caseName       when not null, the snippet is a named data set (a case) for the snippet before it: it runs,
 *                       then that snippet runs on it, in a transaction that is rolled back (see ScriptRunner)
 */
public record Directives(boolean setup, boolean hidden, String expectError, Pattern errorPattern,
                         List<Parameter> parameters, PlanExpectations plan, boolean showResult, boolean showPlan,
                         String caseName) {

    public static final Directives NONE = new Directives(false, false, null, null, List.of(), null, false, false, null);

    /** Meta keys that belong to presentation (Expressive Code) rather than to verification. */
    private static final Set<String> PRESENTATION = Set.of("title", "frame", "wrap", "mark", "ins", "del", "collapse",
            "showLineNumbers", "startLineNumber", "lang");
    /** The directives a fence may carry, by name (what an unknown one is matched against for a suggestion). */
    public static final List<String> NAMES = List.of("setup", "hidden", "result", "explain", "no-sort", "expect-error", "error-matches",
            "case", "uses-index", "scan-in", "no-seq-scan", "index-cond-contains", "max-buffers", "max-rows-removed", "title",
            "frame", "wrap", "mark", "ins", "del", "collapse", "showLineNumbers", "startLineNumber", "lang");
    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+):([A-Za-z_][A-Za-z0-9_ \\[\\]]*)");
    private static final Pattern SQLSTATE = Pattern.compile("[0-9A-Z]{5}");

    public Directives {
        parameters = List.copyOf(parameters);
    }

    /** True for a meta key that only shapes how the block looks (title, frame, marked lines, …). */
    public static boolean isPresentation(String key) {
        return PRESENTATION.contains(key) || key.startsWith("{");
    }

    /** A value bound to {@code $position}, sent as a literal of {@code type}. */
    public record Parameter(int position, String type, String value) {
    }

    /**
     * Parses the meta of one fence.
     *
     * @throws InvalidDirectiveException naming the directive and what would be accepted
     */
    public static Directives parse(Map<String, String> meta) throws InvalidDirectiveException {
        boolean setup = false;
        boolean hidden = false;
        String expectError = null;
        Pattern errorPattern = null;
        List<Parameter> parameters = new ArrayList<>();
        String usesIndex = null;
        Set<String> scanIn = new LinkedHashSet<>();
        boolean noSort = false;
        String noSeqScan = null;
        String indexCond = null;
        Long maxBuffers = null;
        Long maxRowsRemoved = null;
        boolean showResult = false;
        boolean showPlan = false;
        String caseName = null;
        for (Map.Entry<String, String> entry : meta.entrySet()) {
            String key = entry.getKey();
            String value = entry.getValue();
            Matcher parameter = PARAMETER.matcher(key);
            if (parameter.matches()) {
                parameters.add(new Parameter(Integer.parseInt(parameter.group(1)), parameter.group(2).strip(), value));
                continue;
            }
            switch (key) {
                case "setup" -> setup = flag(key, value);
                case "hidden" -> hidden = flag(key, value);
                case "result" -> showResult = flag(key, value);
                case "explain" -> showPlan = flag(key, value);
                case "no-sort" -> noSort = flag(key, value);
                case "expect-error" -> {
                    if (!SQLSTATE.matcher(value).matches()) {
                        throw new InvalidDirectiveException("expect-error takes a five-character SQLSTATE such as 23505, not '" + value + "'");
                    }
                    expectError = value;
                }
                case "error-matches" -> {
                    try {
                        errorPattern = Pattern.compile(value);
                    } catch (PatternSyntaxException e) {
                        throw new InvalidDirectiveException("error-matches is not a valid regular expression: " + e.getDescription());
                    }
                }
                case "case" -> {
                    caseName = required(key, value).strip();
                    if (caseName.isEmpty()) {
                        throw new InvalidDirectiveException("case needs a name: case=\"tie at the cursor\"");
                    }
                }
                case "uses-index" -> usesIndex = required(key, value);
                case "scan-in" -> {
                    for (String node : required(key, value).split(",")) {
                        String name = node.strip();
                        if (!PlanExpectations.SCAN_NODES.contains(name)) {
                            throw new InvalidDirectiveException("scan-in names plan nodes among " + PlanExpectations.SCAN_NODES
                                    + ", not '" + name + "'");
                        }
                        scanIn.add(name);
                    }
                }
                case "no-seq-scan" -> noSeqScan = required(key, value);
                case "index-cond-contains" -> indexCond = required(key, value);
                case "max-buffers" -> maxBuffers = count(key, value);
                case "max-rows-removed" -> maxRowsRemoved = count(key, value);
                default -> {
                    // "{2,4-5}" marks lines, as in Expressive Code.
                    if (!PRESENTATION.contains(key) && !key.startsWith("{")) {
                        throw new InvalidDirectiveException("unknown directive '" + key + "'; known: setup, hidden, result, explain, case=NAME, "
                                + "expect-error=SQLSTATE, error-matches=REGEX, $N:TYPE=VALUE, uses-index=NAME, scan-in=NODES, "
                                + "no-sort, no-seq-scan=TABLE, index-cond-contains=TEXT, max-buffers=N, max-rows-removed=N, title=TEXT", key);
                    }
                }
            }
        }
        if (errorPattern != null && expectError == null) {
            throw new InvalidDirectiveException("error-matches needs expect-error=SQLSTATE beside it");
        }
        parameters.sort(Comparator.comparingInt(Parameter::position));
        for (int i = 0; i < parameters.size(); i++) {
            if (parameters.get(i).position() != i + 1) {
                throw new InvalidDirectiveException("parameters must be numbered $1 to $" + parameters.size()
                        + " without gaps; $" + (i + 1) + " is missing");
            }
        }
        PlanExpectations plan = usesIndex == null && scanIn.isEmpty() && !noSort && noSeqScan == null && indexCond == null
                && maxBuffers == null && maxRowsRemoved == null
                ? null : new PlanExpectations(usesIndex, Set.copyOf(scanIn), noSort, noSeqScan, indexCond, maxBuffers, maxRowsRemoved);
        if (plan != null && expectError != null) {
            throw new InvalidDirectiveException("a snippet expected to fail has no plan to assert; drop the plan directives or expect-error");
        }
        if (caseName != null && (setup || hidden || expectError != null || plan != null || !parameters.isEmpty() || showPlan)) {
            throw new InvalidDirectiveException("a case is a data set for the model answer before it and states nothing of its own; "
                    + "write only case=NAME (and result) on its fence; it is shown with the model answer");
        }
        return new Directives(setup, hidden, expectError, errorPattern, parameters, plan, showResult, showPlan, caseName);
    }

    /** The same directives without the plan claims and shown plan: what a snippet states when it is run again on a case's data. */
    public Directives rowsOnly() {
        return new Directives(false, false, null, null, parameters, null, false, false, null);
    }

    private static boolean flag(String key, String value) throws InvalidDirectiveException {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidDirectiveException(key + " is a flag: write it alone, or " + key + "=false");
        };
    }

    private static Long count(String key, String value) throws InvalidDirectiveException {
        if (!value.matches("\\d{1,15}")) {
            throw new InvalidDirectiveException(key + " takes a whole number, such as " + key + "=10, not '" + value + "'");
        }
        return Long.parseLong(value);
    }

    private static String required(String key, String value) throws InvalidDirectiveException {
        if (value.isBlank() || value.equals("true")) {
            throw new InvalidDirectiveException(key + " needs a value: " + key + "=…");
        }
        return value;
    }

    /**
     * Plan assertions on the last statement of a snippet, checked on {@code EXPLAIN (FORMAT JSON,
     * COSTS OFF, SETTINGS, VERBOSE)}; the work claims ({@code maxBuffers}, {@code maxRowsRemoved}) on
     * {@code EXPLAIN (ANALYZE, BUFFERS)}, whose effects are rolled back. Any plan claim fails when a
     * planner setting differs from PostgreSQL's built-in default (EXPLAIN's SETTINGS lists them), so
     * a plan forced with {@code enable_*} or cost settings cannot pass.
     *
     * @param maxBuffers     most shared buffers (hit + read) the statement may touch, or null
     * @param maxRowsRemoved most rows its nodes may read and then discard by a filter, or null
     */
    public record PlanExpectations(String usesIndex, Set<String> scanIn, boolean noSort, String noSeqScanOn,
                                   String indexCondContains, Long maxBuffers, Long maxRowsRemoved) {

        public static final Set<String> SCAN_NODES = Set.of("Seq Scan", "Index Scan", "Index Only Scan",
                "Bitmap Index Scan", "Bitmap Heap Scan", "Tid Scan", "Tid Range Scan", "Function Scan", "Values Scan",
                "CTE Scan", "Subquery Scan", "Sample Scan");

        public PlanExpectations {
            scanIn = Set.copyOf(scanIn);
        }

        public boolean measuresWork() {
            return maxBuffers != null || maxRowsRemoved != null;
        }
    }
}
