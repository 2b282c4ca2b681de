package dev.kensho.generator.render;

/**
 * One page as the render stage hands it on: its HTML (written out at once), what the link check
 * needs of it, and its part of the search index.
 */
record RenderedPage(String html, PageOutline outline, SearchIndex.PageEntry search) {
}
