package dev.kensho.generator.render;

import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.render.theme.UiStrings;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.content.Page;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sidebar as readers get it. A small site carries it in every page, rendered once per language
 * and folder depth, with the current page marked and its folded groups opened per page. A large
 * site shares one file per language ({@code assets/sidebar-LOCALE.js}, drawn by kensho.js), as
 * mdBook does with its toc.js, so that a page's size does not grow with the site.
 */
final class SidebarView {

    /** Sites with at least this many pages share the sidebar file instead of carrying it in each page. */
    static final int SHARED_FROM = 200;

    private final Navigation navigation;
    private final Theme theme;
    private final SiteLinks links;
    private final boolean shared;
    /** Sidebar HTML by language and relative root. */
    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    SidebarView(Navigation navigation, Theme theme, SiteLinks links) {
        this.navigation = navigation;
        this.theme = theme;
        this.links = links;
        this.shared = navigation.pages().size() >= SHARED_FROM;
    }

    boolean shared() {
        return shared;
    }

    static String scriptPath(String locale) {
        return "assets/sidebar-" + locale + ".js";
    }

    /** The sidebar of a page (or of the 404, home and contents pages when {@code current} is null). */
    String html(String locale, String root, String outputPath, Page current, UiStrings ui) throws Theme.ThemeException {
        if (shared) {
            return theme.render("sidebar-shared.ftlh", Map.of("root", root, "current", links.fromRoot("", outputPath),
                    "src", scriptPath(locale), "ui", ui.strings()));
        }
        String key = locale + "|" + root;
        String html = rendered.get(key);
        if (html == null) {
            html = theme.render("sidebar.ftlh", Map.of("entries", entries(navigation.sidebar(locale), root), "root", root,
                    "ui", ui.strings()));
            rendered.put(key, html);
        }
        if (current != null) {
            String href = "href=\"" + links.fromRoot(root, current.outputPath()) + "\"";
            html = html.replace(href, href + " aria-current=\"page\"");
            for (Navigation.GroupEntry group : navigation.ancestors(current)) {
                // A folded group opens on the pages inside it.
                html = html.replace("data-group=\"" + group.id() + "\">", "data-group=\"" + group.id() + "\" open>");
            }
        }
        return html;
    }

    private List<Map<String, Object>> entries(List<Navigation.Entry> entries, String root) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (Navigation.Entry entry : entries) {
            Map<String, Object> item = new HashMap<>();
            if (entry instanceof Navigation.PageEntry page) {
                item.put("kind", "page");
                item.put("title", page.label());
                item.put("href", links.fromRoot(root, page.page().outputPath()));
                item.put("badge", page.badge());
                item.put("attrs", Map.of());
            } else if (entry instanceof Navigation.LinkEntry link) {
                item.put("kind", "link");
                item.put("title", link.label());
                item.put("href", linkHref(link.href(), root));
                item.put("badge", link.badge());
                item.put("attrs", link.attrs());
            } else if (entry instanceof Navigation.GroupEntry group) {
                item.put("kind", "group");
                item.put("title", group.label());
                item.put("id", group.id());
                item.put("collapsed", group.collapsed());
                item.put("items", entries(group.entries(), root));
            }
            items.add(item);
        }
        return items;
    }

    /** A link written in site.yml: a path of this site is read from its root, whatever the page's depth. */
    private String linkHref(String written, String root) {
        String resolved = links.resolve("index.html", written);
        return resolved == null ? written : resolved.equals("./") ? links.fromRoot(root, "index.html") : root + resolved;
    }

    /** The whole sidebar of a language as data for kensho.js; paths from the site's root. */
    String script(String locale) {
        try {
            return "window.__kenshoSidebar(" + new ObjectMapper().writeValueAsString(data(navigation.sidebar(locale))) + ");\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<Object> data(List<Navigation.Entry> entries) {
        List<Object> items = new ArrayList<>();
        for (Navigation.Entry entry : entries) {
            if (entry instanceof Navigation.PageEntry page) {
                items.add(List.of(links.fromRoot("", page.page().outputPath()), page.label(), page.badge()));
            } else if (entry instanceof Navigation.LinkEntry link) {
                items.add(List.of(linkHref(link.href(), ""), link.label(), link.badge()));
            } else if (entry instanceof Navigation.GroupEntry group) {
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("label", group.label());
                data.put("collapsed", group.collapsed());
                data.put("items", data(group.entries()));
                items.add(data);
            }
        }
        return items;
    }
}
