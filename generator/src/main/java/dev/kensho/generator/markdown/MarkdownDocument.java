package dev.kensho.generator.markdown;

import com.vladsch.flexmark.ast.FencedCodeBlock;
import com.vladsch.flexmark.ast.Heading;
import com.vladsch.flexmark.ext.autolink.AutolinkExtension;
import com.vladsch.flexmark.ext.footnotes.FootnoteExtension;
import com.vladsch.flexmark.ext.gfm.tasklist.TaskListExtension;
import com.vladsch.flexmark.ext.gfm.strikethrough.StrikethroughExtension;
import com.vladsch.flexmark.ext.tables.TablesExtension;
import com.vladsch.flexmark.html.HtmlRenderer;
import com.vladsch.flexmark.parser.Parser;
import com.vladsch.flexmark.util.sequence.LineAppendable;
import com.vladsch.flexmark.util.ast.Document;
import com.vladsch.flexmark.util.ast.Node;
import com.vladsch.flexmark.util.data.DataHolder;
import com.vladsch.flexmark.util.data.MutableDataSet;
import com.vladsch.flexmark.util.sequence.BasedSequence;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.ContentFiles;
import dev.kensho.generator.content.Page;
import dev.kensho.sqlchecks.assertion.BoundedMatch;
import dev.kensho.sqlchecks.model.Directives;
import dev.kensho.generator.verify.FenceVersions;
import dev.kensho.sqlchecks.model.ExpectedRows;
import dev.kensho.sqlchecks.model.InvalidDirectiveException;
import dev.kensho.sqlchecks.model.ScenarioParser;
import dev.kensho.sqlchecks.model.ScenarioSyntaxException;
import dev.kensho.sqlchecks.model.SourceLocation;
import dev.kensho.sqlchecks.model.Snippet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/** A page's Markdown parsed once; the verify and render stages both read this tree. */
public final class MarkdownDocument {

    public static final DataHolder OPTIONS = new MutableDataSet()
            .set(Parser.EXTENSIONS, List.of(TablesExtension.create(), StrikethroughExtension.create(), AutolinkExtension.create(),
                    FootnoteExtension.create(), TaskListExtension.create()))
            .set(TablesExtension.COLUMN_SPANS, false)
            .set(TablesExtension.APPEND_MISSING_COLUMNS, true)
            .set(TablesExtension.DISCARD_EXTRA_COLUMNS, true)
            .set(TablesExtension.HEADER_SEPARATOR_COLUMN_MATCH, true)
            // As in MDX: indentation inside components is layout, not an indented code block.
            .set(Parser.INDENTED_CODE_BLOCK_PARSER, false)
            .toImmutable();

    /**
     * How pages are rendered to HTML, for the site and for {@link MarkupPolicy}'s check alike. flexmark's
     * line formatter (on by default) looks at every character again to tidy whitespace that the page's
     * one jsoup parse normalises anyway: passing text through saves a tenth of the render stage. No link
     * is silently suppressed: HtmlGate refuses a bad one at its line instead.
     */
    public static final DataHolder RENDER_OPTIONS = new MutableDataSet(OPTIONS)
            .set(HtmlRenderer.GENERATE_HEADER_ID, true)
            .set(HtmlRenderer.RENDER_HEADER_ID, true)
            .set(HtmlRenderer.HEADER_ID_GENERATOR_NO_DUPED_DASHES, true)
            .set(HtmlRenderer.FORMAT_FLAGS, LineAppendable.F_PASS_THROUGH)
            .set(HtmlRenderer.SUPPRESSED_LINKS, "(?!)")
            .toImmutable();

    /** Language of the fence that states a snippet's expected rows, written right under it. */
    public static final String ROWS_LANGUAGE = "rows";
    /** Language of a multi-session scenario block (see the authoring guide). */
    public static final String SCENARIO_LANGUAGE = "scenario";

