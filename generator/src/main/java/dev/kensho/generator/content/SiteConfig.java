package dev.kensho.generator.content;

import dev.kensho.sqlchecks.postgres.PostgresReleases;

import dev.kensho.sqlchecks.execution.ExtensionGuard;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.Suggestion;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.time.Duration;
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
 * @param groups      sidebar labels of folders, in sidebar order ("lessons" → "レッスン"; a label per language is
 *                    kept under "en/lessons")
 * @param url         where the site is published, ending in "/" (for canonical links, Open Graph, the
 *                    sitemap and the 404 page), or "" when unknown
 * @param urlFormat   directory URLs ({@code keys/}, the default) or file URLs ({@code keys.html}), from
 *                    {@code build: {format: directory|file}} as in Astro
 * @param locales     the site's languages by key (Starlight's {@code locales}); one root locale in {@code lang}
 *                    when none are configured
 * @param defaultLocale key of the language untranslated pages fall back to
 * @param sidebar     the sidebar as configured ({@code sidebar:}), or null to build it from the folders
 * @param editBaseUrl where a page's source can be edited, joined with its path below content/
 *                    ({@code editLink: {baseUrl: …}}), or ""
 * @param branding    logo, favicon, custom CSS and social links, with Starlight's names
 * @param extensions  extensions created in every page's database
 * @param playground  whether verified snippets get a run control in the reader's browser ({@code playground: false}
 *                    turns it off, and the site then carries no copy of the browser's PostgreSQL)
 * @param clockPagesFor how long a page whose SQL reads the clock keeps its marks from the cache
 *                    ({@code cache: {clockPagesFor: 6h}}; a day at most and by default, as every cache entry)
 * @param aliases     the site's own path prefixes ({@code aliases: {"~/": "shared/"}}), as a tsconfig's {@code paths}
 * @param postgresVersions the PostgreSQL major versions every page is checked on ({@code postgres: {versions: [14, 15, 16, 17, 18]}}),
 *                    oldest first; [18] when none are named
 */
