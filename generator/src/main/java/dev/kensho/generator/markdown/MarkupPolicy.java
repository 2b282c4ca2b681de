package dev.kensho.generator.markdown;

import com.vladsch.flexmark.ast.AutoLink;
import com.vladsch.flexmark.ast.HtmlBlock;
import com.vladsch.flexmark.ast.HtmlInline;
import com.vladsch.flexmark.ast.Image;
import com.vladsch.flexmark.ast.Link;
import com.vladsch.flexmark.ast.Reference;
import com.vladsch.flexmark.util.ast.Document;
import com.vladsch.flexmark.util.ast.Node;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.UrlSchemes;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Element;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What contributor markup may put on the published site: nothing that runs script. Raw HTML in
 * Markdown may use only the elements and attributes below (no event handlers, no style, no
 * script, iframe, object or form); every link, image and URL-like component attribute must be
 * relative or use http, https, mailto or tel. Anything else fails the build at its line.
 */
public final class MarkupPolicy {

    static final Set<String> ELEMENTS = Set.of("a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del",
            "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
            "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strong",
            "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
            "picture", "source", "section", "aside", "center");
    static final Set<String> ATTRIBUTES = Set.of("class", "id", "lang", "title", "dir", "href", "src", "srcset", "alt", "width",
            "height", "loading", "decoding", "colspan", "rowspan", "scope", "align", "open", "datetime", "cite", "name", "start",
            "reversed", "type", "media", "sizes", "target", "rel", "role", "aria-label", "aria-hidden", "aria-describedby");
    private static final Set<String> URL_ATTRIBUTES = Set.of("href", "src", "srcset", "cite");

    private MarkupPolicy() {
    }

    /** Why a piece of raw HTML may not be published, or null. */
    static String htmlProblem(String html) {
        String withoutComments = html.replaceAll("(?s)<!--.*?-->", "");
        if (withoutComments.isBlank()) {
            return null;
        }
        for (Element element : Jsoup.parseBodyFragment(withoutComments).body().getAllElements()) {
            if (element.tagName().equals("body")) {
                continue;
            }
            if (!ELEMENTS.contains(element.tagName())) {
                return "raw HTML <" + element.tagName() + "> is not allowed: contributor markup may not run script or embed "
                        + "other content (allowed elements: " + String.join(", ", new TreeSet<>(ELEMENTS)) + ")";
            }
            for (Attribute attribute : element.attributes()) {
                String key = attribute.getKey().toLowerCase(Locale.ROOT);
                if (!ATTRIBUTES.contains(key)) {
                    return "raw HTML <" + element.tagName() + " " + attribute.getKey() + "> is not allowed"
                            + (key.startsWith("on") ? ": an event handler would run script" : "");
                }
                if (URL_ATTRIBUTES.contains(key)) {
                    for (String part : key.equals("srcset") ? attribute.getValue().split(",") : new String[]{attribute.getValue()}) {
                        String problem = UrlSchemes.problem(part.strip());
                        if (problem != null) {
                            return "<" + element.tagName() + " " + attribute.getKey() + ">: " + problem;
                        }
                    }
                }
            }
        }
        return null;
    }

    /** Checks raw HTML and link destinations in a parsed page; problems go to {@code diagnostics} at their lines. */
    static void check(Document document, Page page, String body, List<Diagnostic> diagnostics) {
        String[] lines = body.split("\n", -1);
        for (Node node : document.getDescendants()) {
            String problem = null;
            if (node instanceof HtmlBlock || node instanceof HtmlInline) {
                problem = htmlProblem(node.getChars().toString());
            } else if (node instanceof Link link) {
                problem = UrlSchemes.problem(link.getUrl().toString());
            } else if (node instanceof Image image) {
                problem = UrlSchemes.problem(image.getUrl().toString());
            } else if (node instanceof AutoLink link) {
                problem = UrlSchemes.problem(link.getUrl().toString());
            } else if (node instanceof Reference reference) {
                problem = UrlSchemes.problem(reference.getUrl().toString());
            }
            if (problem != null) {
                int line = node.getStartLineNumber() + 1;
                String source = line - 1 < lines.length ? lines[line - 1] : null;
                int column = source == null ? 1 : Math.max(1, node.getStartOffset() - node.getDocument().getChars().startOfLine(node.getStartOffset()) + 1);
                diagnostics.add(Diagnostic.at(page.displayPath(), line, column, problem, source));
            }
        }
    }

    /** Checks a component's attributes: any value that reads as a URL with a forbidden scheme is refused. */
    static String attributeProblem(Map<String, Object> attributes) {
        for (Map.Entry<String, Object> attribute : attributes.entrySet()) {
            String problem = valueProblem(attribute.getKey(), attribute.getValue());
            if (problem != null) {
                return attribute.getKey() + (attribute.getValue() instanceof String ? "=\"…\": " : "={…}: ") + problem;
            }
        }
        return null;
    }

    /** Checks a value and, inside objects and arrays, every value under it by the key it is filed under. */
    private static String valueProblem(String key, Object value) {
        if (value instanceof String text) {
            String problem = UrlSchemes.problem(text);
            // href and src are URLs; any other value is refused only when it reads as a script URL.
            return problem != null && (URL_ATTRIBUTES.contains(key.toLowerCase(Locale.ROOT)) || isDangerous(text)) ? problem : null;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String problem = valueProblem(String.valueOf(entry.getKey()), entry.getValue());
                if (problem != null) {
                    return problem;
                }
            }
        }
        if (value instanceof List<?> list) {
            for (Object item : list) {
                String problem = valueProblem(key, item);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    private static boolean isDangerous(String value) {
        String scheme = UrlSchemes.scheme(value);
        return "javascript".equals(scheme) || "vbscript".equals(scheme) || "data".equals(scheme);
    }
}
