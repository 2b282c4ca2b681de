package dev.kensho.generator.markdown;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a reader sees of a fence, as Expressive Code shows it: the code (a first-line file comment
 * taken out as the title, the +/- column of {@code diff lang="js"} taken out), its language, title,
 * and the class of each marked, inserted or deleted line. Worked out in one place, so that markers
 * found when the page is read fall on the same characters when it is rendered.
 *
 * @param text        the code shown, without the final line break
 * @param language    the language it is highlighted as ("text" when none)
 * @param title       the caption, or ""
 * @param lineClasses line number (from 1) → "marked", "ins" or "del"
 */
public record CodeDisplay(String text, String language, String title, Map<Integer, String> lineClasses) {

    private static final Pattern FILE_COMMENT =
            Pattern.compile("^(?://|#|--|<!--)\\s*([\\w./-]+\\.[A-Za-z0-9]+)\\s*(?:-->)?[ \\t]*$", Pattern.MULTILINE);
    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");
    /** Languages whose code Kensho runs: a leading comment there is part of the SQL, not a title. */
    private static final Set<String> RUN = Set.of("sql", "scenario");
    /**
     * A language name as a fence's first word can hold one: a page's {@code diff lang="…"} or {@code <Code lang="…">} goes
     * into the block's class and data-language, where a space would add classes of the theme's own (its evidence's).
     */
    private static final Pattern LANGUAGE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_+#.-]{0,31}");

    /** Whether {@code name} can be a code block's language (see {@link #LANGUAGE}). */
    public static boolean isLanguageName(String name) {
        return LANGUAGE.matcher(name).matches();
    }

    /**
     * Whether code shown as {@code language} reads as SQL to a reader: ```sql, ```scenario and SQL's other names
     * (```postgresql, ```psql, …), all highlighted with SQL's grammar, whether a fence, a {@code diff lang="sql"} or a {@code <Code lang="sql">} shows it. Such code that the
     * build did not run is labelled as not verified, wherever it is shown: highlighted as SQL without a mark, it would
     * look like checked code (red team helper-98, helper-101).
     */
    public static boolean readsAsSql(String language) {
        String name = language.toLowerCase(Locale.ROOT);
        return name.equals("sql") || name.equals("scenario") || MarkdownDocument.UNVERIFIED_SQL_LANGUAGES.contains(name);
    }

    /** The values {@code frame=} takes, as Expressive Code's: the theme writes the value into the block's class. */
    public static final Set<String> FRAMES = Set.of("code", "terminal", "none", "auto");

    public CodeDisplay {
        lineClasses = Map.copyOf(lineClasses);
    }

    public static CodeDisplay of(FenceInfo info, String code) {
        String text = code.endsWith("\n") ? code.substring(0, code.length() - 1) : code;
        String language = info.language().isEmpty() ? "text" : info.language();
        String title = info.meta().getOrDefault("title", "");
        // Expressive Code takes a first-line comment naming a file as the block's title (display only).
        Matcher fileComment = FILE_COMMENT.matcher(text);
        if (title.isEmpty() && !RUN.contains(language) && fileComment.lookingAt()) {
            title = fileComment.group(1);
            text = text.substring(Math.min(text.length(), fileComment.end() + 1));
        }
        Map<Integer, String> lineClasses = lineClasses(info);
        if (language.equals("diff") && info.meta().containsKey("lang")) {
            // Expressive Code's diff lang="js": +/- lines become inserted/deleted lines of highlighted js.
            StringBuilder stripped = new StringBuilder();
            String[] lines = text.split("\n", -1);
            for (int n = 0; n < lines.length; n++) {
                char first = lines[n].isEmpty() ? ' ' : lines[n].charAt(0);
                if (first == '+' || first == '-') {
                    lineClasses.putIfAbsent(n + 1, first == '+' ? "ins" : "del");
                }
                stripped.append(first == '+' || first == '-' || first == ' ' ? lines[n].substring(Math.min(1, lines[n].length())) : lines[n]);
                stripped.append(n < lines.length - 1 ? "\n" : "");
            }
            text = stripped.toString();
            language = info.meta().get("lang").toLowerCase(Locale.ROOT);
        }
        return new CodeDisplay(text, language, title, lineClasses);
    }

    /** Line classes as Expressive Code names them: {@code {2,4-5}}/{@code mark=} marked, {@code ins=} inserted, {@code del=} deleted. */
    private static Map<Integer, String> lineClasses(FenceInfo info) {
        Map<Integer, String> classes = new TreeMap<>();
        info.meta().forEach((key, value) -> {
            if (key.startsWith("{")) {
                ranges(key).forEach(line -> classes.put(line, "marked"));
            } else if (key.equals("mark") || key.equals("ins") || key.equals("del")) {
                String kind = key.equals("mark") ? "marked" : key;
                ranges(value).forEach(line -> classes.put(line, kind));
            }
        });
        return classes;
    }

    /** Line numbers (1-based) named by a range list such as "2,4-5". */
    public static Set<Integer> ranges(String text) {
        Set<Integer> lines = new TreeSet<>();
        Matcher matcher = RANGE.matcher(text);
        while (matcher.find()) {
            int from = Integer.parseInt(matcher.group(1));
            int to = matcher.group(2) == null ? from : Integer.parseInt(matcher.group(2));
            for (int line = from; line <= to && line - from < 10_000; line++) {
                lines.add(line);
            }
        }
        return lines;
    }
}
