package dev.kensho.generator.render;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.markdown.ComponentCatalog;
import freemarker.cache.FileTemplateLoader;
import freemarker.cache.MultiTemplateLoader;
import freemarker.cache.TemplateLoader;
import freemarker.core.HTMLOutputFormat;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateException;
import freemarker.template.TemplateExceptionHandler;

import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The look of the site, read from the theme folder ({@code site/}): FreeMarker templates under
 * {@code templates/}, copied-as-is files under {@code assets/}. Editing them needs no Java.
 */
public final class Theme implements ComponentCatalog {

    private static final Pattern REQUIRES = Pattern.compile("<#--\\s*requires:\\s*([^-]*?)\\s*-->");

    private final Path root;
    private final Configuration freemarker;
    private final Map<String, List<String>> components;

    private Theme(Path root, Configuration freemarker, Map<String, List<String>> components) {
        this.root = root;
        this.freemarker = freemarker;
        this.components = components;
    }

    public static Theme load(Path root) throws IOException {
        Path templates = root.resolve("templates");
        if (!Files.isDirectory(templates)) {
            throw new IOException("theme folder " + root + " has no templates/ folder");
        }
        Configuration configuration = new Configuration(Configuration.VERSION_2_3_34);
        // Page templates by their name ("page.ftlh"), components by their folder ("components/Aside.ftlh").
        configuration.setTemplateLoader(new MultiTemplateLoader(new TemplateLoader[] {
                new FileTemplateLoader(templates.toFile()), new FileTemplateLoader(root.toFile())}));
        configuration.setDefaultEncoding("UTF-8");
        configuration.setOutputFormat(HTMLOutputFormat.INSTANCE);
        configuration.setRecognizeStandardFileExtensions(true);
        configuration.setTemplateExceptionHandler(TemplateExceptionHandler.RETHROW_HANDLER);
        configuration.setLogTemplateExceptions(false);
        configuration.setWrapUncheckedExceptions(true);
        configuration.setFallbackOnNullLoopVariable(false);
        return new Theme(root, configuration, components(root.resolve("components")));
    }

    /**
     * Each component is a template components/NAME.ftlh; its first line may declare the attributes
     * it needs: {@code <#-- requires: src, alt -->}.
     */
    private static Map<String, List<String>> components(Path folder) throws IOException {
        Map<String, List<String>> components = new TreeMap<>();
        if (!Files.isDirectory(folder)) {
            return components;
        }
        try (var files = Files.list(folder)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".ftlh")).toList()) {
                String name = file.getFileName().toString().replace(".ftlh", "");
                if (!Character.isUpperCase(name.charAt(0))) {
                    continue; // a helper the components import (icons.ftlh), not a component
                }
                String first = Files.readAllLines(file).stream().findFirst().orElse("");
                Matcher matcher = REQUIRES.matcher(first);
                List<String> required = matcher.find() && !matcher.group(1).isBlank()
                        ? Arrays.stream(matcher.group(1).split(",")).map(String::strip).toList() : List.of();
                components.put(name, required);
            }
        }
        return components;
    }

    /** Changes whenever a template or component of the theme changes (paths, sizes, times). */
    public String fingerprint() {
        StringBuilder out = new StringBuilder();
        for (Path folder : List.of(root.resolve("templates"), root.resolve("components"), root.resolve("i18n"))) {
            if (!Files.isDirectory(folder)) {
                continue;
            }
            try (var files = Files.walk(folder)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    out.append(file).append(' ').append(Files.size(file)).append(' ')
                            .append(Files.getLastModifiedTime(file).toMillis()).append('\n');
                }
            } catch (IOException e) {
                out.append("unreadable ").append(folder);
            }
        }
        return out.toString();
    }

    @Override
    public Optional<List<String>> requiredAttributes(String component) {
        return Optional.ofNullable(components.get(component));
    }

    @Override
    public List<String> names() {
        return List.copyOf(components.keySet());
    }

    public Path assets() {
        return root.resolve("assets");
    }

    private final Map<String, UiStrings> uiByLang = new ConcurrentHashMap<>();

    /**
     * The theme's words for a language: {@code i18n/pt-BR.yml}, else {@code i18n/pt.yml}, over
     * {@code i18n/en.yml}, which fills in whatever the language lacks.
     *
     * @throws ThemeException naming the file when it is not a flat YAML mapping
     */
    public UiStrings ui(String lang) throws ThemeException {
        UiStrings cached = uiByLang.get(lang);
        if (cached != null) {
            return cached;
        }
        Map<String, String> strings = new HashMap<>(readStrings("en"));
        String base = lang.contains("-") ? lang.substring(0, lang.indexOf('-')) : lang;
        if (!base.equals("en")) {
            strings.putAll(readStrings(base));
        }
        if (!lang.equals(base)) {
            strings.putAll(readStrings(lang));
        }
        UiStrings ui = new UiStrings(lang, strings);
        uiByLang.put(lang, ui);
        return ui;
    }

    private Map<String, String> readStrings(String lang) throws ThemeException {
        Path file = root.resolve("i18n").resolve(lang + ".yml");
        if (!lang.matches("[A-Za-z0-9-]+") || !Files.isRegularFile(file)) {
            return Map.of();
        }
        try {
            Object loaded = new Load(LoadSettings.builder().build()).loadFromString(Files.readString(file));
            Map<String, String> strings = new HashMap<>();
            if (loaded instanceof Map<?, ?> map) {
                map.forEach((k, v) -> strings.put(String.valueOf(k), String.valueOf(v)));
                return strings;
            }
            throw new ThemeException(Diagnostic.at(file.toString(), 1, 1, "UI strings must be a mapping such as 'search.label: Search'", null));
        } catch (IOException | YamlEngineException e) {
            throw new ThemeException(Diagnostic.at(file.toString(), 1, 1, "UI strings cannot be read: " + e.getMessage(), null));
        }
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
