package dev.kensho.generator.markdown;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.parser.Parser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An SVG diagram checked and prepared for inlining: parsed with jsoup's XML parser, refused when it
 * could run script or fetch anything from outside the document, and given its text alternative.
 * Inlined rather than linked, so it follows the page's light or dark theme and its text stays
 * selectable and searchable.
 */
public final class SvgDiagram {

    private static final Set<String> FORBIDDEN_ELEMENTS = Set.of("script", "foreignobject", "iframe", "object", "embed",
            "handler", "listener", "audio", "video");
    private static final Pattern OUTSIDE_URL = Pattern.compile("url\\(\\s*['\"]?\\s*(?!#)", Pattern.CASE_INSENSITIVE);

    private SvgDiagram() {
    }

    /** A diagram that cannot be used; the message says what to change. */
    public static final class Problem extends Exception {
        Problem(String message) {
            super(message);
        }
    }

    /**
     * @param alt the text alternative, put in the SVG's title and aria-label
     * @return the SVG element's markup, ready to inline
     */
    public static String load(Path file, String alt, String idPrefix) throws Problem {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Problem("cannot read diagram " + file + ": " + e.getMessage());
        }
        Document document = Jsoup.parse(text, "", Parser.xmlParser());
        Element svg = document.children().stream().filter(e -> e.tagName().equals("svg")).findFirst()
                .orElseThrow(() -> new Problem(file.getFileName() + " is not an SVG document (no <svg> root element)"));
        for (Element element : svg.getAllElements()) {
            String name = element.tagName().toLowerCase(Locale.ROOT);
            if (FORBIDDEN_ELEMENTS.contains(name)) {
                throw new Problem(file.getFileName() + " contains <" + element.tagName() + ">, which could run script or embed "
                        + "other content; diagrams may hold only drawing elements");
            }
            if (name.equals("style") && (element.data().toLowerCase(Locale.ROOT).contains("@import") || OUTSIDE_URL.matcher(element.data()).find())) {
                throw new Problem(file.getFileName() + " has a <style> that loads something from outside the document");
            }
            for (Attribute attribute : element.attributes()) {
                String key = attribute.getKey().toLowerCase(Locale.ROOT);
                String value = attribute.getValue().strip();
                if (key.startsWith("on")) {
                    throw new Problem(file.getFileName() + ": <" + element.tagName() + " " + attribute.getKey()
                            + "> is an event handler; diagrams may not carry script");
                }
                if ((key.equals("href") || key.endsWith(":href") || key.equals("src")) && !value.startsWith("#")) {
                    throw new Problem(file.getFileName() + ": <" + element.tagName() + " " + attribute.getKey() + "=\"" + value
                            + "\"> refers outside the document; only #fragment references are allowed");
                }
                if (value.toLowerCase(Locale.ROOT).contains("javascript:") || OUTSIDE_URL.matcher(value).find()) {
                    throw new Problem(file.getFileName() + ": <" + element.tagName() + " " + attribute.getKey()
                            + "> refers outside the document");
                }
            }
        }
        // Ids are prefixed so that two diagrams on one page cannot collide.
        for (Element element : svg.getAllElements()) {
            if (element.hasAttr("id")) {
                element.attr("id", idPrefix + element.attr("id"));
            }
            for (Attribute attribute : element.attributes()) {
                String value = attribute.getValue();
                if ((attribute.getKey().endsWith("href")) && value.startsWith("#")) {
                    element.attr(attribute.getKey(), "#" + idPrefix + value.substring(1));
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
}
