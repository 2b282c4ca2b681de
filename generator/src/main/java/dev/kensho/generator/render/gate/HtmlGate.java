package dev.kensho.generator.render.gate;

import dev.kensho.generator.content.UrlSchemes;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Attribute;
import org.jsoup.nodes.Comment;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.parser.Parser;
import org.jsoup.select.NodeTraversor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one gate for everything a contributor puts on the published site as HTML: a page body as
 * flexmark renders it (raw HTML, Markdown links and images alike), the content of components, and
 * the HTML of front matter (banner). It works on the parsed result, as a browser parses it (jsoup's
 * HTML5 parser: a comment ends at {@code <!-->} or {@code --!>} there too), never on source text:
 * every element must be on {@link #ELEMENTS}, every attribute on {@link #ATTRIBUTES}, and every URL
 * attribute must pass {@link UrlSchemes} (entities decoded, case and whitespace ignored). What it
 * returns to publish is that same parsed tree serialised again, without comments, so the browser
 * reads exactly what was checked. Values that become attributes of the theme's own markup (component
 * attributes, front-matter links, site.yml links) go through {@link #urlProblem}.
 */
public final class HtmlGate {

    /** Elements contributor HTML may use: text structure only, nothing that runs, embeds, submits or restyles. */
    static final Set<String> ELEMENTS = Set.of("a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "dd", "del",
            "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
            "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strong",
            "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
            "picture", "source", "section", "aside", "center", "input");
    static final Set<String> ATTRIBUTES = Set.of("class", "id", "lang", "title", "dir", "href", "src", "srcset", "alt", "width",
            "height", "loading", "decoding", "colspan", "rowspan", "scope", "align", "open", "datetime", "cite", "name", "start",
            "reversed", "type", "media", "sizes", "target", "rel", "role", "aria-label", "aria-hidden", "aria-describedby");
    /** GFM task lists render a disabled checkbox; that, and nothing else, is an input a page may show. */
    private static final Map<String, Set<String>> ONLY_WITH = Map.of("input", Set.of("type", "class", "checked", "disabled", "readonly"));
    private static final Set<String> URL_ATTRIBUTES = Set.of("href", "src", "srcset", "cite");
    /**
     * Class names of the theme's evidence and playground (code.ftlh, claims-*.ftlh, the components, kensho-run.js,
     * CodeLines, SequenceDiagram, and Prism's token names for SQL, the language the build verifies): contributor
     * markup may not wear them, so that nothing a page writes looks like what the build checked (a ✓ mark, matched
     * rows, a verdict) or is taken for it (an exercise's compared rows); and contributor CSS may not name them
     * ({@link #isThemeStyleTarget}, read by StyleSheetPolicy), so that no style reaches what the build checked. The one list.
     */
    private static final Set<String> THEME_CLASSES = Set.of("verified", "not-verified", "not-verified-label", "mark", "code-block",
            "code-title", "expected-rows", "assertions", "result", "plan", "setup-note", "hidden-snippet", "scenario", "null",
            "line", "marked", "ins", "del", "collapsed-lines", "line-numbers", "wrap", "copy", "has-copy", "step-name",
            "token", "comment", "variable", "string", "identifier", "function", "keyword", "boolean", "number", "operator",
            "punctuation");
    private static final List<String> THEME_CLASS_PREFIXES = List.of("evidence", "result-", "run-", "exercise", "predict", "sequence",
            "seq-", "scenario-", "frame-", "terminal-", "arrow-");
    /**
     * Classes a style may not name though markup may wear them: flexmark itself writes {@code language-*} on a fence
     * that is not a snippet, and the theme writes it on the checked code's {@code <code>}.
     */
    private static final List<String> STYLE_ONLY_PREFIXES = List.of("language-",
            // The page's frame around the evidence (kensho.css): restyled, it could reorder, squeeze, hide or cover it.
            // (The site's name, header and search keep their look the site may brand.)
            "layout", "content", "page-", "verification-note", "sidebar", "toc", "pager", "skip-link", "fallback-notice",
            "visually-hidden", "diagram");

    /** Whether contributor markup may not wear a class (any case): the theme's evidence's. */
    public static boolean isThemeClass(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return THEME_CLASSES.contains(lower) || THEME_CLASS_PREFIXES.stream().anyMatch(lower::startsWith);
    }

    /** Whether contributor CSS may not name a class (any case): the theme's evidence's, and the checked code's language. */
    public static boolean isThemeStyleTarget(String name) {
        return isThemeClass(name) || STYLE_ONLY_PREFIXES.stream().anyMatch(name.toLowerCase(Locale.ROOT)::startsWith);
    }

    /** Elements the parser supplies around any fragment; they may carry no attribute a fragment gave them. */
    private static final Set<String> FRAME = Set.of("html", "head", "body");

    private HtmlGate() {
    }

    /** Something the gate refuses: where in the HTML it starts, and why. */
    public record Refusal(int offset, String message) {
    }

    /** The HTML to publish (the checked tree, serialised) and what was refused; publish only when nothing was. */
    public record Result(String html, List<Refusal> refusals) {
        public Result {
            refusals = List.copyOf(refusals);
        }
    }

    /** Parses contributor HTML as a browser would and checks every element and attribute of the result. */
    public static Result pass(String html) {
        Parser parser = Parser.htmlParser().setTrackPosition(true);
        Document document = Jsoup.parse(html, "", parser);
        document.outputSettings().prettyPrint(false);
        List<Refusal> refusals = new ArrayList<>();
        for (Element element : document.getAllElements()) {
            if (element == document) {
                continue;
            }
            String problem = problem(element);
            if (problem != null) {
                refusals.add(new Refusal(Math.max(0, element.sourceRange().startPos()), problem));
            }
        }
        dropComments(document);
        return new Result(document.body().html(), refusals);
    }

    /** Removes every comment below {@code root}. */
    public static void dropComments(Node root) {
        List<Node> comments = new ArrayList<>();
        NodeTraversor.traverse((node, depth) -> {
            if (node instanceof Comment) {
                comments.add(node);
            }
        }, root);
        comments.forEach(Node::remove);
    }

    /** Why a piece of contributor HTML may not be published (the first refusal), or null. */
    public static String refusal(String html) {
        List<Refusal> refusals = pass(html).refusals();
        return refusals.isEmpty() ? null : refusals.get(0).message();
    }

    /** Why a URL may not be published (its scheme, read as a browser reads it), or null. */
    public static String urlProblem(String url) {
        return UrlSchemes.problem(url);
    }

    private static String problem(Element element) {
        String tag = element.normalName();
        if (FRAME.contains(tag)) {
            return element.attributesSize() == 0 ? null : "raw HTML <" + tag + " " + element.attributes().asList().get(0).getKey()
                    + "> is not allowed";
        }
        if (!ELEMENTS.contains(tag)) {
            return "raw HTML <" + element.tagName() + "> is not allowed: contributor markup may not run script or embed "
                    + "other content (allowed elements: " + String.join(", ", new TreeSet<>(ELEMENTS)) + ")";
        }
        Set<String> only = ONLY_WITH.get(tag);
        for (Attribute attribute : element.attributes()) {
            String key = attribute.getKey().toLowerCase(Locale.ROOT);
            // name= on anything but a link would be a property of document (<img name=querySelector> clobbers the theme's script).
            if (!(only != null ? only.contains(key) : ATTRIBUTES.contains(key)) || key.equals("name") && !tag.equals("a")) {
                return "raw HTML <" + element.tagName() + " " + attribute.getKey() + "> is not allowed"
                        + (key.startsWith("on") ? ": an event handler would run script" : "");
            }
            if (key.equals("class")) {
                for (String name : attribute.getValue().trim().split("\\s+")) {
                    if (isThemeClass(name)) {
                        return "<" + element.tagName() + " class=\"" + name + "\">: the class is the theme's, for what the build "
                                + "checked (evidence, verified rows, run results); contributor markup may not look like it";
                    }
                }
            }
            if (attribute.getValue().contains("<!--")) {
                // A component tag written inside an attribute becomes a marker comment there, and the theme's markup
                // put in its place would end the attribute: <div title="<Badge …/>"> could gain an event handler.
                return "<" + element.tagName() + " " + attribute.getKey() + ">: a component or an HTML comment cannot stand "
                        + "inside an attribute value";
            }
            if (URL_ATTRIBUTES.contains(key)) {
                for (String part : key.equals("srcset") ? attribute.getValue().split(",") : new String[]{attribute.getValue()}) {
                    String problem = UrlSchemes.problem(part.strip());
                    if (problem != null) {
                        return "<" + element.tagName() + " " + attribute.getKey() + ">: " + problem;
                    }
                }
            }
        }
        if (only != null && !("checkbox".equalsIgnoreCase(element.attr("type")) && element.hasAttr("disabled"))) {
            return "raw HTML <input> is not allowed except as a task list's disabled checkbox";
        }
        return null;
    }
}
