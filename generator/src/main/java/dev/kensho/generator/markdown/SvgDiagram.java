package dev.kensho.generator.markdown;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.CDataNode;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.parser.Parser;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.TreeSet;

/**
 * An SVG diagram sanitised by allow-list and prepared for inlining. Only drawing elements and
 * presentation attributes pass; references may point only inside the document ({@code #id},
 * {@code url(#id)}); comments, processing instructions, CDATA and declarations are dropped; an
 * element or attribute outside the list is refused with a message naming it, rather than dropped,
 * so that the author sees what will not be published. Inlined rather than linked, so it follows
 * the page's light or dark theme and its text stays selectable and searchable.
 */
public final class SvgDiagram {

    private static final Set<String> ELEMENTS = Set.of("svg", "g", "defs", "symbol", "use", "title", "desc", "path", "rect",
            "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan", "textpath", "marker", "lineargradient",
            "radialgradient", "stop", "clippath", "mask", "pattern");
    private static final Set<String> TEXT_ELEMENTS = Set.of("text", "tspan", "textpath", "title", "desc");
    private static final Set<String> ATTRIBUTES = Set.of("id", "class", "viewbox", "preserveaspectratio", "xmlns", "xmlns:xlink",
            "version", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height", "d", "points",
            "transform", "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
            "stroke-dashoffset", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "opacity", "font-family", "font-size",
            "font-weight", "font-style", "text-anchor", "dominant-baseline", "alignment-baseline", "baseline-shift",
            "letter-spacing", "word-spacing", "text-decoration", "dx", "dy", "rotate", "textlength", "lengthadjust",
            "marker-start", "marker-mid", "marker-end", "markerwidth", "markerheight", "markerunits", "refx", "refy", "orient",
            "offset", "stop-color", "stop-opacity", "gradientunits", "gradienttransform", "spreadmethod", "fx", "fy",
            "clip-path", "clippathunits", "clip-rule", "mask", "maskunits", "patternunits", "patterncontentunits",
            "patterntransform", "href", "xlink:href", "role", "aria-label", "aria-hidden", "focusable", "vector-effect",
            "paint-order", "shape-rendering", "visibility", "display", "style", "color", "startoffset", "pathlength", "overflow");
    /** In any attribute: a reference out of the document or a way to run or load something. */
    private static final Pattern UNSAFE_VALUE = Pattern.compile(
            "url\\s*\\((?!\\s*['\"]?\\s*#)|@import|expression\\s*\\(|image-set|-moz-binding|behavior\\s*:|\\\\|javascript|vbscript|data\\s*:",
            Pattern.CASE_INSENSITIVE);
    /**
     * CSS properties a {@code style} attribute may set: presentation only. Not position, transform,
     * size or overflow, with which a diagram could lay itself over the rest of the page.
     */
    private static final Set<String> STYLE_PROPERTIES = Set.of("fill", "fill-opacity", "fill-rule", "stroke", "stroke-width",
            "stroke-opacity", "stroke-dasharray", "stroke-dashoffset", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit",
            "opacity", "font-family", "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline",
            "alignment-baseline", "baseline-shift", "letter-spacing", "word-spacing", "text-decoration", "stop-color",
            "stop-opacity", "color", "visibility", "display", "paint-order", "shape-rendering", "vector-effect", "clip-rule",
            "clip-path", "mask", "marker-start", "marker-mid", "marker-end");
    private static final int MAX_ELEMENTS = 20_000;
    private static final int MAX_DEPTH = 64;

    private SvgDiagram() {
    }

    /** A diagram that cannot be used; the message says what to change. */
    public static final class Problem extends Exception {
        Problem(String message) {
            super(message);
        }
    }

    /**
     * @param name what to call the file in messages
     * @param alt  the text alternative, put in the SVG's title and aria-label
     * @return the SVG element's markup, ready to inline
     */
    public static String sanitize(String text, String name, String alt, String idPrefix) throws Problem {
        Document document = Jsoup.parse(text, "", Parser.xmlParser());
        Element svg = document.children().stream().filter(e -> e.tagName().equals("svg")).findFirst()
                .orElseThrow(() -> new Problem(name + " is not an SVG document (no <svg> root element)"));
        int[] count = {0};
        check(svg, name, 0, count);
        // Ids are prefixed so that two diagrams on one page cannot collide.
        for (Element element : svg.getAllElements()) {
            if (element.hasAttr("id")) {
                element.attr("id", idPrefix + element.attr("id"));
            }
            for (Attribute attribute : element.attributes()) {
                String value = attribute.getValue();
                if (attribute.getKey().toLowerCase(Locale.ROOT).endsWith("href")) {
                    element.attr(attribute.getKey(), "#" + idPrefix + value.strip().substring(1));
                } else if (value.contains("url(#")) {
                    element.attr(attribute.getKey(), value.replace("url(#", "url(#" + idPrefix));
                }
            }
        }
        svg.select("> title").remove();
        svg.prependElement("title").text(alt);
        svg.attr("role", "img");
        svg.attr("aria-label", alt);
        svg.removeAttr("width");
        svg.removeAttr("height");
        svg.addClass("diagram-svg");
        document.outputSettings().prettyPrint(false).syntax(Document.OutputSettings.Syntax.xml);
        return svg.outerHtml();
    }

