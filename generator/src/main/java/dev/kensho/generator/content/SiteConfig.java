package dev.kensho.generator.content;

import dev.kensho.generator.Diagnostic;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.net.URI;
import java.nio.file.LinkOption;
import java.util.Collections;

/**
 * Site-wide settings from {@code content/site.yml} (all optional).
 *
 * @param title       site name in the header and window titles
 * @param description default description for pages without one
 * @param lang        the {@code lang} attribute of every page
 * @param groups      sidebar labels of folders, in sidebar order ("lessons" → "レッスン")
 * @param url         where the site is published, ending in "/" (for canonical links, Open Graph, the
 *                    sitemap and the 404 page), or "" when unknown
 * @param urlFormat   directory URLs ({@code keys/}, the default) or file URLs ({@code keys.html}), from
 *                    {@code build: {format: directory|file}} as in Astro
 */
public record SiteConfig(String title, String description, String lang, Map<String, String> groups, String url,
                         UrlFormat urlFormat) {

    public static final String FILE_NAME = "site.yml";

    public SiteConfig {
        groups = Collections.unmodifiableMap(new LinkedHashMap<>(groups));
    }

    public static SiteConfig load(ContentFiles files, String displayPath, List<Diagnostic> diagnostics) throws IOException {
        Path file = files.root().resolve(FILE_NAME);
        SiteConfig defaults = new SiteConfig("Kensho", "", "ja", Map.of(), "", UrlFormat.DIRECTORY);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return defaults;
        }
        Object loaded;
        String text;
        try {
            text = new String(files.read(file, ContentFiles.MAX_PAGE_BYTES), StandardCharsets.UTF_8);
            loaded = new Load(LoadSettings.builder().build()).loadFromString(text);
        } catch (ContentFiles.Refused e) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "not read: " + e.getMessage(), null));
            return defaults;
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(1);
            int column = e.getProblemMark().map(m -> m.getColumn() + 1).orElse(1);
            diagnostics.add(Diagnostic.at(displayPath, line, column, "site settings: " + e.getProblem(), null));
            return defaults;
        } catch (YamlEngineException e) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "site settings: " + e.getMessage(), null));
            return defaults;
        }
        if (loaded == null) {
            return defaults;
        }
        if (!(loaded instanceof Map<?, ?> map)) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "site settings must be a mapping such as 'title: ...'", null));
            return defaults;
        }
        Map<String, String> groups = new LinkedHashMap<>();
        if (map.get("groups") instanceof Map<?, ?> groupMap) {
            groupMap.forEach((k, v) -> groups.put(String.valueOf(k), String.valueOf(v)));
        }
        UrlFormat format = UrlFormat.DIRECTORY;
        if (map.get("build") instanceof Map<?, ?> build && build.get("format") != null) {
            String written = String.valueOf(build.get("format"));
            if (!written.equals("directory") && !written.equals("file")) {
                diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "format:"), 1,
                        "site settings: build.format must be 'directory' or 'file', not '" + written + "'", null));
            }
            format = written.equals("file") ? UrlFormat.FILE : UrlFormat.DIRECTORY;
        }
        return new SiteConfig(
                map.get("title") == null ? defaults.title() : String.valueOf(map.get("title")),
                map.get("description") == null ? defaults.description() : String.valueOf(map.get("description")),
                map.get("lang") == null ? defaults.lang() : String.valueOf(map.get("lang")),
                groups,
                map.get("url") == null ? "" : withSlash(String.valueOf(map.get("url"))), format);
    }

    /** The line (from 1) of the first line containing {@code needle}, for settings found only after parsing. */
    private static int lineOf(String text, String needle) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains(needle)) {
                return i + 1;
            }
        }
        return 1;
    }

    private static String withSlash(String url) {
        return url.endsWith("/") ? url : url + "/";
    }

    /** The path part of the url ("/kensho/"), or "/" when the url is unknown. */
    public String basePath() {
        if (url.isEmpty()) {
            return "/";
        }
        String path = URI.create(url).getPath();
        return path == null || path.isEmpty() ? "/" : path;
    }
}
