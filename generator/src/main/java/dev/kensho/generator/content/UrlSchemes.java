package dev.kensho.generator.content;

import org.jsoup.parser.Parser;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which URLs contributor content may put on the published site: relative ones, and http, https,
 * mailto and tel. The rule of HtmlGate, which applies it to every URL attribute of contributor HTML
 * and to the values that become links in the theme's markup (components, front matter, site.yml).
 */
public final class UrlSchemes {

    private static final Set<String> ALLOWED = Set.of("http", "https", "mailto", "tel");
    private static final Pattern SCHEME = Pattern.compile("^([a-z][a-z0-9+.\\-]*):");

    private UrlSchemes() {
    }

    /** Why a URL may not be published, or null when it may. */
    public static String problem(String url) {
        String scheme = scheme(url);
        if (scheme != null && !ALLOWED.contains(scheme)) {
            return "the URL scheme '" + scheme + ":' is not allowed on the published site (use a relative link, http, https, mailto or tel)";
        }
        return null;
    }

    /** The scheme a browser reads in a URL ("javascript"), lower case, or null for a relative URL. */
    public static String scheme(String url) {
        // The browser decodes entities first, and ignores whitespace and control characters inside a
        // scheme: "java&#9;script:" is javascript:.
        String compact = Parser.unescapeEntities(url, true).replaceAll("[\\s\\p{Cntrl}]", "").toLowerCase(Locale.ROOT);
        Matcher matcher = SCHEME.matcher(compact);
        return matcher.find() ? matcher.group(1) : null;
    }
}