    private static final Parser PARSER = Parser.builder(OPTIONS).build();
    /** How long one page's Markdown may take to parse ({@link ParseDeadline}); the lesson pages take milliseconds. */
    static final java.time.Duration PARSE_BUDGET = java.time.Duration.ofSeconds(10);
    /**
     * The same parser without GFM's bare-URL autolinks, for pages that hold nothing an autolink could
     * start with: the autolink pass runs a regular expression over every text node, a quarter of the
     * parse on a page of Japanese prose.
     */
    private static final Parser PARSER_WITHOUT_AUTOLINKS = Parser.builder(new MutableDataSet(OPTIONS)
            .set(Parser.EXTENSIONS, List.of(TablesExtension.create(), StrikethroughExtension.create(),
                    FootnoteExtension.create(), TaskListExtension.create()))
            .toImmutable()).build();

    /** Whether a text could hold a bare URL or e-mail address that GFM turns into a link. */
    private static boolean mayHoldAutolinks(String text) {
        return text.contains("://") || text.contains("www.") || text.contains("@") || text.contains("mailto:");
    }

    private final Page page;
    // Not final: released once the page is rendered (see release()), so that a large site's syntax
    // trees do not all stay in memory until the build ends.
    private Document document;
    private List<SqlFence> sqlFences;
    private final List<ComponentTag> components;
    private final Map<Integer, String> diagrams;
    private final boolean verifiable;

    private MarkdownDocument(Page page, Document document, List<SqlFence> sqlFences, List<ComponentTag> components,
                             Map<Integer, String> diagrams, boolean verifiable) {
        this.page = page;
        this.document = document;
        this.sqlFences = List.copyOf(sqlFences);
        this.components = List.copyOf(components);
        this.diagrams = Map.copyOf(diagrams);
        this.verifiable = verifiable;
    }

    /** The page's component tags in order; their markers stand in the rendered Markdown. */
    public List<ComponentTag> components() {
        return components;
    }

    /** Inline SVG markup of each Diagram tag, by tag id. */
    public Map<Integer, String> diagrams() {
        return diagrams;
    }

    /**
     * False when a fence's directives or expected rows could not be read: running the page would
     * check something other than what the author meant, so it is not run at all.
     */
    public boolean verifiable() {
        return verifiable;
    }

    /**
     * Parses a page; problems with components, diagrams, directives or expected-rows tables go to
     * {@code diagnostics}.
     */
    public static MarkdownDocument parse(Page page, ComponentCatalog catalog, ContentFiles files, List<Diagnostic> diagnostics) {
        // One budget for the page's Markdown and its components' (ParseDeadline).
        ParseDeadline.startPage(PARSE_BUDGET);
        try {
            return parseUnderBudget(page, catalog, files, diagnostics);
        } finally {
            ParseDeadline.endPage();
        }
    }

