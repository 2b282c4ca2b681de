package dev.kensho.generator.content;

import java.util.List;
import java.util.Map;

/**
 * One entry of a sidebar configured in {@code content/site.yml}, as Starlight's {@code sidebar} option
 * takes it. {@code line} is where it was written in site.yml, for error messages.
 */
public sealed interface SidebarItem {

    int line();

    /** A page named by its slug ("guides/example"; "" or "index" is the home page), as {@code - guides/example} or {@code - slug: …}. */
    record PageRef(String slug, String label, String badge, int line) implements SidebarItem {
    }

    /** A link written out: another site, or a path of this one. */
    record Link(String label, String link, String badge, Map<String, String> attrs, int line) implements SidebarItem {
    }

    /** A group of entries; {@code translations} gives its label per locale key. */
    record Group(String label, Map<String, String> translations, boolean collapsed, List<SidebarItem> items, int line)
            implements SidebarItem {
        public Group {
            translations = Map.copyOf(translations);
            items = List.copyOf(items);
        }
    }

    /** A group holding every page below a folder, as the default sidebar builds it ({@code autogenerate: {directory: …}}). */
    record Autogenerate(String label, Map<String, String> translations, boolean collapsed, String directory, int line)
            implements SidebarItem {
        public Autogenerate {
            translations = Map.copyOf(translations);
        }
    }
}
