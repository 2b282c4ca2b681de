package dev.kensho.generator.content;

import dev.kensho.generator.Diagnostic;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.nio.ByteBuffer;
import java.nio.file.LinkOption;

/** First stage of the pipeline: finds the lesson sources and reads their headers. */
public final class ContentLoader {

    private final Path contentRoot;
    private final Path workingDir;
    private final ContentFiles files;
    /** Files below the root, walked once, with links and special files already refused. */
    private List<Path> walked;

    private final SiteConfig config;

    public ContentLoader(ContentFiles files, Path workingDir, SiteConfig config) {
        this.config = config;
        this.contentRoot = files.root();
        this.workingDir = workingDir.toAbsolutePath().normalize();
        this.files = files;
    }

    public ContentFiles files() {
        return files;
    }

    private int drafts;

    /** Pages left out because their front matter says {@code draft: true}. */
    public int drafts() {
        return drafts;
    }

    /** Every page in document-tree order; problems go to {@code diagnostics}, bad pages are left out. */
    public List<Page> load(List<Diagnostic> diagnostics) throws IOException {
        List<Page> pages = new ArrayList<>();
        Map<String, Page> byOutput = new LinkedHashMap<>();
        List<Path> sources = walk(diagnostics).stream().filter(ContentLoader::isPageSource).toList();
        // Files are read and their headers parsed in parallel; problems are then listed in file order.
        List<List<Diagnostic>> found = sources.stream().map(source -> (List<Diagnostic>) new ArrayList<Diagnostic>()).toList();
        Page[] loaded = new Page[sources.size()];
        try {
            IntStream.range(0, sources.size()).parallel().forEach(i -> {
                try {
                    loaded[i] = loadPage(sources.get(i), found.get(i));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        for (int i = 0; i < loaded.length; i++) {
            diagnostics.addAll(found.get(i));
            Page page = loaded[i];
            if (page == null) {
                continue;
            }
            if (config.multilingual() && !config.locales().containsKey(SiteLocale.ROOT) && !page.outputPath().equals("404.html")
                    && !page.relativePath().startsWith(page.locale() + "/")) {
                // With no root locale every page belongs to a language folder, as in Starlight.
                diagnostics.add(Diagnostic.at(page.displayPath(), 1, 1, "this page is outside every language folder ("
                        + String.join("/, ", config.locales().keySet()) + "/); move it into one, or add a root locale to site.yml", null));
                continue;
            }
            if (page.frontMatter().draft()) {
                drafts++;
                continue; // Starlight's draft: true — not part of the published site
            }
            Page other = byOutput.putIfAbsent(page.outputPath(), page);
            if (other != null) {
                diagnostics.add(Diagnostic.at(page.displayPath(), 1, 1, "this page and " + other.displayPath() + " would both be "
                        + page.outputPath() + "; keep one of them", null));
                continue;
            }
            pages.add(page);
        }
        if (config.multilingual()) {
            pages.addAll(fallbacks(pages));
        }
        return pages;
    }

    /**
     * A copy of every default-language page in each locale that has no translation of it, served at
     * that locale's URL, as Starlight does: every locale has every page, untranslated ones saying so.
     */
    private List<Page> fallbacks(List<Page> pages) {
        Map<String, Set<String>> translated = new HashMap<>();
        for (Page page : pages) {
            translated.computeIfAbsent(page.locale(), k -> new HashSet<>()).add(stem(page.localPath()));
        }
        List<Page> copies = new ArrayList<>();
        for (Page page : pages) {
            if (!page.locale().equals(config.defaultLocale()) || page.outputPath().equals("404.html")) {
                continue;
            }
            for (SiteLocale locale : config.locales().values()) {
                if (!locale.key().equals(page.locale()) && translated.computeIfAbsent(locale.key(), k -> new HashSet<>()).add(stem(page.localPath()))) {
                    copies.add(new Page(page.source(), page.displayPath(), page.relativePath(), page.frontMatter(), page.body(),
                            Page.outputPathOf(locale.prefix() + page.localPath(), config.urlFormat()), locale.key(), page.localPath(), true));
                }
            }
        }
        return copies;
    }

    private static String stem(String path) {
        return path.substring(0, path.lastIndexOf('.'));
    }

    /** Files below the content root that are not pages: diagrams, images, downloads. */
    public List<Path> assets() throws IOException {
        return walk(new ArrayList<>()).stream().filter(p -> !isPageSource(p))
                .filter(p -> !p.getFileName().toString().startsWith(".")).toList();
    }

    /**
     * Regular files below the root, sorted. A symbolic link, FIFO or device is checked by
     * {@link ContentFiles} and, unless it is a link to a regular file inside the root, reported at
     * its path and left out. Folders reached through links are not walked.
     */
    private List<Path> walk(List<Diagnostic> diagnostics) throws IOException {
        if (walked != null) {
            return walked;
        }
        List<Path> found = new ArrayList<>();
        try (Stream<Path> entries = Files.walk(contentRoot)) {
            for (Path path : entries.sorted().toList()) {
                if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                long limit = isPageSource(path) ? ContentFiles.MAX_PAGE_BYTES : ContentFiles.MAX_ASSET_BYTES;
                String nameProblem = ContentFiles.nameProblem(contentRoot.relativize(path).toString().replace('\\', '/'));
                if (nameProblem != null && !path.getFileName().toString().startsWith(".")) {
                    diagnostics.add(Diagnostic.at(display(path), 1, 1, "not read: " + nameProblem, null));
                    continue;
                }
                try {
                    files.check(path, limit);
                    found.add(path);
                } catch (ContentFiles.Refused refused) {
                    diagnostics.add(Diagnostic.at(display(path), 1, 1, "not read: " + refused.getMessage(), null));
                }
            }
        }
        walked = List.copyOf(found);
        return walked;
    }

    public Path root() {
        return contentRoot;
    }

    static boolean isPageSource(Path path) {
        String name = path.getFileName().toString();
        return name.endsWith(".md") || name.endsWith(".mdx");
    }

    private Page loadPage(Path source, List<Diagnostic> diagnostics) throws IOException {
        String displayPath = display(source);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(files.read(source, ContentFiles.MAX_PAGE_BYTES))).toString();
        } catch (ContentFiles.Refused e) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "not read: " + e.getMessage(), null));
            return null;
        } catch (CharacterCodingException e) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "the file is not valid UTF-8", null));
            return null;
        }
        text = text.replace("\r\n", "\n");
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        String[] lines = text.split("\n", -1);
        if (lines.length == 0 || !lines[0].strip().equals("---")) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1,
                    "a page must start with YAML front matter between '---' lines (at least a title)", lines.length == 0 ? "" : lines[0]));
            return null;
        }
        int close = -1;
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].strip().equals("---")) {
                close = i;
                break;
            }
        }
        if (close < 0) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "front matter is not closed: add a '---' line after it", lines[0]));
            return null;
        }
        StringBuilder yaml = new StringBuilder();
        for (int i = 1; i < close; i++) {
            yaml.append(lines[i]).append('\n');
        }
        FrontMatter frontMatter = parseFrontMatter(yaml.toString(), displayPath, lines, diagnostics);
        if (frontMatter == null) {
            return null;
        }
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            boolean header = i <= close;
            // Blank out the header rather than cutting it, so body lines keep their numbers (MDX imports
            // and exports, anywhere, are blanked by ComponentSyntax, which knows where code fences are).
            body.append(header ? "" : line);
            if (i < lines.length - 1) {
                body.append('\n');
            }
        }
        String relative = contentRoot.relativize(source.toAbsolutePath().normalize()).toString().replace('\\', '/');
        SiteLocale locale = config.localeOf(relative);
        return new Page(source, displayPath, relative, frontMatter, body.toString(), Page.outputPathOf(relative, config.urlFormat()),
                locale.key(), relative.startsWith(locale.prefix()) ? relative.substring(locale.prefix().length()) : relative, false);
    }

    private FrontMatter parseFrontMatter(String yaml, String file, String[] lines, List<Diagnostic> diagnostics) {
        Object loaded;
        try {
            loaded = YamlLimits.load(yaml, file);
        } catch (YamlLimits.Exceeded e) {
            int line = e.line + 1; // below the opening '---'
            diagnostics.add(Diagnostic.at(file, line, e.column, "front matter: " + e.getMessage(), line - 1 < lines.length ? lines[line - 1] : null));
            return null;
        } catch (MarkedYamlEngineException e) {
            int closingLine = yaml.split("\n", -1).length + 1;
            // A construct left open is only noticed at the closing '---'; point at where it was opened instead.
            var mark = e.getProblemMark().filter(m -> m.getLine() + 2 < closingLine).or(e::getContextMark);
            int line = mark.map(m -> m.getLine() + 2).orElse(2);
            int column = mark.map(m -> m.getColumn() + 1).orElse(1);
            String problem = e.getProblem() == null ? "malformed YAML" : e.getProblem();
            diagnostics.add(Diagnostic.at(file, line, column, "front matter: " + problem, line - 1 < lines.length ? lines[line - 1] : null));
            return null;
        } catch (YamlEngineException e) {
            diagnostics.add(Diagnostic.at(file, 2, 1, "front matter: " + e.getMessage(), lines.length > 1 ? lines[1] : null));
            return null;
        } catch (StackOverflowError e) {
            // The YAML parser recurses once per nesting level; no front matter needs thousands.
            diagnostics.add(Diagnostic.at(file, 2, 1, "front matter: nested too deeply to read", lines.length > 1 ? lines[1] : null));
            return null;
        }
        if (!(loaded instanceof Map<?, ?> map)) {
            diagnostics.add(Diagnostic.at(file, 2, 1, "front matter must be a mapping such as 'title: ...'", lines.length > 1 ? lines[1] : null));
            return null;
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        map.forEach((k, v) -> fields.put(String.valueOf(k), v));
        Object title = fields.remove("title");
        if (!(title instanceof String titleText) || titleText.isBlank()) {
            diagnostics.add(Diagnostic.at(file, 2, 1, "front matter needs a 'title' (text)", lines.length > 1 ? lines[1] : null));
            return null;
        }
        Object description = fields.remove("description");
        if (description != null && !(description instanceof String)) {
            int line = lineOf(lines, "description:");
            diagnostics.add(Diagnostic.at(file, line, 1, "front matter: description must be text, not '" + description + "'", lines[line - 1]));
            return null;
        }
        Integer order = null;
        String label = null;
        String badge = null;
        boolean hidden = false;
        List<String> sidebarKeys = new ArrayList<>();
        Object sidebar = fields.remove("sidebar");
        if (sidebar instanceof Map<?, ?> sidebarMap) {
            Object orderValue = sidebarMap.get("order");
            if (orderValue != null && !(orderValue instanceof Number)) {
                int line = lineOf(lines, "order:");
                diagnostics.add(Diagnostic.at(file, line, 1, "front matter: sidebar.order must be a number, not '" + orderValue + "'", lines[line - 1]));
                return null;
            }
            order = orderValue == null ? null : ((Number) orderValue).intValue();
            // Each value of the type Starlight's schema gives it: a string "true" is not hidden, a mapping is not a label,
            // and read any other way it would be dropped or shown as Java prints it ({a=b}) without a word.
            Object labelValue = sidebarMap.get("label");
            Object hiddenValue = sidebarMap.get("hidden");
            Object badgeValue = sidebarMap.get("badge");
            boolean badgeText = badgeValue == null || badgeValue instanceof String
                    || badgeValue instanceof Map<?, ?> badgeMap && badgeMap.get("text") instanceof String;
            String wrong = labelValue != null && !(labelValue instanceof String) ? "label:|sidebar.label must be text, not '" + labelValue + "'"
                    : hiddenValue != null && !(hiddenValue instanceof Boolean) ? "hidden:|sidebar.hidden must be true or false, not '" + hiddenValue + "'"
                    : !badgeText ? "badge:|sidebar.badge must be text, or a mapping with text: \"…\", not '" + badgeValue + "'" : null;
            if (wrong != null) {
                int line = lineOf(lines, wrong.substring(0, wrong.indexOf('|')));
                diagnostics.add(Diagnostic.at(file, line, 1, "front matter: " + wrong.substring(wrong.indexOf('|') + 1), lines[line - 1]));
                return null;
            }
            label = (String) labelValue;
            badge = badgeValue instanceof Map<?, ?> badgeMap ? (String) badgeMap.get("text") : (String) badgeValue;
            hidden = Boolean.TRUE.equals(hiddenValue);
            sidebarMap.keySet().forEach(key -> sidebarKeys.add(String.valueOf(key)));
        } else if (sidebar != null) {
            int line = lineOf(lines, "sidebar:");
            diagnostics.add(Diagnostic.at(file, line, 1, "front matter: 'sidebar' must be a mapping with 'order' and/or 'label'", lines[line - 1]));
            return null;
        }
        Map<String, Integer> keyLines = new HashMap<>();
        for (int i = 1; i < lines.length && !lines[i].strip().equals("---"); i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0 && !Character.isWhitespace(lines[i].charAt(0))) {
                keyLines.putIfAbsent(lines[i].substring(0, colon).strip(), i + 1);
            }
        }
        return new FrontMatter(titleText.strip(), description == null ? "" : String.valueOf(description).strip(), order, label, badge,
                hidden, fields, keyLines, sidebarKeys);
    }

    private static int lineOf(String[] lines, String needle) {
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].contains(needle)) {
                return i + 1;
            }
        }
        return 2;
    }

    private String display(Path source) {
        Path absolute = source.toAbsolutePath().normalize();
        return absolute.startsWith(workingDir) ? workingDir.relativize(absolute).toString().replace('\\', '/') : absolute.toString();
    }
}
