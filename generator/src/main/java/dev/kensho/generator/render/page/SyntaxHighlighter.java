package dev.kensho.generator.render.page;

import org.mozilla.javascript.Context;
import org.mozilla.javascript.ContextFactory;
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
import java.util.function.Consumer;

/**
 * Build-time syntax highlighting with Prism (the webjar from Maven Central), run in Rhino. Code
 * comes out as Prism's token spans, one line per {@code <span class="line">}, so lines can be
 * marked and the theme's CSS colours them without any script in the browser.
 *
 * <p>A page is untrusted input, and Prism's time grows faster than a block's size (a 3.5 MB block of
 * {@code SELECT 1 LIMIT 0;/*x…*&#47;} lines ran for more than 26 minutes at 2.2 GB). So what is highlighted is bounded:
 * a block larger than {@link Limits#blockChars} characters, or past its page's {@link Limits#pageChars}, is not
 * highlighted (decided by sizes alone, so every build of a page makes the same HTML), and Prism is stopped when one block
 * takes longer than {@link Limits#blockMillis}, the page's blocks together longer than {@link Limits#pageMillis}, or
 * the build's longer than {@link Limits#buildMillis}
 * (Rhino counts the instructions it interprets, regular expressions included, and asks {@link Deadlines} every few thousand).
 * Such a block is shown as plain escaped text, in the markup an unknown language gets, and the build says which and why.
 */
public final class SyntaxHighlighter {

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
            Map.entry("console", "bash"), Map.entry("zsh", "bash"), Map.entry("shellscript", "bash"), Map.entry("html", "markup"),
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
    private static final ConcurrentHashMap<String, Result> MEMO = new ConcurrentHashMap<>();

    /** A block's HTML, and why it was not highlighted (null when it was). */
    private record Result(String html, String notHighlighted) {
    }

    /**
     * Bounds on what is highlighted: characters of one block, of one page's blocks together, and milliseconds of Prism's
     * time for one block, for a page's blocks together and for a build's.
     */
    record Limits(int blockChars, long pageChars, long blockMillis, long pageMillis, long buildMillis) {
        /**
         * A lesson's blocks are a few hundred characters (the largest in content/ 3,367, the most on one page 24,314 in
         * all); on the loaded 2-core build machine Prism takes 0.3 to 1 s for 50,000 characters of SQL, ordinary or the
         * red team's, whose time grows with the square of its size past that (Prism cuts the rest of the text off after
         * each token, and a Java string's slice is a copy). A build's ten minutes are far more than a 4,000-page site
         * takes, and bound what a pull request of many pages just under the other limits can make a build spend on them.
         */
        static final Limits DEFAULT = new Limits(50_000, 500_000, 5_000, 30_000, 600_000);
    }

    private static volatile Limits limits = Limits.DEFAULT;

    /** Replaces the limits (tests), returning the ones it replaced. */
    static Limits limit(Limits replacement) {
        Limits before = limits;
        limits = replacement;
        return before;
    }

    /**
     * One page's share of highlighting: the characters and Prism time its blocks took so far, and where to say that a
     * block was shown without highlighting. Used by one page's rendering (one thread at a time).
     */
    public static final class PageBudget {
        private final String file;
        private final Consumer<String> warnings;
        private final BuildBudget build;
        private long chars;
        private long nanos;

        /**
         * @param file     the page as diagnostics name it (null: say no file)
         * @param warnings where the warning for a block shown without highlighting goes
         * @param build    the build's share, which all its pages take from
         */
        public PageBudget(String file, Consumer<String> warnings, BuildBudget build) {
            this.file = file;
            this.warnings = warnings;
            this.build = build;
        }

        /** A budget for one block alone that says nothing. */
        static PageBudget unnamed() {
            return new PageBudget(null, line -> { }, new BuildBudget());
        }

        void warn(int line, String reason) {
            warnings.accept((file == null ? "" : file + (line > 0 ? ":" + line : "") + ": ")
                    + "warning: code block not highlighted: " + reason + "; it is shown as plain text");
        }
    }

    /** The Prism time a build's pages took so far (render threads take turns at the highlighter). */
    public static final class BuildBudget {
        private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    }

