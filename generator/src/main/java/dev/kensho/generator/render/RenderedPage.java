package dev.kensho.generator.render;

import dev.kensho.generator.render.page.PageOutline;
import dev.kensho.generator.render.search.SearchIndex;
import java.util.Map;

/**
 * One page as the render stage hands it on: its HTML (written out at once), what the link check
 * needs of it, its part of the search index, and the run plan files its browser run controls fetch
 * (file name next to the page → JSON; none when it has no run control; see {@link BrowserRuns}).
 */
record RenderedPage(String html, PageOutline outline, SearchIndex.PageEntry search, Map<String, String> runFiles) {
}
