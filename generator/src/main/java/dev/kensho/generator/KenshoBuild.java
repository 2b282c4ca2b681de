package dev.kensho.generator;

import dev.kensho.generator.render.RenderMemo;
import dev.kensho.generator.render.page.HighlightCache;
import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.ContentLoader;
import dev.kensho.generator.content.GitDates;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;
import dev.kensho.generator.links.LinkChecker;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.generator.markdown.ParseMemo;
import dev.kensho.generator.output.CacheHeaders;
import dev.kensho.generator.markdown.SvgDiagram;
import dev.kensho.generator.render.gate.ContentSecurityPolicy;
import dev.kensho.generator.render.playground.BrowserEngine;
import dev.kensho.generator.render.playground.BrowserRuns;
import dev.kensho.generator.output.SiteOutput;
import dev.kensho.generator.output.Unwritable;
import dev.kensho.generator.output.UpToDateSite;
import java.util.Optional;
import dev.kensho.generator.render.Navigation;
import dev.kensho.generator.render.RenderedSite;
import dev.kensho.generator.render.SiteSink;
import dev.kensho.generator.render.SiteRenderer;
import dev.kensho.generator.render.theme.Theme;
import dev.kensho.generator.report.JUnitReport;
import dev.kensho.generator.report.Progress;
import dev.kensho.generator.report.JsonReport;
import dev.kensho.generator.verify.JudgedEntries;
import dev.kensho.generator.verify.ProviderChoice;
import dev.kensho.generator.verify.ServerSession;
import dev.kensho.generator.verify.Shard;
import dev.kensho.generator.verify.VerificationCache;
import dev.kensho.generator.verify.SqlVerification;
import dev.kensho.generator.verify.VersionCoverage;
import dev.kensho.generator.verify.VersionedVerification;
import dev.kensho.sqlchecks.postgres.PostgresReleases;
import dev.kensho.generator.verify.VerificationRun;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;

import com.sun.management.OperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The pipeline, in the order data flows: load → parse → verify SQL → render → write. Problems from
 * every stage are collected, so one run lists them all; nothing is written unless there are none.
 */
public final class KenshoBuild {

    private KenshoBuild() {
    }

    public static BuildResult run(BuildOptions options, Consumer<String> log) throws IOException {
        return run(options, ServerSession.perBuild(), null, Progress.silent(), log);
    }

    /** The rendered site, handed over instead of written (the preview serves it from memory). */
    /**
     * @param html   the files the build generated, by path
     * @param copies the files published as they are, read when the build ended (content files through
     *               the content gate): the preview never reads content/ again to serve them
     */
    public record SiteFiles(Map<String, String> html, Map<String, byte[]> copies) {
    }

    /**
     * @param session where the server comes from
     * @param sink    receives the site instead of it being written to {@code options.out()}, or null to write it
     */
    public static BuildResult run(BuildOptions options, ServerSession session, Consumer<SiteFiles> sink, Progress progress,
                                  Consumer<String> log) throws IOException {
        return run(options, session, sink, progress, null, log);
    }

    /** @param memo pages rendered by earlier builds of this session, or null */
    public static BuildResult run(BuildOptions options, ServerSession session, Consumer<SiteFiles> sink, Progress progress,
                                  RenderMemo memo, Consumer<String> log) throws IOException {
        return run(options, session, sink, progress, memo, null, log);
    }

    /**
     * @param memo   pages rendered by earlier builds of this session, or null
     * @param parses pages parsed by earlier builds of this session, or null
     */
    public static BuildResult run(BuildOptions options, ServerSession session, Consumer<SiteFiles> sink, Progress progress,
                                  RenderMemo memo, ParseMemo parses, Consumer<String> log) throws IOException {
        return run(options, session, sink, progress, memo, parses, null, log);
    }

