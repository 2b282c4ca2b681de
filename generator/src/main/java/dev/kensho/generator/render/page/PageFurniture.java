package dev.kensho.generator.render.page;

import dev.kensho.generator.render.gate.HtmlGate;
import dev.kensho.generator.render.SiteLinks;
import dev.kensho.generator.content.FrontMatter;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.SiteConfig;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.select.Evaluator;
import org.jsoup.select.QueryParser;

import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a page's front matter puts around its body, as the theme receives it: Starlight's table of
 * contents levels, last-updated date, edit link, splash hero, banner and extra head elements (each
 * checked against the markup policy when the page was read), with links pointed through the site's
 * URL model.
 */
public final class PageFurniture {

    private static final Evaluator HEADINGS_WITH_IDS = QueryParser.parse("h2[id], h3[id], h4[id], h5[id], h6[id]");

    private final SiteConfig config;
    private final SiteLinks links;
    private final Map<String, String> lastUpdated;

    /** @param lastUpdated date of the last commit that touched each page (path below content/ → yyyy-mm-dd) */
    public PageFurniture(SiteConfig config, SiteLinks links, Map<String, String> lastUpdated) {
        this.config = config;
        this.links = links;
        this.lastUpdated = lastUpdated;
    }

    /** Where the page's source can be edited: its own editUrl, else editLink.baseUrl of site.yml and its path; "" for none. */
    public String editUrl(Page page) {
        Object own = page.frontMatter().extra().get("editUrl");
        if (own instanceof String url) {
            return url;
        }
        return Boolean.FALSE.equals(own) || config.editBaseUrl().isEmpty() ? "" : config.editBaseUrl() + page.relativePath();
    }

    /** Starlight's hero of a splash page: title, tagline, a picture from content/ and action links, as the theme shows them. */
    public Map<String, Object> hero(Page page) {
        if (!(page.frontMatter().extra().get("hero") instanceof Map<?, ?> hero)) {
            return null;
        }
        Map<String, Object> model = new HashMap<>();
        model.put("title", hero.get("title") == null ? page.frontMatter().title() : String.valueOf(hero.get("title")));
        model.put("tagline", hero.get("tagline") == null ? "" : String.valueOf(hero.get("tagline")));
        if (hero.get("image") instanceof Map<?, ?> image && image.get("file") != null) {
            String written = String.valueOf(image.get("file"));
            String src = links.resolve(page.outputPath(), written);
            model.put("image", Map.of("src", src == null ? written : src, "alt", image.get("alt") == null ? "" : String.valueOf(image.get("alt"))));
        }
        List<Map<String, Object>> actions = new ArrayList<>();
        if (hero.get("actions") instanceof List<?> list) {
            for (Object item : list) {
                Map<?, ?> action = (Map<?, ?>) item;
                String written = String.valueOf(action.get("link"));
                String href = links.resolve(page.outputPath(), written);
                actions.add(Map.of("text", String.valueOf(action.get("text")), "href", href == null ? written : href,
                        "variant", action.get("variant") == null ? "primary" : String.valueOf(action.get("variant")),
                        "icon", action.get("icon") == null ? "" : String.valueOf(action.get("icon"))));
            }
        }
        model.put("actions", actions);
        return model;
    }

    /** Starlight's banner: its HTML (checked when the page was read), with links pointed like the body's. */
    public String banner(Page page) {
        if (!(page.frontMatter().extra().get("banner") instanceof Map<?, ?> banner)) {
            return "";
        }
        Document html = Jsoup.parseBodyFragment(HtmlGate.pass(String.valueOf(banner.get("content"))).html());
        html.outputSettings().prettyPrint(false);
        links.rewrite(html.body(), page.outputPath());
        html.body().select(SiteLinks.WRITTEN_LINKS).removeAttr(SiteLinks.WRITTEN);
        return html.body().html();
    }

    /** Starlight's head: extra meta, link and title elements (checked when the page was read). */
    public static List<Map<String, Object>> head(Page page) {
        List<Map<String, Object>> entries = new ArrayList<>();
        if (page.frontMatter().extra().get("head") instanceof List<?> list) {
            for (Object item : list) {
                Map<?, ?> entry = (Map<?, ?>) item;
                Map<String, String> attrs = new LinkedHashMap<>();
                if (entry.get("attrs") instanceof Map<?, ?> given) {
                    given.forEach((k, v) -> attrs.put(String.valueOf(k).toLowerCase(Locale.ROOT), String.valueOf(v)));
                }
                entries.add(Map.of("tag", String.valueOf(entry.get("tag")).toLowerCase(Locale.ROOT), "attrs", attrs,
                        "content", entry.get("content") == null ? "" : String.valueOf(entry.get("content"))));
            }
        }
        return entries;
    }

    /** The date shown as last updated: from git, or Starlight's {@code lastUpdated} (a date, or false for none). */
    public String lastUpdated(Page page) {
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
    public static List<Map<String, Object>> tableOfContents(Document fragment, FrontMatter frontMatter) {
        Object setting = frontMatter.extra().get("tableOfContents");
        if (Boolean.FALSE.equals(setting) || "splash".equals(frontMatter.extra().get("template")) && setting == null) {
            return List.of();
        }
        int min = 2;
        int max = 3;
        if (setting instanceof Map<?, ?> levels) {
            min = levels.get("minHeadingLevel") instanceof Number n ? Math.max(2, n.intValue()) : min;
            max = levels.get("maxHeadingLevel") instanceof Number n ? Math.min(6, n.intValue()) : max;
        }
        List<Map<String, Object>> toc = new ArrayList<>();
        for (Element heading : fragment.select(HEADINGS_WITH_IDS)) {
            int level = heading.tagName().charAt(1) - '0';
            if (level >= min && level <= max) {
                toc.add(Map.of("level", level, "id", heading.id(), "text", heading.text()));
            }
        }
        return toc;
    }
}
