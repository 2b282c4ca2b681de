package dev.kensho.generator.markdown;

import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.ast.Heading;
import com.vladsch.flexmark.ext.autolink.AutolinkExtension;
import com.vladsch.flexmark.ext.gfm.strikethrough.StrikethroughExtension;
import com.vladsch.flexmark.ext.tables.TablesExtension;
import com.vladsch.flexmark.parser.Parser;
import com.vladsch.flexmark.util.ast.Document;
import com.vladsch.flexmark.util.ast.Node;
import com.vladsch.flexmark.util.data.DataHolder;
import com.vladsch.flexmark.util.data.MutableDataSet;
import com.vladsch.flexmark.util.sequence.BasedSequence;
import dev.kensho.generator.content.Page;
import dev.kensho.sqlchecks.SourceLocation;
import dev.kensho.sqlchecks.Snippet;

import java.util.ArrayList;
import java.util.List;

/** A page's Markdown parsed once; the verify and render stages both read this tree. */
public final class MarkdownDocument {

    public static final DataHolder OPTIONS = new MutableDataSet()
            .set(Parser.EXTENSIONS, List.of(TablesExtension.create(), StrikethroughExtension.create(), AutolinkExtension.create()))
            .set(TablesExtension.COLUMN_SPANS, false)
            .set(TablesExtension.APPEND_MISSING_COLUMNS, true)
            .set(TablesExtension.DISCARD_EXTRA_COLUMNS, true)
            .set(TablesExtension.HEADER_SEPARATOR_COLUMN_MATCH, true)
            .toImmutable();

    private static final Parser PARSER = Parser.builder(OPTIONS).build();

    private final Page page;
    private final Document document;
    private final List<SqlFence> sqlFences;

    private MarkdownDocument(Page page, Document document, List<SqlFence> sqlFences) {
        this.page = page;
        this.document = document;
        this.sqlFences = List.copyOf(sqlFences);
    }

    public static MarkdownDocument parse(Page page) {
        Document document = PARSER.parse(page.body());
        List<SqlFence> fences = new ArrayList<>();
        collect(document, page, fences);
        return new MarkdownDocument(page, document, fences);
    }

    private static void collect(Node node, Page page, List<SqlFence> fences) {
        for (Node child = node.getFirstChild(); child != null; child = child.getNext()) {
            if (child instanceof FencedCodeBlock fence) {
                FenceInfo info = FenceInfo.parse(fence.getInfo().toString());
                if (info.language().equals("sql")) {
                    fences.add(new SqlFence(fence, info, snippetOf(fence, info, page)));
                }
            } else {
                collect(child, page, fences);
            }
        }
    }

    private static Snippet snippetOf(FencedCodeBlock fence, FenceInfo info, Page page) {
        BasedSequence content = fence.getContentChars();
        String sql = content.toString();
        if (sql.endsWith("\n")) {
            sql = sql.substring(0, sql.length() - 1);
        }
        int line;
        int indent;
        if (fence.getContentLines().isEmpty()) {
            line = fence.getStartLineNumber() + 2;
            indent = 0;
        } else {
            BasedSequence first = fence.getContentLines().get(0);
            int offset = first.getStartOffset();
            String body = page.body();
            int lineStart = body.lastIndexOf('\n', offset - 1) + 1;
            line = fence.getDocument().getLineNumber(offset) + 1;
            indent = offset - lineStart;
        }
        SourceLocation location = new SourceLocation(page.displayPath(), line, indent + 1);
        return new Snippet(location, sql, indent, info.meta());
    }

    public Page page() {
        return page;
    }

    public Document document() {
        return document;
    }

    /** The page's ```sql fences in document order. */
    public List<SqlFence> sqlFences() {
        return sqlFences;
    }

    /** Level-2 and level-3 headings, for a table of contents. */
    public List<Heading> headings() {
        List<Heading> headings = new ArrayList<>();
        for (Node node : document.getDescendants()) {
            if (node instanceof Heading heading && (heading.getLevel() == 2 || heading.getLevel() == 3)) {
                headings.add(heading);
            }
        }
        return headings;
    }

    /** A ```sql fence and the snippet it becomes. */
    public record SqlFence(FencedCodeBlock node, FenceInfo info, Snippet snippet) {
    }
}
