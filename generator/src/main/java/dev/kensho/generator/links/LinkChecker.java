package dev.kensho.generator.links;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.render.page.PageOutline;
import dev.kensho.generator.render.SiteLinks;
import org.jsoup.Jsoup;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.ArrayDeque;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The post-check stage: follows each internal link and {@code #anchor} of every rendered page (read
 * while the page was rendered, or here with jsoup for the theme's pages and frames). A link to a missing page or a missing anchor is an error at the line of the
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
     * @param documents output path → HTML read whole: the theme's own pages, and one page per folder so that
     *                  the frame the theme puts around pages (sidebar, header, pager) is checked
     * @param outlines  output path → the links and ids of a page's content, read while it was rendered
     * @param files     every output path (pages, assets, diagrams, images)
     * @param sources   output path → the page it came from (for error locations); pages without one are the theme's
     */
    public static Result check(Map<String, String> documents, Map<String, PageOutline> outlines, Set<String> files,
                               Map<String, Page> sources) {
        return check(documents, outlines, files, sources, LinkChecker::outlineOf);
    }

    /** The ids and links of a whole HTML document. */
    public static PageOutline outlineOf(String html) {
        return PageOutline.of(Jsoup.parse(html));
    }

    /**
     * @param wholeOutline reads a whole document's ids and links ({@link #outlineOf}, or the preview's memo of it: a
     *                     document of the same text has the same outline, and a frame no edit reached is not parsed again)
     */
    public static Result check(Map<String, String> documents, Map<String, PageOutline> outlines, Set<String> files,
                               Map<String, Page> sources, java.util.function.Function<String, PageOutline> wholeOutline) {
        Map<String, Set<String>> ids = new HashMap<>();
        Map<String, List<PageOutline.Reference>> links = new TreeMap<>();
        outlines.forEach((path, outline) -> {
            ids.put(path, outline.ids());
            links.put(path, outline.links());
        });
        documents.forEach((path, text) -> {
            if (!path.endsWith(".html")) {
                return;
            }
            PageOutline whole = wholeOutline.apply(text);
            Set<String> anchors = new LinkedHashSet<>(ids.getOrDefault(path, Set.of()));
            anchors.addAll(whole.ids());
            ids.put(path, anchors);
            // A page's own content was read while it was rendered (with the forms its author wrote); here the
            // theme's frame around it. A theme page (home, 404, contents) is all frame.
            PageOutline content = outlines.get(path);
            List<PageOutline.Reference> references = new ArrayList<>(content == null ? List.of() : content.links());
            Map<String, Integer> fromContent = new HashMap<>();
            references.forEach(reference -> fromContent.merge(reference.url(), 1, Integer::sum));
            for (PageOutline.Reference reference : whole.links()) {
                // Each of the content's own links appears once more in the whole page: counted once, with its written form.
                if (fromContent.merge(reference.url(), -1, Integer::sum) < 0) {
                    references.add(reference);
                }
            }
            links.put(path, references);
        });
        List<Diagnostic> problems = new ArrayList<>();
        List<ExternalLink> external = new ArrayList<>();
        Map<Page, SourceLinks> located = new HashMap<>();
        for (Map.Entry<String, List<PageOutline.Reference>> entry : links.entrySet()) {
            String page = entry.getKey();
            if (page.equals("404.html")) {
                continue; // Its links start from the deployment's base path, known only once published.
            }
            for (PageOutline.Reference reference : entry.getValue()) {
                String written = reference.written();
                URI uri;
                try {
                    uri = new URI(reference.url().replace(" ", "%20"));
                } catch (URISyntaxException e) {
                    problems.add(problem(located, sources.get(page), page, written, "malformed link '" + written + "'"));
                    continue;
                }
                if (uri.getScheme() != null || reference.url().startsWith("//")) {
                    external.add(new ExternalLink(page, reference.url()));
                    continue;
                }
                String target = uri.getPath() == null || uri.getPath().isEmpty() ? page : SiteLinks.resolvePath(page, uri.getPath());
                if (target.isEmpty() || target.endsWith("/")) {
                    target = target + "index.html";
                }
                if (!files.contains(target)) {
                    // A link to a source file (queue/indexs.md) is meant from the page's source, not from its output
                    // folder (queue/claiming/): named, and compared with the site's sources, as the author wrote it.
                    Page from = sources.get(page);
                    String meant = from != null && uri.getPath().matches(".*\\.mdx?") ? SiteLinks.resolvePath(from.relativePath(), uri.getPath()) : target;
                    problems.add(problem(located, from, page, written, "broken link '" + written + "': " + meant
                            + " is not part of the site" + nearest(meant, files, sources)));
                    continue;
                }
                String fragment = uri.getFragment();
                if (fragment != null && !fragment.isEmpty() && ids.containsKey(target) && !ids.get(target).contains(fragment)) {
                    problems.add(problem(located, sources.get(page), page, written, "broken link '" + written + "': " + target
                            + " has no element with id \"" + fragment + "\"" + dev.kensho.generator.Suggestion.didYouMean(fragment, ids.get(target))));
                }
            }
        }
        return new Result(problems, external);
    }

    /**
     * " (did you mean 'queue/retry.md'?)": the nearest file of the site, a page named by its source. The whole path is
     * compared, so that the folder counts as much as the name, and of two equally near a file in the same folder wins.
     */
    private static String nearest(String meant, Set<String> files, Map<String, Page> sources) {
        Set<String> candidates = new java.util.TreeSet<>(files);
        candidates.removeAll(sources.keySet());
        sources.values().forEach(page -> candidates.add(page.relativePath()));
        return dev.kensho.generator.Suggestion.didYouMean(meant, candidates);
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
