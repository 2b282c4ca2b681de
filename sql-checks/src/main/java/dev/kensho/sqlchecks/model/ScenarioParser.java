package dev.kensho.sqlchecks.model;


import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a scenario block. The layout follows the isolation tester's spec files, so a reader who
 * knows those knows this:
 *
 * <pre>
 * setup { CREATE TABLE … }              # optional; also: teardown { … }
 * session a "再送 A"                     # a name, and optionally the label readers see
 * setup { BEGIN; }                       # optional, per session
 * step a1 { INSERT … }
 * step a2 { COMMIT; }
 * session b
 * step b1 waits-for=a { INSERT … RETURNING key; }
 * rows {                                 # the rows b1's last statement must return
 *  key
 * -----
 * (0 rows)
 * }
 * step b2 expect-error=23505 { … }
 * error { duplicate key value violates unique constraint "t_pkey" }   # optional: the message itself
 * permutation a1 b1 a2                   # one or more
 * </pre>
 *
 * A block is one line, <code>{ … }</code>, or runs from a <code>{</code> ending a line to a line holding only <code>}</code>.
 * As in the tester, top-level setup blocks run in the order written, each as one query string;
 * a session has at most one setup and one teardown. {@code waits-for} names one or more sessions
 * (comma-separated: the step is seen waiting for each of them, in turn or at once, and for no
 * other) or {@code *} (it waits, whomever for: all the tester's {@code <waiting ...>} records).
 * A step may be followed by several {@code rows} blocks: one states its last result, several state
 * every result of its statements, in order. {@code completes-after=STEP} states the step whose line
 * its {@code <... completed>} follows. In a permutation, a step may carry the tester's markers:
 * {@code b1(*)}, {@code b1(a2)}, {@code b1(a2, *)} (see {@link Scenario.Markers}).
 */
public final class ScenarioParser {

    private static final Pattern WORD = Pattern.compile("\"([^\"]+)\"|([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern SQLSTATE = Pattern.compile("[0-9A-Z]{5}");
    /** Sessions one scenario may open (each a connection and a server process). */
    public static final int MAX_SESSIONS = 8;
    private static final String TOO_MANY_SESSIONS = "a scenario may have at most " + MAX_SESSIONS + " sessions (each is a "
            + "connection, and connections are shared by all pages verified at once)";

    private final String text;
    private int pos;
    /** The last offset {@link #line} counted to, and its line: the parser moves forward, so counting is linear overall. */
    private int countedTo;
    private int countedLine;

    private ScenarioParser(String text) {
        this.text = text;
    }

    /**
     * @throws ScenarioSyntaxException with the 0-based line of the problem
     */
    public static Scenario parse(String text) throws ScenarioSyntaxException {
        return new ScenarioParser(text).parse();
    }

    private Scenario parse() throws ScenarioSyntaxException {
        List<String> setups = new ArrayList<>();
        String teardown = null;
        List<SessionBuilder> sessions = new ArrayList<>();
        List<Scenario.Permutation> permutations = new ArrayList<>();
        while (skipSpaceAndComments()) {
            int line = line(pos);
            String keyword = word("setup, teardown, session or permutation");
            switch (keyword) {
                case "setup" -> {
                    String sql = block("setup");
                    if (sessions.isEmpty()) {
                        // The tester runs every top-level setup block, in order, each as one query string.
                        setups.add(sql);
                    } else {
                        SessionBuilder session = sessions.get(sessions.size() - 1);
                        if (session.setup != null) {
                            throw new ScenarioSyntaxException("session " + session.name + " already has a setup block; a session "
                                    + "has one (put its statements in one block)", line);
                        }
                        session.setup = sql;
                    }
                }
                case "teardown" -> {
                    String sql = block("teardown");
                    if (sessions.isEmpty()) {
                        if (teardown != null) {
                            throw new ScenarioSyntaxException("the scenario already has a teardown block; it has one (put its "
                                    + "statements in one block)", line);
                        }
                        teardown = sql;
                    } else {
                        SessionBuilder session = sessions.get(sessions.size() - 1);
                        if (session.teardown != null) {
                            throw new ScenarioSyntaxException("session " + session.name + " already has a teardown block; a "
                                    + "session has one (put its statements in one block)", line);
                        }
                        session.teardown = sql;
                    }
                }
                case "session" -> {
                    if (!permutations.isEmpty()) {
                        throw new ScenarioSyntaxException("sessions come before the permutations", line);
                    }
                    String name = word("a session name");
                    if (sessions.stream().anyMatch(s -> s.name.equals(name))) {
                        throw new ScenarioSyntaxException("session '" + name + "' is declared twice", line);
                    }
                    if (sessions.size() == MAX_SESSIONS) {
                        // Refused here rather than after reading them all: a block of thousands of sessions
                        // would cost their square in name comparisons first.
                        throw new ScenarioSyntaxException(TOO_MANY_SESSIONS, line);
                    }
                    SessionBuilder builder = new SessionBuilder(name);
                    skipInlineSpace();
                    if (pos < text.length() && text.charAt(pos) == '"') {
                        int close = text.indexOf('"', pos + 1);
                        int eol = text.indexOf('\n', pos);
                        if (close < 0 || (eol >= 0 && close > eol)) {
                            throw new ScenarioSyntaxException("the session's label opened here is never closed by '\"'", line);
                        }
                        builder.label = text.substring(pos + 1, close);
                        pos = close + 1;
                    }
                    sessions.add(builder);
                }
                case "step" -> {
                    if (sessions.isEmpty()) {
                        throw new ScenarioSyntaxException("a step belongs to a session: write 'session NAME' first", line);
                    }
                    sessions.get(sessions.size() - 1).steps.add(step(line, sessions.get(sessions.size() - 1).name));
                }
                case "rows" -> {
                    List<StepBuilder> steps = sessions.isEmpty() ? List.of() : sessions.get(sessions.size() - 1).steps;
                    if (steps.isEmpty()) {
                        throw new ScenarioSyntaxException("'rows' states the rows of the step above it, and there is none", line);
                    }
                    StepBuilder above = steps.get(steps.size() - 1);
                    if (above.expectError != null || above.expectMessage != null) {
                        throw new ScenarioSyntaxException("step " + above.name + " is expected to fail (expect-error), so it returns "
                                + "no rows to compare", line);
                    }
                    String table = block("rows");
                    try {
                        above.expectedRows.add(ExpectedRows.parse(table));
                    } catch (InvalidDirectiveException e) {
                        throw new ScenarioSyntaxException("expected rows: " + e.getMessage(), line);
                    }
                }
                case "error" -> {
                    List<StepBuilder> steps = sessions.isEmpty() ? List.of() : sessions.get(sessions.size() - 1).steps;
                    if (steps.isEmpty()) {
                        throw new ScenarioSyntaxException("'error' states the message the step above it fails with, and there "
                                + "is none", line);
                    }
                    StepBuilder above = steps.get(steps.size() - 1);
                    if (!above.expectedRows.isEmpty()) {
                        throw new ScenarioSyntaxException("step " + above.name + " states rows, so it cannot also state an error "
                                + "(a failed step returns no rows to compare)", line);
                    }
                    if (above.expectMessage != null) {
                        throw new ScenarioSyntaxException("step " + above.name + " already states its error message", line);
                    }
                    String message = block("error");
                    // As the tester's expected output shows it: "ERROR:  " and the message.
                    above.expectMessage = message.startsWith("ERROR:") ? message.substring("ERROR:".length()).strip() : message;
                }
                case "notices" -> {
                    List<StepBuilder> steps = sessions.isEmpty() ? List.of() : sessions.get(sessions.size() - 1).steps;
                    if (steps.isEmpty()) {
                        throw new ScenarioSyntaxException("'notices' states the notices of the step above it, and there is none", line);
                    }
                    StepBuilder above = steps.get(steps.size() - 1);
                    if (above.expectNotices != null) {
                        throw new ScenarioSyntaxException("step " + above.name + " already states its notices", line);
                    }
                    List<String> notices = new ArrayList<>();
                    for (String notice : block("notices").split("\n")) {
                        // As the tester prints them: "s1: NOTICE:  text"; the session prefix is optional.
                        String text = notice.strip();
                        String prefix = sessions.get(sessions.size() - 1).name + ": ";
                        text = text.startsWith(prefix) ? text.substring(prefix.length()) : text;
                        if (!text.isEmpty()) {
                            if (!text.matches("(NOTICE|WARNING|INFO):  .*")) {
                                throw new ScenarioSyntaxException("a notice is written as the tester prints it, 'NOTICE:  text' "
                                        + "(or WARNING:, INFO:, two spaces after the colon), not '" + text + "'", line);
                            }
                            notices.add(text);
                        }
                    }
                    above.expectNotices = notices;
                }
                case "permutation" -> permutations.add(permutation(line));
                default -> throw new ScenarioSyntaxException("expected setup, teardown, session, step, rows, error, notices or "
                        + "permutation, not '"
                        + keyword + "'", line);
            }
        }
        return build(setups, teardown == null ? "" : teardown, sessions, permutations);
    }

    private Scenario build(List<String> setup, String teardown, List<SessionBuilder> sessions, List<Scenario.Permutation> permutations)
            throws ScenarioSyntaxException {
        if (sessions.size() < 2) {
            throw new ScenarioSyntaxException("a scenario needs at least two sessions", 0);
        }
        if (permutations.isEmpty()) {
            throw new ScenarioSyntaxException("a scenario needs a 'permutation' line giving the order of its steps", line(text.length()));
        }
        Set<String> stepNames = new HashSet<>();
        Set<String> sessionNames = new HashSet<>();
        List<Scenario.Session> built = new ArrayList<>();
        for (SessionBuilder session : sessions) {
            sessionNames.add(session.name);
        }
        for (SessionBuilder session : sessions) {
            List<Scenario.Step> steps = new ArrayList<>();
            for (StepBuilder step : session.steps) {
                if (!stepNames.add(step.name)) {
                    throw new ScenarioSyntaxException("step '" + step.name + "' is declared twice", step.line);
                }
                for (String waited : step.waitsFor) {
                    if (!waited.equals(Scenario.ANY_SESSION) && (!sessionNames.contains(waited) || waited.equals(session.name))) {
                        throw new ScenarioSyntaxException("waits-for names other sessions of this scenario (or *), not '" + waited + "'", step.line);
                    }
                }
                steps.add(new Scenario.Step(step.name, session.name, step.sql, step.line, step.waitsFor, step.expectError,
                        step.expectMessage, step.expectedRows, step.expectNotices, step.completesAfter));
            }
            built.add(new Scenario.Session(session.name, session.label == null ? session.name : session.label,
                    session.setup == null ? "" : session.setup, steps, session.teardown == null ? "" : session.teardown));
        }
        Set<String> issued = new HashSet<>();
        Map<String, String> sessionOf = new HashMap<>();
        Map<String, StepBuilder> byName = new HashMap<>();
        for (SessionBuilder session : sessions) {
            for (StepBuilder step : session.steps) {
                sessionOf.put(step.name, session.name);
                byName.put(step.name, step);
            }
        }
        for (SessionBuilder session : sessions) {
            for (StepBuilder step : session.steps) {
                // Its own name: reported complete before any other step is issued (a step marked (*) whose
                // <... completed> line follows its own, as deadlock-hard's s8a1).
                if (step.completesAfter != null && !step.completesAfter.equals(step.name) && (!sessionOf.containsKey(step.completesAfter)
                        || sessionOf.get(step.completesAfter).equals(session.name))) {
                    throw new ScenarioSyntaxException("completes-after names a step of another session (the last step issued "
                            + "before this one is reported complete) or the step itself (reported complete before any other "
                            + "step is issued), not '" + step.completesAfter + "'", step.line);
                }
            }
        }
        for (Scenario.Permutation permutation : permutations) {
            for (String step : permutation.steps()) {
                if (!stepNames.contains(step)) {
                    throw new ScenarioSyntaxException("the permutation names step '" + step + "', which no session declares", permutation.line());
                }
                issued.add(step);
            }
            checkMarkers(permutation, sessionOf, byName);
        }
        for (SessionBuilder session : sessions) {
            for (StepBuilder step : session.steps) {
                if (!issued.contains(step.name)) {
                    throw new ScenarioSyntaxException("step " + step.name + " is in no permutation, so nothing it states would be "
                            + "checked; add it to a permutation or remove it", step.line);
                }
            }
        }
        return new Scenario(setup, teardown, built, permutations);
    }

    /**
     * As the isolation tester checks them (isolationtester.c): a marker names a step this permutation
     * issues, of another session. Kensho adds what it needs to keep its claims decidable: a step marked
     * {@code (*)} is counted as waiting whether or not it waits, so whom it waits for is left to timing
     * and cannot be claimed; a step claiming where it completes must be followed by that step.
     */
    private static void checkMarkers(Scenario.Permutation permutation, Map<String, String> sessionOf,
                                     Map<String, StepBuilder> steps) throws ScenarioSyntaxException {
        List<String> order = permutation.steps();
        for (int i = 0; i < order.size(); i++) {
            String name = order.get(i);
            Scenario.Markers markers = permutation.markers().get(i);
            for (String after : markers.afterSteps()) {
                if (!order.contains(after)) {
                    throw new ScenarioSyntaxException("step " + name + "'s marker (" + after + ") names a step this permutation "
                            + "does not issue", permutation.line());
                }
                if (sessionOf.get(after).equals(sessionOf.get(name))) {
                    throw new ScenarioSyntaxException("step " + name + "'s marker (" + after + ") names a step of its own session "
                            + sessionOf.get(name) + ", which runs one step at a time; a marker names a step of another session",
                            permutation.line());
                }
            }
            for (Scenario.NoticeCount notices : markers.afterNotices()) {
                if (!order.contains(notices.step())) {
                    throw new ScenarioSyntaxException("step " + name + "'s marker (" + notices.step() + " notices "
                            + notices.count() + ") names a step this permutation does not issue", permutation.line());
                }
                if (sessionOf.get(notices.step()).equals(sessionOf.get(name))) {
                    throw new ScenarioSyntaxException("step " + name + "'s marker (" + notices.step() + " notices "
                            + notices.count() + ") names a step of its own session " + sessionOf.get(name) + ", whose notices "
                            + "are its own; a marker names a step of another session", permutation.line());
                }
            }
            StepBuilder step = steps.get(name);
            if (markers.reportWaiting() && !step.waitsFor.isEmpty() && !step.waitsFor.equals(List.of(Scenario.ANY_SESSION))) {
                throw new ScenarioSyntaxException("step " + name + " is marked (*): it counts as waiting whether or not the server "
                        + "shows it waiting, so whether it is seen waiting for " + String.join(", ", step.waitsFor) + " is left "
                        + "to timing; state waits-for=* or no waits-for", permutation.line());
            }
            if (step.completesAfter != null && !step.completesAfter.equals(name)
                    && !order.subList(i + 1, order.size()).contains(step.completesAfter)) {
                throw new ScenarioSyntaxException("step " + name + " states completes-after=" + step.completesAfter + ", but this "
                        + "permutation does not issue " + step.completesAfter + " after it", permutation.line());
            }
        }
    }

    private StepBuilder step(int line, String session) throws ScenarioSyntaxException {
        StepBuilder step = new StepBuilder(word("a step name"), line);
        Map<String, String> options = new LinkedHashMap<>();
        while (true) {
            skipInlineSpace();
            if (pos >= text.length() || text.charAt(pos) == '{' || text.charAt(pos) == '\n') {
                break;
            }
            int start = pos;
            while (pos < text.length() && !Character.isWhitespace(text.charAt(pos)) && text.charAt(pos) != '{') {
                pos++;
            }
            String option = text.substring(start, pos);
            int eq = option.indexOf('=');
            if (eq < 0) {
                throw new ScenarioSyntaxException("step options are written KEY=VALUE (waits-for=a, expect-error=23505), not '" + option + "'", line);
            }
            if (options.put(option.substring(0, eq), option.substring(eq + 1)) != null) {
                throw new ScenarioSyntaxException("step option " + option.substring(0, eq) + " is given twice; a step states it once", line);
            }
        }
        for (Map.Entry<String, String> option : options.entrySet()) {
            switch (option.getKey()) {
                case "waits-for" -> {
                    List<String> names = List.of(option.getValue().split(",", -1));
                    if (names.stream().anyMatch(String::isEmpty) || new HashSet<>(names).size() != names.size()
                            || (names.contains(Scenario.ANY_SESSION) && names.size() > 1)) {
                        throw new ScenarioSyntaxException("waits-for takes session names separated by commas (waits-for=s1,s2), "
                                + "each once, or * (it waits, whomever for), not '" + option.getValue() + "'", line);
                    }
                    step.waitsFor = names;
                }
                case "expect-error" -> {
                    if (!SQLSTATE.matcher(option.getValue()).matches()) {
                        throw new ScenarioSyntaxException("expect-error takes a five-character SQLSTATE such as 23505, not '"
                                + option.getValue() + "'", line);
                    }
                    step.expectError = option.getValue();
                }
                case "completes-after" -> {
                    if (!option.getValue().matches("[A-Za-z_][A-Za-z0-9_]*")) {
                        throw new ScenarioSyntaxException("completes-after takes one step name (completes-after=s1c), not '"
                                + option.getValue() + "'", line);
                    }
                    step.completesAfter = option.getValue();
                }
                default -> throw new ScenarioSyntaxException("unknown step option '" + option.getKey()
                        + "'; known: waits-for=SESSION[,SESSION…] or waits-for=*, expect-error=SQLSTATE, completes-after=STEP (and 'rows { … }', 'error { … }' or 'notices { … }' blocks after the step)", line);
            }
        }
        skipSpaceAndComments();
        step.sql = block("step " + step.name);
        return step;
    }

    /**
     * A permutation line: step names, each optionally followed by the tester's markers in parentheses,
     * separated by commas: {@code s1a(*)}, {@code s1a(s2b)}, {@code s1a(s2b, *)}.
     */
    private Scenario.Permutation permutation(int line) throws ScenarioSyntaxException {
        List<String> steps = new ArrayList<>();
        List<Scenario.Markers> markers = new ArrayList<>();
        while (true) {
            skipInlineSpace();
            if (pos >= text.length() || text.charAt(pos) == '\n' || text.charAt(pos) == '#') {
                break;
            }
            String name = word("a step name");
            steps.add(name);
            skipInlineSpace();
            markers.add(pos < text.length() && text.charAt(pos) == '(' ? markers(name, line) : Scenario.Markers.NONE);
        }
        if (steps.isEmpty()) {
            throw new ScenarioSyntaxException("a permutation lists the steps to issue, in order", line);
        }
        return new Scenario.Permutation(steps, markers, line);
    }

    private Scenario.Markers markers(String step, int line) throws ScenarioSyntaxException {
        int eol = text.indexOf('\n', pos);
        int close = text.indexOf(')', pos);
        if (close < 0 || (eol >= 0 && close > eol)) {
            throw new ScenarioSyntaxException("the markers of step " + step + " opened by '(' are never closed by ')' on this line", line);
        }
        boolean reportWaiting = false;
        List<String> after = new ArrayList<>();
        List<Scenario.NoticeCount> notices = new ArrayList<>();
        for (String marker : text.substring(pos + 1, close).split(",", -1)) {
            String written = marker.strip();
            if (written.equals("*")) {
                if (reportWaiting) {
                    throw new ScenarioSyntaxException("step " + step + " has the marker * twice", line);
                }
                reportWaiting = true;
            } else if (written.matches("\"?[A-Za-z_][A-Za-z0-9_]*\"?")) {
                String name = written.replace("\"", "");
                if (after.contains(name)) {
                    throw new ScenarioSyntaxException("step " + step + " has the marker " + name + " twice", line);
                }
                after.add(name);
            } else if (written.matches("\"?[A-Za-z_][A-Za-z0-9_]*\"?\\s+notices\\s+[0-9]{1,6}")) {
                String[] parts = written.split("\\s+");
                int count = Integer.parseInt(parts[2]);
                if (count == 0) {
                    throw new ScenarioSyntaxException("the marker '" + written + "' of step " + step + " waits for no notice; "
                            + "a notices marker counts one or more", line);
                }
                notices.add(new Scenario.NoticeCount(parts[0].replace("\"", ""), count));
            } else {
                throw new ScenarioSyntaxException("a marker of step " + step + " is * or the name of another step, separated "
                        + "by commas (" + step + "(*), " + step + "(s2b), " + step + "(s2b notices 2)), not '" + written + "'", line);
            }
        }
        pos = close + 1;
        return new Scenario.Markers(reportWaiting, after, notices);
    }

    private String word(String what) throws ScenarioSyntaxException {
        skipInlineSpace();
        Matcher matcher = WORD.matcher(text).region(pos, text.length());
        if (!matcher.lookingAt()) {
            throw new ScenarioSyntaxException("expected " + what, line(pos));
        }
        pos = matcher.end();
        return matcher.group(1) != null ? matcher.group(1) : matcher.group(2);
    }

    /**
     * Reads a block and returns what is inside, stripped. A block is either one line,
     * <code>{ … }</code>, or opens with <code>{</code> at the end of a line and closes with a line
     * holding only <code>}</code>, so a row ending in a JSON object's brace does not end it.
     */
    private String block(String owner) throws ScenarioSyntaxException {
        skipSpaceAndComments();
        if (pos >= text.length() || text.charAt(pos) != '{') {
            throw new ScenarioSyntaxException(owner + " needs a block: { … }", line(Math.min(pos, text.length())));
        }
        int open = pos;
        int eol = text.indexOf('\n', open);
        String rest = text.substring(open + 1, eol < 0 ? text.length() : eol).strip();
        if (rest.endsWith("}")) {
            pos = eol < 0 ? text.length() : eol;
            return rest.substring(0, rest.length() - 1).strip();
        }
        if (!rest.isEmpty()) {
            // Read as the block's first line it would be dropped: readers would see SQL that never ran.
            throw new ScenarioSyntaxException(owner + ": a block of several lines opens with '{' at the end of its line and "
                    + "closes with a line holding only '}'; move '" + abbreviate(rest) + "' to the next line, or close the "
                    + "block on this line", line(open));
        }
        int lineStart = eol < 0 ? text.length() : eol + 1;
        while (lineStart < text.length()) {
            int lineEnd = text.indexOf('\n', lineStart);
            lineEnd = lineEnd < 0 ? text.length() : lineEnd;
            if (text.substring(lineStart, lineEnd).strip().equals("}")) {
                pos = lineEnd;
                // Leading spaces of the first line stay: in a rows table they are psql's layout.
                String inside = text.substring(open + 1, lineStart);
                return inside.substring(inside.indexOf('\n') + 1).stripTrailing();
            }
            lineStart = lineEnd + 1;
        }
        throw new ScenarioSyntaxException(owner + ": the block opened here is never closed by a line holding only '}'", line(open));
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }

    /** Skips whitespace, newlines and # comments; false at the end of the text. */
    private boolean skipSpaceAndComments() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (Character.isWhitespace(c)) {
                pos++;
            } else if (c == '#') {
                int eol = text.indexOf('\n', pos);
                pos = eol < 0 ? text.length() : eol + 1;
            } else {
                return true;
            }
        }
        return false;
    }

    private void skipInlineSpace() {
        while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
            pos++;
        }
    }

    /**
     * The 0-based line of an offset. Counted on from the last offset asked for rather than from the
     * start: once per keyword from the start, a block of many short lines cost the square of its length.
     */
    private int line(int offset) {
        int target = Math.max(0, Math.min(offset, text.length()));
        if (target < countedTo) {
            countedTo = 0;
            countedLine = 0;
        }
        for (; countedTo < target; countedTo++) {
            if (text.charAt(countedTo) == '\n') {
                countedLine++;
            }
        }
        return countedLine;
    }

    private static final class SessionBuilder {
        final String name;
        String label;
        final List<StepBuilder> steps = new ArrayList<>();
        String setup;
        String teardown;

        SessionBuilder(String name) {
            this.name = name;
        }
    }

    private static final class StepBuilder {
        final String name;
        final int line;
        String sql;
        List<String> waitsFor = List.of();
        String expectError;
        String expectMessage;
        List<String> expectNotices;
        String completesAfter;
        final List<ExpectedRows> expectedRows = new ArrayList<>();

        StepBuilder(String name, int line) {
            this.name = name;
            this.line = line;
        }
    }
}
