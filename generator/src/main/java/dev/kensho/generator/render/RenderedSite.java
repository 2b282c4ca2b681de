package dev.kensho.generator.render;

import dev.kensho.generator.render.page.PageOutline;
import java.util.Map;
import java.util.Set;

/**
 * What the render stage wrote, for the link check: every path, the outline of each page, and the
 * few documents read whole (the theme's own pages, and one page per folder for the theme's frame).
 */
public record RenderedSite(Set<String> paths, Map<String, PageOutline> outlines, Map<String, String> documents) {

    public RenderedSite {
        paths = Set.copyOf(paths);
        outlines = Map.copyOf(outlines);
        documents = Map.copyOf(documents);
    }
}
