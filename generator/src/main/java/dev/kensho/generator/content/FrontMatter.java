package dev.kensho.generator.content;

import java.util.Map;

/**
 * What a page says about itself in its YAML header.
 *
 * @param title        shown in the heading, the sidebar and the window title (required)
 * @param description  one sentence for search engines and link previews
 * @param sidebarOrder position among its siblings in the sidebar (lower first); pages without one follow
 * @param sidebarLabel shorter text for the sidebar, or null to use the title
 * @param sidebarBadge text of a badge beside the sidebar link (Starlight's {@code sidebar.badge}), or null
 * @param sidebarHidden left out of the sidebar and of previous/next links, but still built ({@code sidebar.hidden})
 * @param extra        every other key, for templates (Starlight's {@code draft}, {@code prev}, {@code next},
 *                     {@code tableOfContents}, {@code lastUpdated}, {@code pagefind} are read by the renderer)
 * @param keyLines     the line in the file of each top-level key, for messages about its value
 * @param sidebarKeys  the keys written under {@code sidebar:}, for the check of unknown keys
 */
public record FrontMatter(String title, String description, Integer sidebarOrder, String sidebarLabel, String sidebarBadge,
                          boolean sidebarHidden, Map<String, Object> extra, Map<String, Integer> keyLines, java.util.List<String> sidebarKeys) {

    public FrontMatter {
        // Not Map.copyOf: 'key:' with nothing after it is a key whose value is null, and it is still a key (a misspelt
        // one is reported); Map.copyOf threw NullPointerException on it (found by fuzzing).
        extra = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extra));
        keyLines = Map.copyOf(keyLines);
        sidebarKeys = java.util.List.copyOf(sidebarKeys);
    }

    /** The line of a top-level key ("banner"), or 2 (the first line of the front matter) when it is not written. */
    public int lineOf(String key) {
        return keyLines.getOrDefault(key, 2);
    }

    /** Starlight's {@code draft: true}: left out of the built site. */
    public boolean draft() {
        return Boolean.TRUE.equals(extra.get("draft"));
    }

    /** False when the front matter says so ({@code pagefind: false}, {@code lastUpdated: false}, {@code prev: false}, …). */
    public boolean isOff(String key) {
        return Boolean.FALSE.equals(extra.get(key));
    }
}
