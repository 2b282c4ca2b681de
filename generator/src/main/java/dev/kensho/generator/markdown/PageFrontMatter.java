package dev.kensho.generator.markdown;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.FrontMatter;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.render.gate.HtmlGate;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Starlight's front matter that puts contributor text outside the page body: {@code template},
 * {@code hero}, {@code banner}, {@code head} and {@code editUrl}. Each value must be of the shape
 * Starlight documents, and must not bring script onto the published site (the same rules as raw
 * HTML and links in the body); anything else fails at the key's line.
 */
public final class PageFrontMatter {

    /** Elements {@code head:} may add, and what each may carry. */
    private static final Map<String, Set<String>> HEAD_ATTRIBUTES = Map.of(
            "meta", Set.of("name", "property", "content", "itemprop", "lang"),
            "link", Set.of("rel", "href", "hreflang", "type", "sizes", "title", "media"),
            "title", Set.of(),
            "style", Set.of("media"));
    /** Link relations that fetch nothing that runs or restyles the page. */
    private static final Set<String> LINK_RELATIONS = Set.of("canonical", "alternate", "author", "license", "me", "icon",
            "apple-touch-icon", "help", "prev", "next", "search", "sitemap");

    private PageFrontMatter() {
    }

    /** Why a tableOfContents value is not Starlight's (false, or {minHeadingLevel, maxHeadingLevel} as numbers 2–6), or null. */
    private static String tableOfContentsProblem(Object value) {
        if (value == null || value instanceof Boolean) {
            return null;
        }
        if (value instanceof Map<?, ?> levels && levels.keySet().stream().allMatch(k -> k.equals("minHeadingLevel") || k.equals("maxHeadingLevel"))
                && levels.values().stream().allMatch(v -> v instanceof Integer n && n >= 1 && n <= 6)) {
            return null;
        }
        return "tableOfContents must be true, false or {minHeadingLevel: 2, maxHeadingLevel: 3} (numbers 1 to 6), not '" + value + "'";
    }

    /** Starlight's front-matter keys that Kensho reads (title, description and sidebar are read by the loader). */
    static final List<String> KEYS = List.of("title", "description", "sidebar", "slug", "editUrl", "head", "tableOfContents",
            "template", "hero", "banner", "lastUpdated", "prev", "next", "pagefind", "draft");
    private static final List<String> SIDEBAR_KEYS = List.of("order", "label", "hidden", "badge", "attrs");

