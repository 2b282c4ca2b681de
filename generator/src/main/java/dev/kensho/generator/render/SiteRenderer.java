package dev.kensho.generator.render;

import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.html.HtmlRenderer;
import com.vladsch.flexmark.util.data.MutableDataSet;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.verify.VerificationRun;
import dev.kensho.sqlchecks.Outcome;
import dev.kensho.sqlchecks.PageResult;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Entities;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.nio.charset.StandardCharsets;
import java.time.temporal.TemporalAccessor;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** The render stage: Markdown to HTML, wrapped in the theme's page template. */
public final class SiteRenderer {

    private final Theme theme;
    private final SiteConfig config;
    private final VerificationRun verification;
    private final String builtAt;
    private final Map<String, String> lastUpdated;
    private long searchIndexBytes;
    /** Where links authors wrote point; set when rendering starts. */
    private SiteLinks links;
    private int searchIndexFiles;
    private final int jobs;
    private dev.kensho.generator.report.Progress progress = dev.kensho.generator.report.Progress.silent();

    public SiteRenderer reportingTo(dev.kensho.generator.report.Progress progress) {
        this.progress = progress;
        return this;
    }

    private RenderMemo memo;

    /** Reuses pages an earlier build of the session rendered, where nothing that shapes them changed. */
    public SiteRenderer reusing(RenderMemo memo) {
        this.memo = memo;
        return this;
    }

