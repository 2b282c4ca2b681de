package dev.kensho.generator.markdown;

import com.vladsch.flexmark.ast.AutoLink;
import com.vladsch.flexmark.ast.HtmlBlock;
import com.vladsch.flexmark.ast.HtmlCommentBlock;
import com.vladsch.flexmark.ast.HtmlInline;
import com.vladsch.flexmark.ast.HtmlInlineComment;
import com.vladsch.flexmark.ast.HtmlInnerBlock;
import com.vladsch.flexmark.ast.HtmlInnerBlockComment;
import com.vladsch.flexmark.ast.Image;
import com.vladsch.flexmark.ast.ImageRef;
import com.vladsch.flexmark.ast.Link;
import com.vladsch.flexmark.ast.LinkRef;
import com.vladsch.flexmark.ast.MailLink;
import com.vladsch.flexmark.html.HtmlRenderer;
import com.vladsch.flexmark.html.HtmlWriter;
import com.vladsch.flexmark.html.renderer.NodeRenderer;
import com.vladsch.flexmark.html.renderer.NodeRendererContext;
import com.vladsch.flexmark.html.renderer.NodeRenderingHandler;
import com.vladsch.flexmark.util.ast.Document;
import com.vladsch.flexmark.util.ast.Node;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.Page;
import dev.kensho.generator.content.UrlSchemes;
import dev.kensho.generator.render.gate.HtmlGate;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Puts a page's contributor HTML through {@link HtmlGate} and says where in the source each refusal
 * is. The page is rendered as the site renders it (same options; fences as plain escaped code, since
 * the theme draws those), and the gate checks that output as a browser would parse it: raw HTML
 * blocks, HTML comments, inline HTML, Markdown links and images alike. While rendering, the output
 * offset at which each source node starts is noted, so a refusal maps back to its file:line:column.
 */
public final class MarkupPolicy {

    /** Nodes whose output is the author's raw HTML, character for character. */
    private static final Set<Class<? extends Node>> RAW = Set.of(HtmlBlock.class, HtmlCommentBlock.class, HtmlInline.class,
            HtmlInlineComment.class, HtmlInnerBlock.class, HtmlInnerBlockComment.class);
    /** Nodes that become a link or image from Markdown syntax. */
    private static final Set<Class<? extends Node>> LINKS = Set.of(Link.class, Image.class, LinkRef.class, ImageRef.class,
            AutoLink.class, MailLink.class);

    private MarkupPolicy() {
    }

    /** Where each noted node's output starts: output offset → node. */
    private static final class Positions implements NodeRenderer {
        final TreeMap<Integer, Node> starts = new TreeMap<>();

        @Override
        public Set<NodeRenderingHandler<?>> getNodeRenderingHandlers() {
            Set<NodeRenderingHandler<?>> handlers = new HashSet<>();
            for (Class<? extends Node> type : RAW) {
                handlers.add(handler(type));
            }
            for (Class<? extends Node> type : LINKS) {
                handlers.add(handler(type));
            }
            return handlers;
        }

        private <N extends Node> NodeRenderingHandler<N> handler(Class<N> type) {
            return new NodeRenderingHandler<>(type, (N node, NodeRendererContext context, HtmlWriter html) -> {
                starts.put(html.offsetWithPending(), node);
                context.delegateRender();
            });
        }
    }

    /** Checks a parsed page's rendered HTML; problems go to {@code diagnostics} at their lines. */
    static void check(Document document, Page page, String body, List<Diagnostic> diagnostics) {
        if (!holdsContributorMarkup(document)) {
            return;
        }
        Positions positions = new Positions();
        String html = HtmlRenderer.builder(MarkdownDocument.RENDER_OPTIONS).nodeRendererFactory(options -> positions).build()
                .render(document);
        List<HtmlGate.Refusal> refusals = HtmlGate.pass(html).refusals();
        if (refusals.isEmpty()) {
            return;
        }
        String[] lines = body.split("\n", -1);
        for (HtmlGate.Refusal refusal : refusals) {
            Map.Entry<Integer, Node> start = positions.starts.floorEntry(refusal.offset());
            int sourceOffset = 0;
            String message = refusal.message();
            if (start != null) {
                Node node = start.getValue();
                sourceOffset = node.getStartOffset();
                if (RAW.contains(node.getClass())) {
                    // Raw HTML is output as written: the refused element sits as far into the source as into the output.
                    sourceOffset = Math.min(node.getEndOffset(), sourceOffset + refusal.offset() - start.getKey());
                } else if (message.startsWith("<")) {
                    message = message.substring(message.indexOf(">: ") + 3); // Markdown syntax, not an HTML attribute
                }
            }
            int lineStart = document.getChars().startOfLine(sourceOffset);
            int line = document.getLineNumber(sourceOffset) + 1;
            String source = line - 1 < lines.length ? lines[line - 1] : null;
            diagnostics.add(Diagnostic.at(page.displayPath(), line, sourceOffset - lineStart + 1, message, source));
        }
    }

    /**
     * Whether the page has a node that puts the author's markup or URLs into the output. Without one, the
     * output is flexmark's own elements around escaped text, which the gate has nothing to refuse in: such
     * pages (most pages of a large site) skip the second render.
     */
    private static boolean holdsContributorMarkup(Document document) {
        for (Node node : document.getDescendants()) {
            if (RAW.contains(node.getClass()) || LINKS.contains(node.getClass())) {
                return true;
            }
        }
        return false;
    }

    /** Checks a one-line component's rendered content through the gate; the problem, or null. */
    static String inlineProblem(String markdown) {
        return HtmlGate.refusal(renderInline(markdown));
    }

    /** Markdown of a one-line component, rendered without its paragraph and passed through the gate. */
    public static String renderInline(String markdown) {
        String rendered = HtmlRenderer.builder(MarkdownDocument.RENDER_OPTIONS).build()
                .render(MarkdownDocument.parseFragment(markdown)).strip();
        return rendered.startsWith("<p>") && rendered.endsWith("</p>") ? rendered.substring(3, rendered.length() - 4) : rendered;
    }

    /** Checks a component's attributes: any value that reads as a URL with a forbidden scheme is refused. */
    static String attributeProblem(Map<String, Object> attributes) {
        for (Map.Entry<String, Object> attribute : attributes.entrySet()) {
            String problem = valueProblem(attribute.getKey(), attribute.getValue());
            if (problem != null) {
                return attribute.getKey() + (attribute.getValue() instanceof String ? "=\"…\": " : "={…}: ") + problem;
            }
        }
        return null;
    }

    private static final Set<String> URL_KEYS = Set.of("href", "src", "link", "srcset", "cite", "file");

    /** Checks a value and, inside objects and arrays, every value under it by the key it is filed under. */
    private static String valueProblem(String key, Object value) {
        if (value instanceof String text) {
            String problem = HtmlGate.urlProblem(text);
            // href and src are URLs; any other value is refused only when it reads as a script URL.
            return problem != null && (URL_KEYS.contains(key.toLowerCase(Locale.ROOT)) || isDangerous(text)) ? problem : null;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String problem = valueProblem(String.valueOf(entry.getKey()), entry.getValue());
                if (problem != null) {
                    return problem;
                }
            }
        }
        if (value instanceof List<?> list) {
            for (Object item : list) {
                String problem = valueProblem(key, item);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    private static boolean isDangerous(String value) {
        String scheme = UrlSchemes.scheme(value);
        return "javascript".equals(scheme) || "vbscript".equals(scheme) || "data".equals(scheme);
    }
}
