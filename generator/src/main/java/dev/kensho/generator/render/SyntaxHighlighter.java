package dev.kensho.generator.render;

import org.mozilla.javascript.Context;
import org.mozilla.javascript.Function;
import org.mozilla.javascript.Scriptable;
import org.mozilla.javascript.ScriptableObject;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Build-time syntax highlighting with Prism (the webjar from Maven Central), run in Rhino. Code
 * comes out as Prism's token spans, one line per {@code <span class="line">}, so lines can be
 * marked and the theme's CSS colours them without any script in the browser.
 */
final class SyntaxHighlighter {

    private static final String PRISM = "META-INF/resources/webjars/prismjs/1.30.0/components/";
    /** Load order matters: a language may extend another (java extends clike). */
    private static final String[] COMPONENTS = {"prism-core.min.js", "prism-clike.min.js", "prism-markup.min.js",
            "prism-sql.min.js", "prism-json.min.js", "prism-bash.min.js", "prism-java.min.js", "prism-http.min.js",
            "prism-javascript.min.js", "prism-typescript.min.js", "prism-jsx.min.js", "prism-tsx.min.js", "prism-css.min.js",
            "prism-scss.min.js", "prism-markdown.min.js", "prism-diff.min.js", "prism-yaml.min.js", "prism-toml.min.js",
            "prism-python.min.js", "prism-go.min.js", "prism-rust.min.js", "prism-docker.min.js", "prism-ini.min.js",
            "prism-graphql.min.js", "prism-ruby.min.js", "prism-c.min.js", "prism-cpp.min.js", "prism-csharp.min.js",
            "prism-kotlin.min.js", "prism-swift.min.js"};
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
    private static final Set<String> LANGUAGES = Set.of("sql", "json", "bash", "java", "http", "markup", "javascript",
            "typescript", "jsx", "tsx", "css", "scss", "markdown", "diff", "yaml", "toml", "python", "go", "rust", "docker",
            "ini", "graphql", "ruby", "c", "cpp", "csharp", "kotlin", "swift");

    /** Identical blocks (a schema shown on several pages) are highlighted once. */
    private static final ConcurrentHashMap<String, String> MEMO = new ConcurrentHashMap<>();

    private final Scriptable scope;
    private final Function highlight;

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
            for (String component : COMPONENTS) {
                context.evaluateString(scope, read(PRISM + component), component, 1, null);
            }
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
        return LANGUAGES.contains(name) ? name : null;
    }

    /** HTML of the code: Prism's tokens, split into line spans. */
    String highlight(String code, String language) {
        String prism = prismLanguage(language);
        String html;
        if (prism == null) {
            html = escape(code);
        } else {
            html = MEMO.computeIfAbsent(prism + "\u0000" + code, key -> highlightNow(code, prism));
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
            return Context.toString(highlight.call(context, scope, scope, new Object[] {code, prism}));
        } finally {
            Context.exit();
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
