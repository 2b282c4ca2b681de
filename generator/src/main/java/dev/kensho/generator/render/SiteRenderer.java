package dev.kensho.generator.render;

import dev.kensho.generator.render.gate.ContentSecurityPolicy;
import dev.kensho.generator.render.playground.BrowserEngine;
import dev.kensho.generator.render.playground.BrowserRuns;
import dev.kensho.generator.render.page.ComponentAssembler;
import dev.kensho.generator.render.page.HighlightCache;
import dev.kensho.generator.render.gate.HtmlGate;
import dev.kensho.generator.render.page.PageFurniture;
import dev.kensho.generator.render.page.PageOutline;
import dev.kensho.generator.render.search.SearchIndex;
import dev.kensho.generator.render.page.SnippetNodeRenderer;
import dev.kensho.generator.render.page.SyntaxHighlighter;
import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.render.theme.UiStrings;
import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.html.HtmlRenderer;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteLocale;
import dev.kensho.generator.content.Branding;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.markdown.MarkupPolicy;
import dev.kensho.generator.report.Progress;
import dev.kensho.generator.verify.VerificationRun;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.generator.verify.VersionCoverage;
import dev.kensho.sqlchecks.model.PageResult;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Entities;
import org.jsoup.select.Evaluator;
import org.jsoup.select.QueryParser;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.time.format.DateTimeFormatter;
import java.util.Set;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** The render stage: Markdown to HTML, wrapped in the theme's page template. */
public final class SiteRenderer {

    /** Headings that get a "#" anchor (parsed once, not once per page). */
    private static final Evaluator ANCHORED_HEADINGS = QueryParser.parse("h2[id], h3[id], h4[id]");

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
    /** What each verified page's snippets can do in the reader's browser, by page. */
    private final Map<String, BrowserRuns> browserRuns;
    /** Where the browser's PostgreSQL is published, relative to the site's root. */
    private final String enginePath;
    /** What the first run downloads, in MB (decimal, rounded): said beside the run controls before any click. */
    private final String engineMegabytes;
    private Progress progress = Progress.silent();

    public SiteRenderer reportingTo(Progress progress) {
        this.progress = progress;
        return this;
    }

    private RenderMemo memo;
    private HighlightCache highlights;
    private java.util.function.Consumer<String> warnings = line -> { };
    /** The Prism time this build's pages took. */
    private final SyntaxHighlighter.BuildBudget highlightingTime = new SyntaxHighlighter.BuildBudget();

    /** Where a warning goes (a code block shown without highlighting, {@link SyntaxHighlighter.Limits}); called from render threads. */
    public SiteRenderer warningTo(java.util.function.Consumer<String> warnings) {
        this.warnings = line -> {
            synchronized (this) {
                warnings.accept(line);
            }
        };
        return this;
    }

    /** Takes highlighted code from, and keeps it in, the highlight cache between builds (null: highlight every block). */
    public SiteRenderer highlightingWith(HighlightCache highlights) {
        this.highlights = highlights;
        return this;
    }

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

    /** Everything about the other pages that one page shows: paths, titles, labels, order, groups. */
    private static String navigationFingerprint(Navigation navigation) {
        StringBuilder out = new StringBuilder();
        for (String locale : navigation.locales()) {
            out.append(locale).append('\n');
            fingerprint(navigation.sidebar(locale), out);
        }
        for (Page page : navigation.pages()) {
            out.append(page.outputPath()).append('\t').append(page.locale()).append('\t').append(page.localPath()).append('\n');
        }
        return out.toString();
    }

