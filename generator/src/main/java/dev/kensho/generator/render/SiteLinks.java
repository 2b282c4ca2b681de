package dev.kensho.generator.render;

import org.jsoup.nodes.Element;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The site's URL model for links authors write: which output file a link means, whatever style it
 * was written in. A Starlight author writes directory-style and root-absolute links
 * ({@code /guides/i18n/}, {@code ../keys/#props}, {@code /}); a Kensho author writes files
 * ({@code keys.html}); links to the Markdown sources ({@code keys.md}) work too. Each is rewritten to
 * the relative file URL of the page it means, so the site still works under any base path and from
 * the file system. A link this model cannot place is left as written, and the link check reports it
 * at its line.
 */
public final class SiteLinks {

    private final Set<String> pages;
    /** The base path of url: in site.yml without slashes ("kensho"), or "" (root-absolute links may carry it). */
    private final String base;

    SiteLinks(Collection<String> pageOutputs, String basePath) {
        this.pages = Set.copyOf(pageOutputs);
        String trimmed = basePath.replaceAll("^/+|/+$", "");
        this.base = trimmed.isEmpty() ? "" : trimmed + "/";
    }

    /** Points every internal link below {@code root} at the file it means; true when any changed. */
    boolean rewrite(Element root, String fromOutputPath) {
        boolean changed = false;
        for (Element link : root.select("a[href]")) {
            String href = link.attr("href");
            String resolved = resolve(fromOutputPath, href);
            if (resolved != null && !resolved.equals(href)) {
                // The written form stays beside it, so that the link check can point at the source line.
                link.attr("href", resolved).attr("data-written-href", href);
                changed = true;
            }
        }
        return changed;
    }

    /** The relative URL (from {@code fromOutputPath}) a written link means, or null to leave it as written. */
    String resolve(String fromOutputPath, String href) {
        if (href.isEmpty() || href.startsWith("#") || href.startsWith("//") || href.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
            return null;
        }
        int cut = indexOfAny(href, '#', '?');
        String path = cut < 0 ? href : href.substring(0, cut);
        String suffix = cut < 0 ? "" : href.substring(cut);
        List<String> bases = new ArrayList<>();
        if (path.startsWith("/")) {
            String site = path.substring(1);
            bases.add(site.startsWith(base) ? site.substring(base.length()) : site);
        } else {
            bases.add(resolvePath(fromOutputPath, path));
            // Starlight's pages are folders (/guides/a/), so its relative links start one level deeper.
            String asFolder = fromOutputPath.replaceAll("\\.html$", "/") + "x";
            bases.add(resolvePath(asFolder, path));
        }
        for (String candidate : bases) {
            String page = pageFor(candidate, path.endsWith("/") || path.isEmpty() || path.equals("."));
            if (page != null) {
                return relative(fromOutputPath, page) + suffix;
            }
        }
        // Not a page (an image, a download): a root-absolute link still has to work under the base path.
        return path.startsWith("/") ? SiteRenderer.relativeRoot(fromOutputPath) + bases.get(0) + suffix : null;
    }

    /** The shortest relative URL from one output file to another ("b.html", "../c/d.html"). */
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

    private String pageFor(String path, boolean folder) {
        String trimmed = path.replaceAll("/+$", "");
        List<String> candidates = new ArrayList<>();
        if (folder || trimmed.isEmpty()) {
            candidates.add(trimmed.isEmpty() ? "index.html" : trimmed + "/index.html");
            candidates.add(trimmed + ".html");
        } else if (trimmed.endsWith(".md") || trimmed.endsWith(".mdx")) {
            candidates.add(trimmed.replaceAll("\\.mdx?$", ".html"));
        } else if (trimmed.endsWith(".html")) {
            candidates.add(trimmed);
        } else {
            candidates.add(trimmed + ".html");
            candidates.add(trimmed + "/index.html");
        }
        return candidates.stream().filter(pages::contains).findFirst().orElse(null);
    }

    private static int indexOfAny(String text, char first, char second) {
        int a = text.indexOf(first);
        int b = text.indexOf(second);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