    /**
     * @param themeKeys keys the theme's templates read ({@code meta.reviewed}); every other unknown key is a mistake,
     *                  since a misspelt one ({@code descripton}) would otherwise be dropped in silence
     */
    static void check(Page page, java.util.Set<String> themeKeys, List<Diagnostic> diagnostics) {
        FrontMatter front = page.frontMatter();
        Map<String, Object> extra = front.extra();
        List<String> known = new java.util.ArrayList<>(KEYS);
        themeKeys.stream().sorted().filter(key -> !known.contains(key)).forEach(known::add);
        for (String key : extra.keySet()) {
            if (!known.contains(key)) {
                report(page, key, "unknown key '" + key + "'" + dev.kensho.generator.Suggestion.didYouMean(key, known)
                        + "; pages take " + String.join(", ", known) + " (a theme template reading page.meta." + key + " makes it known)", diagnostics);
            }
        }
        if (front.sidebarKeys() != null) {
            for (String key : front.sidebarKeys()) {
                if (!SIDEBAR_KEYS.contains(key)) {
                    report(page, "sidebar", "unknown key 'sidebar." + key + "'" + dev.kensho.generator.Suggestion.didYouMean(key, SIDEBAR_KEYS)
                            + "; sidebar takes " + String.join(", ", SIDEBAR_KEYS), diagnostics);
                }
            }
        }
        // Switches read as true only when they are the boolean true: draft: "yes" published the page without a word.
        for (String key : List.of("draft", "pagefind")) {
            if (extra.get(key) != null && !(extra.get(key) instanceof Boolean)) {
                report(page, key, key + " must be true or false, not '" + extra.get(key) + "'", diagnostics);
            }
        }
        String toc = tableOfContentsProblem(extra.get("tableOfContents"));
        if (toc != null) {
            report(page, "tableOfContents", toc, diagnostics);
        }
        Object updated = extra.get("lastUpdated");
        if (updated != null && !(updated instanceof Boolean || updated instanceof java.util.Date
                || updated instanceof java.time.temporal.TemporalAccessor
                || updated instanceof String text && text.matches("\\d{4}-\\d{2}-\\d{2}([T ].*)?"))) {
            report(page, "lastUpdated", "lastUpdated must be false or a date such as 2026-12-05, not '" + updated + "'", diagnostics);
        }
        for (String key : List.of("prev", "next")) {
            Object value = extra.get(key);
            boolean linkShape = value instanceof Map<?, ?> link && link.keySet().stream().allMatch(k -> k.equals("link") || k.equals("label"))
                    && link.values().stream().allMatch(v -> v instanceof String);
            if (value != null && !(value instanceof Boolean || value instanceof String || linkShape)) {
                report(page, key, key + " must be false, a label, or {link: …, label: …} with text values, not '" + value + "'", diagnostics);
            }
        }
        if (extra.containsKey("slug")) {
            // Read and ignored, the page would be published at another address than its author gave.
            report(page, "slug", "slug is not supported: a page's address follows its file's path (content/guides/intro.md is "
                    + "guides/intro/); move or rename the file instead", diagnostics);
        }
        Object template = extra.get("template");
        if (template != null && !template.equals("doc") && !template.equals("splash")) {
            report(page, "template", "template must be 'doc' or 'splash', not '" + template + "'", diagnostics);
        }
        if (extra.get("hero") != null) {
            String problem = heroProblem(extra.get("hero"));
            if (problem != null) {
                report(page, "hero", "hero: " + problem, diagnostics);
            }
        }
        if (extra.get("banner") != null) {
            if (!(extra.get("banner") instanceof Map<?, ?> banner) || !(banner.get("content") instanceof String content)) {
                report(page, "banner", "banner must be a mapping with content: \"…\" (HTML)", diagnostics);
            } else if (HtmlGate.refusal(content) != null) {
                report(page, "banner", "banner.content: " + HtmlGate.refusal(content), diagnostics);
            }
        }
        if (extra.get("head") != null) {
            String problem = headProblem(extra.get("head"));
            if (problem != null) {
                report(page, "head", "head: " + problem, diagnostics);
            }
        }
        for (String key : List.of("prev", "next")) {
            // Starlight's pager override: false, a label, or {link, label}; the link goes into the theme's pager.
            if (extra.get(key) instanceof Map<?, ?> custom && custom.get("link") != null) {
                String problem = HtmlGate.urlProblem(String.valueOf(custom.get("link")));
                if (problem != null) {
                    report(page, key, key + ".link: " + problem, diagnostics);
                }
            }
        }
        Object editUrl = extra.get("editUrl");
        if (editUrl != null && !Boolean.FALSE.equals(editUrl)) {
            String problem = editUrl instanceof String url ? HtmlGate.urlProblem(url) : "editUrl must be a URL or false";
            if (problem != null) {
                report(page, "editUrl", "editUrl: " + problem, diagnostics);
            }
        }
    }

    /** Starlight's hero action variants. */
    private static final List<String> HERO_VARIANTS = List.of("primary", "secondary", "minimal");

