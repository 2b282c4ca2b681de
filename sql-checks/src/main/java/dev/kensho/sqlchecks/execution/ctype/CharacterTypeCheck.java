package dev.kensho.sqlchecks.execution.ctype;

import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.RunOrder;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.model.SourceLocation;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whether a reader's run in the browser treats the page's characters as the build's server did. The build's C library and
 * PGlite's differ on rare code points ({@code '🥲' ~ '[[:punct:]]'} is true on glibc 2.36 and false in PGlite 0.5.16), so
 * a mark over text holding one could be a claim the reader's run does not reproduce. Every non-ASCII character of the page's
 * text (the SQL with its comments, setup, the cases of an exercise, parameter values) is looked up in the playground's table
 * ({@link PlaygroundCharacterTypes}) and asked of the build's server ({@link ServerCharacterTypes}); in run order, the first
 * snippet holding one whose rows differ fails at that character, and every later snippet that passed is not marked.
 * Characters made at run time are not seen.
 */
public final class CharacterTypeCheck {

    /** What the failure's hint says the check does not see. */
    public static final String HINT = "Kensho compares the characters written in the page's SQL and parameter values; characters made "
            + "at run time (chr(), convert_from, U&'' and E'\\U…' escapes, jsonb's \\u escapes, unistr(), data read from "
            + "elsewhere) are not seen";

    private final PlaygroundCharacterTypes playground;
    private final ServerCharacterTypes server;
    private final String serverName;

    /** @param serverVersion the build's server's version, such as {@code 18.6} */
    public CharacterTypeCheck(PlaygroundCharacterTypes playground, ServerCharacterTypes server, String serverVersion) {
        this.playground = playground;
        this.server = server;
        this.serverName = "PostgreSQL " + serverVersion;
    }

    /** A character of a snippet: where in its SQL (-1 for a parameter's value, then {@code parameter} names it). */
    private record Found(int codePoint, int index, int parameter) {
    }

    /** The outcomes, with the first snippet holding a character the two sides treat otherwise failed and later ones unmarked. */
    public List<Outcome> checked(List<Outcome> outcomes) {
        List<Snippet> snippets = outcomes.stream().map(Outcome::snippet).toList();
        List<Integer> order = runOrder(snippets);
        List<List<Found>> found = new ArrayList<>();
        Set<Integer> codePoints = new LinkedHashSet<>();
        for (int index : order) {
            List<Found> characters = characters(snippets.get(index));
            found.add(characters);
            characters.forEach(c -> codePoints.add(c.codePoint()));
        }
        if (codePoints.isEmpty()) {
            return outcomes;
        }
        Map<Integer, List<String>> built;
        try {
            built = server.rows(codePoints);
        } catch (SQLException e) {
            return unchecked(outcomes, order, found, "the build's server could not be asked how it treats the page's characters: "
                    + e.getMessage());
        }
        for (int i = 0; i < order.size(); i++) {
            for (Found character : found.get(i)) {
                List<String> serverRow = built.get(character.codePoint());
                List<String> playgroundRow = playground.row(character.codePoint());
                if (serverRow == null || playgroundRow == null || serverRow.equals(playgroundRow)) {
                    continue;
                }
                return failedFrom(outcomes, order, i, character, describe(character, serverRow, playgroundRow),
                        "whose character " + name(character.codePoint()) + " a reader's run in the browser playground ("
                                + PlaygroundCharacterTypes.ENGINE + ") treats otherwise than this build's server");
            }
        }
        return outcomes;
    }

    /** When the server could not be asked: the first snippet holding a non-ASCII character fails, loudly, at it. */
    private List<Outcome> unchecked(List<Outcome> outcomes, List<Integer> order, List<List<Found>> found, String message) {
        for (int i = 0; i < order.size(); i++) {
            if (!found.get(i).isEmpty()) {
                return failedFrom(outcomes, order, i, found.get(i).get(0), message,
                        "whose characters could not be compared with the browser playground's");
            }
        }
        return outcomes;
    }

    /**
     * The snippet at {@code order[at]} failed at {@code character} with {@code message}, and every later one that passed not
     * marked, its reason ending in {@code why} (what the failed snippet holds).
     */
    private List<Outcome> failedFrom(List<Outcome> outcomes, List<Integer> order, int at, Found character, String message, String why) {
        List<Outcome> result = new ArrayList<>(outcomes);
        int index = order.get(at);
        Outcome outcome = outcomes.get(index);
        Snippet snippet = outcome.snippet();
        int position = character.index() < 0 ? 0 : character.index();
        SourceLocation location = snippet.locate(position);
        if (outcome.status() != Outcome.Status.PASSED) {
            return outcomes; // Not marked already; what failed first says why.
        }
        result.set(index, new Outcome(snippet, Outcome.Status.FAILED,
                new Failure(message, null, location, snippet.lineAt(position), null, HINT),
                outcome.results(), outcome.assertions(), outcome.plan(), outcome.transcript(), outcome.duration()));
        for (int later = at + 1; later < order.size(); later++) {
            int laterIndex = order.get(later);
            Outcome passed = outcomes.get(laterIndex);
            if (passed.status() != Outcome.Status.PASSED) {
                continue;
            }
            Snippet laterSnippet = passed.snippet();
            result.set(laterIndex, new Outcome(laterSnippet, Outcome.Status.SKIPPED,
                    new Failure("not marked: it ran after the snippet at " + location + ", " + why, null, laterSnippet.location(), laterSnippet.lineAt(0), null, null),
                    List.of(), List.of(), null, null, passed.duration()));
        }
        return result;
    }