    private static MarkdownDocument parseUnderBudget(Page page, ComponentCatalog catalog, ContentFiles files, List<Diagnostic> diagnostics) {
        List<Diagnostic> found = new ArrayList<>();
        List<FileRead> reads = new ArrayList<>();
        ComponentSyntax.Result components = ComponentSyntax.extract(page.body(), page.displayPath(), catalog, path -> {
            try {
                return readText(page, files, path, ContentFiles.MAX_DIAGRAM_BYTES, true, reads);
            } catch (ContentFiles.Refused | CharacterCodingException e) {
                throw new MdxModule.ValueProblem("import '" + path + "?raw': " + (e instanceof ContentFiles.Refused ? e.getMessage() : "not valid UTF-8"));
            }
        }, found);
        Map<Integer, String> diagrams = new HashMap<>();
        for (ComponentTag tag : components.tags()) {
            if (tag.name().equals(DIAGRAM) && tag.attributes().get("src") instanceof String src) {
                String alt = String.valueOf(tag.attributes().get("alt"));
                try {
                    if (alt.isBlank()) {
                        throw new SvgDiagram.Problem("<Diagram> needs a text alternative: alt=\"what the diagram shows\"");
                    }
                    diagrams.put(tag.id(), SvgDiagram.sanitize(readDiagram(page, files, src, reads), src, alt, "d" + tag.id() + "-"));
                } catch (SvgDiagram.Problem e) {
                    String source = page.body().split("\n", -1)[tag.line() - 1];
                    found.add(Diagnostic.at(page.displayPath(), tag.line(), tagColumn(source), e.getMessage(), source));
                }
            }
        }
        for (ComponentTag tag : components.tags()) {
            String problem = MarkupPolicy.attributeProblem(tag.attributes());
            if (problem == null && tag.attributes().get("code") instanceof String code) {
                // Starlight's <Code code="…"> shows code as a fence does.
                problem = BidiControls.problem(code);
            }
            if (problem == null && tag.kind() == ComponentTag.Kind.ONE_LINE) {
                String content;
                try {
                    content = MarkupPolicy.inlineProblem(tag.inlineMarkdown());
                } catch (ParseDeadline.Exceeded e) {
                    content = tooSlow();
                }
                problem = content == null ? null : "content: " + content;
            }
            if (problem != null) {
                String source = page.body().split("\n", -1)[tag.line() - 1];
                found.add(Diagnostic.at(page.displayPath(), tag.line(), tagColumn(source), "<" + tag.name() + "> " + problem, source));
            }
        }
        Document document;
        ParseDeadline text = ParseDeadline.fragment(components.body(), PARSE_BUDGET);
        try {
            document = (mayHoldAutolinks(components.body()) ? PARSER : PARSER_WITHOUT_AUTOLINKS)
                    .parse(com.vladsch.flexmark.util.sequence.BasedSequence.of(text));
            text.disarm();
            MarkupPolicy.check(document, page, components.body(), found);
        } catch (ParseDeadline.Exceeded e) {
            int at = Math.min(e.at, components.body().length());
            int line = 1 + (int) components.body().substring(0, at).chars().filter(c -> c == '\n').count();
            diagnostics.add(Diagnostic.at(page.displayPath(), line, 1, "the page's " + tooSlow().substring(4), null));
            return new MarkdownDocument(page, PARSER.parse(""), List.of(), List.of(), Map.of(), false);
        } catch (StackOverflowError e) {
            diagnostics.add(Diagnostic.at(page.displayPath(), 1, 1, "the page nests blockquotes, lists or other blocks too deeply to read", null));
            return new MarkdownDocument(page, PARSER.parse(""), List.of(), List.of(), Map.of(), false);
        }
        PageFrontMatter.check(page, catalog.frontMatterKeys(), found);
        FenceScan scan = new FenceScan(page, components.body(), found);
        try {
            collect(document, scan);
        } catch (StackOverflowError e) {
            // Reading the fences recurses once per nesting level, as parsing does (5,000 nested '>').
            diagnostics.add(Diagnostic.at(page.displayPath(), 1, 1, "the page nests blockquotes, lists or other blocks too deeply to read", null));
            return new MarkdownDocument(page, PARSER.parse(""), List.of(), List.of(), Map.of(), false);
        }
        diagnostics.addAll(found);
        diagnostics.addAll(scan.unblocking);
        MarkdownDocument parsed = new MarkdownDocument(page, document, scan.fences, components.tags(), diagrams, found.isEmpty());
        parsed.unverifiedSqlLines.addAll(scan.unverified);
        parsed.ignoredSqlLines.addAll(scan.ignored);
        parsed.textMarks.putAll(scan.textMarks);
        parsed.reads.addAll(reads);
        return parsed;
    }

    /** Parses a snippet of Markdown that holds no SQL, such as a one-line component's content. */
    public static Document parseFragment(String markdown) {
        // A component's content is Markdown too: the same deadline as a page's (red team helper-99: 40,000 unclosed image
        // links in one <Aside> ran past two minutes). Past it, ParseDeadline.Exceeded, which the check reports at the tag.
        ParseDeadline text = ParseDeadline.fragment(markdown, PARSE_BUDGET);
        Document document = PARSER.parse(com.vladsch.flexmark.util.sequence.BasedSequence.of(text));
        text.disarmFragment();
        return document;
    }

    /** Said of Markdown that ran past {@link #PARSE_BUDGET}, a page's or a component's. */
    static String tooSlow() {
        return "the Markdown took more than " + PARSE_BUDGET.toSeconds() + " s to read: a paragraph holds a construct the "
                + "Markdown parser reads in time that grows with the square of its length (such as thousands of unclosed '](' "
                + "or '[' in one paragraph); split the paragraph or put the text in a code block";
    }

