package dev.kensho.generator.render;

import org.mozilla.javascript.Context;
import org.mozilla.javascript.Function;
import org.mozilla.javascript.Scriptable;
import org.mozilla.javascript.ScriptableObject;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Build-time syntax highlighting with Prism (the webjar from Maven Central), run in Rhino. Code
 * comes out as Prism's token spans, one line per {@code <span class="line">}, so lines can be
 * marked and the theme's CSS colours them without any script in the browser.
 */
final class SyntaxHighlighter {

    /** Where Prism's files are; the path names its version (a highlight cache entry is keyed by it). */
    static final String PRISM = "META-INF/resources/webjars/prismjs/1.30.0/components/";
    /**
     * The components each language needs, in load order (a language may extend another: java extends
     * clike). Prism's core loads with the highlighter; a language's components load the first time a
     * block in it is highlighted, so a site pays only for the languages it uses. A grammar never changes
     * once loaded by what loads after it, except markup (css and javascript add to it), hence its list.
     */
    /** Every component, in an order that satisfies every dependency. */
    private static final List<String> ALL = List.of("clike", "markup", "sql", "json", "bash", "java", "http", "javascript",
            "typescript", "jsx", "tsx", "css", "scss", "markdown", "diff", "yaml", "toml", "python", "go", "rust", "docker", "ini",
            "graphql", "ruby", "c", "cpp", "csharp", "kotlin", "swift");
    private static final Map<String, List<String>> COMPONENTS = Map.ofEntries(
            Map.entry("sql", List.of("sql")), Map.entry("json", List.of("json")), Map.entry("bash", List.of("bash")),
            Map.entry("java", List.of("clike", "java")), 
            // These highlight code of other languages inside them (a page's <script>, a fenced block, a JSON body)
            // with whatever grammars are loaded: everything is loaded first, so output never depends on which
            // page happened to be highlighted first.
            Map.entry("http", ALL), Map.entry("markup", ALL), Map.entry("markdown", ALL),
            Map.entry("css", List.of("css")), Map.entry("javascript", List.of("clike", "markup", "javascript")),
            Map.entry("typescript", List.of("clike", "markup", "javascript", "typescript")),
            Map.entry("jsx", List.of("clike", "markup", "javascript", "jsx")),
            Map.entry("tsx", List.of("clike", "markup", "javascript", "jsx", "typescript", "tsx")),
            Map.entry("scss", List.of("css", "scss")),
            Map.entry("diff", List.of("diff")), Map.entry("yaml", List.of("yaml")), Map.entry("toml", List.of("toml")),
            Map.entry("python", List.of("python")), Map.entry("go", List.of("clike", "go")), Map.entry("rust", List.of("rust")),
            Map.entry("docker", List.of("docker")), Map.entry("ini", List.of("ini")), Map.entry("graphql", List.of("graphql")),
            Map.entry("ruby", List.of("clike", "ruby")), Map.entry("c", List.of("clike", "c")), Map.entry("cpp", List.of("clike", "c", "cpp")),
            Map.entry("csharp", List.of("clike", "csharp")), Map.entry("kotlin", List.of("clike", "kotlin")), Map.entry("swift", List.of("swift")));
    /** The names technical lessons (and Starlight's Expressive Code) use for Prism's languages. */
    private static final Map<String, String> ALIASES = Map.ofEntries(Map.entry("sh", "bash"), Map.entry("shell", "bash"),
            Map.entry("console", "bash"), Map.entry("zsh", "bash"), Map.entry("shellscript", "bash"), Map.entry("scenario", "sql"),
            Map.entry("psql", "sql"), Map.entry("postgresql", "sql"), Map.entry("pgsql", "sql"), Map.entry("html", "markup"),
            Map.entry("xml", "markup"), Map.entry("svg", "markup"), Map.entry("vue", "markup"), Map.entry("svelte", "markup"),
            Map.entry("astro", "tsx"), Map.entry("js", "javascript"), Map.entry("mjs", "javascript"), Map.entry("cjs", "javascript"),
            Map.entry("ts", "typescript"), Map.entry("mts", "typescript"), Map.entry("md", "markdown"), Map.entry("mdx", "markdown"),
            Map.entry("yml", "yaml"), Map.entry("py", "python"), Map.entry("rs", "rust"), Map.entry("dockerfile", "docker"),
            Map.entry("jsonc", "json"), Map.entry("json5", "json"), Map.entry("cs", "csharp"), Map.entry("kt", "kotlin"),
            Map.entry("c++", "cpp"), Map.entry("golang", "go"), Map.entry("rb", "ruby"), Map.entry("gql", "graphql"));

