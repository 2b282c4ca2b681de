package dev.kensho.generator.render;

import dev.kensho.generator.Diagnostic;
import freemarker.core.HTMLOutputFormat;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateException;
import freemarker.template.TemplateExceptionHandler;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The look of the site, read from the theme folder ({@code site/}): FreeMarker templates under
 * {@code templates/}, copied-as-is files under {@code assets/}. Editing them needs no Java.
 */
public final class Theme {

    private final Path root;
    private final Configuration freemarker;

    private Theme(Path root, Configuration freemarker) {
        this.root = root;
        this.freemarker = freemarker;
    }

    public static Theme load(Path root) throws IOException {
        Path templates = root.resolve("templates");
        if (!Files.isDirectory(templates)) {
            throw new IOException("theme folder " + root + " has no templates/ folder");
        }
        Configuration configuration = new Configuration(Configuration.VERSION_2_3_34);
        configuration.setDirectoryForTemplateLoading(templates.toFile());
        configuration.setDefaultEncoding("UTF-8");
        configuration.setOutputFormat(HTMLOutputFormat.INSTANCE);
        configuration.setRecognizeStandardFileExtensions(true);
        configuration.setTemplateExceptionHandler(TemplateExceptionHandler.RETHROW_HANDLER);
        configuration.setLogTemplateExceptions(false);
        configuration.setWrapUncheckedExceptions(true);
        configuration.setFallbackOnNullLoopVariable(false);
        return new Theme(root, configuration);
    }

    public Path assets() {
        return root.resolve("assets");
    }

    /**
     * Renders a template.
     *
     * @throws ThemeException naming the template file and line when the template is broken
     */
    public String render(String template, Map<String, Object> model) throws ThemeException {
        try {
            Template loaded = freemarker.getTemplate(template);
            StringWriter out = new StringWriter();
            loaded.process(model, out);
            return out.toString();
        } catch (TemplateException e) {
            String file = root.resolve("templates").resolve(e.getTemplateSourceName() == null ? template : e.getTemplateSourceName()).toString();
            int line = e.getLineNumber() == null ? 1 : e.getLineNumber();
            int column = e.getColumnNumber() == null ? 1 : e.getColumnNumber();
            throw new ThemeException(Diagnostic.at(file, line, column, "template: " + firstLine(e.getMessageWithoutStackTop()), null));
        } catch (freemarker.core.ParseException e) {
            String file = root.resolve("templates").resolve(e.getTemplateName() == null ? template : e.getTemplateName()).toString();
            throw new ThemeException(Diagnostic.at(file, e.getLineNumber(), e.getColumnNumber(), "template: " + firstLine(e.getEditorMessage()), null));
        } catch (IOException e) {
            throw new ThemeException(Diagnostic.at(root.resolve("templates").resolve(template).toString(), 1, 1,
                    "template cannot be read: " + e.getMessage(), null));
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "error";
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).strip();
    }

    /** A broken template; carries the diagnostic to print. */
    public static final class ThemeException extends Exception {
        private final Diagnostic diagnostic;

        ThemeException(Diagnostic diagnostic) {
            super(diagnostic.message());
            this.diagnostic = diagnostic;
        }

        public Diagnostic diagnostic() {
            return diagnostic;
        }
    }
}