    /** The component that inlines an SVG from content/. */
    public static final String DIAGRAM = "Diagram";

    /** A diagram's SVG text, read only through the content gate: never from outside content/. */
    private static String readDiagram(Page page, ContentFiles files, String src, List<FileRead> reads) throws SvgDiagram.Problem {
        if (!src.toLowerCase(Locale.ROOT).endsWith(".svg")) {
            throw new SvgDiagram.Problem("src=\"" + src + "\" must name an .svg file inside content/");
        }
        try {
            return readText(page, files, src, ContentFiles.MAX_DIAGRAM_BYTES, false, reads);
        } catch (ContentFiles.Refused e) {
            throw new SvgDiagram.Problem("cannot use diagram src=\"" + src + "\": " + e.getMessage());
        } catch (CharacterCodingException e) {
            throw new SvgDiagram.Problem("diagram " + src + " is not valid UTF-8");
        }
    }

    /**
     * A UTF-8 file a page names, relative to it ("/x" from the content root), read through the content gate.
     *
     * @param trackedBeside also a file git tracks outside content/ (text a page imports with ?raw, as Vite reads it) */
    private static String readText(Page page, ContentFiles files, String path, long maxBytes, boolean trackedBeside, List<FileRead> reads)
            throws ContentFiles.Refused, CharacterCodingException {
        Path file = files.named(page.source().getParent(), path);
        String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(trackedBeside ? files.readTracked(file, maxBytes) : files.read(file, maxBytes))).toString();
        reads.add(new FileRead(path, maxBytes, trackedBeside, text));
        return text;
    }

    /** A file the page read while it was parsed (a ?raw import, a diagram): the name it gave, how it was read, the text. */
    record FileRead(String name, long maxBytes, boolean trackedBeside, String text) {
    }

    private final List<FileRead> reads = new ArrayList<>();

    /**
     * This parse, for {@code page}: a page loaded again, equal to the one parsed (the build's maps find pages by identity).
     */
    MarkdownDocument reusedFor(Page page) {
        MarkdownDocument same = new MarkdownDocument(page, document, sqlFences, components, diagrams, verifiable);
        same.unverifiedSqlLines.addAll(unverifiedSqlLines);
        same.ignoredSqlLines.addAll(ignoredSqlLines);
        same.textMarks.putAll(textMarks);
        same.reads.addAll(reads);
        return same;
    }

    /** The names and texts of the files the page read (imports, diagrams): what the page shows of them besides its own source. */
    public String readFiles() {
        StringBuilder out = new StringBuilder();
        for (FileRead read : reads) {
            out.append(read.name().length()).append(':').append(read.name()).append(read.text().length()).append(':').append(read.text());
        }
        return out.toString();
    }

    /**
     * Whether every file this page read while it was parsed reads the same now, through the same gate (so that
     * {@code files} also knows, as after a parse, that a page reads it): then a parse now would give this document.
     */
    boolean readsTheSameFiles(ContentFiles files) {
        for (FileRead read : reads) {
            try {
                if (!readText(page, files, read.name(), read.maxBytes(), read.trackedBeside(), new ArrayList<>()).equals(read.text())) {
                    return false;
                }
            } catch (ContentFiles.Refused | CharacterCodingException e) {
                return false;
            }
        }
        return true;
    }

    /** Fence languages that hold SQL Kensho does not run (only ```sql and ```scenario are run). */
    public static final Set<String> UNVERIFIED_SQL_LANGUAGES = Set.of("postgresql", "postgres", "psql", "pgsql", "plpgsql", "sql-unverified");

    private final List<Integer> unverifiedSqlLines = new ArrayList<>();
    private final List<Integer> ignoredSqlLines = new ArrayList<>();

    /** The meta word that shows a ```sql fence without running it (mdBook's {@code ignore}). */
    public static final String IGNORE = "ignore";

    /** Lines of ```sql ignore fences: shown with a "not verified" label, never run, counted in the summary. */
    public List<Integer> ignoredSqlLines() {
        return List.copyOf(ignoredSqlLines);
    }
    private final Map<FencedCodeBlock, String[]> textMarks = new IdentityHashMap<>();

    /** Expressive Code's text markers of each fence that has some: the kind of mark on every character of its code. */
    public Map<FencedCodeBlock, String[]> textMarks() {
        return textMarks;
    }

    /** Lines of fences that look like SQL but are not verified (```psql and the like), for the report. */
    public List<Integer> unverifiedSqlLines() {
        return List.copyOf(unverifiedSqlLines);
    }

    /** What reading a page's fences finds; one per page. */
    private static final class FenceScan {
        final Page page;
        final String body;
        final List<SqlFence> fences = new ArrayList<>();
        final List<Diagnostic> diagnostics;
        /** Problems reported without keeping the page from running (a malformed rows table). */
        final List<Diagnostic> unblocking = new ArrayList<>();
        final List<Integer> unverified = new ArrayList<>();
        final List<Integer> ignored = new ArrayList<>();
        final Map<FencedCodeBlock, String[]> textMarks = new IdentityHashMap<>();
        /** One budget for every regular-expression marker on the page. */
        final long markerDeadline = BoundedMatch.deadline();

        FenceScan(Page page, String body, List<Diagnostic> diagnostics) {
            this.page = page;
            this.body = body;
            this.diagnostics = diagnostics;
        }
    }

    private static void collect(Node node, FenceScan scan) {
        Page page = scan.page;
        String body = scan.body;
        List<Diagnostic> diagnostics = scan.diagnostics;
        for (Node child = node.getFirstChild(); child != null; child = child.getNext()) {
            if (child instanceof com.vladsch.flexmark.ast.Code inline) {
                BidiControls.check(inline, page, body, diagnostics);
            }
            if (!(child instanceof FencedCodeBlock fence)) {
                collect(child, scan);
                continue;
            }
            FenceInfo info = FenceInfo.parse(fence.getInfo().toString());
            BidiControls.check(fence, page, body, diagnostics);
            if (info.language().equals(ROWS_LANGUAGE)) {
                SqlFence owner = scan.fences.isEmpty() ? null : scan.fences.get(scan.fences.size() - 1);
                if (owner == null || owner.rowsNode() != fence) {
                    boolean afterScenario = fence.getPrevious() instanceof FencedCodeBlock previous
                            && FenceInfo.parse(previous.getInfo().toString()).language().equals(SCENARIO_LANGUAGE);
                    diagnostics.add(fenceDiagnostic(page, body, fence, afterScenario
                            ? "a ```" + ROWS_LANGUAGE + " table is not compared after a ```scenario fence; state a step's rows "
                            + "in a rows { … } block right after the step inside the scenario"
                            : "a ```" + ROWS_LANGUAGE + " table must directly follow the ```sql fence whose rows it states"));
                }
                continue;
            }
            if (!info.markers().isEmpty()) {
                // Found once, here, within one regex budget for the whole page; the renderer lays them over the code.
                try {
                    String text = CodeDisplay.of(info, fence.getContentChars().toString()).text();
                    scan.textMarks.put(fence, TextMarks.kinds(text, info.markers(), scan.markerDeadline));
                } catch (TextMarks.Problem problem) {
                    diagnostics.add(fenceDiagnostic(page, body, fence, problem.getMessage()));
                }
            }
            boolean scenario = info.language().equals(SCENARIO_LANGUAGE);
            String shownAs = info.language().equals("diff") && info.meta().containsKey("lang") ? info.meta().get("lang") : null;
            if (shownAs != null && !CodeDisplay.isLanguageName(shownAs)) {
                diagnostics.add(fenceDiagnostic(page, body, fence, "lang=\"" + shownAs + "\" is not a language name (letters, digits"
                        + " and _ + # . -, at most 32); write the one language the diff's lines are highlighted as, such as lang=\"sql\""));
                continue;
            }
            String frame = info.meta().get("frame");
            if (frame != null && !CodeDisplay.FRAMES.contains(frame)) {
                // The theme writes it into the block's class (red team helper-103: frame="code myx" let the site's CSS
                // hide the not-verified label; frame="code verified evidence" wore the theme's evidence classes).
                diagnostics.add(fenceDiagnostic(page, body, fence, "frame=\"" + frame + "\" is not a frame; frame is one of "
                        + String.join(", ", new java.util.TreeSet<>(CodeDisplay.FRAMES))));
                continue;
            }
            if (UNVERIFIED_SQL_LANGUAGES.contains(info.language()) || shownAs != null && CodeDisplay.readsAsSql(shownAs)) {
                scan.unverified.add(fence.getStartLineNumber() + 1);
            }
            if (!info.language().equals("sql") && !scenario) {
                continue;
            }
            if (!scenario && info.meta().containsKey(IGNORE)) {
                List<String> claims = info.meta().keySet().stream().filter(key -> !key.equals(IGNORE) && !Directives.isPresentation(key)).toList();
                if (!claims.isEmpty()) {
                    diagnostics.add(fenceDiagnostic(page, body, fence, "'" + claims.get(0) + "' on a ```sql ignore fence is not checked: "
                            + "the fence is not run; remove ignore to check the claim, or the claim to show the SQL unverified"));
                }
                scan.ignored.add(fence.getStartLineNumber() + 1);
                continue;
            }
            if (info.meta().containsKey("del") || info.markers().stream().anyMatch(m -> m.kind().equals("del"))) {
                diagnostics.add(fenceDiagnostic(page, body, fence, "del= shows code as deleted, but Kensho runs every line of a ```"
                        + info.language() + " fence, so what readers see struck out would be what ran; show the old version "
                        + "in a ```diff fence (never run) or a fence of its own"));
            }
            if (!info.repeated().isEmpty()) {
                diagnostics.add(fenceDiagnostic(page, body, fence, "'" + info.repeated().get(0) + "' is written twice on this fence; "
                        + "state each claim once (a second one would silently replace the first)"));
            }
            Snippet snippet = snippetOf(fence, info, page, body);
            // versions= says where the snippet runs, on a ```sql and a ```scenario fence alike; the rest of the meta are claims.
            List<Integer> versions = null;
            Map<String, String> claimMeta = new java.util.LinkedHashMap<>(info.meta());
            if (claimMeta.containsKey(FenceVersions.KEY)) {
                try {
                    versions = FenceVersions.parse(claimMeta.remove(FenceVersions.KEY));
                } catch (FenceVersions.Invalid e) {
                    diagnostics.add(fenceDiagnostic(page, body, fence, e.getMessage()));
                }
            }
            if (scenario) {
                List<String> claims = claimMeta.keySet().stream().filter(key -> !Directives.isPresentation(key)).toList();
                if (!claims.isEmpty()) {
                    diagnostics.add(fenceDiagnostic(page, body, fence, "'" + claims.get(0) + "' on a ```scenario fence is not "
                            + "checked; state claims on its steps (waits-for=, expect-error=, rows { … })"));
                }
                try {
                    snippet = snippet.withScenario(ScenarioParser.parse(snippet.sql()));
                } catch (ScenarioSyntaxException e) {
                    int index = snippet.indexOfLine(e.line());
                    var at = snippet.locate(index);
                    diagnostics.add(Diagnostic.at(at.file(), at.line(), at.column(), "scenario: " + e.getMessage(), snippet.lineAt(index)));
                    continue;
                }
            }
            Directives directives = Directives.NONE;
            try {
                directives = scenario ? Directives.NONE : Directives.parse(claimMeta);
            } catch (InvalidDirectiveException e) {
                diagnostics.add(directiveDiagnostic(page, body, fence, e));
            }
            FencedCodeBlock rowsNode = null;
            ExpectedRows expectedRows = null;
            if (!scenario && fence.getNext() instanceof FencedCodeBlock next
                    && FenceInfo.parse(next.getInfo().toString()).language().equals(ROWS_LANGUAGE)) {
                rowsNode = next;
                if (directives.expectError() != null) {
                    diagnostics.add(fenceDiagnostic(page, body, next, "a ```" + ROWS_LANGUAGE + " table cannot be compared under "
                            + "a snippet with expect-error: the failing statement returns no rows"));
                } else {
                    try {
                        expectedRows = ExpectedRows.parse(next.getContentChars().toString());
                    } catch (InvalidDirectiveException e) {
                        // Reported, but the page still runs: one bad table must not hide the page's other problems.
                        scan.unblocking.add(fenceDiagnostic(page, body, next, "expected rows: " + e.getMessage()));
                    }
                }
            }
            scan.fences.add(new SqlFence(fence, info, snippet.with(directives, expectedRows), rowsNode, versions));
        }
    }

    /** At the directive on the fence's line when the problem names one, with the nearest known name for an unknown one. */
    private static Diagnostic directiveDiagnostic(Page page, String body, FencedCodeBlock fence, InvalidDirectiveException e) {
        Diagnostic at = fenceDiagnostic(page, body, fence, e.getMessage());
        String directive = e.directive();
        if (directive == null || at.sourceLine() == null) {
            return at;
        }
        String message = e.getMessage();
        String quoted = "'" + directive + "'";
        if (!Directives.NAMES.contains(directive) && message.contains(quoted)) {
            message = message.replaceFirst(java.util.regex.Pattern.quote(quoted),
                    java.util.regex.Matcher.quoteReplacement(quoted + dev.kensho.generator.Suggestion.didYouMean(directive, Directives.NAMES)));
        }
        // The directive's first place after the fence's language word (a bare word, or a key before '=').
        java.util.regex.Matcher word = java.util.regex.Pattern.compile("(?<=\\s)" + java.util.regex.Pattern.quote(directive) + "(?=[=\\s]|$)")
                .matcher(at.sourceLine());
        int column = word.find() ? word.start() + 1 : at.column();
        return Diagnostic.at(at.file(), at.line(), column, message, at.sourceLine());
    }

    private static Diagnostic fenceDiagnostic(Page page, String body, FencedCodeBlock fence, String message) {
        int line = fence.getStartLineNumber() + 1;
        String[] lines = body.split("\n", -1);
        String source = line - 1 < lines.length ? lines[line - 1] : null;
        int column = source == null ? 1 : source.length() - source.stripLeading().length() + 1;
        return Diagnostic.at(page.displayPath(), line, column, message, source);
    }

    private static Snippet snippetOf(FencedCodeBlock fence, FenceInfo info, Page page, String body) {
        BasedSequence content = fence.getContentChars();
        String sql = content.toString();
        if (sql.endsWith("\n")) {
            sql = sql.substring(0, sql.length() - 1);
        }
        int line;
        int indent;
        if (fence.getContentLines().isEmpty()) {
            // The line after the opening fence, or the opening fence itself when it is the page's last line (an
            // unclosed, empty fence at the end): a diagnostic names a line the page has (found by fuzzing).
            line = Math.min(fence.getStartLineNumber() + 2, body.split("\n", -1).length);
            indent = 0;
        } else {
            BasedSequence first = fence.getContentLines().get(0);
            int offset = first.getStartOffset();
            int lineStart = body.lastIndexOf('\n', offset - 1) + 1;
            line = fence.getDocument().getLineNumber(offset) + 1;
            indent = offset - lineStart;
        }
        SourceLocation location = new SourceLocation(page.displayPath(), line, indent + 1);
        return new Snippet(location, sql, indent, Directives.NONE, null, null);
    }

    public Page page() {
        return page;
    }

    /** Lets go of the syntax tree and the fences that point into it; the page has been rendered. */
    public void release() {
        document = null;
        sqlFences = List.of();
    }

    public Document document() {
        return document;
    }

    /** The page's ```sql and ```scenario fences in document order. */
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

    /**
     * A ```sql fence and the snippet it becomes.
     *
     * @param rowsNode the ```rows fence right after it, or null
     */
    /**
     * @param versions the PostgreSQL major versions its {@code versions=} names, or null: every version the site checks
     */
    public record SqlFence(FencedCodeBlock node, FenceInfo info, Snippet snippet, FencedCodeBlock rowsNode, List<Integer> versions) {
    }

    /** Where a component starts on its line, 1-based: its '<', or the ':::' of an aside in directive syntax (which has none). */
    private static int tagColumn(String source) {
        int at = source.indexOf('<');
        if (at < 0) {
            at = source.indexOf(":::");
        }
        return Math.max(at, 0) + 1;
    }
}