    /** Thrown by Rhino's instruction observer, out of Prism, when a block's time is up (an Error: scripts cannot catch it). */
    private static final class Stop extends Error {
        Stop(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * When the block being highlighted on this thread must stop (nanoseconds: how long Prism may take on it, then the
     * System.nanoTime() by which it must be done), why, and whether the limit is the block's own (else its page's or its
     * build's, which another page or build would not share: not memoised then).
     */
    private record Deadline(long nanos, String reason, boolean blocks) {
    }

    /** Contexts that interpret, and stop a script past its thread's deadline or when the thread is interrupted. */
    private static final class Deadlines extends ContextFactory {
        private static final ThreadLocal<Deadline> CURRENT = new ThreadLocal<>();

        @Override
        protected Context makeContext() {
            Context context = super.makeContext();
            context.setInterpretedMode(true);
            context.setInstructionObserverThreshold(10_000);
            return context;
        }

        @Override
        protected void observeInstructionCount(Context context, int instructionCount) {
            Deadline deadline = CURRENT.get();
            if (deadline == null) {
                return;
            }
            if (System.nanoTime() - deadline.nanos() > 0) {
                throw new Stop(deadline.reason());
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new Stop("the build was interrupted");
            }
        }
    }

    private static final Deadlines FACTORY = new Deadlines();

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

    public static SyntaxHighlighter get() {
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
        Context context = FACTORY.enterContext();
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
        // Every name that reads as SQL gets SQL's grammar, and only those: the same rule labels such code not verified
        // when the build did not run it (CodeDisplay.readsAsSql).
        String name = dev.kensho.generator.markdown.CodeDisplay.readsAsSql(language) ? "sql" : ALIASES.getOrDefault(language, language);
        return COMPONENTS.containsKey(name) ? name : null;
    }

    /** HTML of the code: Prism's tokens, split into line spans. */
    String highlight(String code, String language) {
        return highlight(code, language, null);
    }

    static String highlight(String code, String language, HighlightCache kept) {
        return highlight(code, language, kept, PageBudget.unnamed(), 0);
    }

    /**
     * HTML of the code, from {@code kept} (the highlight cache between builds, or null) when it holds it; Prism is loaded
     * only when a block must be highlighted. In-process,
     * a block is highlighted once whatever the number of pages and threads showing it: the memo's computation is atomic per block.
     * A block beyond the limits is the escaped text (said on the page's warnings, naming {@code line}).
     */
    static String highlight(String code, String language, HighlightCache kept, PageBudget page, int line) {
        String prism = prismLanguage(language);
        if (prism == null) {
            return escape(code);
        }
        Limits limit = limits;
        // Sizes first, counted whether or not the block is memoised or cached: the same page comes out the same.
        long before = page.chars;
        page.chars += code.length();
        if (code.length() > limit.blockChars()) {
            page.warn(line, "larger than " + limit.blockChars() + " characters (" + code.length() + ")");
            return escape(code);
        }
        if (before + code.length() > limit.pageChars()) {
            page.warn(line, "the page's code blocks are larger than " + limit.pageChars() + " characters together");
            return escape(code);
        }
        // Then time: the block's own, or less when that is what the page or the build has left.
        Deadline deadline = new Deadline(limit.blockMillis() * 1_000_000, "took longer than " + limit.blockMillis() + " ms", true);
        long pageLeft = limit.pageMillis() * 1_000_000 - page.nanos;
        if (pageLeft < deadline.nanos()) {
            deadline = new Deadline(pageLeft, "the page's code blocks took longer than " + limit.pageMillis() + " ms to highlight", false);
        }
        long buildLeft = limit.buildMillis() * 1_000_000 - page.build.nanos.get();
        if (buildLeft < deadline.nanos()) {
            deadline = new Deadline(buildLeft, "the build's code blocks took longer than " + limit.buildMillis() + " ms to highlight", false);
        }
        if (deadline.nanos() <= 0 && !deadline.blocks()) {
            // Spent before this block: Prism is not started (a block's own limit always lets Prism start, and stops it).
            page.warn(line, deadline.reason());
            return escape(code);
        }
        Deadline time = deadline;
        Result result;
        try {
            result = MEMO.computeIfAbsent(prism + "\u0000" + code, key -> {
                try {
                    String html = kept == null ? get().highlightNow(code, prism, time, page)
                            : kept.highlight(prism, code, () -> get().highlightNow(code, prism, time, page));
                    return new Result(html, null);
                } catch (Stop stop) {
                    if (!time.blocks() || Thread.currentThread().isInterrupted()) {
                        // This page's or this build's lot, not the block's: another page or build may highlight it.
                        throw new NotMemoised(stop.getMessage());
                    }
                    return new Result(escape(code), stop.getMessage());
                }
            });
        } catch (NotMemoised notMemoised) {
            result = new Result(escape(code), notMemoised.getMessage());
        }
        if (MEMO.size() > 20_000) {
            MEMO.clear();
        }
        if (result.notHighlighted() != null) {
            page.warn(line, result.notHighlighted());
        }
        return result.html();
    }

    private static final class NotMemoised extends RuntimeException {
        NotMemoised(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Prism's HTML of the code. The lock is held while Prism runs, which the deadline ({@code deadline.nanos()} nanoseconds
     * from when Prism starts on the block) bounds: Prism is stopped ({@link Stop}) then.
     */
    private synchronized String highlightNow(String code, String prism, Deadline deadline, PageBudget page) {
        Context context = FACTORY.enterContext();
        try {
            for (String component : COMPONENTS.get(prism)) {
                if (!loaded.contains(component)) {
                    String file = "prism-" + component + ".min.js";
                    context.evaluateString(scope, read(PRISM + file), file, 1, null);
                    loaded.add(component);
                }
            }
            long start = System.nanoTime();
            Deadlines.CURRENT.set(new Deadline(start + deadline.nanos(), deadline.reason(), deadline.blocks()));
            try {
                return Context.toString(highlight.call(context, scope, scope, new Object[] {code, prism}));
            } finally {
                Deadlines.CURRENT.remove();
                long took = System.nanoTime() - start;
                page.nanos += took;
                page.build.nanos.addAndGet(took);
            }
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