    /** Rhino's own version: Prism's output is what Rhino makes of it (a highlight cache entry is keyed by it). */
    static final String ENGINE = engineVersion();

    private static String engineVersion() {
        Context context = Context.enter();
        try {
            return context.getImplementationVersion();
        } finally {
            Context.exit();
        }
    }

    /** Identical blocks (a schema shown on several pages) are highlighted once. */
    private static final ConcurrentHashMap<String, String> MEMO = new ConcurrentHashMap<>();

    private final Scriptable scope;
    private final Function highlight;
    /** Components evaluated so far (guarded by this highlighter's lock). */
    private final Set<String> loaded = new HashSet<>();

    private SyntaxHighlighter(Scriptable scope, Function highlight) {
        this.scope = scope;
        this.highlight = highlight;
    }

    /** Prism is compiled once per build; threads take turns (identical blocks are memoised, so turns are short). */
    private static volatile SyntaxHighlighter shared;

    static SyntaxHighlighter get() {
        SyntaxHighlighter highlighter = shared;
        if (highlighter == null) {
            synchronized (SyntaxHighlighter.class) {
                if (shared == null) {
                    shared = create();
                }
                highlighter = shared;
            }
        }
        return highlighter;
    }

    private static SyntaxHighlighter create() {
        Context context = Context.enter();
        try {
            // Interpreted: Prism loads in a fraction of the time compiling it to bytecode takes, and
            // identical blocks are highlighted once anyway.
            context.setInterpretedMode(true);
            ScriptableObject scope = context.initStandardObjects();
            context.evaluateString(scope, read(PRISM + "prism-core.min.js"), "prism-core.min.js", 1, null);
            context.evaluateString(scope, "var kenshoHighlight = function (code, language) {"
                    + " return Prism.highlight(code, Prism.languages[language], language); };", "kensho", 1, null);
            return new SyntaxHighlighter(scope, (Function) scope.get("kenshoHighlight", scope));
        } finally {
            Context.exit();
        }
    }

    private static String read(String resource) {
        try (InputStream in = SyntaxHighlighter.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Prism resource missing from the class path: " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The language Prism knows the fence's language as, or null for plain text. */
    static String prismLanguage(String language) {
        String name = ALIASES.getOrDefault(language, language);
        return COMPONENTS.containsKey(name) ? name : null;
    }

    /** HTML of the code: Prism's tokens, split into line spans. */
    String highlight(String code, String language) {
        return highlight(code, language, null);
    }

    /**
     * HTML of the code, from {@code kept} (the highlight cache between builds, or null) when it holds it; Prism is loaded
     * only when a block must be highlighted. In-process,
     * a block is highlighted once whatever the number of pages and threads showing it: the memo's computation is atomic per block.
     */
    static String highlight(String code, String language, HighlightCache kept) {
        String prism = prismLanguage(language);
        String html;
        if (prism == null) {
            html = escape(code);
        } else {
            html = MEMO.computeIfAbsent(prism + "\u0000" + code,
                    key -> kept == null ? get().highlightNow(code, prism) : kept.highlight(prism, code, () -> get().highlightNow(code, prism)));
            if (MEMO.size() > 20_000) {
                MEMO.clear();
            }
        }
        return html;
    }

    private synchronized String highlightNow(String code, String prism) {
        Context context = Context.enter();
        try {
            context.setInterpretedMode(true);
            for (String component : COMPONENTS.get(prism)) {
                if (loaded.add(component)) {
                    String file = "prism-" + component + ".min.js";
                    context.evaluateString(scope, read(PRISM + file), file, 1, null);
                }
            }
            return Context.toString(highlight.call(context, scope, scope, new Object[] {code, prism}));
        } finally {
            Context.exit();
        }
    }

    /** Forgets what this process highlighted (a test's second build then reads the highlight cache as a new process would). */
    static void forgetMemo() {
        MEMO.clear();
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