    /** What a page shows of its outcomes (statuses, rows, claims, plans, transcripts), without timings. */
    private static String outcomesFingerprint(PageResult result) {
        if (result == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (Outcome outcome : result.outcomes()) {
            out.append(outcome.status()).append(outcome.results()).append(outcome.assertions()).append(outcome.plan())
                    .append(outcome.transcript()).append('\n');
        }
        return out.toString();
    }

    /** Everything about the other pages that one page shows: paths, titles, labels, order. */
    private static String navigationFingerprint(Navigation navigation) {
        StringBuilder out = new StringBuilder();
        for (Navigation.Group group : navigation.groups()) {
            out.append(group.label()).append('\n');
            for (Page page : group.pages()) {
                out.append(page.outputPath()).append('\t').append(page.frontMatter().title()).append('\t')
                        .append(page.frontMatter().sidebarLabel()).append('\t').append(page.frontMatter().sidebarBadge())
                        .append('\t').append(page.frontMatter().sidebarHidden()).append('\n');
            }
        }
        return out.toString();
    }

    /**
     * Loads the syntax highlighter (Prism in Rhino, a few hundred milliseconds) on another thread, so
     * that it is ready by the time rendering starts instead of adding to the build.
     */
    public static void warmUp() {
        Thread loader = new Thread(SyntaxHighlighter::get, "kensho-highlighter-warm-up");
        loader.setDaemon(true);
        loader.start();
    }

    /** Where the search index goes below the site root. */
    public static final String SEARCH_INDEX = SearchIndex.FOLDER + "index.js";

    /** Size of the search index written by the last {@link #render} call. */
    public int searchIndexFiles() {
        return searchIndexFiles;
    }

    public long searchIndexBytes() {
        return searchIndexBytes;
    }

    /**
     * @param lastUpdated date of the last commit that touched each page (path below content/ → yyyy-mm-dd)
     */
    public SiteRenderer(Theme theme, SiteConfig config, VerificationRun verification, String builtAt,
                        Map<String, String> lastUpdated, int jobs) {
        this.jobs = Math.max(1, jobs);
        this.theme = theme;
        this.config = config;
        this.verification = verification;
        this.builtAt = builtAt;
        this.lastUpdated = lastUpdated;
    }

    /**
     * Renders every page; returns output path → HTML. Template errors are added to diagnostics.
     */
    public Map<String, String> render(List<MarkdownDocument> documents, Set<String> assetPaths, List<Diagnostic> diagnostics) {
        List<Page> pages = documents.stream().map(MarkdownDocument::page).toList();
        Navigation navigation = Navigation.of(pages, config);
        Map<Page, MarkdownDocument> byPage = new IdentityHashMap<>();
        documents.forEach(d -> byPage.put(d.page(), d));
        Map<String, String> files = new LinkedHashMap<>();
        SearchIndex search = new SearchIndex();
        List<Page> order = navigation.readingOrder();
        Map<String, String> sourceByOutput = new HashMap<>();
        order.forEach(p -> sourceByOutput.put(p.outputPath(), p.relativePath()));
        sourceByOutput.putIfAbsent("index.html", "index.html"); // the theme's home page when the site has no index.md
        links = new SiteLinks(sourceByOutput, assetPaths, config.basePath(), config.urlFormat());
        sharedSidebar = order.size() >= SHARED_SIDEBAR_FROM;
        if (sharedSidebar) {
            files.put(SIDEBAR_SCRIPT, sidebarScript(navigation, links));
        }
        // Pages render in parallel, each with its own search entries; both are joined in reading order,
        // so the output is the same byte for byte whatever the parallelism.
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        try {
            List<Future<Object[]>> rendered = new ArrayList<>();
            String shared = memo == null ? "" : RenderMemo.key(navigationFingerprint(navigation), builtAt, theme.fingerprint(),
                    String.valueOf(verification.serverVersion()));
            AtomicInteger renderedNow = new AtomicInteger();
            List<Page> visible = order.stream().filter(p -> !hiddenFromNavigation(p)).toList();
            Map<Page, Integer> visibleAt = new IdentityHashMap<>();
            for (int v = 0; v < visible.size(); v++) {
                visibleAt.put(visible.get(v), v);
            }
            for (int i = 0; i < order.size(); i++) {
                Page page = order.get(i);
                int at = visibleAt.getOrDefault(page, -1);
                Page previous = at > 0 ? visible.get(at - 1) : null;
                Page next = at >= 0 && at + 1 < visible.size() ? visible.get(at + 1) : null;
                String key = memo == null ? null : RenderMemo.key(shared, page.body(), page.frontMatter().toString(),
                        outcomesFingerprint(verification.pages().get(page.relativePath())), lastUpdated.get(page.relativePath()));
                RenderMemo.Entry reused = memo == null ? null : memo.get(page.outputPath(), key);
                if (reused != null) {
                    rendered.add(CompletableFuture.completedFuture(new Object[] {reused.html(), reused.search()}));
                    progress.pagesRendered.incrementAndGet();
                    continue;
                }
                rendered.add(pool.submit(() -> {
                    SearchIndex pageSearch = new SearchIndex();
                    Object[] done = {renderPage(byPage.get(page), navigation, previous, next, pageSearch), pageSearch};
                    if (memo == null) {
                        byPage.get(page).release(); // a build renders each page once; the preview may render it again
                    } else {
                        memo.put(page.outputPath(), new RenderMemo.Entry(key, (String) done[0], pageSearch));
                    }
                    renderedNow.incrementAndGet();
                    progress.pagesRendered.incrementAndGet();
                    return done;
                }));
            }
            for (int i = 0; i < order.size(); i++) {
                try {
                    Object[] result = rendered.get(i).get();
                    files.put(order.get(i).outputPath(), (String) result[0]);
                    search.addAll((SearchIndex) result[1]);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Theme.ThemeException theme) {
                        diagnostics.add(theme.diagnostic());
                        return files;
                    }
                    if (e.getCause() instanceof StackOverflowError) {
                        // Rendering recurses once per nesting level of the page's blocks.
                        diagnostics.add(dev.kensho.generator.Diagnostic.at(order.get(i).displayPath(), 1, 1,
                                "the page nests blockquotes, lists or other blocks too deeply to render", null));
                        continue;
                    }
                    throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
                }
            }
            if (memo != null) {
                memo.rendered(renderedNow.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while rendering", e);
        } finally {
            pool.shutdownNow();
        }
        Map<String, String> index = search.files();
        files.putAll(index);
        searchIndexBytes = index.values().stream().mapToLong(text -> text.getBytes(StandardCharsets.UTF_8).length).sum();
        searchIndexFiles = index.size();
        try {
            // A site's own 404.md (as in Starlight) replaces the theme's page.
            files.putIfAbsent(NOT_FOUND_PAGE, theme.render("404.ftlh", baseModel(NOT_FOUND_PAGE, navigation, null)));
        } catch (Theme.ThemeException e) {
            diagnostics.add(e.diagnostic());
        }
        if (!config.url().isEmpty()) {
            files.put("sitemap.xml", sitemap(order.stream().filter(p -> !p.outputPath().equals(NOT_FOUND_PAGE)).toList()));
        }
        if (!files.containsKey("index.html")) {
            try {
                Map<String, Object> model = baseModel("index.html", navigation, null);
                if (sharedSidebar) {
                    // A large site's home page lists the first pages of each group and links to a page per
                    // group listing all of them: the no-script table of contents, without one huge page.
                    model.put("sidebar", groupContents(navigation, files));
                }
                files.put("index.html", theme.render("index.ftlh", model));
            } catch (Theme.ThemeException e) {
                diagnostics.add(e.diagnostic());
            }
        }
        return files;
    }

    private String renderPage(MarkdownDocument document, Navigation navigation, Page previous, Page next, SearchIndex search)
            throws Theme.ThemeException {
        Page page = document.page();
        PageResult result = verification.pages().get(page.relativePath());
        Map<FencedCodeBlock, Outcome> outcomes = new IdentityHashMap<>();
        Map<FencedCodeBlock, Outcome> expectedRows = new IdentityHashMap<>();
        if (result != null) {
            List<MarkdownDocument.SqlFence> fences = document.sqlFences();
            for (int i = 0; i < fences.size(); i++) {
                outcomes.put(fences.get(i).node(), result.outcomes().get(i));
                if (fences.get(i).rowsNode() != null) {
                    expectedRows.put(fences.get(i).rowsNode(), result.outcomes().get(i));
                }
            }
        }
        HtmlRenderer html = HtmlRenderer.builder(new MutableDataSet(MarkdownDocument.OPTIONS)
                        .set(HtmlRenderer.GENERATE_HEADER_ID, true)
                        .set(HtmlRenderer.RENDER_HEADER_ID, true)
                        .set(HtmlRenderer.HEADER_ID_GENERATOR_NO_DUPED_DASHES, true))
                .nodeRendererFactory(options -> new SnippetNodeRenderer(theme, outcomes, expectedRows, verification.serverVersion(),
                        count -> count + " 行を表示"))
                .build();
        String body;
        try {
            body = html.render(document.document());
        } catch (SnippetNodeRenderer.RenderFailure failure) {
            throw failure.cause;
        }
        body = new ComponentAssembler(theme, markdown -> inline(html, markdown))
                .assemble(body, document, relativeRoot(page.outputPath()));
        Map<String, Object> model = baseModel(page.outputPath(), navigation, page);
        Map<String, Object> pageModel = new HashMap<>();
        pageModel.put("title", page.frontMatter().title());
        pageModel.put("description", page.frontMatter().description().isEmpty() ? config.description() : page.frontMatter().description());
        if (!page.frontMatter().isOff("pagefind") && !page.outputPath().equals(NOT_FOUND_PAGE)) {
            search.add(config.urlFormat().urlPath(page.outputPath()), page.frontMatter().title(), body);
        }
        // One parse of the page's HTML serves the table of contents, the heading anchors and the links.
        Document fragment = Jsoup.parseBodyFragment(body);
        fragment.outputSettings().prettyPrint(false);
        pageModel.put("toc", tableOfContents(fragment, page.frontMatter()));
        boolean anchored = addHeadingAnchors(fragment);
        boolean relinked = links.rewrite(fragment.body(), page.outputPath());
        if (anchored || relinked) {
            body = fragment.body().html();
        }
        pageModel.put("content", body);
        pageModel.put("group", navigation.groupOf(page).label());
        pageModel.put("lastUpdated", lastUpdatedOf(page));
        pageModel.put("source", page.relativePath());
        pageModel.put("meta", page.frontMatter().extra());
        pageModel.put("verification", pageVerification(result));
        model.put("page", pageModel);
        model.put("prev", pagination(page, "prev", previous));
        model.put("next", pagination(page, "next", next));
        return theme.render("page.ftlh", model);
    }

    private String sitemap(List<Page> pages) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .append("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
        for (Page page : pages) {
            xml.append("  <url><loc>").append(Entities.escape(links.absolute(config.url(), page.outputPath()))).append("</loc>");
            String date = lastUpdated.get(page.relativePath());
            if (date != null) {
                xml.append("<lastmod>").append(date).append("</lastmod>");
            }
            xml.append("</url>\n");
        }
        return xml.append("</urlset>\n").toString();
    }

    /** Markdown of a one-line component, rendered without its paragraph. */
    private static String inline(HtmlRenderer html, String markdown) {
        String rendered = html.render(MarkdownDocument.parseFragment(markdown)).strip();
        return rendered.startsWith("<p>") && rendered.endsWith("</p>") ? rendered.substring(3, rendered.length() - 4) : rendered;
    }

    private Map<String, Object> pageVerification(PageResult result) {
        if (result == null) {
            return null;
        }
        Map<String, Object> verified = new HashMap<>();
        verified.put("snippets", result.outcomes().size());
        verified.put("assertions", result.outcomes().stream().mapToLong(o -> o.assertions().size()).sum());
        verified.put("passed", result.outcomes().stream().filter(Outcome::passed).count());
        verified.put("serverVersion", verification.serverVersion());
        verified.put("builtAt", builtAt);
        return verified;
    }

    /**
     * Sites larger than this share one sidebar file (assets/sidebar.js) instead of carrying the whole
     * sidebar in every page, as mdBook does with its toc.js: page sizes then stay the same however
     * many pages the site has. Smaller sites keep it in the page (no script needed).
     */
    static final int SHARED_SIDEBAR_FROM = 200;
    private boolean sharedSidebar;

    /** Sidebar HTML by relative root: rendered once per folder depth, the current link marked per page. */
    private final Map<String, String> sidebars = new ConcurrentHashMap<>();

    private Map<String, Object> baseModel(String outputPath, Navigation navigation, Page current) throws Theme.ThemeException {
        Map<String, Object> model = new HashMap<>();
        String root = rootFor(outputPath);
        model.put("root", root);
        model.put("site", Map.of("title", config.title(), "description", config.description(), "lang", config.lang(),
                "url", config.url(), "base", config.basePath()));
        model.put("canonical", config.url().isEmpty() ? "" : links.absolute(config.url(), outputPath));
        String sidebar = sharedSidebar ? theme.render("sidebar-shared.ftlh", Map.of("root", root, "current", links.fromRoot("", outputPath)))
                : sidebars.get(root);
        if (sidebar == null) {
            List<Map<String, Object>> groups = new ArrayList<>();
            for (Navigation.Group group : navigation.groups()) {
                List<Map<String, Object>> items = new ArrayList<>();
                for (Page page : group.pages()) {
                    if (!hiddenFromNavigation(page)) {
                        Map<String, Object> item = new HashMap<>(link(page, outputPath));
                        item.put("badge", page.frontMatter().sidebarBadge() == null ? "" : page.frontMatter().sidebarBadge());
                        items.add(item);
                    }
                }
                groups.add(Map.of("label", group.label(), "items", items));
            }
            sidebar = theme.render("sidebar.ftlh", Map.of("sidebar", groups, "root", root));
            sidebars.put(root, sidebar);
        }
        if (current != null && !sharedSidebar) {
            String href = "href=\"" + links.fromRoot(root, current.outputPath()) + "\"";
            sidebar = sidebar.replace(href, href + " aria-current=\"page\"");
        }
        model.put("sidebarHtml", sidebar);
        if (current == null) {
            // The index and 404 pages list the groups themselves; lesson pages only need the sidebar's HTML.
            model.put("sidebar", navigation.groups().stream().map(g -> Map.of("label", g.label(),
                    "items", g.pages().stream().map(p -> link(p, outputPath)).toList())).toList());
        }
        return model;
    }

    private Map<String, Object> link(Page target, String fromOutputPath) {
        return Map.of("title", FrontMatterView.of(target).label(), "href", links.fromRoot(rootFor(fromOutputPath), target.outputPath()));
    }

    /**
     * How a page's links reach the site's root. Every page uses a relative path, so the site works under
     * any base path and from the file system; the 404 page alone is served for missing paths at any
     * depth, so its links start from the base path of {@code url:} in content/site.yml.
     */
    private String rootFor(String outputPath) {
        return outputPath.equals(NOT_FOUND_PAGE) ? config.basePath() : relativeRoot(outputPath);
    }

    private static final String NOT_FOUND_PAGE = "404.html";
    static final String SIDEBAR_SCRIPT = "assets/sidebar.js";

    /** The whole sidebar as data for kensho.js: groups with [path, title, badge] per page, paths from the site's root. */
    private static String sidebarScript(Navigation navigation, SiteLinks links) {
        List<Map<String, Object>> groups = new ArrayList<>();
        for (Navigation.Group group : navigation.groups()) {
            List<List<String>> items = new ArrayList<>();
            for (Page page : group.pages()) {
                if (!hiddenFromNavigation(page)) {
                    FrontMatterView view = FrontMatterView.of(page);
                    items.add(List.of(links.fromRoot("", page.outputPath()), view.label(), view.badge()));
                }
            }
            groups.add(Map.of("label", group.label(), "items", items));
        }
        try {
            return "window.__kenshoSidebar(" + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(groups) + ");\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the sidebar shows of a page. */
    private record FrontMatterView(String label, String badge) {
        static FrontMatterView of(Page page) {
            var front = page.frontMatter();
            return new FrontMatterView(front.sidebarLabel() == null ? front.title() : front.sidebarLabel(),
                    front.sidebarBadge() == null ? "" : front.sidebarBadge());
        }
    }

    /** "" for a page at the top, "../" one folder down, and so on: the site works from any base path. */
    static String relativeRoot(String outputPath) {
        return "../".repeat((int) outputPath.chars().filter(c -> c == '/').count());
    }

    /** A link to itself after every h2–h4, so readers can share a section; true when any was added. */
    private static boolean addHeadingAnchors(Document fragment) {
        boolean changed = false;
        for (Element heading : fragment.select("h2[id], h3[id], h4[id]")) {
            heading.appendElement("a").addClass("anchor").attr("href", "#" + heading.id())
                    .attr("aria-label", "「" + heading.text() + "」へのリンク").text("#");
            changed = true;
        }
        return changed;
    }

    /** The date shown as last updated: from git, or Starlight's {@code lastUpdated} (a date, or false for none). */
    private String lastUpdatedOf(Page page) {
        Object updated = page.frontMatter().extra().get("lastUpdated");
        if (page.frontMatter().isOff("lastUpdated")) {
            return "";
        }
        if (updated instanceof Date || updated instanceof TemporalAccessor || updated instanceof String) {
            String text = String.valueOf(updated);
            return text.substring(0, Math.min(10, text.length()));
        }
        return lastUpdated.getOrDefault(page.relativePath(), "");
    }

    /** Headings h2–h3, or the levels Starlight's {@code tableOfContents} asks for; none when it is false. */
    private static List<Map<String, Object>> tableOfContents(Document fragment, dev.kensho.generator.content.FrontMatter frontMatter) {
        Object setting = frontMatter.extra().get("tableOfContents");
        if (Boolean.FALSE.equals(setting)) {
            return List.of();
        }
        int min = 2;
        int max = 3;
        if (setting instanceof Map<?, ?> levels) {
            min = levels.get("minHeadingLevel") instanceof Number n ? Math.max(2, n.intValue()) : min;
            max = levels.get("maxHeadingLevel") instanceof Number n ? Math.min(6, n.intValue()) : max;
        }
        List<Map<String, Object>> toc = new ArrayList<>();
        for (Element heading : fragment.select("h2[id], h3[id], h4[id], h5[id], h6[id]")) {
            int level = heading.tagName().charAt(1) - '0';
            if (level >= min && level <= max) {
                toc.add(Map.of("level", level, "id", heading.id(), "text", heading.text()));
            }
        }
        return toc;
    }

    /** Left out of the sidebar and of previous/next: {@code sidebar.hidden: true}, and a site's own 404 page. */
    private static boolean hiddenFromNavigation(Page page) {
        return page.frontMatter().sidebarHidden() || page.outputPath().equals(NOT_FOUND_PAGE);
    }

    /** Pages a large site's home page lists per group; the rest are on the group's own contents page. */
    static final int HOME_ITEMS_PER_GROUP = 10;

    /** Writes contents/N.html for every group and returns the home page's shortened lists. */
    private List<Map<String, Object>> groupContents(Navigation navigation, Map<String, String> files) throws Theme.ThemeException {
        List<Map<String, Object>> home = new ArrayList<>();
        List<Navigation.Group> groups = navigation.groups();
        for (int g = 0; g < groups.size(); g++) {
            Navigation.Group group = groups.get(g);
            String contentsPath = "contents/" + g + ".html";
            List<Page> pages = group.pages().stream().filter(p -> !hiddenFromNavigation(p)).toList();
            Map<String, Object> model = baseModel(contentsPath, navigation, null);
            model.put("group", Map.of("label", group.label().isEmpty() ? config.title() : group.label(),
                    "items", pages.stream().map(p -> link(p, contentsPath)).toList()));
            files.put(contentsPath, theme.render("contents.ftlh", model));
            home.add(Map.of("label", group.label(), "items", pages.stream().limit(HOME_ITEMS_PER_GROUP).map(p -> link(p, "index.html")).toList(),
                    "total", pages.size(), "more", pages.size() > HOME_ITEMS_PER_GROUP ? contentsPath : ""));
        }
        return home;
    }

    /** The previous/next link, as Starlight's {@code prev}/{@code next} front matter may change it (false, a label, or {link, label}). */
    private Map<String, Object> pagination(Page page, String key, Page neighbour) {
        Object setting = page.frontMatter().extra().get(key);
        if (Boolean.FALSE.equals(setting)) {
            return null;
        }
        if (setting instanceof Map<?, ?> custom && custom.get("link") != null) {
            String written = String.valueOf(custom.get("link"));
            String href = links.resolve(page.outputPath(), written);
            return Map.of("title", String.valueOf(custom.get("label") == null ? written : custom.get("label")),
                    "href", href == null ? written : href);
        }
        if (neighbour == null) {
            return null;
        }
        Map<String, Object> link = new HashMap<>(link(neighbour, page.outputPath()));
        if (setting instanceof String label) {
            link.put("title", label);
        } else if (setting instanceof Map<?, ?> custom && custom.get("label") != null) {
            link.put("title", String.valueOf(custom.get("label")));
        }
        return link;
    }
}
