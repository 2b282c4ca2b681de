package dev.kensho.generator.markdown;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What contributor CSS (site.yml's {@code customCss} and a page's {@code head} {@code <style>}) may hold on the
 * published site: styles for this site's own elements ({@link StyleSheetReach}: nothing that reaches, draws over or
 * hides the theme's evidence), and nothing that loads from other hosts, runs script or closes the style element. Refused: {@code @import}, a
 * {@code url()}, {@code src()} or {@code image-set()} naming another host or scheme ({@code https:}, {@code //},
 * {@code data:}, {@code javascript:}), {@code expression(}, {@code behavior:}, {@code -moz-binding} and
 * {@code </style}. CSS escapes are decoded and comments removed before looking, so {@code @\69mport} and
 * {@code @im/**}{@code /port} are read as the browser reads them. That text scan is a deny-list for one narrow
 * question, kept small on purpose; what a rule may style is an allow-list over the parsed sheet.
 */
public final class StyleSheetPolicy {

    /** A refused construct, at its line and column (from 1) in the original text. */
    public record Problem(int line, int column, String message) {
    }

    private static final Pattern FORBIDDEN = Pattern.compile(
            "@import|expression\\s*\\(|behavior\\s*:|-moz-binding|</style|javascript:");
    private static final Pattern URL_FUNCTION = Pattern.compile(
            "(?:url|src|image-set|-webkit-image-set|image|cross-fade)\\(\\s*(\"[^\"]*\"|'[^']*'|[^)\\s\"']*)");
    private static final Pattern STRING = Pattern.compile("\"[^\"]*\"|'[^']*'");
    private static final Pattern OTHER_HOST = Pattern.compile("^\\s*(?://|[a-z][a-z0-9+.\\-]*:)");

    private StyleSheetPolicy() {
    }

    public static List<Problem> problems(String css) {
        // decoded.charAt(i) came from css.charAt(origin[i]).
        int[] origin = new int[css.length() + 1];
        StringBuilder decoded = new StringBuilder(css.length());
        for (int i = 0; i < css.length(); ) {
            char c = css.charAt(i);
            if (c == '/' && i + 1 < css.length() && css.charAt(i + 1) == '*') {
                int end = css.indexOf("*/", i + 2);
                i = end < 0 ? css.length() : end + 2;
                continue;
            }
            if (c == '\\' && i + 1 < css.length()) {
                int j = i + 1;
                while (j < css.length() && j - i <= 6 && Character.digit(css.charAt(j), 16) >= 0) {
                    j++;
                }
                origin[decoded.length()] = i;
                if (j > i + 1) {
                    int code = Integer.parseInt(css.substring(i + 1, j), 16);
                    decoded.appendCodePoint(code == 0 || code > Character.MAX_CODE_POINT || Character.isSurrogate((char) code) ? 0xFFFD : code);
                    if (j < css.length() && Character.isWhitespace(css.charAt(j))) {
                        j++;
                    }
                    i = j;
                } else {
                    decoded.append(css.charAt(i + 1));
                    i += 2;
                }
                continue;
            }
            origin[decoded.length()] = i;
            decoded.append(c);
            i++;
        }
        String text = decoded.toString().toLowerCase(Locale.ROOT);
        List<Problem> problems = new ArrayList<>();
        // Inside a <style> element HTML ends at the raw text "</style", comments and escapes notwithstanding.
        int rawClose = css.toLowerCase(Locale.ROOT).indexOf("</style");
        if (rawClose >= 0 && !text.contains("</style")) {
            problems.add(at(css, rawClose, "'</style' is not allowed in custom CSS"));
        }
        Matcher forbidden = FORBIDDEN.matcher(text);
        while (forbidden.find()) {
            problems.add(at(css, origin[forbidden.start()], "'" + forbidden.group() + "' is not allowed in custom CSS"
                    + (forbidden.group().equals("@import") ? " (list each file in customCss instead)" : "")));
        }
        Matcher function = URL_FUNCTION.matcher(text);
        while (function.find()) {
            List<String> targets = new ArrayList<>();
            targets.add(function.group(1));
            if (!function.group().startsWith("url") && !function.group().startsWith("src")) {
                int close = text.indexOf(')', function.end());
                Matcher strings = STRING.matcher(text.substring(function.start(), close < 0 ? text.length() : close));
                while (strings.find()) {
                    targets.add(strings.group());
                }
            }
            for (String target : targets) {
                String unquoted = target.replaceAll("^[\"']|[\"']$", "");
                if (OTHER_HOST.matcher(unquoted).find()) {
                    problems.add(at(css, origin[function.start()], "custom CSS may load only files of this site (a relative URL), not '"
                            + unquoted.strip() + "'"));
                    break;
                }
            }
        }
        problems.addAll(StyleSheetReach.problems(css));
        problems.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line()) : Integer.compare(a.column(), b.column()));
        return problems;
    }

    private static Problem at(String css, int offset, String message) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < offset && i < css.length(); i++) {
            if (css.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new Problem(line, offset - lineStart + 1, message);
    }
}
