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

    private int line(String needle) {
        return SiteConfig.lineOf(text, needle);
    }

    private void problem(String needle, String message) {
        diagnostics.add(Diagnostic.at(displayPath, line(needle), 1, "site settings: " + message, null));
    }
}
