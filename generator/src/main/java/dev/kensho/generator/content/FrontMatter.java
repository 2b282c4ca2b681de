package dev.kensho.generator.content;

import java.util.Map;

/**
 * What a page says about itself in its YAML header.
 *
 * @param title        shown in the heading, the sidebar and the window title (required)
 * @param description  one sentence for search engines and link previews
 * @param sidebarOrder position among its siblings in the sidebar (lower first); pages without one follow
 * @param sidebarLabel shorter text for the sidebar, or null to use the title
 * @param extra        every other key, for templates
 */
public record FrontMatter(String title, String description, Integer sidebarOrder, String sidebarLabel,
                          Map<String, Object> extra) {

    public FrontMatter {
        extra = Map.copyOf(extra);
    }
}
