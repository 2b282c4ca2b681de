package dev.kensho.generator.markdown;

import java.util.Map;
import java.util.Collections;
import java.util.LinkedHashMap;

/**
 * One JSX-like tag found in a page, replaced in the Markdown by a marker comment that the render
 * stage turns back into the component's HTML.
 *
 * @param id         index of the tag within the page, used in the marker
 * @param kind       opening, closing, self-closing, or a whole component written on one line
 * @param name       component name, such as {@code Aside}
 * @param attributes attribute values: String, Long, Double, Boolean, or Map/List of those from {@code {{…}}} and
 *                   {@code {[…]}} (empty for a closing tag)
 * @param line       1-based line in the author's file
 * @param inlineMarkdown the content of a one-line component, else null
 */
public record ComponentTag(int id, Kind kind, String name, Map<String, Object> attributes, int line, String inlineMarkdown) {

    public enum Kind { OPEN, CLOSE, SELF_CLOSING, ONE_LINE }

    public ComponentTag {
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    public String marker() {
        return marker(id);
    }

    /**
     * Differs from run to run, so that a page cannot write a marker itself (and move or repeat a
     * component the theme renders); markers never reach the output.
     */
    public static final String MARKER_KEY = Long.toHexString(new java.security.SecureRandom().nextLong() | Long.MIN_VALUE);

    public static String marker(int id) {
        return "<!--kensho:" + MARKER_KEY + ":" + id + "-->";
    }
}