    /**
     * An SVG file from content/ as the site publishes it (a hero image, say): sanitised exactly as a
     * diagram is, then written again as a document of its own; its size and ids are kept.
     */
    public static String standalone(String text, String name) throws Problem {
        Document document = Jsoup.parse(text, "", Parser.xmlParser());
        Element svg = document.children().stream().filter(e -> e.tagName().equals("svg")).findFirst()
                .orElseThrow(() -> new Problem(name + " is not an SVG document (no <svg> root element)"));
        check(svg, name, 0, new int[]{0});
        svg.attr("xmlns", "http://www.w3.org/2000/svg");
        document.outputSettings().prettyPrint(false).syntax(Document.OutputSettings.Syntax.xml);
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg.outerHtml() + "\n";
    }

    /** Refuses what is not on the lists and removes every node that is neither an element nor drawn text. */
    private static void check(Element element, String name, int depth, int[] count) throws Problem {
        String tag = element.tagName().toLowerCase(Locale.ROOT);
        if (!ELEMENTS.contains(tag)) {
            throw new Problem(name + " contains <" + element.tagName() + ">, which is not a drawing element Kensho publishes"
                    + (tag.equals("style") ? " (a <style> would restyle the whole page; use presentation attributes such as fill= and font-size=)"
                    : tag.equals("animate") || tag.equals("set") ? " (animation could change links and run script)" : "")
                    + "; allowed: " + String.join(", ", new TreeSet<>(ELEMENTS)));
        }
        if (depth > MAX_DEPTH || ++count[0] > MAX_ELEMENTS) {
            throw new Problem(name + " nests deeper than " + MAX_DEPTH + " levels or has more than " + MAX_ELEMENTS + " elements");
        }
        for (Attribute attribute : element.attributes()) {
            String key = attribute.getKey().toLowerCase(Locale.ROOT);
            String value = attribute.getValue();
            if (!ATTRIBUTES.contains(key)) {
                throw new Problem(name + ": <" + element.tagName() + " " + attribute.getKey() + "> is not an attribute Kensho publishes"
                        + (key.startsWith("on") ? " (an event handler would run script)" : ""));
            }
            if (key.endsWith("href") && !value.strip().startsWith("#")) {
                throw new Problem(name + ": <" + element.tagName() + " " + attribute.getKey()
                        + "> refers outside the document; only #fragment references are allowed");
            }
            if (key.equals("style")) {
                for (String declaration : value.split(";")) {
                    String property = declaration.contains(":") ? declaration.substring(0, declaration.indexOf(':')).strip().toLowerCase(Locale.ROOT) : "";
                    if (!declaration.isBlank() && !STYLE_PROPERTIES.contains(property)) {
                        throw new Problem(name + ": <" + element.tagName() + " style> sets '" + (property.isEmpty() ? declaration.strip() : property)
                                + "'; a diagram's style may set only presentation properties (" + String.join(", ", new TreeSet<>(STYLE_PROPERTIES))
                                + "), nothing that moves it over the page");
                    }
                }
            }
            if (depth == 0 && key.equals("overflow")) {
                throw new Problem(name + ": <svg overflow> is not allowed on the diagram itself: drawing outside it could cover the page");
            }
            String compact = value.replaceAll("[\\s\\p{Cntrl}]", "");
            if (!key.equals("aria-label") && (UNSAFE_VALUE.matcher(value).find() || UNSAFE_VALUE.matcher(compact).find())) {
                throw new Problem(name + ": <" + element.tagName() + " " + attribute.getKey()
                        + "> refers outside the document or could run script; only url(#id) references are allowed");
            }
        }
        List<Node> children = new ArrayList<>(element.childNodes());
        for (Node child : children) {
            if (child instanceof Element childElement) {
                check(childElement, name, depth + 1, count);
            } else if (!(child instanceof TextNode) || child instanceof CDataNode || !TEXT_ELEMENTS.contains(tag)) {
                child.remove(); // comments, processing instructions, CDATA, declarations, stray text
            }
        }
    }
}
