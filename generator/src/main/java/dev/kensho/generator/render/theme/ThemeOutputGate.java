package dev.kensho.generator.render.theme;

import dev.kensho.generator.content.UrlSchemes;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;

import java.util.Locale;
import java.util.Set;

/**
 * What a site's own templates write may not run script on the published site (red team helper-98): a site's theme
 * comes with the change being built, as content does. Its pages may load scripts only from the site itself (the
 * theme's assets, which are Kensho's own scripts byte for byte, and what the build generates), and carry no inline
 * script, no event handler, no URL of a scheme that runs script (javascript:, vbscript:, data:), no frame, object,
 * embed or base. Content inside the pages passed {@link HtmlGate} already; this is the gate of the theme's output.
 * Applied only when the site's templates or components differ from the built-in theme's ({@link Theme}): Kensho's own
 * templates write none of these.
 */
final class ThemeOutputGate {

    private static final Set<String> NO_ELEMENT = Set.of("iframe", "frame", "frameset", "object", "embed", "applet", "base", "portal");
    /** Schemes a script may hide behind in any attribute a browser may follow or run (SMIL's to= and values= too). */
    private static final Set<String> SCRIPT_SCHEMES = Set.of("javascript", "vbscript", "data", "livescript");

    private ThemeOutputGate() {
    }

    private static int occurrences(String html, String what) {
        String lower = html.toLowerCase(Locale.ROOT);
        int count = 0;
        for (int at = lower.indexOf(what); at >= 0; at = lower.indexOf(what, at + 1)) {
            count++;
        }
        return count;
    }

    /** Why the rendered HTML may not be published, naming the element; null when it may. */
    static String problem(String html) {
        Document document = Jsoup.parse(html);
        // jsoup reads <noscript> as a browser with scripting off does, as markup; a browser with scripting on reads it
        // as text up to the first "</noscript", wherever that is (an attribute, a comment, a <style> inside): a
        // template could hide "</noscript><img onerror=…>" where jsoup sees none of it (red team helper-99). Each
        // "<noscript" and "</noscript" of the text must be one jsoup read as such.
        int elements = document.select("noscript").size();
        if (occurrences(html, "<noscript") != elements || occurrences(html, "</noscript") > elements) {
            return "a <noscript> a browser would end elsewhere than the markup reads (\"</noscript\" inside an attribute, a comment or text)";
        }
        for (Element element : document.getAllElements()) {
            String tag = element.normalName();
            if (tag.equals("script")) {
                if (!element.hasAttr("src") || !element.data().isBlank()) {
                    return "an inline <script>";
                }
                String src = element.attr("src").trim();
                if (src.startsWith("//") || src.startsWith("\\\\") || UrlSchemes.scheme(src) != null) {
                    return "<script src=\"" + src + "\">, a script from outside the site";
                }
            }
            if (NO_ELEMENT.contains(tag)) {
                return "<" + tag + ">";
            }
            for (Attribute attribute : element.attributes()) {
                String name = attribute.getKey().toLowerCase(Locale.ROOT);
                if (name.startsWith("on")) {
                    return "<" + tag + " " + name + ">, an event handler";
                }
                String value = attribute.getValue();
                if (name.equals("content") && element.attr("http-equiv").equalsIgnoreCase("refresh")) {
                    int url = value.toLowerCase(Locale.ROOT).indexOf("url=");
                    value = url < 0 ? "" : value.substring(url + 4);
                }
                String scheme = UrlSchemes.scheme(value);
                if (scheme != null && SCRIPT_SCHEMES.contains(scheme) && !(tag.equals("img") && name.equals("src") && scheme.equals("data"))) {
                    return "<" + tag + " " + name + "=\"" + scheme + ":…\">, a URL that runs script";
                }
                if (name.equals("srcdoc")) {
                    return "<" + tag + " srcdoc>";
                }
            }
        }
        return null;
    }
}
