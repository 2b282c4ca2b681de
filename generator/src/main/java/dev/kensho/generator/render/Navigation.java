package dev.kensho.generator.render;

import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sidebar and reading order: top-level pages first, then one group per folder (in the order
 * site.yml lists them, else by name); inside a group by {@code sidebar.order}, then by title.
 */
public final class Navigation {

    private final List<Group> groups;
    private final List<Page> readingOrder;

    private Navigation(List<Group> groups) {
        this.groups = List.copyOf(groups);
        this.readingOrder = groups.stream().flatMap(g -> g.pages().stream()).toList();
    }

    public static Navigation of(List<Page> pages, SiteConfig config) {
        Map<String, List<Page>> byFolder = new LinkedHashMap<>();
        for (Page page : pages) {
            byFolder.computeIfAbsent(topFolder(page), k -> new ArrayList<>()).add(page);
        }
        List<String> folders = new ArrayList<>(byFolder.keySet());
        List<String> configured = new ArrayList<>(config.groups().keySet());
        folders.sort(Comparator.comparing((String f) -> !f.isEmpty())
                .thenComparing(f -> configured.contains(f) ? configured.indexOf(f) : Integer.MAX_VALUE)
                .thenComparing(Comparator.naturalOrder()));
        Comparator<Page> inGroup = Comparator
                .comparing((Page p) -> p.frontMatter().sidebarOrder() == null ? Integer.MAX_VALUE : p.frontMatter().sidebarOrder())
                .thenComparing(p -> p.frontMatter().title())
                .thenComparing(Page::relativePath);
        List<Group> groups = new ArrayList<>();
        for (String folder : folders) {
            List<Page> members = new ArrayList<>(byFolder.get(folder));
            members.sort(inGroup);
            groups.add(new Group(folder, config.groups().getOrDefault(folder, folder), members));
        }
        return new Navigation(groups);
    }

    private static String topFolder(Page page) {
        String folder = page.folder();
        int slash = folder.indexOf('/');
        return slash < 0 ? folder : folder.substring(0, slash);
    }

    public List<Group> groups() {
        return groups;
    }

    public List<Page> readingOrder() {
        return readingOrder;
    }

    public Group groupOf(Page page) {
        return groups.stream().filter(g -> g.pages().contains(page)).findFirst().orElseThrow();
    }

    /** A sidebar section; the top-level group has an empty folder and no heading. */
    public record Group(String folder, String label, List<Page> pages) {
        public Group {
            pages = List.copyOf(pages);
        }
    }
}
