package dev.kensho.sqlchecks.assertion;

import java.util.Locale;

/** Facts about a statement's text that assertions need, read outside strings, identifiers and comments. */
public final class SqlText {

    private SqlText() {
    }

    /** True when ORDER BY appears at parenthesis depth 0, i.e. it sorts the statement's own result. */
    public static boolean hasTopLevelOrderBy(String sql) {
        String code = blankOutLiterals(sql).toLowerCase(Locale.ROOT);
        int depth = 0;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && code.startsWith("order", i) && (i == 0 || !Character.isLetterOrDigit(code.charAt(i - 1)))) {
                String rest = code.substring(i + 5).stripLeading();
                if (rest.startsWith("by") && (rest.length() == 2 || !Character.isLetterOrDigit(rest.charAt(2)))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The highest {@code $n} placeholder in the statement, 0 when it has none. */
    public static int highestPlaceholder(String sql) {
        var matcher = java.util.regex.Pattern.compile("(?<![\\w$])\\$(\\d+)").matcher(blankOutLiterals(sql));
        int highest = 0;
        while (matcher.find()) {
            highest = Math.max(highest, Integer.parseInt(matcher.group(1)));
        }
        return highest;
    }

    /** Replaces quoted strings, quoted identifiers and comments with spaces, keeping offsets. */
    static String blankOutLiterals(String sql) {
        char[] out = sql.toCharArray();
        int i = 0;
        while (i < out.length) {
            char c = sql.charAt(i);
            int end;
            if (c == '\'' || c == '"') {
                end = sql.indexOf(c, i + 1);
                end = end < 0 ? out.length : end + 1;
            } else if (sql.startsWith("--", i)) {
                end = sql.indexOf('\n', i);
                end = end < 0 ? out.length : end;
            } else if (sql.startsWith("/*", i)) {
                end = sql.indexOf("*/", i + 2);
                end = end < 0 ? out.length : end + 2;
            } else {
                i++;
                continue;
            }
            for (int j = i; j < end; j++) {
                out[j] = ' ';
            }
            i = end;
        }
        return new String(out);
    }
}