    /**
     * @param memo   pages rendered by earlier builds of this session, or null
     * @param parses pages parsed by earlier builds of this session, or null
     * @param judged verification cache entries earlier builds of this session read and judged, or null
     */
    public static BuildResult run(BuildOptions options, ServerSession session, Consumer<SiteFiles> sink, Progress progress,
                                  RenderMemo memo, ParseMemo parses, JudgedEntries judged, Consumer<String> log) throws IOException {
        long t0 = System.nanoTime();
        started = t0;
        ShutdownSignal.install();
        Path workingDir = Path.of("").toAbsolutePath();
        List<Diagnostic> diagnostics = new ArrayList<>();
        if (!Files.isDirectory(options.content())) {
            throw new IOException("content folder " + options.content() + " does not exist");
        }

        // A site that is what these inputs would build is left as it is (a build writes nothing, so a sink never skips).
        UpToDateSite upToDate = sink == null ? UpToDateSite.open(options) : null;
        if (upToDate != null) {
            Optional<UpToDateSite.Counts> same = upToDate.check(log);
            phase("check", t0);
            if (same.isPresent()) {
                log.accept("Kensho: " + options.out() + " is up to date: nothing that reaches it changed since the build that wrote it,"
                        + " and its verified marks from the cache still hold; nothing rebuilt");
                return BuildResult.upToDate(same.get(), Duration.ofNanos(System.nanoTime() - t0));
            }
        }
        // Prism loads on another thread while pages load, unless the highlight cache likely holds the site's code already.
        if (options.cache() == null || !Files.isDirectory(options.cache().resolve(HighlightCache.FOLDER))) {
            SiteRenderer.warmUp();
        }
        ContentFiles contentFiles = new ContentFiles(options.content().toAbsolutePath().normalize());
        String siteSettings = display(workingDir, contentFiles.root().resolve(SiteConfig.FILE_NAME));
        SiteConfig config = SiteConfig.load(contentFiles, siteSettings, diagnostics);
        // From here on, files a page names may start with the site's own aliases (site.yml), through the same gate.
        ContentLoader loader = new ContentLoader(contentFiles.withAliases(config.aliases()), workingDir, config);
        List<Page> pages = loader.load(diagnostics);
        long fallbacks = pages.stream().filter(Page::fallback).count();
        int sourcePages = (int) (pages.size() - fallbacks);
        // The sidebar and reading order, from the folders or site.yml: a slug naming no page is a load error.
        Navigation navigation = Navigation.of(pages, config, siteSettings, diagnostics);
        phase("load", t0);
        Theme theme = Theme.load(options.theme());
        // A theme file that may not be read (a link, a FIFO) fails the build at its path, as such a content file does.
        diagnostics.addAll(theme.problems());
        // Pages parse in parallel; their problems are then listed in page order.
        List<List<Diagnostic>> found = pages.stream().map(page -> (List<Diagnostic>) new ArrayList<Diagnostic>()).toList();
        // A fallback copy of a page reports nothing of its own: its original reports the same source.
        if (parses != null) {
            parses.startBuild();
        }
        String setting = parses == null ? null : theme.fingerprint() + "\n" + config;
        List<MarkdownDocument> documents = IntStream.range(0, pages.size()).parallel().mapToObj(i -> {
            List<Diagnostic> into = pages.get(i).fallback() ? new ArrayList<>() : found.get(i);
            return parses == null ? MarkdownDocument.parse(pages.get(i), theme, loader.files(), into)
                    : parses.parse(pages.get(i), setting, loader.files(), into, () -> MarkdownDocument.parse(pages.get(i), theme, loader.files(), into));
        }).toList();
        if (parses != null) {
            parses.endBuild();
        }
        found.forEach(diagnostics::addAll);
        phase("parse", t0);
        progress.expect((int) documents.stream().filter(d -> !d.sqlFences().isEmpty()).count(), documents.size());

        VerificationRun verification;
        VerificationCache verificationCache = null;
        List<Diagnostic> sqlFailures = List.of();
        String environmentError = null;
        try {
            List<MarkdownDocument> share = documents.stream()
                    .filter(d -> !d.page().fallback() && options.shard().contains(d.page().relativePath())).toList();
            if (!options.shard().equals(Shard.ALL)) {
                log.accept("Kensho: shard " + options.shard() + ": " + share.size() + " of " + documents.size() + " page(s)");
            }
            List<Integer> named = config.postgresVersions();
            if (options.postgresVersion() != 0 && !named.contains(options.postgresVersion())) {
                throw new PostgresUnavailableException("--postgres-version " + options.postgresVersion() + " is not one of the versions "
                        + siteSettings + " names in postgres.versions (" + PostgresReleases.describe(named) + ")");
            }
            List<Integer> checked = options.postgresVersion() != 0 ? List.of(options.postgresVersion()) : named;
            verificationCache = options.cache() == null ? null : VerificationCache.open(options.cache(), options.content(), options.cacheSecret(),
                    config.clockPagesFor(), options.freshTimeDependent(), judged, log);
            verification = VersionedVerification.run(share, named, checked, options.postgres(), options.image(),
                    options.limits().withExtensions(config.extensions()), verificationCache, options.jobs(), session, progress, log);
            if (!verification.pages().isEmpty()) {
                progress.stageDone("verified " + verification.pages().size() + " page(s), " + verification.outcomes().size() + " snippet(s)");
            }
            sqlFailures = SqlVerification.diagnostics(verification);
            diagnostics.addAll(sqlFailures);
            phase("sql", t0);
        } catch (PostgresUnavailableException e) {
            environmentError = e.getMessage();
            verification = VerificationRun.none();
        }
        // Said after the server line, which stays the first line of the output (README, "Command line").
        if (loader.drafts() > 0) {
            log.accept("Kensho: " + loader.drafts() + " draft page(s) (draft: true) left out");
        }
        if (fallbacks > 0) {
            log.accept("Kensho: " + fallbacks + " untranslated page(s) served in the default language with a notice");
        }

        // What content/ publishes besides pages is checked by `check` too: a file that could run script fails either.
        Map<String, String> svgs = new LinkedHashMap<>();
        Map<String, Path> copies = copies(loader, theme, workingDir, svgs, diagnostics);
        phase("copies", t0);
        // The browser's PostgreSQL, for the run controls of verified snippets: published only when a page may use it.
        if (memo != null && verification.coverage() != null) {
            VersionCoverage coverage = memo.sameCoverage(verification.coverage());
            verification = coverage == verification.coverage() ? verification : verification.withCoverage(coverage);
        }
        Map<String, BrowserRuns> browserRuns = BrowserRuns.ofPages(verification.pages(), config, verification.coverage(), memo);
        Map<String, Path> engine = browserRuns.values().stream().anyMatch(BrowserRuns::anyRunnable) ? BrowserEngine.files() : Map.of();
        engine.forEach((path, file) -> {
            if (copies.containsKey(path)) {
                diagnostics.add(Diagnostic.at(display(workingDir, loader.root().resolve(path)), 1, 1, "not published: " + path
                        + " is a file of the browser's PostgreSQL (PGlite); a content file may not replace it", null));
            }
            copies.put(path, file);
        });
        phase("engine", t0);
        Set<String> published = new HashSet<>(copies.keySet());
        published.addAll(svgs.keySet());
        boolean written = false;
        // PGlite's and the theme's files copied from the jar: the up-to-date record takes their digests from the jar.
        Map<String, SiteOutput.BundledCopy> bundledCopies = Map.of();
        List<LinkChecker.ExternalLink> externalLinks = List.of();
        // Pages with problems in their sources are not rendered: the build fails on those problems anyway. A failed SQL
        // example is no such problem: the site is still rendered, in memory only, so that the same run reports every
        // broken link and anchor beside it. check renders too, so that it blocks every broken link a build would block;
        // a shard (--shard) renders every page (its own with their outcomes, the others without marks) and reports the
        // link problems of its own pages, so that the shards together report each one once.
        if (environmentError == null && sqlFailures.containsAll(diagnostics)) {
            String builtAt = buildTime().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
            // The up-to-date record's inputs already hold git's dates for these pages: read once, rendered as recorded.
            Map<String, String> dates = upToDate != null && upToDate.contentRoot().equals(loader.root()) ? upToDate.gitDates() : GitDates.of(loader.root());
            SiteRenderer renderer = new SiteRenderer(theme, config, verification, browserRuns, builtAt, dates, options.jobs());
            phase("verify", t0);
            // A build writes each file to the staging folder as it is made; the preview keeps the site in memory.
            Map<String, String> kept = sink == null ? null : new ConcurrentHashMap<>();
            boolean writing = options.render() && sink == null && diagnostics.isEmpty();
            try (SiteOutput output = writing ? begin(options.out()) : null) {
                SiteSink target = writing ? output::write : sink != null ? kept::put : (path, content) -> { };
                for (Map.Entry<String, String> svg : svgs.entrySet()) {
                    target.write(svg.getKey(), svg.getValue());
                }
                HighlightCache highlights = options.cache() == null ? null
                        : HighlightCache.open(options.cache(), options.content(), options.cacheSecret(), log);
                RenderedSite site = renderer.reportingTo(progress).reusing(memo).highlightingWith(highlights).warningTo(log)
                        .render(documents, navigation, published, target, diagnostics);
                if (highlights != null) {
                    highlights.report(log);
                }
                // One _headers for hosts that read it: the security policy for every path, long caching for hashed assets.
                target.write(CacheHeaders.FILE_NAME, ContentSecurityPolicy.headersFile() + CacheHeaders.of(theme.hashedAssetNames().values(),
                        engine.keySet()));
                phase("render", t0);
                progress.stageDone("rendered " + site.paths().size() + " file(s)");
                log.accept("Kensho: search index " + renderer.searchIndexBytes() / 1024 + " KiB in " + renderer.searchIndexFiles()
                        + " file(s) for " + documents.size() + " page(s); a query fetches only the files it needs");
                Map<String, Page> sources = new HashMap<>();
                pages.forEach(page -> sources.put(page.outputPath(), page));
                for (String path : published) {
                    if (site.paths().contains(path) && !svgs.containsKey(path)) {
                        diagnostics.add(Diagnostic.at(display(workingDir, loader.root().resolve(path)), 1, 1, "not published: " + path
                                + " is a file the build generates (a page, the home or 404 page, the sitemap, search or sidebar data)", null));
                    }
                }
                // A page that could not be rendered would only show up again as broken links to it.
                if (sqlFailures.containsAll(diagnostics)) {
                    Set<String> files = new HashSet<>(site.paths());
                    files.add(CacheHeaders.FILE_NAME);
                    files.addAll(published);
                    LinkChecker.Result links = LinkChecker.check(site.documents(), site.outlines(), files, sources,
                            memo == null ? LinkChecker::outlineOf : html -> memo.wholeOutline(html, LinkChecker::outlineOf));
                    if (memo != null) {
                        memo.linkCheckDone();
                    }
                    phase("links", t0);
                    diagnostics.addAll(ownShare(links.problems(), options.shard(), pages));
                    externalLinks = links.external();
                }
                if (diagnostics.isEmpty() && sink != null) {
                    Map<String, byte[]> bytes = new HashMap<>();
                    // The theme's own files as they were read for their hashed names, PGlite's from the jar; content files
                    // only through the content gate.
                    Set<Path> themeFiles = new HashSet<>(theme.assets().values());
                    Set<Path> engineFiles = new HashSet<>(engine.values());
                    for (Map.Entry<String, Path> copy : copies.entrySet()) {
                        try {
                            bytes.put(copy.getKey(), themeFiles.contains(copy.getValue()) ? theme.assetBytes(copy.getValue())
                                    : engineFiles.contains(copy.getValue()) ? bundledFile(copy.getValue())
                                    : loader.files().read(copy.getValue(), ContentFiles.MAX_ASSET_BYTES));
                        } catch (ContentFiles.Refused refused) {
                            throw new IOException(copy.getKey() + " changed during the build: " + refused.getMessage());
                        }
                    }
                    sink.accept(new SiteFiles(kept, Map.copyOf(bytes)));
                    phase("handed", t0);
                    written = true;
                } else if (writing && diagnostics.isEmpty() && !ShutdownSignal.received()) {
                    for (Map.Entry<String, Path> copy : copies.entrySet()) {
                        if (Theme.bundled(copy.getValue())) {
                            output.copyBundled(copy.getKey(), copy.getValue());
                        } else {
                            output.copy(copy.getKey(), copy.getValue());
                        }
                    }
                    bundledCopies = output.bundledCopies();
                    if (upToDate != null) {
                        upToDate.forget(); // the record describes the site being replaced; a new one is made below when it may be
                    }
                    output.commit();
                    written = true;
                    phase("write", t0);
                }
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - t0);
        List<String> unverifiedSql = documents.stream().flatMap(d -> d.unverifiedSqlLines().stream()
                .map(line -> d.page().displayPath() + ":" + line)).toList();
        List<String> ignoredSql = documents.stream().flatMap(d -> d.ignoredSqlLines().stream()
                .map(line -> d.page().displayPath() + ":" + line)).toList();
        if (ShutdownSignal.received()) {
            throw new IOException("the build was interrupted; nothing was written");
        }
        // A report that cannot be written fails the run after its problems are listed: they are not lost with it.
        try {
            JsonReport.write(options.report(), new JsonReport.Build(KenshoVersion.VALUE, verification, diagnostics, sourcePages,
                    elapsed.toMillis(), externalLinks, unverifiedSql, ignoredSql, browserRuns, options.shard()));
        } catch (java.nio.file.FileSystemException e) {
            environmentError = environmentError != null ? environmentError : Unwritable.explain("the JSON report", options.report(), e).getMessage();
        }
        if (options.junitXml() != null) {
            Path junitFile = options.junitXml().resolve(JUnitReport.FILE_NAME);
            try {
                JUnitReport.write(options.junitXml(), verification, diagnostics);
            } catch (java.nio.file.FileSystemException e) {
                environmentError = environmentError != null ? environmentError : Unwritable.explain("the JUnit XML", junitFile, e).getMessage();
            }
        }
        // The site just written is recorded for the next build only when it is what a build of the same inputs writes:
        // every page's marks came from the cache (a page run now shows this build's minute; from the cache, its run's).
        if (upToDate != null && written && environmentError == null && diagnostics.isEmpty() && verificationCache != null
                && verification.fromCache().containsAll(verification.pages().keySet())) {
            Set<Path> files = new java.util.TreeSet<>(verificationCache.reusedFiles());
            files.add(options.report());
            try {
                upToDate.record(verificationCache.reusedNotBefore(), verificationCache.reusedUntil(),
                        new UpToDateSite.Counts(verification.count(dev.kensho.sqlchecks.model.Outcome.Status.PASSED),
                                verification.count(dev.kensho.sqlchecks.model.Outcome.Status.FAILED),
                                verification.count(dev.kensho.sqlchecks.model.Outcome.Status.SKIPPED), sourcePages),
                        files, loader.files().readOutside(), bundledCopies);
            } catch (IOException e) {
                log.accept("warning: could not write the up-to-date record: " + e.getMessage());
            }
            phase("record", t0);
        }
        return new BuildResult(diagnostics, environmentError, verification, sourcePages, written, elapsed, ignoredSql);
    }

    private static final Map<Path, byte[]> BUNDLED_FILES = new ConcurrentHashMap<>();

    /**
     * The bytes of a PGlite file, read once per process: they are inside Kensho's jar, which does not change while it
     * runs, and the preview hands over the whole site (16.7 MB of PGlite) on every edit. Never a file of a folder on disk.
     */
    private static byte[] bundledFile(Path file) throws IOException {
        if (!Theme.bundled(file)) {
            return Files.readAllBytes(file); // a development build's classes folder: read as it is now
        }
        byte[] bytes = BUNDLED_FILES.get(file);
        if (bytes == null) {
            bytes = Files.readAllBytes(file);
            BUNDLED_FILES.put(file, bytes);
        }
        return bytes;
    }

    private static SiteOutput begin(Path out) throws IOException {
        try {
            return SiteOutput.begin(out);
        } catch (java.nio.file.FileSystemException e) {
            throw Unwritable.explain("the site", out, e);
        }
    }

    /**
     * The link problems a shard reports: those of its own pages, and the theme's frame (no page's) in the first shard;
     * the shards of a run together report each problem once.
     */
    private static List<Diagnostic> ownShare(List<Diagnostic> problems, Shard shard, List<Page> pages) {
        if (shard.equals(Shard.ALL)) {
            return problems;
        }
        Map<String, String> pageOf = new HashMap<>();
        pages.forEach(page -> pageOf.put(page.displayPath(), page.relativePath()));
        return problems.stream().filter(problem -> {
            String page = pageOf.get(problem.file());
            return page == null ? shard.index() == 1 : shard.contains(page);
        }).toList();
    }

    /** When the running build started (System.nanoTime), for {@link #phase(String)} from the stages' own classes. */
    private static volatile long started;

    /** As {@link #phase(String, long)}, timed from the start of the build running now. */
    public static void phase(String stage) {
        phase(stage, started);
    }

    /** With KENSHO_TIMINGS set, how long the build took to reach the end of each stage, and the CPU it had used by then. */
    private static void phase(String stage, long t0) {
        if (System.getenv("KENSHO_TIMINGS") != null) {
            long cpu = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
            System.err.printf("timing: %-7s %6d ms (process CPU %6d ms, JVM up %6d ms)%n", stage, (System.nanoTime() - t0) / 1_000_000,
                    cpu / 1_000_000, ManagementFactory.getRuntimeMXBean().getUptime());
        }
    }

    /** Now, or SOURCE_DATE_EPOCH when set, so that a build can be reproduced byte for byte. */
    private static OffsetDateTime buildTime() {
        String epoch = System.getenv("SOURCE_DATE_EPOCH") != null ? System.getenv("SOURCE_DATE_EPOCH") : System.getProperty("kensho.sourceDateEpoch");
        if (epoch != null && epoch.matches("\\d+")) {
            return OffsetDateTime.ofInstant(Instant.ofEpochSecond(Long.parseLong(epoch)), ZoneOffset.UTC);
        }
        return OffsetDateTime.now(ZoneOffset.UTC);
    }

    /**
     * The files published as they are (the theme's assets, passive files from content/), and SVG files
     * from content/ as the sanitiser writes them again ({@code svgs}). A content file that would replace
     * a theme file, or of a type that could run script, is reported at its path instead.
     */
    private static Map<String, Path> copies(ContentLoader loader, Theme theme, Path workingDir, Map<String, String> svgs,
                                            List<Diagnostic> diagnostics) throws IOException {
        Map<String, Path> copies = new LinkedHashMap<>();
        Map<String, String> hashed = theme.hashedAssetNames();
        for (Map.Entry<String, Path> asset : theme.assets().entrySet()) {
            String name = asset.getKey();
            Path file = asset.getValue();
            if (theme.fromSiteTheme(file)) {
                // The site's theme comes with the pull request, as content/ does: a file that could run script on the
                // site's origin is published only as Kensho's own (its scripts unchanged), an SVG only sanitised.
                String shown = display(workingDir, file);
                try {
                    if (ContentFiles.isSvg(name)) {
                        String sanitised = SvgDiagram.standalone(Files.readString(file), "assets/" + name);
                        svgs.put("assets/" + name, sanitised);
                        svgs.put("assets/" + hashed.get(name), sanitised);
                        continue;
                    }
                } catch (SvgDiagram.Problem | java.nio.charset.CharacterCodingException problem) {
                    diagnostics.add(Diagnostic.at(shown, 1, 1, "not published: " + problem.getMessage(), null));
                    continue;
                }
                if (ContentFiles.publishProblem(name) != null && !sameBytes(file, theme.builtInOf(file))) {
                    diagnostics.add(Diagnostic.at(shown, 1, 1, "not published: a theme's " + name + " would run script on every page "
                            + "of the site, and the theme is read from the change being built; a site's theme may restyle and "
                            + "reword Kensho's pages (templates, components, words, CSS, images, fonts), not add or change their "
                            + "scripts", null));
                    continue;
                }
            }
            copies.put("assets/" + name, file);
            copies.put("assets/" + hashed.get(name), file);
        }
        for (Path asset : loader.assets()) {
            String relative = loader.root().relativize(asset).toString().replace('\\', '/');
            String shown = display(workingDir, asset);
            if (relative.equals(SiteConfig.FILE_NAME)) {
                continue;
            }
            if (copies.containsKey(relative)) {
                diagnostics.add(Diagnostic.at(shown, 1, 1, "not published: " + relative
                        + " is the theme's own file; a content file may not replace it", null));
                continue;
            }
            try {
                if (ContentFiles.isSvg(relative)) {
                    byte[] svg;
                    try {
                        svg = loader.files().read(asset, ContentFiles.MAX_DIAGRAM_BYTES);
                    } catch (ContentFiles.Refused refused) {
                        diagnostics.add(Diagnostic.at(shown, 1, 1, "not published: " + refused.getMessage(), null));
                        continue;
                    }
                    svgs.put(relative, SvgDiagram.standalone(new String(svg, java.nio.charset.StandardCharsets.UTF_8), relative));
                } else if (ContentFiles.publishProblem(relative) != null) {
                    if (!loader.files().readByAPage(asset)) { // a ?raw import's text is shown by its page, the file is not published
                        diagnostics.add(Diagnostic.at(shown, 1, 1, ContentFiles.publishProblem(relative), null));
                    }
                } else {
                    // The real file, checked again: what is copied is what was checked.
                    copies.put(relative, loader.files().check(asset, ContentFiles.MAX_ASSET_BYTES));
                }
            } catch (ContentFiles.Refused refused) {
                throw new IOException(relative + " changed during the build: " + refused.getMessage());
            } catch (SvgDiagram.Problem problem) {
                diagnostics.add(Diagnostic.at(shown, 1, 1, "not published: " + problem.getMessage(), null));
            }
        }
        return copies;
    }

    private static boolean sameBytes(Path file, Path builtIn) throws IOException {
        return builtIn != null && Files.exists(builtIn) && Files.size(file) == Files.size(builtIn)
                && java.util.Arrays.equals(Files.readAllBytes(file), Files.readAllBytes(builtIn));
    }

    private static String display(Path workingDir, Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        return absolute.startsWith(workingDir) ? workingDir.relativize(absolute).toString() : absolute.toString();
    }
}
