package dev.kensho.generator.render;

import org.jsoup.nodes.Element;
import org.jsoup.select.Evaluator;
import org.jsoup.select.QueryParser;

import dev.kensho.generator.content.UrlFormat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The site's URL model for links authors write: which output file a link means, whatever style it
 * was written in. A Starlight author writes directory-style and root-absolute links
 * ({@code /guides/i18n/}, {@code ../keys/#props}, {@code /}); a Kensho author writes files
 * ({@code keys.html}); links to the Markdown sources ({@code keys.md}) work too, and so do images
 * and downloads named relative to the source file. Each is rewritten to the relative URL of what it
 * means in the site's URL format ({@code ../keys/} or {@code keys.html}), so the site works under any
 * base path. A link this model cannot place is left as written, and the link check reports it at its
 * line. The sidebar, previous/next, search results, canonical URLs and the sitemap take their URLs
 * from here too.
 */
public final class SiteLinks {

    /** The attribute that carries a rewritten link's written form until the renderer has read it. */
    public static final String WRITTEN = "data-written-href";
    /** Elements carrying {@link #WRITTEN}; selectors are parsed once, not once per page. */
    public static final Evaluator WRITTEN_LINKS = QueryParser.parse("[" + WRITTEN + "]");
    private static final Evaluator LINKS_AND_IMAGES = QueryParser.parse("a[href], img[src]");

    /** Output path of every page → its source below content/ ("a/b/index.html" → "a/b.md"). */
    private final Map<String, String> sources;
    private final Set<String> assets;
    private final UrlFormat format;
    /** The base path of url: in site.yml without slashes ("kensho"), or "" (root-absolute links may carry it). */
    private final String base;

    /** The site's own path prefixes (site.yml's aliases): "~/assets/a.png" is "/shared/assets/a.png". */
    private final dev.kensho.generator.content.PathAliases aliases;

    public SiteLinks(Map<String, String> sourceByOutput, Set<String> assets, String basePath, UrlFormat format,
                     dev.kensho.generator.content.PathAliases aliases) {
        this.aliases = aliases;
        this.sources = Map.copyOf(sourceByOutput);
        this.assets = Set.copyOf(assets);
        this.format = format;
        String trimmed = basePath.replaceAll("^/+|/+$", "");
        this.base = trimmed.isEmpty() ? "" : trimmed + "/";
    }

    /** The URL of an output file from a page whose way to the site's root is {@code root} ("../../", or "/kensho/" on the 404 page). */
    public String fromRoot(String root, String outputPath) {
        String url = root + format.urlPath(outputPath);
        return url.isEmpty() ? "./" : url;
    }

    /** The relative URL from one output file to another, in the site's URL format. */
    public String between(String fromOutputPath, String toOutputPath) {
        String url = format.urlPath(relative(fromOutputPath, toOutputPath));
        return url.isEmpty() ? "./" : url;
    }

    /** The absolute URL of a page for canonical links and the sitemap. */
    public String absolute(String siteUrl, String outputPath) {
        return siteUrl + format.urlPath(outputPath);
    }

    /** Points every internal link and image below {@code root} at what it means; true when any changed. */
    public boolean rewrite(Element root, String fromOutputPath) {
        boolean changed = false;
        for (Element link : root.select(LINKS_AND_IMAGES)) {
            String attribute = link.hasAttr("href") ? "href" : "src";
            String href = link.attr(attribute);
            String resolved = resolve(fromOutputPath, href);
            if (resolved != null && !resolved.equals(href)) {
                // The written form stays beside it until the page's outline is taken, so that the link check
                // can point at the source line.
                link.attr(attribute, resolved).attr(WRITTEN, href);
                changed = true;
            }
        }
        return changed;
    }

    /** The relative URL (from {@code fromOutputPath}) a written link means, or null to leave it as written. */
    public String resolve(String fromOutputPath, String written) {
        String href = aliases.expand(written);
        if (href.isEmpty() || href.startsWith("#") || href.startsWith("//") || href.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
            return null;
        }
        int cut = indexOfAny(href, '#', '?');
        String path = cut < 0 ? href : href.substring(0, cut);
        String suffix = cut < 0 ? "" : href.substring(cut);
        Set<String> bases = new LinkedHashSet<>();
        if (path.startsWith("/")) {
            String site = path.substring(1);
            bases.add(site.startsWith(base) ? site.substring(base.length()) : site);
        } else {
            String source = sources.getOrDefault(fromOutputPath, fromOutputPath);
            // As written in the source file (keys.md, ../guide/a.md, diagram.png), as a browser reads it
            // from the page's URL, and as Starlight means it (its pages are folders: ../keys/ from a/b/).
            bases.add(resolvePath(source, path));
            bases.add(resolvePath(fromOutputPath, path));
            bases.add(resolvePath(source.replaceAll("\\.[^./]*$", "") + "/x", path));
        }
        boolean folder = path.endsWith("/") || path.isEmpty() || path.equals(".");
        for (String candidate : bases) {
            String page = pageFor(candidate, folder);
            if (page != null) {
                return between(fromOutputPath, page) + suffix;
            }
        }
        for (String candidate : bases) {
            if (assets.contains(candidate)) {
                return relative(fromOutputPath, candidate) + suffix;
            }
        }
        // Neither page nor file of the site: a root-absolute link still has to work under the base path,
        // and the link check reports it if nothing is there.
        return path.startsWith("/") ? SiteRenderer.relativeRoot(fromOutputPath) + bases.iterator().next() + suffix : null;
    }

    /** The shortest relative path from one output file to another ("b.html", "../c/d.html"). */
    static String relative(String from, String to) {
        List<String> fromFolders = new ArrayList<>(List.of(from.split("/")));
        fromFolders.remove(fromFolders.size() - 1);
        List<String> toParts = List.of(to.split("/"));
        int common = 0;
        while (common < fromFolders.size() && common < toParts.size() - 1 && fromFolders.get(common).equals(toParts.get(common))) {
            common++;
        }
        return "../".repeat(fromFolders.size() - common) + String.join("/", toParts.subList(common, toParts.size()));
    }

    /** Resolves a relative path against the page's folder, as a browser would; a leading "/" means the site's root. */
    public static String resolvePath(String page, String path) {
        if (path.startsWith("/")) {
            return path.substring(1);
        }
        List<String> parts = new ArrayList<>(List.of(page.split("/")));
        parts.remove(parts.size() - 1);
        for (String part : path.split("/", -1)) {
            if (part.equals("..")) {
                if (!parts.isEmpty()) {
                    parts.remove(parts.size() - 1);
                }
            } else if (!part.equals(".")) {
                parts.add(part);
            }
        }
        return String.join("/", parts);
    }

    /** The page a path means, written in any style: "a/b", "a/b/", "a/b.md", "a/b.mdx", "a/b.html", "a/b/index.html". */
    private String pageFor(String path, boolean folder) {
        String stem = path.replaceAll("/+$", "");
        if (!folder) {
            stem = stem.replaceAll("\\.(mdx?|html)$", "");
        }
        List<String> candidates = new ArrayList<>();
        if (stem.isEmpty()) {
            candidates.add("index.html");
        } else {
            candidates.add(stem + "/index.html");
            candidates.add(stem + ".html");
        }
        return candidates.stream().filter(sources::containsKey).findFirst().orElse(null);
    }

    private static int indexOfAny(String text, char first, char second) {
        int a = text.indexOf(first);
        int b = text.indexOf(second);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