    /**
     * The order snippets run in ({@link RunOrder}), an exercise's cases before the answer they are run with (ScriptRunner
     * runs each case, then the answer on it).
     */
    static List<Integer> runOrder(List<Snippet> snippets) {
        List<Integer> order = new ArrayList<>();
        Set<Integer> placed = new java.util.HashSet<>();
        for (int index : RunOrder.of(snippets)) {
            if (placed.contains(index)) {
                continue; // a case, placed before its answer
            }
            if (snippets.get(index).directives().caseName() == null) {
                for (int c = index + 1; c < snippets.size() && snippets.get(c).directives().caseName() != null; c++) {
                    order.add(c);
                    placed.add(c);
                }
            }
            order.add(index);
            placed.add(index);
        }
        return order;
    }

    /** The non-ASCII characters of a snippet, each once, in the order they are written: its SQL, then its parameters' values. */
    private static List<Found> characters(Snippet snippet) {
        List<Found> found = new ArrayList<>();
        Set<Integer> seen = new LinkedHashSet<>();
        String sql = snippet.sql();
        for (int i = 0; i < sql.length(); ) {
            int codePoint = sql.codePointAt(i);
            if (codePoint > 127 && seen.add(codePoint)) {
                found.add(new Found(codePoint, i, 0));
            }
            i += Character.charCount(codePoint);
        }
        for (Directives.Parameter parameter : snippet.directives().parameters()) {
            String value = parameter.value();
            for (int i = 0; i < value.length(); ) {
                int codePoint = value.codePointAt(i);
                if (codePoint > 127 && seen.add(codePoint)) {
                    found.add(new Found(codePoint, -1, parameter.position()));
                }
                i += Character.charCount(codePoint);
            }
        }
        return found;
    }

    /** The columns in the order a difference is named: case maps first, then the classes, then the rest. */
    private static final List<String> NAMED_ORDER = List.of("uc", "lc", "ic", "al", "dg", "sp", "up", "lo", "pu", "an", "w", "pr",
            "gr", "ci", "il", "u", "l");

    private String describe(Found character, List<String> serverRow, List<String> playgroundRow) {
        String onServer = "on this build's server (" + serverName + " and the C library it runs on)";
        String inPlayground = "in the browser playground (" + PlaygroundCharacterTypes.ENGINE + ")";
        String what = null;
        for (String column : NAMED_ORDER) {
            int i = CharacterTypeQuery.COLUMNS.indexOf(column);
            String built = serverRow.get(i);
            String played = playgroundRow.get(i);
            if (built.equals(played)) {
                continue;
            }
            boolean yes = "t".equals(built);
            what = switch (column) {
                case "uc", "lc", "ic" -> "becomes " + text(built) + " under " + Map.of("uc", "upper()", "lc", "lower()", "ic", "initcap()").get(column)
                        + " " + onServer + " but " + text(played) + " " + inPlayground;
                case "ci" -> (yes ? "matches" : "does not match") + " its upper case under ~* " + onServer + " but "
                        + (yes ? "not" : "does") + " " + inPlayground;
                case "il" -> (yes ? "is" : "is not") + " ILIKE its upper case " + onServer + " but " + (yes ? "not" : "is") + " " + inPlayground;
                case "u", "l" -> (yes ? "is" : "is not") + " changed by " + (column.equals("u") ? "upper()" : "lower()") + " " + onServer
                        + " but " + (yes ? "not" : "is") + " " + inPlayground;
                default -> {
                    String cls = column.equals("w") ? "\\w" : "[[:" + Map.of("al", "alpha", "dg", "digit", "sp", "space", "up", "upper", "lo",
                            "lower", "pu", "punct", "an", "alnum", "pr", "print", "gr", "graph").get(column) + ":]]";
                    yield (yes ? "is " : "is not ") + cls + " " + onServer + " but " + (yes ? "not" : "is") + " " + inPlayground;
                }
            };
            break;
        }
        String where = character.parameter() > 0 ? " (in the value of $" + character.parameter() + ")" : "";
        return "the character " + name(character.codePoint()) + where + " " + what + ": a reader's run of this page could differ from the build's";
    }

    /** {@code U+1F972 '🥲'}; the character itself only when it shows as itself (not a control, a mark, a space, private use). */
    static String name(int codePoint) {
        String code = "U+" + String.format(Locale.ROOT, "%04X", codePoint);
        int type = Character.getType(codePoint);
        // Characters of Unicode versions newer than this JDK's (🩷, Unicode 15, under Java 17) count as unassigned here: shown.
        boolean shows = type != Character.CONTROL && type != Character.FORMAT && type != Character.PRIVATE_USE && type != Character.SURROGATE && type != Character.NON_SPACING_MARK
                && type != Character.ENCLOSING_MARK && type != Character.COMBINING_SPACING_MARK && !Character.isWhitespace(codePoint)
                && !Character.isSpaceChar(codePoint) && codePoint != '\'';
        return shows ? code + " '" + new String(Character.toChars(codePoint)) + "'" : code;
    }

    /** A case map's dot-joined code points as text: {@code 'ẞ'}. */
    private static String text(String codePoints) {
        StringBuilder text = new StringBuilder("'");
        for (String point : codePoints.split("\\.")) {
            if (!point.isEmpty()) {
                text.appendCodePoint(Integer.parseInt(point));
            }
        }
        return text.append("'").toString();
    }
}