    private static void fingerprint(List<Navigation.Entry> entries, StringBuilder out) {
        for (Navigation.Entry entry : entries) {
            if (entry instanceof Navigation.PageEntry page) {
                out.append(page.page().outputPath()).append('\t').append(page.label()).append('\t').append(page.badge()).append('\n');
            } else if (entry instanceof Navigation.LinkEntry link) {
                out.append(link).append('\n');
            } else if (entry instanceof Navigation.GroupEntry group) {
                out.append('[').append(group.id()).append(group.label()).append(group.collapsed()).append('\n');
                fingerprint(group.entries(), out);
                out.append("]\n");
            }
        }
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
    public SiteRenderer(Theme theme, SiteConfig config, VerificationRun verification, Map<String, BrowserRuns> browserRuns,
                        String builtAt, Map<String, String> lastUpdated, int jobs) throws IOException {
        this.browserRuns = browserRuns;
        this.enginePath = BrowserEngine.sitePath();
        this.engineMegabytes = Long.toString(Math.round(BrowserEngine.downloadBytes() / 1_000_000.0));
        this.jobs = Math.max(1, jobs);
        this.theme = theme;
        this.config = config;
        this.verification = verification;
        this.builtAt = builtAt;
        this.lastUpdated = lastUpdated;
    }

    /**
     * Renders every page and writes each file to {@code sink} as soon as it is made, so that the site is
     * never held in memory whole. Template errors are added to diagnostics.
     */
    public RenderedSite render(List<MarkdownDocument> documents, Navigation navigation, Set<String> assetPaths, SiteSink sink,
                               List<Diagnostic> diagnostics) throws IOException {
        Map<Page, MarkdownDocument> byPage = new IdentityHashMap<>();
        documents.forEach(d -> byPage.put(d.page(), d));
        Set<String> paths = ConcurrentHashMap.newKeySet();
        Map<String, PageOutline> outlines = new HashMap<>();
        Map<String, String> wholeDocuments = new HashMap<>();
        Set<String> framedFolders = new HashSet<>();
        Set<String> writtenTwice = ConcurrentHashMap.newKeySet();
        SiteSink writer = (path, content) -> {
            if (!paths.add(path)) {
                writtenTwice.add(path); // a page whose output path is a file the theme generates (contents/0.html, say)
                return;
            }
            sink.write(path, content);
        };
        // One index per language on a multilingual site, as Pagefind does: a reader searches the pages of theirs.
        Map<String, SearchIndex> searches = new LinkedHashMap<>();
        for (String locale : navigation.locales()) {
            searches.put(locale, new SearchIndex(searchFolder(locale), memo == null ? null : memo.lastIndex(searchFolder(locale)), memo != null));
        }
        long searchPageBytes = 0;
        List<Page> order = navigation.pages();
        Map<String, String> sourceByOutput = new HashMap<>();
        order.forEach(p -> sourceByOutput.put(p.outputPath(), p.relativePath()));
        sourceByOutput.putIfAbsent("index.html", "index.html"); // the theme's home page when the site has no index.md
        links = new SiteLinks(sourceByOutput, assetPaths, config.basePath(), config.urlFormat(), config.aliases());
        sidebar = new SidebarView(navigation, theme, links);
        furniture = new PageFurniture(config, links, lastUpdated);
        translations = new HashMap<>();
        for (Page page : order) {
            translations.computeIfAbsent(stem(page.localPath()), k -> new LinkedHashMap<>()).put(page.locale(), page);
        }
        if (sidebar.shared()) {
            for (String locale : navigation.locales()) {
                writer.write(SidebarView.scriptPath(locale), sidebar.script(locale));
            }
        }
        Map<String, Long> sharing = new HashMap<>();
        order.forEach(p -> sharing.merge(p.relativePath(), 1L, Long::sum));
        // Pages render in parallel and are written as they finish; their search entries are joined in
        // reading order, so the output is the same byte for byte whatever the parallelism.
        ExecutorService pool = Executors.newFixedThreadPool(jobs);
        try {
            List<Future<RenderedPage>> rendered = new ArrayList<>();
            // site.yml shapes every page (title, lang, url, logo, custom CSS): a change to it renders them all again.
            String shared = memo == null ? "" : RenderMemo.key(navigationFingerprint(navigation), theme.fingerprint(),
                    String.valueOf(verification.serverVersion()), config.toString());
            AtomicInteger renderedNow = new AtomicInteger();
            for (Page page : order) {
                Page previous = navigation.previous(page);
                Page next = navigation.next(page);
                PageResult result = verification.pages().get(page.relativePath());
                // The build time is shown only under verified SQL: other pages are reused across minutes.
                // The files a page read (a ?raw import, a diagram) shape it as its source does.
                List<String> key = memo == null ? null : java.util.Arrays.asList(shared, page.body(), byPage.get(page).readFiles(),
                        page.frontMatter().toString(), memo.outcomesFingerprint(page.outputPath(), result, SiteRenderer::outcomesFingerprint),
                        lastUpdated.get(page.relativePath()), result == null ? "" : builtAt,
                        String.valueOf(verification.checkedAt().get(page.relativePath())));
                RenderMemo.Entry reused = memo == null ? null : memo.get(page.outputPath(), key);
                boolean lastUse = sharing.get(page.relativePath()) == 1;
                rendered.add(pool.submit(() -> {
                    RenderedPage done;
                    if (reused != null) {
                        done = reused.page();
                    } else {
                        done = renderPage(byPage.get(page), navigation, previous, next);
                        if (memo == null && lastUse) {
                            byPage.get(page).release(); // a build renders each page once; the preview may render it again
                        } else if (memo != null) {
                            memo.put(page.outputPath(), new RenderMemo.Entry(key, done));
                        }
                        renderedNow.incrementAndGet();
                    }
                    writer.write(page.outputPath(), done.html());
                    String folder = page.outputPath().substring(0, page.outputPath().lastIndexOf('/') + 1);
                    for (Map.Entry<String, String> file : done.runFiles().entrySet()) {
                        writer.write(folder + file.getKey(), file.getValue());
                    }
                    progress.pagesRendered.incrementAndGet();
                    return done;
                }));
            }
            for (int i = 0; i < order.size(); i++) {
                Page page = order.get(i);
                try {
                    RenderedPage result = rendered.get(i).get();
                    rendered.set(i, null); // written: nothing of the page is kept but its outline and search terms
                    outlines.put(page.outputPath(), result.outline());
                    // The theme's frame is the same for every page of a language at one folder depth: read one whole.
                    if (framedFolders.add(page.locale() + "|" + relativeRoot(page.outputPath()))) {
                        wholeDocuments.put(page.outputPath(), result.html());
                    }
                    if (result.search() != null) {
                        SearchIndex search = searches.get(page.locale());
                        String pageFile = search.join(result.search());
                        searchPageBytes += pageFile.getBytes(StandardCharsets.UTF_8).length;
                        writer.write(search.pageFile(search.pages() - 1), pageFile);
                    }
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Theme.ThemeException theme) {
                        diagnostics.add(theme.diagnostic());
                        return new RenderedSite(paths, outlines, wholeDocuments);
                    }
                    if (e.getCause() instanceof StackOverflowError) {
                        // Rendering recurses once per nesting level of the page's blocks.
                        diagnostics.add(Diagnostic.at(page.displayPath(), 1, 1,
                                "the page nests blockquotes, lists or other blocks too deeply to render", null));
                        continue;
                    }
                    if (e.getCause() instanceof IOException io) {
                        throw io;
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
        dev.kensho.generator.KenshoBuild.phase("pages");
        searchIndexBytes = searchPageBytes;
        searchIndexFiles = 0;
        for (Map.Entry<String, SearchIndex> language : searches.entrySet()) {
            SearchIndex search = language.getValue();
            Map<String, String> index = search.files();
            if (memo != null) {
                memo.keepIndex(searchFolder(language.getKey()), search);
            }
            for (Map.Entry<String, String> file : index.entrySet()) {
                writer.write(file.getKey(), file.getValue());
                searchIndexBytes += file.getValue().getBytes(StandardCharsets.UTF_8).length;
            }
            searchIndexFiles += index.size() + search.pages();
        }
        try {
            // A site's own 404.md (as in Starlight) replaces the theme's page.
            if (!paths.contains(NOT_FOUND_PAGE)) {
                String page = theme.render("404.ftlh", baseModel(NOT_FOUND_PAGE, navigation, null, config.defaultLocale()));
                writer.write(NOT_FOUND_PAGE, page);
                wholeDocuments.put(NOT_FOUND_PAGE, page);
            }
            if (!config.url().isEmpty()) {
                writer.write("sitemap.xml", sitemap(order.stream().filter(p -> !p.outputPath().equals(NOT_FOUND_PAGE) && !p.fallback()).toList()));
            }
            if (!paths.contains("index.html")) {
                Map<String, Object> model = baseModel("index.html", navigation, null, config.defaultLocale());
                String defaultHome = homeOf(config.defaultSiteLocale());
                if (!config.locales().containsKey(SiteLocale.ROOT) && !defaultHome.equals("index.html")) {
                    // No root language: the site's root sends readers to the default language, as Starlight does.
                    model.put("redirect", links.between("index.html", defaultHome));
                }
                if (sidebar.shared()) {
                    // A large site's home page lists the first pages of each group and links to a page per
                    // group listing all of them: the no-script table of contents, without one huge page.
                    model.put("sidebar", groupContents(navigation, writer, wholeDocuments));
                }
                String home = theme.render("index.ftlh", model);
                writer.write("index.html", home);
                wholeDocuments.put("index.html", home);
            }
        } catch (Theme.ThemeException e) {
            diagnostics.add(e.diagnostic());
        }
        for (Page page : order) {
            if (writtenTwice.contains(page.outputPath())) {
                diagnostics.add(Diagnostic.at(page.displayPath(), 1, 1, "the page's output path " + page.outputPath()
                        + " is also a file the build generates; rename or move the page", null));
            }
        }
        return new RenderedSite(paths, outlines, wholeDocuments);
    }

    /** The search index of a language: assets/search/ on a one-language site, assets/search/LOCALE/ otherwise. */
    private String searchFolder(String locale) {
        return config.multilingual() ? SearchIndex.FOLDER + locale + "/" : SearchIndex.FOLDER;
    }

    private static String stem(String path) {
        return path.substring(0, path.lastIndexOf('.'));
    }

    private RenderedPage renderPage(MarkdownDocument document, Navigation navigation, Page previous, Page next)
            throws Theme.ThemeException {
        Page page = document.page();
        UiStrings ui = uiOf(page.locale());
        PageResult result = verification.pages().get(page.relativePath());
        Map<FencedCodeBlock, Outcome> outcomes = new IdentityHashMap<>();
        Map<FencedCodeBlock, Outcome> expectedRows = new IdentityHashMap<>();
        Map<FencedCodeBlock, VersionCoverage.Mark> marks = new IdentityHashMap<>();
        Map<FencedCodeBlock, VersionCoverage.Evidence> evidenceFrom = new IdentityHashMap<>();
        Map<FencedCodeBlock, BrowserRuns.Entry> runnable = new IdentityHashMap<>();
        Map<String, String> runFiles = Map.of();
        String pageStem = stem(page.outputPath().substring(page.outputPath().lastIndexOf('/') + 1));
        if (result != null) {
            List<MarkdownDocument.SqlFence> fences = document.sqlFences();
            BrowserRuns browser = browserRuns.get(page.relativePath());
            for (int i = 0; i < fences.size(); i++) {
                outcomes.put(fences.get(i).node(), result.outcomes().get(i));
                if (severalVersions()) {
                    marks.put(fences.get(i).node(), verification.coverage().mark(page.relativePath(), i));
                    evidenceFrom.put(fences.get(i).node(), verification.coverage().evidence(page.relativePath(), i));
                }
                if (fences.get(i).rowsNode() != null) {
                    expectedRows.put(fences.get(i).rowsNode(), result.outcomes().get(i));
                }
                // A snippet after one the browser cannot replay names that one as the reader sees it, never by a source line.
                runnable.put(fences.get(i).node(), BrowserRuns.named(browser.entries().get(i), j -> dev.kensho.generator.markdown.FenceInfo
                        .parse(fences.get(j).node().getInfo().toString()).meta().getOrDefault("title", "")));
            }
            if (browser.anyRunnable()) {
                runFiles = browser.planFiles(pageStem, browserComparedVersion(), severalVersions()
                        ? dev.kensho.sqlchecks.postgres.PostgresReleases.describe(verification.coverage().checked()) : null, ui.strings());
            }
        }
        String planUrl = pageStem + BrowserRuns.PLAN_SUFFIX;
        // What the page's code may take of highlighting, fences and components together.
        SyntaxHighlighter.PageBudget highlighting = new SyntaxHighlighter.PageBudget(page.displayPath(), warnings, highlightingTime);
        HtmlRenderer html = HtmlRenderer.builder(MarkdownDocument.RENDER_OPTIONS)
                .nodeRendererFactory(options -> new SnippetNodeRenderer(theme, outcomes, expectedRows, verification.serverVersion(), ui,
                        document.textMarks(), runnable, planUrl, marks, evidenceFrom, highlights, highlighting))
                .build();
        String body;
        try {
            body = html.render(document.document());
        } catch (SnippetNodeRenderer.RenderFailure failure) {
            throw failure.cause;
        }
        body = new ComponentAssembler(theme, markdown -> HtmlGate.pass(MarkupPolicy.renderInline(markdown)).html(), highlights, highlighting)
                .assemble(body, document, relativeRoot(page.outputPath()), ui);
        Map<String, Object> model = baseModel(page.outputPath(), navigation, page, page.locale());
        Map<String, Object> pageModel = new HashMap<>();
        pageModel.put("title", page.frontMatter().title());
        pageModel.put("description", page.frontMatter().description().isEmpty() ? config.description() : page.frontMatter().description());
        // One parse of the page's HTML serves the search index, the table of contents, the heading anchors,
        // the links and what the link check needs.
        Document fragment = Jsoup.parseBodyFragment(body);
        fragment.outputSettings().prettyPrint(false);
        // The page's contributor HTML passed HtmlGate when it was read; the page is published as this one
        // parse serialises it, without comments (a page may write none that reaches readers).
        HtmlGate.dropComments(fragment);
        // An untranslated page is indexed in the language it is served in, so that its readers find it there too.
        SearchIndex.PageEntry search = page.frontMatter().isOff("pagefind") || page.outputPath().equals(NOT_FOUND_PAGE)
                ? null : SearchIndex.extract(config.urlFormat().urlPath(page.outputPath()), page.frontMatter().title(), fragment.body());
        pageModel.put("toc", PageFurniture.tableOfContents(fragment, page.frontMatter()));
        boolean anchored = addHeadingAnchors(fragment, ui);
        boolean relinked = links.rewrite(fragment.body(), page.outputPath());
        // What the link check needs is taken now, with the forms authors wrote; the published page carries only the URLs.
        PageOutline outline = PageOutline.of(fragment.body());
        if (relinked) {
            fragment.body().select(SiteLinks.WRITTEN_LINKS).removeAttr(SiteLinks.WRITTEN);
        }
        body = fragment.body().html();
        pageModel.put("content", body);
        pageModel.put("group", String.join(" › ", navigation.ancestors(page).stream().map(Navigation.GroupEntry::label).toList()));
        pageModel.put("lastUpdated", furniture.lastUpdated(page));
        pageModel.put("source", page.relativePath());
        pageModel.put("meta", page.frontMatter().extra());
        pageModel.put("verification", pageVerification(page, result));
        pageModel.put("fallback", page.fallback());
        pageModel.put("contentLang", config.locales().get(page.fallback() ? config.defaultLocale() : page.locale()).lang());
        pageModel.put("editUrl", furniture.editUrl(page));
        pageModel.put("splash", "splash".equals(page.frontMatter().extra().get("template")));
        pageModel.put("hero", furniture.hero(page));
        pageModel.put("banner", furniture.banner(page));
        pageModel.put("head", PageFurniture.head(page));
        model.put("page", pageModel);
        model.put("prev", pagination(page, "prev", previous));
        model.put("next", pagination(page, "next", next));
        return new RenderedPage(theme.render("page.ftlh", model), outline, search, runFiles);
    }

    private UiStrings uiOf(String locale) throws Theme.ThemeException {
        return theme.ui(siteLocale(locale).lang());
    }

    /** A page's language; the default one for pages outside every language (the 404 and home pages of the theme). */
    private SiteLocale siteLocale(String locale) {
        return config.locales().getOrDefault(locale, config.defaultSiteLocale());
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

    /** Whether this run checked several PostgreSQL versions, so that each mark names its own. */
    private boolean severalVersions() {
        return verification.coverage() != null && verification.coverage().checked().size() > 1;
    }

    /**
     * The exact version whose outcomes the page shows and the browser compares with: the newest checked (PGlite runs
     * 18), since a snippet that held everywhere is shown with the newest version's outcome.
     */
    private String browserComparedVersion() {
        VersionCoverage coverage = verification.coverage();
        if (coverage == null || coverage.checked().size() < 2) {
            return verification.serverVersion();
        }
        return coverage.exact().getOrDefault(coverage.newest(), Integer.toString(coverage.newest()));
    }

    private Map<String, Object> pageVerification(Page page, PageResult result) {
        if (result == null) {
            return null;
        }
        Map<String, Object> verified = new HashMap<>();
        // The footer says every snippet it counts ran and held: it counts those (a skipped one is not among them).
        verified.put("snippets", result.outcomes().stream().filter(Outcome::passed).count());
        verified.put("assertions", result.outcomes().stream().filter(Outcome::passed).mapToLong(o -> o.assertions().size()).sum());
        verified.put("passed", result.outcomes().stream().filter(Outcome::passed).count());
        verified.put("serverVersion", verification.serverVersion());
        VerificationRun.CheckedAt clock = verification.checkedAt().get(page.relativePath());
        // A page read from the cache was run by the build that stored it, not by this one: the footer names that build's time.
        verified.put("builtAt", clock != null && verification.fromCache().contains(page.relativePath())
                ? DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").format(clock.verifiedAt().atOffset(java.time.ZoneOffset.UTC))
                : builtAt);
        // A page reading the clock says when its claims were checked: they hold for that moment, maybe not for today.
        if (clock != null && clock.reads() != null) {
            verified.put("clockReads", clock.reads());
            verified.put("clockVerifiedAt", DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
                    .format(clock.verifiedAt().atOffset(java.time.ZoneOffset.UTC)));
        }
        return verified;
    }

    private SidebarView sidebar;
    private PageFurniture furniture;
    /** Local path stem → the page in each locale ("guides/a" → {root: …, en: …}), for the language picker and hreflang. */
    private Map<String, Map<String, Page>> translations;

    private Map<String, Object> baseModel(String outputPath, Navigation navigation, Page current, String locale) throws Theme.ThemeException {
        Map<String, Object> model = new HashMap<>();
        String root = rootFor(outputPath);
        SiteLocale siteLocale = siteLocale(locale);
        UiStrings ui = uiOf(locale);
        model.put("root", root);
        model.put("asset", assetPaths());
        model.put("csp", ContentSecurityPolicy.POLICY);
        model.put("engine", enginePath);
        model.put("engineMegabytes", engineMegabytes);
        model.put("ui", ui.strings());
        model.put("lang", siteLocale.lang());
        model.put("searchFolder", searchFolder(siteLocale.key()));
        model.put("dir", siteLocale.dir());
        model.put("site", siteModel(siteLocale));
        model.put("canonical", config.url().isEmpty() ? "" : links.absolute(config.url(), outputPath));
        model.put("home", links.fromRoot(root, homeOf(siteLocale)));
        model.put("sidebarHtml", sidebar.html(locale, root, outputPath, current, ui));
        model.put("languages", languages(current, root));
        model.put("alternates", alternates(current));
        if (current == null) {
            // The index and 404 pages list the groups themselves; lesson pages only need the sidebar's HTML.
            model.put("sidebar", navigation.sections(locale).stream().map(g -> Map.of("label", g.label(),
                    "items", g.pages().stream().map(p -> link(p, outputPath)).toList())).toList());
        }
        return model;
    }

    private Map<String, String> assetPaths;

    /** The theme's assets by name ("kensho.css") → the path pages link to, named by its content ("assets/kensho.1f0c3a9be2.css"). */
    private synchronized Map<String, String> assetPaths() throws Theme.ThemeException {
        if (assetPaths == null) {
            try {
                Map<String, String> paths = new HashMap<>();
                theme.hashedAssetNames().forEach((name, hashed) -> paths.put(name, "assets/" + hashed));
                assetPaths = Map.copyOf(paths);
            } catch (IOException e) {
                throw new Theme.ThemeException(Diagnostic.at("theme assets", 1, 1, "cannot be read: " + e.getMessage(), null));
            }
        }
        return assetPaths;
    }

    /** Site-wide values for templates: {@code site.title}, {@code site.logo.light}, {@code site.customCss}, … */
    private Map<String, Object> siteModel(SiteLocale siteLocale) {
        Map<String, Object> site = new HashMap<>(Map.of("title", config.title(), "description", config.description(),
                "lang", siteLocale.lang(), "url", config.url(), "base", config.basePath()));
        Branding branding = config.branding();
        if (!branding.logoLight().isEmpty()) {
            site.put("logo", Map.of("light", branding.logoLight(), "dark", branding.logoDark(),
                    "alt", branding.logoAlt().isEmpty() && branding.logoReplacesTitle() ? config.title() : branding.logoAlt(),
                    "replacesTitle", branding.logoReplacesTitle()));
        }
        site.put("favicon", branding.favicon());
        site.put("customCss", branding.customCss());
        site.put("social", branding.social().stream().map(link -> Map.of("icon", link.icon(), "label", link.label(), "href", link.href())).toList());
        return site;
    }

    /** The home page of a language: its own index page when it has one, else the site's. */
    private String homeOf(SiteLocale locale) {
        Page home = translations.getOrDefault("index", Map.of()).get(locale.key());
        return home != null ? home.outputPath() : "index.html";
    }

    /** The language picker: this page in every language of the site (translated, or its fallback). */
    private List<Map<String, Object>> languages(Page current, String root) {
        if (!config.multilingual()) {
            return List.of();
        }
        List<Map<String, Object>> languages = new ArrayList<>();
        Map<String, Page> versions = current == null ? Map.of() : translations.getOrDefault(stem(current.localPath()), Map.of());
        for (SiteLocale locale : config.locales().values()) {
            Page version = versions.get(locale.key());
            String target = version != null ? version.outputPath() : homeOf(locale);
            languages.add(Map.of("label", locale.label(), "lang", locale.lang(), "href", links.fromRoot(root, target),
                    "current", current != null && locale.key().equals(current.locale())));
        }
        return languages;
    }

    /** hreflang links to the page's translations (fallback copies are not translations), and x-default. */
    private List<Map<String, Object>> alternates(Page current) {
        if (!config.multilingual() || current == null || config.url().isEmpty()) {
            return List.of();
        }
        List<Map<String, Object>> alternates = new ArrayList<>();
        Map<String, Page> versions = translations.getOrDefault(stem(current.localPath()), Map.of());
        for (SiteLocale locale : config.locales().values()) {
            Page version = versions.get(locale.key());
            if (version != null && !version.fallback()) {
                alternates.add(Map.of("lang", locale.lang(), "href", links.absolute(config.url(), version.outputPath())));
                if (locale.key().equals(config.defaultLocale())) {
                    alternates.add(Map.of("lang", "x-default", "href", links.absolute(config.url(), version.outputPath())));
                }
            }
        }
        return alternates.size() > 2 ? alternates : List.of();
    }

    private Map<String, Object> link(Page target, String fromOutputPath) {
        return Map.of("title", Navigation.label(target), "href", links.fromRoot(rootFor(fromOutputPath), target.outputPath()));
    }

    /**
     * How a page's links reach the site's root. Every page uses a relative path, so the site works under
     * any base path; the 404 page alone is served for missing paths at any depth, so its links start
     * from the base path of {@code url:} in content/site.yml.
     */
    private String rootFor(String outputPath) {
        return outputPath.equals(NOT_FOUND_PAGE) ? config.basePath() : relativeRoot(outputPath);
    }

    private static final String NOT_FOUND_PAGE = "404.html";

    /** "" for a page at the top, "../" one folder down, and so on: the site works from any base path. */
    static String relativeRoot(String outputPath) {
        return "../".repeat((int) outputPath.chars().filter(c -> c == '/').count());
    }

    /** A link to itself after every h2–h4, so readers can share a section; true when any was added. */
    private static boolean addHeadingAnchors(Document fragment, UiStrings ui) {
        boolean changed = false;
        for (Element heading : fragment.select(ANCHORED_HEADINGS)) {
            heading.appendElement("a").addClass("anchor").attr("href", "#" + heading.id())
                    .attr("aria-label", ui.format("heading.anchor", heading.text())).text("#");
            changed = true;
        }
        return changed;
    }

    /** Pages a large site's home page lists per group; the rest are on the group's own contents page. */
    static final int HOME_ITEMS_PER_GROUP = 10;

    /** Pages one contents page lists: a group of any size is split over several, each well under 100 KB. */
    static final int CONTENTS_PER_PAGE = 400;

    /**
     * Writes contents/N.html (and contents/N-2.html … for a group of more than {@value #CONTENTS_PER_PAGE}
     * pages) for every group of the default language, and returns the home page's shortened lists.
     */
    private List<Map<String, Object>> groupContents(Navigation navigation, SiteSink writer, Map<String, String> wholeDocuments)
            throws Theme.ThemeException, IOException {
        List<Map<String, Object>> home = new ArrayList<>();
        List<Navigation.Section> sections = navigation.sections(config.defaultLocale());
        UiStrings ui = uiOf(config.defaultLocale());
        for (int g = 0; g < sections.size(); g++) {
            Navigation.Section section = sections.get(g);
            List<Page> pages = section.pages();
            String label = section.label().isEmpty() ? config.title() : section.label();
            int parts = Math.max(1, (pages.size() + CONTENTS_PER_PAGE - 1) / CONTENTS_PER_PAGE);
            for (int part = 0; part < parts; part++) {
                String contentsPath = contentsPath(g, part);
                List<Page> listed = pages.subList(part * CONTENTS_PER_PAGE, Math.min(pages.size(), (part + 1) * CONTENTS_PER_PAGE));
                Map<String, Object> model = baseModel(contentsPath, navigation, null, config.defaultLocale());
                Map<String, Object> group = new HashMap<>();
                group.put("label", parts == 1 ? label : label + " (" + (part + 1) + "/" + parts + ")");
                group.put("previousLabel", label + " (" + part + "/" + parts + ")");
                group.put("nextLabel", label + " (" + (part + 2) + "/" + parts + ")");
                group.put("items", listed.stream().map(p -> link(p, contentsPath)).toList());
                group.put("previous", part == 0 ? "" : SiteLinks.relative(contentsPath, contentsPath(g, part - 1)));
                group.put("next", part + 1 == parts ? "" : SiteLinks.relative(contentsPath, contentsPath(g, part + 1)));
                model.put("group", group);
                String contents = theme.render("contents.ftlh", model);
                writer.write(contentsPath, contents);
                wholeDocuments.put(contentsPath, contents);
            }
            home.add(Map.of("label", section.label(), "items", pages.stream().limit(HOME_ITEMS_PER_GROUP).map(p -> link(p, "index.html")).toList(),
                    "total", pages.size(), "more", pages.size() > HOME_ITEMS_PER_GROUP ? contentsPath(g, 0) : "",
                    "moreLabel", ui.format("home.allPages", label, pages.size())));
        }
        return home;
    }

    private static String contentsPath(int group, int part) {
        return "contents/" + group + (part == 0 ? "" : "-" + (part + 1)) + ".html";
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
