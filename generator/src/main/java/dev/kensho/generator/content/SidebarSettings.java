package dev.kensho.generator.content;

import dev.kensho.generator.Diagnostic;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the {@code sidebar:} list of site.yml into {@link SidebarItem}s; what cannot be read is reported at its line. */
final class SidebarSettings {

    private final String text;
    private final String displayPath;
    private final List<Diagnostic> diagnostics;

    SidebarSettings(String text, String displayPath, List<Diagnostic> diagnostics) {
        this.text = text;
        this.displayPath = displayPath;
        this.diagnostics = diagnostics;
    }

    List<SidebarItem> items(Object value, String where) {
        List<SidebarItem> items = new ArrayList<>();
        if (!(value instanceof List<?> list)) {
            problem("sidebar", where + " must be a list of entries");
            return items;
        }
        for (Object entry : list) {
            SidebarItem item = item(entry);
            if (item != null) {
                items.add(item);
            }
        }
        return items;
    }

    private SidebarItem item(Object entry) {
        if (entry instanceof String slug) {
            return new SidebarItem.PageRef(trimSlug(slug), null, null, line(slug));
        }
        if (!(entry instanceof Map<?, ?> map)) {
            problem(String.valueOf(entry), "a sidebar entry must be a page's slug or a mapping with label and link, items or autogenerate");
            return null;
        }
        String label = map.get("label") == null ? null : String.valueOf(map.get("label"));
        Map<String, String> translations = new LinkedHashMap<>();
        if (map.get("translations") instanceof Map<?, ?> t) {
            t.forEach((k, v) -> translations.put(String.valueOf(k), String.valueOf(v)));
        }
        boolean collapsed = Boolean.TRUE.equals(map.get("collapsed"));
        String badge = map.get("badge") instanceof Map<?, ?> b ? String.valueOf(b.get("text")) : map.get("badge") == null ? null
                : String.valueOf(map.get("badge"));
        int line = line(label != null ? "label: " + label : String.valueOf(map.keySet().iterator().next()) + ":");
        if (map.get("slug") != null) {
            return new SidebarItem.PageRef(trimSlug(String.valueOf(map.get("slug"))), label, badge, line(String.valueOf(map.get("slug"))));
        }
        if (map.get("link") != null) {
            if (label == null) {
                problem("link:", "a sidebar link needs a label");
                return null;
            }
            Map<String, String> attrs = new LinkedHashMap<>();
            if (map.get("attrs") instanceof Map<?, ?> a) {
                a.forEach((k, v) -> attrs.put(String.valueOf(k), String.valueOf(v)));
            }
            String link = String.valueOf(map.get("link"));
            String worn = attrs.get("class") == null ? null : java.util.Arrays.stream(attrs.get("class").split("\\s+"))
                    .filter(dev.kensho.generator.render.gate.HtmlGate::isThemeStyleTarget).findFirst().orElse(null);
            if (worn != null) {
                // Red team helper-98: a link of the sidebar dressed as the build's evidence or the page's frame.
                problem(attrs.get("class"), "sidebar link '" + label + "': the class " + worn + " is the theme's own (its evidence or "
                        + "the page's frame); a link of the site may not wear it");
                return null;
            }
            if (UrlSchemes.problem(link) != null) {
                problem(link, "sidebar link '" + label + "': " + UrlSchemes.problem(link));
                return null;
            }
            return new SidebarItem.Link(label, link, badge, attrs, line);
        }
        if (label == null) {
            problem("items:", "a sidebar group needs a label");
            return null;
        }
        if (map.get("autogenerate") instanceof Map<?, ?> auto && auto.get("directory") != null) {
            return new SidebarItem.Autogenerate(label, translations, collapsed || Boolean.TRUE.equals(auto.get("collapsed")),
                    trimSlug(String.valueOf(auto.get("directory"))), line);
        }
        if (map.get("items") != null) {
            return new SidebarItem.Group(label, translations, collapsed, items(map.get("items"), "items of '" + label + "'"), line);
        }
        problem("label: " + label, "sidebar entry '" + label + "' needs link, slug, items or autogenerate: {directory: …}");
        return null;
    }

    private static String trimSlug(String slug) {
        return slug.strip().replaceAll("^/+|/+$", "");
    }

    /** Lines already found, by needle: an entry repeated through aliases is looked up once. */
    private final java.util.Map<String, Integer> lines = new java.util.HashMap<>();
    /** Where the last entry was found; entries are read in document order, so the next is usually after it. */
    private int cursor;
    private int[] lineStarts;

    /**
     * The line of an entry, found in time linear in the file over the whole sidebar (a 2 MB site.yml of
     * 40,000 entries once took hours when each looked from the top).
     */
    private int line(String needle) {
        Integer known = lines.get(needle);
        if (known != null) {
            return known;
        }
        if (lineStarts == null) {
            List<Integer> starts = new ArrayList<>(List.of(0));
            for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
                starts.add(i + 1);
            }
            lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
        }
        int at = text.indexOf(needle, cursor);
        if (at < 0) {
            at = text.indexOf(needle);
        } else {
            cursor = at + needle.length();
        }
        int found = at < 0 ? 1 : lineOfOffset(at);
        lines.put(needle, found);
        return found;
    }

    private int lineOfOffset(int offset) {
        int index = java.util.Arrays.binarySearch(lineStarts, offset);
        return (index >= 0 ? index : -index - 2) + 1;
    }

    private void problem(String needle, String message) {
        diagnostics.add(Diagnostic.at(displayPath, line(needle), 1, "site settings: " + message, null));
    }
}
