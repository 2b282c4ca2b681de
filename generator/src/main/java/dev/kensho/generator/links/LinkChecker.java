package dev.kensho.generator.links;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.render.SiteLinks;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The post-check stage: reads every rendered page with jsoup and follows each internal link and
 * {@code #anchor}. A link to a missing page or a missing anchor is an error at the line of the
 * page's source that holds it. External links are collected for the report, never fetched.
 */
public final class LinkChecker {

    private LinkChecker() {
    }

    /** A link that leaves the site. */
    public record ExternalLink(String page, String url) {
    }

    public record Result(List<Diagnostic> problems, List<ExternalLink> external) {
        public Result {
            problems = List.copyOf(problems);
            external = List.copyOf(external);
        }
    }

    /**
     * @param html    output path → HTML of every rendered page
     * @param files   every other output path (assets, diagrams)
     * @param sources output path → the page it came from (for error locations); pages without one are the theme's
     */
    public static Result check(Map<String, String> html, Set<String> files, Map<String, Page> sources) {
        // A page's own content sits in <main>; the theme's frame around it (sidebar, header) is the same on
        // every page of a folder. So each page's main is read, and the frame once per folder: on a large
        // site the frame is most of the bytes.
        Map<String, Set<String>> ids = new HashMap<>();
        Map<String, Element> mains = new TreeMap<>();
        Map<String, Document> frames = new TreeMap<>();
        Set<String> foldersSeen = new HashSet<>();
        html.forEach((path, text) -> {
            if (!path.endsWith(".html")) {
                return;
            }
            String folder = folderOf(path);
            Element main;
            if (foldersSeen.add(folder) || !text.contains("<main")) {
                Document document = Jsoup.parse(text);
                frames.put(path, document);
                main = document.selectFirst("main") != null ? document.selectFirst("main") : document.body();
            } else {
                int start = text.indexOf("<main");
                int end = text.lastIndexOf("</main>");
                main = Jsoup.parseBodyFragment(text.substring(start, end < 0 ? text.length() : end + 7)).body();
            }
            mains.put(path, main);
            Set<String> anchors = new LinkedHashSet<>();
            main.select("[id]").forEach(e -> anchors.add(e.id()));
            main.select("a[name]").forEach(e -> anchors.add(e.attr("name")));
            Document frame = frames.get(path);
            if (frame != null) {
                frame.select("[id]").forEach(e -> anchors.add(e.id()));
            }
            ids.put(path, anchors);
        });
        List<Diagnostic> problems = new ArrayList<>();
        List<ExternalLink> external = new ArrayList<>();
        Map<Page, SourceLinks> located = new HashMap<>();
        for (Map.Entry<String, Element> entry : mains.entrySet()) {
            String page = entry.getKey();
            if (page.equals("404.html")) {
                continue; // Its links start from the deployment's base path, known only once published.
            }
            List<Element> links = new ArrayList<>(entry.getValue().select("a[href], link[href], img[src], script[src]"));
            Document frame = frames.get(page);
            if (frame != null) {
                for (Element element : frame.select("a[href], link[href], img[src], script[src]")) {
                    if (element.closest("main") == null) {
                        links.add(element);
                    }
                }
            }
            for (Element element : links) {
                String reference = element.hasAttr("href") ? element.attr("href") : element.attr("src");
                String written = element.hasAttr("data-written-href") ? element.attr("data-written-href") : reference;
                URI uri;
                try {
                    uri = new URI(reference.replace(" ", "%20"));
                } catch (URISyntaxException e) {
                    problems.add(problem(located, sources.get(page), page, written, "malformed link '" + written + "'"));
                    continue;
                }
                if (uri.getScheme() != null || reference.startsWith("//")) {
                    external.add(new ExternalLink(page, reference));
                    continue;
                }
                String target = uri.getPath() == null || uri.getPath().isEmpty() ? page : SiteLinks.resolvePath(page, uri.getPath());
                if (target.isEmpty() || target.endsWith("/")) {
                    target = target + "index.html";
                }
                if (!html.containsKey(target) && !files.contains(target)) {
                    problems.add(problem(located, sources.get(page), page, written, "broken link '" + written + "': " + target
                            + " is not part of the site"));
                    continue;
                }
                String fragment = uri.getFragment();
                if (fragment != null && !fragment.isEmpty() && ids.containsKey(target) && !ids.get(target).contains(fragment)) {
                    problems.add(problem(located, sources.get(page), page, written, "broken link '" + written + "': " + target
                            + " has no element with id \"" + fragment + "\""));
                }
            }
        }
        return new Result(problems, external);
    }

    private static String folderOf(String page) {
        return page.contains("/") ? page.substring(0, page.lastIndexOf('/')) : "";
    }

    private static Diagnostic problem(Map<Page, SourceLinks> located, Page source, String page, String reference, String message) {
        if (source == null) {
            return Diagnostic.at("site/templates (" + page + ")", 1, 1, message, null);
        }
        return located.computeIfAbsent(source, SourceLinks::new).locate(reference, message);
    }

    /**
     * Where each link destination is written in a page's source, read in one pass: the n-th broken
     * link to a destination is reported at the n-th place it is written, whatever the page's size.
     */
    private static final class SourceLinks {
        private static final Pattern DESTINATION = Pattern.compile("\\(([^()\\s]*+)\\)|\"([^\"]*+)\"");
        private final Page source;
        private final String[] lines;
        private final Map<String, ArrayDeque<int[]>> places = new HashMap<>();
        private final Map<String, int[]> last = new HashMap<>();

        SourceLinks(Page source) {
            this.source = source;
            this.lines = source.body().split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher matcher = DESTINATION.matcher(lines[i]);
                while (matcher.find()) {
                    int group = matcher.group(1) != null ? 1 : 2;
                    places.computeIfAbsent(matcher.group(group), k -> new ArrayDeque<>()).add(new int[]{i, matcher.start(group)});
                }
            }
        }

        Diagnostic locate(String reference, String message) {
            ArrayDeque<int[]> queue = places.get(reference);
            int[] at = queue == null || queue.isEmpty() ? last.get(reference) : queue.poll();
            if (at == null) {
                return Diagnostic.at(source.displayPath(), 1, 1, message + " (made by a component or template)", null);
            }
            last.put(reference, at);
            return Diagnostic.at(source.displayPath(), at[0] + 1, at[1] + 1, message, lines[at[0]]);
        }
    }
}
