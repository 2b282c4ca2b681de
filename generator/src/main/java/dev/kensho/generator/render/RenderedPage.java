package dev.kensho.generator.render;

/**
 * One page as the render stage hands it on: its HTML (written out at once), what the link check
 * needs of it, its part of the search index, and the run plan its browser run controls fetch (null
 * when it has none; see {@link BrowserRuns}).
 */
record RenderedPage(String html, PageOutline outline, SearchIndex.PageEntry search, String runPlan) {
}
