package dev.kensho.generator.render.theme;

import freemarker.core.Environment;
import freemarker.core.TemplateClassResolver;
import freemarker.core._CoreAPI;
import freemarker.template.Configuration;
import freemarker.template.DefaultObjectWrapper;
import freemarker.template.Template;
import freemarker.template.TemplateException;
import freemarker.template.TemplateHashModel;
import freemarker.template.TemplateModel;
import freemarker.template.TemplateModelException;

import java.io.IOException;
import java.io.Writer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * FreeMarker set up for templates from a pull request, as Hugo treats its templates: a template is data that shapes the
 * data Kensho hands it, never code that runs on the build machine. FreeMarker's defaults are for trusted templates
 * ({@code "freemarker.template.utility.Execute"?new()} runs a shell command), so here:
 * <ul>
 *   <li>{@code ?new} instantiates no class at all, and {@code ?api} is off;</li>
 *   <li>the object wrapper wraps text, numbers, booleans, dates, lists and maps only: a template sees no Java object,
 *       so it can call no Java method and reach no static model; anything else in a model is refused (a bug of
 *       Kensho's, caught by the bundled theme's tests);</li>
 *   <li>include and import find templates only through {@link ThemeLayer} (FreeMarker itself refuses names that back
 *       out of the root);</li>
 *   <li>a rendering is bounded: at most {@link #MAX_OUTPUT_CHARS} characters out and {@link #RENDER_TIME} of wall
 *       time (the output checks the clock at every write; the caller stops waiting soon after and interrupts the
 *       rendering, which every loop of every template checks for), and a macro that calls itself without end, or a
 *       string that outgrows memory, stops with a message instead of taking the build down.</li>
 * </ul>
 */
final class UntrustedTemplates extends Configuration {

    /** Far more than any page of the built-in theme (the longest lesson page is under 1 MB), far less than the heap. */
    static final int MAX_OUTPUT_CHARS = 32 << 20;
    /** One template rendering for one page or component; the built-in theme takes milliseconds. */
    static final Duration RENDER_TIME = Duration.ofSeconds(10);

    /** Marks a template whose loops check for interruption (templates are cached and shared between threads). */
    private static final String INTERRUPTIBLE = "kensho.interruptible";

    /** How long past {@link #RENDER_TIME} the caller waits before it stops waiting. */
    private static final Duration GRACE = Duration.ofSeconds(2);

    /**
     * Templates render on these daemon threads, so that the caller can stop waiting for one that does not end: a
     * build is never held by a template, and its end is not held by a rendering left behind.
     */
    private static final ExecutorService RENDERERS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "kensho-template");
        thread.setDaemon(true);
        return thread;
    });

    UntrustedTemplates() {
        super(Configuration.VERSION_2_3_34);
        setNewBuiltinClassResolver(TemplateClassResolver.ALLOWS_NOTHING_RESOLVER);
        setAPIBuiltinEnabled(false);
        setObjectWrapper(new DataOnly());
        // "page.ftlh" is looked up as itself, not as page_en_US.ftlh first.
        setLocalizedLookup(false);
        // Names that back out of the theme's root ("../../etc/passwd") are malformed, not merely missing.
        setTemplateNameFormat(freemarker.cache.TemplateNameFormat.DEFAULT_2_4_0);
    }

    /**
     * Every template, whether the build asks for it or a template includes or imports it, comes through here: its
     * loops get FreeMarker's interruption checks before it is first used.
     */
    @Override
    public Template getTemplate(String name, Locale locale, Object customLookupCondition, String encoding, boolean parseAsFTL,
                                boolean ignoreMissing) throws IOException {
        Template template = super.getTemplate(name, locale, customLookupCondition, encoding, parseAsFTL, ignoreMissing);
        if (template != null) {
            synchronized (template) {
                if (template.getCustomAttribute(INTERRUPTIBLE) == null) {
                    refuseInterpret(template);
                    // FreeMarker's own post-processor for templates that must be stoppable (its "_" API is the only way in).
                    _CoreAPI.addThreadInterruptedChecks(template);
                    template.setCustomAttribute(INTERRUPTIBLE, Boolean.TRUE);
                }
            }
        }
        return template;
    }

    private static final java.util.regex.Pattern INTERPRET = java.util.regex.Pattern.compile("\\?\\s*(interpret|eval)\\b");

    /**
     * {@code ?interpret} makes a template of a string at run time: it never passes through here, so its loops would
     * have no interruption checks and a runaway one would keep a core busy under {@code serve}. {@code ?eval} evaluates a
     * string as an expression, and that expression may be {@code "…"?interpret} spelled at run time (red team helper-98:
     * {@code ("'<#list 1.. as x></#list>'?inter" + "pret")?eval}). A theme has no need of either ({@code ?eval_json},
     * which reads JSON only, stays); they are refused at their line. FreeMarker's canonical form decides whether the template uses it (no spelling
     * escapes that); the source is searched only to say where.
     */
    private static void refuseInterpret(Template template) throws freemarker.core.ParseException {
        if (!INTERPRET.matcher(template.toString()).find()) {
            return;
        }
        int line = 1;
        int column = 1;
        for (int l = 1; l < 100_000; l++) {
            String text;
            try {
                text = template.getSource(1, l, Integer.MAX_VALUE / 2, l);
            } catch (RuntimeException pastTheEnd) {
                break;
            }
            java.util.regex.Matcher found = INTERPRET.matcher(text == null ? "" : text);
            if (found.find()) {
                line = l;
                column = found.start() + 1;
                break;
            }
        }
        throw new freemarker.core.ParseException("?interpret and ?eval are not allowed in a theme: a template or expression "
                + "made at run time could not be stopped; write the template as a file of the theme", template, line, column, line, column);
    }

    /** A rendering stopped for taking too much: the message, and where the template was when it could be told. */
    static final class OverBudget extends IOException {
        private final transient TemplateException where;

        OverBudget(String message, TemplateException where) {
            super(message);
            this.where = where;
        }

        /** The template and line the rendering had reached, or null when it stopped where that is not known. */
        TemplateException where() {
            return where;
        }
    }

    /** Renders a template of this configuration within the output and time bounds. */
    static String process(Template template, Object model) throws TemplateException, IOException {
        BoundedOutput out = new BoundedOutput(System.nanoTime() + RENDER_TIME.toNanos());
        Future<String> rendering = RENDERERS.submit(() -> {
            try {
                template.process(model, out);
                return out.text.toString();
            } catch (StackOverflowError e) {
                throw new OverBudget("a macro, function or include calls itself without end", null);
            } catch (OutOfMemoryError e) {
                // One allocation too large for the heap (a string doubled in a loop): it failed, so its memory is free again.
                throw new OverBudget("the template builds a value larger than the build's memory", null);
            }
        });
        try {
            // The output's own clock stops a loop that writes, where it writes; this one stops every other.
            return rendering.get(RENDER_TIME.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // Loops see the interruption and stop; a built-in looping inside FreeMarker cannot be stopped, and is left
            // to end on a daemon thread while the build fails (a CLI build then exits, which ends it).
            rendering.cancel(true);
            throw new OverBudget(tooLong(), null);
        } catch (InterruptedException e) {
            rendering.cancel(true);
            Thread.currentThread().interrupt();
            throw new OverBudget("the rendering was interrupted", null);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TemplateException failed) {
                throw failed;
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause);
        }
    }

    private static String tooLong() {
        return "the template ran for more than " + RENDER_TIME.toSeconds() + " s (a loop that never ends?); a template "
                + "has " + RENDER_TIME.toSeconds() + " s and " + (MAX_OUTPUT_CHARS >> 20) + " Mi characters per page or component";
    }

    /** Output that stops the rendering when it grows past the bound or the deadline passes, saying where. */
    private static final class BoundedOutput extends Writer {
        final StringBuilder text = new StringBuilder();
        private final long deadline;

        BoundedOutput(long deadline) {
            this.deadline = deadline;
        }

        private void admit(int length) throws OverBudget {
            String problem = text.length() + (long) length > MAX_OUTPUT_CHARS
                    ? "the template writes more than " + (MAX_OUTPUT_CHARS >> 20) + " Mi characters for one page or component"
                    : System.nanoTime() - deadline > 0 ? tooLong() : null;
            if (problem != null) {
                Environment env = Environment.getCurrentEnvironment();
                throw new OverBudget(problem, env == null ? null : new TemplateException(problem, env));
            }
        }

        @Override
        public void write(char[] buffer, int offset, int length) throws IOException {
            admit(length);
            text.append(buffer, offset, length);
        }

        @Override
        public void write(String string, int offset, int length) throws IOException {
            admit(length);
            text.append(string, offset, offset + length);
        }

        @Override
        public void flush() {
            // Nothing is buffered outside the text.
        }

        @Override
        public void close() {
            // Nothing to release.
        }
    }

    /**
     * Wraps the data model's text, numbers, booleans, dates, lists and maps, and nothing else: no Java object reaches a
     * template, so no method of one can be called. Kensho's models are built of these alone.
     */
    private static final class DataOnly extends DefaultObjectWrapper {
        DataOnly() {
            super(Configuration.VERSION_2_3_34);
            setExposureLevel(EXPOSE_NOTHING);
            writeProtect();
        }

        @Override
        protected TemplateModel handleUnknownType(Object object) throws TemplateModelException {
            throw new TemplateModelException("a theme sees text, numbers, true/false, lists and maps only, not a Java "
                    + object.getClass().getSimpleName());
        }

        @Override
        public TemplateHashModel wrapAsAPI(Object object) throws TemplateModelException {
            throw new TemplateModelException("?api is off: a theme sees the values of its data, not the Java objects behind them");
        }
    }
}