public record SiteConfig(String title, String description, String lang, Map<String, String> groups, String url,
                         UrlFormat urlFormat, Map<String, SiteLocale> locales, String defaultLocale, List<SidebarItem> sidebar,
                         String editBaseUrl, Branding branding, List<String> extensions, boolean playground,
                         Duration clockPagesFor, PathAliases aliases,
                         List<Integer> postgresVersions) {

    public static final String FILE_NAME = "site.yml";

    /** Every key site.yml may hold; any other is a mistake (a misspelt key would otherwise be ignored in silence). */
    static final List<String> KEYS = List.of("title", "description", "lang", "url", "groups", "build", "locales",
            "defaultLocale", "sidebar", "editLink", "logo", "favicon", "customCss", "social", "extensions", "playground", "cache", "aliases", "postgres");


    public SiteConfig {
        groups = Collections.unmodifiableMap(new LinkedHashMap<>(groups));
        locales = Collections.unmodifiableMap(new LinkedHashMap<>(locales));
        sidebar = sidebar == null ? null : List.copyOf(sidebar);
        extensions = List.copyOf(extensions);
        postgresVersions = List.copyOf(postgresVersions);
    }

    /** Whether pages come in several languages (locale folders), as opposed to one language at the top. */
    public boolean multilingual() {
        return locales.size() > 1 || !locales.containsKey(SiteLocale.ROOT);
    }

    /** The locale a page below content/ belongs to, by its first folder. */
    public SiteLocale localeOf(String relativePath) {
        int slash = relativePath.indexOf('/');
        if (slash > 0 && !relativePath.substring(0, slash).equals(SiteLocale.ROOT) && locales.containsKey(relativePath.substring(0, slash))) {
            return locales.get(relativePath.substring(0, slash));
        }
        return locales.getOrDefault(SiteLocale.ROOT, locales.get(defaultLocale));
    }

    public static SiteConfig load(ContentFiles files, String displayPath, List<Diagnostic> diagnostics) throws IOException {
        Path file = files.root().resolve(FILE_NAME);
        SiteConfig defaults = new SiteConfig("Kensho", "", "ja", Map.of(), "", UrlFormat.DIRECTORY,
                Map.of(SiteLocale.ROOT, new SiteLocale(SiteLocale.ROOT, "日本語", "ja", "ltr")), SiteLocale.ROOT, null, "", Branding.NONE, List.of(), true,
                CLOCK_PAGES_AT_MOST, PathAliases.NONE,
                List.of(PostgresReleases.BUNDLED_MAJOR));
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return defaults;
        }
        Object loaded;
        String text;
        try {
            text = new String(files.read(file, ContentFiles.MAX_PAGE_BYTES), StandardCharsets.UTF_8);
            loaded = YamlLimits.load(text, displayPath);
        } catch (YamlLimits.Exceeded e) {
            diagnostics.add(Diagnostic.at(displayPath, e.line, e.column, "site settings: " + e.getMessage(), null));
            return defaults;
        } catch (StackOverflowError e) {
            diagnostics.add(Diagnostic.at(displayPath, 1, 1, "site settings: nested too deeply to read", null));
            return defaults;
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
        for (Object key : map.keySet()) {
            if (!KEYS.contains(String.valueOf(key))) {
                diagnostics.add(Diagnostic.at(displayPath, lineOf(text, key + ":"), 1, "site settings: unknown key '" + key + "'"
                        + Suggestion.didYouMean(String.valueOf(key), KEYS) + "; site.yml takes " + String.join(", ", KEYS), null));
            }
        }
        Map<String, String> groups = new LinkedHashMap<>();
        if (map.get("groups") instanceof Map<?, ?> groupMap) {
            groupMap.forEach((k, v) -> {
                if (v instanceof Map<?, ?> perLocale) {
                    // guides: {ja: ガイド, en: Guides} — a label per language, kept as "en/guides".
                    perLocale.forEach((locale, label) -> groups.put(locale + "/" + k, String.valueOf(label)));
                    groups.putIfAbsent(String.valueOf(k), String.valueOf(perLocale.values().iterator().next()));
                } else {
                    groups.put(String.valueOf(k), String.valueOf(v));
                }
            });
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
        String lang = map.get("lang") == null ? defaults.lang() : String.valueOf(map.get("lang"));
        Map<String, SiteLocale> locales = new LinkedHashMap<>();
        if (map.get("locales") instanceof Map<?, ?> localeMap) {
            localeMap.forEach((k, v) -> {
                String key = String.valueOf(k);
                Map<?, ?> settings = v instanceof Map<?, ?> m ? m : Map.of();
                String localeLang = settings.get("lang") == null ? key : String.valueOf(settings.get("lang"));
                if (key.equals(SiteLocale.ROOT) && settings.get("lang") == null) {
                    localeLang = lang;
                }
                if (!key.matches("[A-Za-z0-9_-]+")) {
                    diagnostics.add(Diagnostic.at(displayPath, lineOf(text, key + ":"), 1,
                            "site settings: locale '" + key + "' must be a folder name such as 'en' or 'pt-br'", null));
                    return;
                }
                locales.put(key, new SiteLocale(key, settings.get("label") == null ? localeLang : String.valueOf(settings.get("label")),
                        localeLang, "rtl".equals(settings.get("dir")) ? "rtl" : "ltr"));
            });
        } else if (map.get("locales") != null) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "locales:"), 1,
                    "site settings: locales must be a mapping such as 'en: {label: English, lang: en}'", null));
        }
        if (locales.isEmpty()) {
            locales.put(SiteLocale.ROOT, new SiteLocale(SiteLocale.ROOT, lang, lang, "ltr"));
        }
        String defaultLocale = map.get("defaultLocale") == null
                ? (locales.containsKey(SiteLocale.ROOT) ? SiteLocale.ROOT : locales.keySet().iterator().next())
                : String.valueOf(map.get("defaultLocale"));
        if (!locales.containsKey(defaultLocale)) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "defaultLocale:"), 1, "site settings: defaultLocale '" + defaultLocale
                    + "' is not one of the locales (" + String.join(", ", locales.keySet()) + ")", null));
            defaultLocale = locales.keySet().iterator().next();
        }
        List<SidebarItem> sidebar = null;
        if (map.get("sidebar") != null) {
            sidebar = new SidebarSettings(text, displayPath, diagnostics).items(map.get("sidebar"), "sidebar");
        }
        String editBaseUrl = "";
        if (map.get("editLink") instanceof Map<?, ?> edit) {
            Branding.unknownKeys(edit, "editLink", List.of("baseUrl"), text, displayPath, diagnostics);
        }
        if (map.get("build") instanceof Map<?, ?> build) {
            Branding.unknownKeys(build, "build", List.of("format"), text, displayPath, diagnostics);
        }
        if (map.get("editLink") instanceof Map<?, ?> edit && edit.get("baseUrl") != null) {
            editBaseUrl = withSlash(String.valueOf(edit.get("baseUrl")));
            if (UrlSchemes.problem(editBaseUrl) != null) {
                diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "baseUrl:"), 1, "site settings: editLink.baseUrl: "
                        + UrlSchemes.problem(editBaseUrl), null));
                editBaseUrl = "";
            }
        }
        String url = map.get("url") == null ? "" : withSlash(String.valueOf(map.get("url")));
        String urlProblem = url.isEmpty() ? null : urlProblem(url);
        if (urlProblem != null) {
            int line = 1;
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].matches("url\\s*:.*")) { // the top-level key, not a url: inside another setting
                    line = i + 1;
                    break;
                }
            }
            diagnostics.add(Diagnostic.at(displayPath, line, 1, "site settings: url: " + urlProblem, null));
            url = "";
        }
        return new SiteConfig(
                map.get("title") == null ? defaults.title() : String.valueOf(map.get("title")),
                map.get("description") == null ? defaults.description() : String.valueOf(map.get("description")),
                lang,
                groups,
                url, format, locales, defaultLocale, sidebar, editBaseUrl,
                Branding.read(map, files, text, displayPath, diagnostics), extensions(map, text, displayPath, diagnostics),
                playground(map, text, displayPath, diagnostics), clockPagesFor(map, text, displayPath, diagnostics),
                PathAliases.read(map.get("aliases"), lineOf(text, "aliases:"), displayPath, diagnostics),
                postgresVersions(map, text, displayPath, diagnostics));
    }

    /**
     * {@code postgres: {versions: [14, 15, 16, 17, 18]}}: every page is checked on each (default [18]). Only versions
     * Kensho has pinned binaries for may be named: a site.yml does not choose what the build machine downloads.
     */
    private static List<Integer> postgresVersions(Map<?, ?> map, String text, String displayPath, List<Diagnostic> diagnostics) {
        Object value = map.get("postgres");
        List<Integer> fallback = List.of(PostgresReleases.BUNDLED_MAJOR);
        if (value == null) {
            return fallback;
        }
        String usage = "site settings: postgres takes {versions: [...]}, the PostgreSQL major versions every page is checked on, such as "
                + "{versions: [14, 15, 16, 17, 18]} (Kensho checks on " + PostgresReleases.describe(PostgresReleases.SUPPORTED) + ")";
        if (!(value instanceof Map<?, ?> postgres)) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "postgres:"), 1, usage, null));
            return fallback;
        }
        Branding.unknownKeys(postgres, "postgres", List.of("versions"), text, displayPath, diagnostics);
        Object versions = postgres.get("versions");
        if (versions == null) {
            return fallback;
        }
        if (!(versions instanceof List<?> list) || list.isEmpty()) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "versions:"), 1, usage, null));
            return fallback;
        }
        java.util.TreeSet<Integer> chosen = new java.util.TreeSet<>();
        for (Object item : list) {
            if (!(item instanceof Integer version) || !PostgresReleases.supported(version)) {
                diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "versions:"), 1, "site settings: postgres.versions: '" + item
                        + "' is not a PostgreSQL major version Kensho checks on (" + PostgresReleases.describe(PostgresReleases.SUPPORTED) + ")", null));
                return fallback;
            }
            chosen.add(version);
        }
        return List.copyOf(chosen);
    }

    /** A cache entry is reused for a day at most, whatever the page reads; a clock-reading page's may be shorter. */
    public static final Duration CLOCK_PAGES_AT_MOST = Duration.ofDays(1);

    /**
     * {@code cache: {clockPagesFor: 6h}}: how long the marks of a page whose SQL reads the clock are reused from the
     * cache ({@code 0} runs such pages on every build); written as a number and s, m, h or d, at most {@code 1d}.
     */
    private static Duration clockPagesFor(Map<?, ?> map, String text, String displayPath, List<Diagnostic> diagnostics) {
        Object value = map.get("cache");
        if (value == null) {
            return CLOCK_PAGES_AT_MOST;
        }
        String usage = "site settings: cache takes clockPagesFor, a time of at most a day such as 0, 30m, 6h or 1d "
                + "(how long a page whose SQL reads the clock keeps its marks from the cache)";
        if (!(value instanceof Map<?, ?> cache) || !cache.keySet().stream().allMatch("clockPagesFor"::equals)) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "cache:"), 1, usage, null));
            return CLOCK_PAGES_AT_MOST;
        }
        Object written = cache.get("clockPagesFor");
        if (written == null) {
            return CLOCK_PAGES_AT_MOST;
        }
        java.util.regex.Matcher time = java.util.regex.Pattern.compile("(\\d{1,6})([smhd]?)").matcher(String.valueOf(written).strip());
        Duration duration = null;
        if (time.matches() && (!time.group(2).isEmpty() || time.group(1).matches("0+"))) { // a bare number only as 0
            long amount = Long.parseLong(time.group(1));
            duration = switch (time.group(2)) {
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                case "d" -> Duration.ofDays(amount);
                default -> Duration.ZERO;
            };
        }
        if (duration == null || duration.compareTo(CLOCK_PAGES_AT_MOST) > 0) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "clockPagesFor:"), 1, usage + ", not '" + written + "'", null));
            return CLOCK_PAGES_AT_MOST;
        }
        return duration;
    }

    /**
     * {@code extensions: [pg_trgm, btree_gist]}: extensions Kensho creates in every page's database (pages create
     * none themselves); one that brings a procedural language is refused when the server starts.
     */
    private static List<String> extensions(Map<?, ?> map, String text, String displayPath, List<Diagnostic> diagnostics) {
        Object value = map.get("extensions");
        if (value == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        if (!(value instanceof List<?> list)) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "extensions:"), 1,
                    "site settings: extensions is a list of extension names, such as [pg_trgm, btree_gist]", null));
            return List.of();
        }
        for (Object item : list) {
            String name = String.valueOf(item);
            if (!ExtensionGuard.isName(name)) {
                diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "extensions:"), 1, "site settings: extensions: '" + name
                        + "' is not an extension name (lower-case letters, digits and _, such as pg_trgm)", null));
            } else if (!names.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    /** {@code playground: true|false} (default true). */
    private static boolean playground(Map<?, ?> map, String text, String displayPath, List<Diagnostic> diagnostics) {
        Object value = map.get("playground");
        if (value == null || Boolean.TRUE.equals(value)) {
            return true;
        }
        if (!Boolean.FALSE.equals(value)) {
            diagnostics.add(Diagnostic.at(displayPath, lineOf(text, "playground:"), 1,
                    "site settings: playground is true or false (false: no run control in the reader's browser)", null));
        }
        return false;
    }

    /** The lang of the default locale, for pages outside any locale (the 404 page, the theme's home page). */
    public SiteLocale defaultSiteLocale() {
        return locales.get(defaultLocale);
    }

    /**
     * Why {@code url:} cannot be where the site is published, or null. The 404 page loads the theme's
     * script from its path, so it must be an absolute http(s) URL whose path is plain: no "//" that a
     * browser would read as another host, no query, fragment, user name, backslash or dot segment.
     */
    static String urlProblem(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            return "'" + url + "' is not a URL (" + e.getReason() + "); write where the site is published, such as https://example.org/docs/";
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (uri.getScheme() == null || !uri.getScheme().equalsIgnoreCase("https") && !uri.getScheme().equalsIgnoreCase("http") || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                || !path.startsWith("/") || path.contains("//") || url.contains("\\")
                || !path.matches("(/[A-Za-z0-9._~-]+)*/") || path.matches(".*/\\.{1,2}/.*")) {
            return "'" + url + "' must be an absolute http or https URL with a plain path, such as https://example.org/docs/ "
                    + "(no '//' in the path, query, fragment, user name or '..')";
        }
        return null;
    }

    /** The line (from 1) of the first line containing {@code needle}, for settings found only after parsing. */
    static int lineOf(String text, String needle) {
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
