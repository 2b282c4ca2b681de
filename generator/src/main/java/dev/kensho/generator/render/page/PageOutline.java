package dev.kensho.generator.render.page;

import dev.kensho.generator.render.SiteLinks;
import org.jsoup.nodes.Element;
import org.jsoup.select.Evaluator;
import org.jsoup.select.QueryParser;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the link check needs of a page's own content, read from the tree the renderer already has:
 * the ids links may point at, and every link and source with the form its author wrote. The page's
 * HTML can then be written out at once instead of being kept to be parsed again.
 *
 * @param ids   element ids (and {@code <a name>}) in the content
 * @param links each reference as published, with the form written in the source
 */
public record PageOutline(Set<String> ids, List<Reference> links) {

    private static final Evaluator WITH_ID = QueryParser.parse("[id]");
    private static final Evaluator NAMED_ANCHORS = QueryParser.parse("a[name]");
    private static final Evaluator REFERENCES = QueryParser.parse("a[href], link[href], img[src], script[src]");

    public record Reference(String url, String written) {
    }

    public PageOutline {
        ids = Set.copyOf(ids);
        links = List.copyOf(links);
    }

    /** The ids and links below {@code content} (a page's body while it is rendered, or a whole document). */
    public static PageOutline of(Element content) {
        Set<String> ids = new LinkedHashSet<>();
        ids.add("main");
        content.select(WITH_ID).forEach(e -> ids.add(e.id()));
        content.select(NAMED_ANCHORS).forEach(e -> ids.add(e.attr("name")));
        List<Reference> links = new ArrayList<>();
        for (Element element : content.select(REFERENCES)) {
            String url = element.hasAttr("href") ? element.attr("href") : element.attr("src");
            links.add(new Reference(url, element.hasAttr(SiteLinks.WRITTEN) ? element.attr(SiteLinks.WRITTEN) : url));
        }
        return new PageOutline(ids, links);
    }
}