    private static String heroProblem(Object value) {
        if (!(value instanceof Map<?, ?> hero)) {
            return "must be a mapping with title, tagline, image and actions";
        }
        if (hero.get("image") instanceof Map<?, ?> image) {
            if (image.get("html") != null) {
                return "image.html is not supported (contributor HTML in the page head area); give image.file, a picture in content/";
            }
            for (String key : List.of("file", "dark", "light")) {
                if (image.get(key) != null && HtmlGate.urlProblem(String.valueOf(image.get(key))) != null) {
                    return "image." + key + ": " + HtmlGate.urlProblem(String.valueOf(image.get(key)));
                }
            }
        }
        if (hero.get("actions") != null) {
            if (!(hero.get("actions") instanceof List<?> actions)) {
                return "actions must be a list of {text, link}";
            }
            for (Object action : actions) {
                if (!(action instanceof Map<?, ?> map) || map.get("text") == null || map.get("link") == null) {
                    return "each action needs text and link";
                }
                String problem = HtmlGate.urlProblem(String.valueOf(map.get("link")));
                if (problem != null) {
                    return "action '" + map.get("text") + "': " + problem;
                }
                // The theme writes it into a class name (link-button-VARIANT), as LinkButton's (red team helper-98).
                if (map.get("variant") != null && !HERO_VARIANTS.contains(String.valueOf(map.get("variant")))) {
                    return "action '" + map.get("text") + "': variant is one of " + String.join(", ", HERO_VARIANTS);
                }
            }
        }
        return null;
    }

    private static String headProblem(Object value) {
        if (!(value instanceof List<?> entries)) {
            return "must be a list of {tag, attrs, content}";
        }
        for (Object entry : entries) {
            if (!(entry instanceof Map<?, ?> map) || !(map.get("tag") instanceof String tag)) {
                return "each entry needs a tag (meta, link or title)";
            }
            Set<String> allowed = HEAD_ATTRIBUTES.get(tag.toLowerCase(Locale.ROOT));
            if (allowed == null) {
                return "<" + tag + "> may not be added: contributor pages may add meta, link, title and style (through the custom CSS check), nothing that runs script";
            }
            Map<?, ?> attrs = map.get("attrs") instanceof Map<?, ?> a ? a : Map.of();
            Map<String, Object> named = new java.util.HashMap<>();
            for (Map.Entry<?, ?> attribute : attrs.entrySet()) {
                String name = String.valueOf(attribute.getKey()).toLowerCase(Locale.ROOT);
                // HTML attribute names ignore case and a browser keeps the first of two: {REL: stylesheet, rel: icon}
                // would be checked as an icon and loaded as a stylesheet.
                if (named.put(name, attribute.getValue()) != null) {
                    return "<" + tag + "> has the attribute '" + name + "' twice (attribute names ignore case); give it once";
                }
                if (!allowed.contains(name)) {
                    return "<" + tag + " " + attribute.getKey() + "> may not be added (allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ")";
                }
                String problem = HtmlGate.urlProblem(String.valueOf(attribute.getValue()));
                if (problem != null) {
                    return "<" + tag + " " + attribute.getKey() + ">: " + problem;
                }
            }
            if (tag.equalsIgnoreCase("style")) {
                List<StyleSheetPolicy.Problem> problems = StyleSheetPolicy.problems(map.get("content") == null ? "" : String.valueOf(map.get("content")));
                if (!problems.isEmpty()) {
                    return "<style>: " + problems.get(0).message() + " (line " + problems.get(0).line() + " of its content)";
                }
            }
            if (tag.equalsIgnoreCase("link") && !LINK_RELATIONS.contains(String.valueOf(named.get("rel")).toLowerCase(Locale.ROOT))) {
                return "<link rel=\"" + named.get("rel") + "\"> may not be added (allowed: " + String.join(", ", LINK_RELATIONS.stream().sorted().toList()) + ")";
            }
        }
        return null;
    }

    private static void report(Page page, String key, String message, List<Diagnostic> diagnostics) {
        diagnostics.add(Diagnostic.at(page.displayPath(), page.frontMatter().lineOf(key), 1, "front matter: " + message, null));
    }
}
