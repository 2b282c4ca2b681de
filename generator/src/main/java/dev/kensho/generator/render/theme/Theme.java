package dev.kensho.generator.render.theme;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.markdown.ComponentCatalog;
import freemarker.cache.TemplateLoader;
import freemarker.core.HTMLOutputFormat;
import freemarker.template.Configuration;
import freemarker.template.TemplateException;
import freemarker.template.TemplateExceptionHandler;

import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The look of the site: FreeMarker templates under {@code templates/}, components under {@code components/},
 * the theme's words under {@code i18n/} and copied-as-is files under {@code assets/}. The built-in theme travels
 * inside Kensho's jar (made from this repository's {@code site/}); a site's own theme folder holds only the files it
 * changes, and each file it lacks comes from the built-in theme (as mdBook's partial {@code theme/} folder).
 * Editing either needs no Java.
 */
public final class Theme implements ComponentCatalog {

    private static final Pattern REQUIRES = Pattern.compile("<#--\\s*requires:\\s*([^-]*?)\\s*-->");
    /** A component's second line may list the values an attribute takes: {@code <#-- values: type=note|tip -->}. */
    private static final Pattern VALUES = Pattern.compile("<#--\\s*values:\\s*(.*?)\\s*-->");
    /** Where the build puts {@code site/} inside the jar (see generator/pom.xml). */
    private static final String BUILT_IN = "kensho-theme";

    /** The theme folders, the site's own first; the last is the built-in theme. */
    private final List<ThemeLayer> layers;
    private final Configuration freemarker;
    private final Map<String, List<String>> components;
    private final Map<String, Map<String, List<String>>> allowedValues = new ConcurrentHashMap<>();
    private final java.util.Set<String> frontMatterKeys;
    /**
     * Whether the site's theme has templates or components of its own (not byte for byte the built-in's): then what
     * they write passes {@link ThemeOutputGate}.
     */
    private final boolean ownTemplates;

    private Theme(List<ThemeLayer> layers, Configuration freemarker, Map<String, List<String>> components,
                  java.util.Set<String> frontMatterKeys) {
        this.layers = layers;
        this.freemarker = freemarker;
        this.components = components;
        this.frontMatterKeys = frontMatterKeys;
        this.ownTemplates = ownTemplates(layers);
    }

    private static final Pattern META_KEY = Pattern.compile("\\bmeta\\.([A-Za-z_][A-Za-z0-9_]*)|\\bmeta\\[\"([^\"]+)\"\\]");

    /** Every {@code meta.NAME} the templates and components of the layers read: the front matter they give meaning to. */
    private static java.util.Set<String> frontMatterKeys(List<ThemeLayer> layers) throws IOException {
        java.util.Set<String> keys = new java.util.TreeSet<>();
        for (ThemeLayer layer : layers) {
            for (String folder : List.of("templates", "components")) {
                for (Path file : layer.files(folder).stream().filter(f -> f.toString().endsWith(".ftlh")).toList()) {
                    Matcher matcher = META_KEY.matcher(Files.readString(file));
                    while (matcher.find()) {
                        keys.add(matcher.group(1) != null ? matcher.group(1) : matcher.group(2));
                    }
                }
            }
        }
        return java.util.Set.copyOf(keys);
    }

    /** The theme's source for a template name, read through the theme's gate, or null when it has none or refuses it. */
    private Path source(String name) {
        try {
            return ((LayeredLoader) freemarker.getTemplateLoader()).findTemplateSource(name) instanceof Path path ? path : null;
        } catch (IOException refused) {
            return null; // said where the template is rendered, and by problems()
        }
    }

    private final Map<String, Boolean> readsSlots = new ConcurrentHashMap<>();

    /** Whether a component's template places named slots ({@code slots.icon}); if not, slotted children stay in place. */
    public boolean readsSlots(String component) {
        return readsSlots.computeIfAbsent(component, name -> {
            Path source = source("components/" + name + ".ftlh");
            try {
                return source != null && Files.readString(source).contains("slots");
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** An attribute a template reads by name: {@code attrs.type}, {@code child.attrs.label}. */
    private static final Pattern ATTRIBUTE_READ = Pattern.compile("(?<![\\w.])attrs\\.([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern ACCEPTS = Pattern.compile("<#--\\s*accepts:\\s*([A-Za-z0-9_\\s]*?)\\s*(?:\\(.*)?-->");
    private static final Pattern CHILD_ATTRIBUTE_READ = Pattern.compile("[\\w)\\]]\\.attrs\\.([A-Za-z_][A-Za-z0-9_]*)");
    /** Any other use of a component's attributes ({@code attrs["x"]}, {@code <#list attrs as k, v>}): then all may be read. */
    private static final Pattern ATTRIBUTES_OTHERWISE = Pattern.compile("(?<![\\w.])attrs(?![.\\w])");
    private final Map<String, Optional<Set<String>>> attributesTaken = new ConcurrentHashMap<>();
    private volatile Set<String> childAttributes;

    @Override
    public Optional<Set<String>> attributesTaken(String component) {
        return attributesTaken.computeIfAbsent(component, name -> {
            Path path = source("components/" + name + ".ftlh");
            if (path == null) {
                return Optional.empty();
            }
            try {
                String text = Files.readString(path);
                if (ATTRIBUTES_OTHERWISE.matcher(text).find()) {
                    return Optional.empty();
                }
                Set<String> taken = new java.util.TreeSet<>();
                ATTRIBUTE_READ.matcher(text).results().forEach(m -> taken.add(m.group(1)));
                // Attributes a template takes without reading them (Starlight's that this theme does not draw): named on
                // an accepts line at its top, so that a page written for Starlight builds.
                text.lines().limit(5).map(ACCEPTS::matcher).filter(Matcher::find)
                        .forEach(m -> taken.addAll(List.of(m.group(1).strip().split("\\s+"))));
                taken.addAll(requiredAttributes(name).orElse(List.of()));
                taken.addAll(allowedValues(name).keySet());
                return Optional.of(Set.copyOf(taken));
            } catch (IOException | java.io.UncheckedIOException e) {
                return Optional.empty();
            }
        });
    }

    /** {@code slot}, and what any component's template reads of its children's attributes ({@code child.attrs.label} in Tabs). */
    @Override
    public Set<String> attributesReadElsewhere() {
        Set<String> read = childAttributes;
        if (read == null) {
            Set<String> all = new java.util.TreeSet<>(Set.of("slot"));
            for (String component : names()) {
                Path path = source("components/" + component + ".ftlh");
                try {
                    if (path != null) {
                        CHILD_ATTRIBUTE_READ.matcher(Files.readString(path)).results().forEach(m -> all.add(m.group(1)));
                    }
                } catch (IOException | java.io.UncheckedIOException e) {
                    // unreadable templates are reported where they are rendered
                }
            }
            read = childAttributes = Set.copyOf(all);
        }
        return read;
    }

    @Override
    public Map<String, List<String>> allowedValues(String component) {
        return allowedValues.computeIfAbsent(component, name -> {
            Map<String, List<String>> values = new TreeMap<>();
            Path path = source("components/" + name + ".ftlh");
            if (path != null) {
                try (var lines = Files.lines(path)) {
                    lines.limit(3).forEach(line -> {
                        Matcher matcher = VALUES.matcher(line);
                        if (matcher.find()) {
                            for (String declaration : matcher.group(1).split("\\s+")) {
                                int equals = declaration.indexOf('=');
                                if (equals > 0) {
                                    values.put(declaration.substring(0, equals), List.of(declaration.substring(equals + 1).split("\\|")));
                                }
                            }
                        }
                    });
                } catch (IOException | java.io.UncheckedIOException e) {
                    return Map.of();
                }
            }
            return Map.copyOf(values);
        });
    }

    /**
     * The files of the site's theme folder that are not read (links, FIFOs, files with other links or owners, files
     * too large), each at its path: the build fails on them, as it does on such files in content/.
     */
    public List<Diagnostic> problems() {
        return layers.stream().flatMap(layer -> layer.problems().stream()).toList();
    }

    @Override
    public java.util.Set<String> frontMatterKeys() {
        return frontMatterKeys;
    }

    /** The built-in theme alone. */
    public static Theme builtIn() throws IOException {
        return load(null);
    }

    /**
     * The built-in theme with a site's theme folder over it, file by file.
     *
     * @param override the site's theme folder, or null for the built-in theme alone
     */
    public static Theme load(Path override) throws IOException {
        if (override == null) {
            Path builtIn = builtInRoot();
            if (bundled(builtIn)) {
                return builtInFromJar();
            }
        }
        return read(override);
    }

    private static Theme fromJar;

    /**
     * The built-in theme read from Kensho's jar, once per process: nothing of it can change while Kensho runs, and its
     * FreeMarker configuration keeps the templates it parsed (parsing them again was a tenth of a preview edit's rebuild).
     */
    private static synchronized Theme builtInFromJar() throws IOException {
        if (fromJar == null) {
            fromJar = read(null);
        }
        return fromJar;
    }

    private static Theme read(Path override) throws IOException {
        List<Path> roots = new ArrayList<>();
        if (override != null) {
            if (Files.isSymbolicLink(override)) {
                throw new IOException("theme folder " + override + " is a symbolic link; a theme is read only from a folder of its own");
            }
            if (!Files.isDirectory(override)) {
                throw new IOException("theme folder " + override + " does not exist");
            }
            roots.add(override.toAbsolutePath().normalize());
        }
        Path builtIn = builtInRoot();
        roots.add(builtIn);
        List<ThemeLayer> layers = new ArrayList<>();
        for (Path root : roots) {
            layers.add(new ThemeLayer(root, path -> display(path, builtIn)));
        }
        Configuration configuration = new UntrustedTemplates();
        configuration.setTemplateLoader(new LayeredLoader(layers));
        configuration.setDefaultEncoding("UTF-8");
        configuration.setOutputFormat(HTMLOutputFormat.INSTANCE);
        configuration.setRecognizeStandardFileExtensions(true);
        configuration.setTemplateExceptionHandler(TemplateExceptionHandler.RETHROW_HANDLER);
        configuration.setLogTemplateExceptions(false);
        configuration.setWrapUncheckedExceptions(true);
        configuration.setFallbackOnNullLoopVariable(false);
        Map<String, List<String>> components = new TreeMap<>();
        for (int i = layers.size() - 1; i >= 0; i--) {
            components.putAll(components(layers.get(i)));
        }
        return new Theme(List.copyOf(layers), configuration, components, frontMatterKeys(layers));
    }

    private static Path builtInRoot;

    /** The built-in theme's folder: inside the jar (read through a zip file system) or under target/classes. */
    private static synchronized Path builtInRoot() throws IOException {
        if (builtInRoot != null) {
            return builtInRoot;
        }
        builtInRoot = BundledFolder.of("/" + BUILT_IN + "/templates/page.ftlh", 2,
                "this Kensho was built without its theme (no " + BUILT_IN + "/ in the jar); rebuild it with mvn package");
        return builtInRoot;
    }

    /**
     * Finds {@code NAME} as {@code templates/NAME} (page templates) or {@code NAME} (components/Aside.ftlh) in the
     * first layer that has it.
     */
    private static final class LayeredLoader implements TemplateLoader {
        private final List<ThemeLayer> layers;

        LayeredLoader(List<ThemeLayer> layers) {
            this.layers = layers;
        }

        /** @throws IOException when the first layer that has the name may not read it (a link, a name outside the theme) */
        @Override
        public Object findTemplateSource(String name) throws IOException {
            for (ThemeLayer layer : layers) {
                for (String candidate : List.of("templates/" + name, name)) {
                    Path found = layer.find(candidate);
                    if (found != null) {
                        return found;
                    }
                }
            }
            return null;
        }

        @Override
        public long getLastModified(Object source) {
            try {
                return Files.getLastModifiedTime((Path) source).toMillis();
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public Reader getReader(Object source, String encoding) throws IOException {
            return Files.newBufferedReader((Path) source, java.nio.charset.Charset.forName(encoding));
        }

        @Override
        public void closeTemplateSource(Object source) {
            // Nothing is held open between calls.
        }
    }

    /** The layers in the order their files are laid over each other. */
    private List<ThemeLayer> builtInFirst() {
        List<ThemeLayer> order = new ArrayList<>(layers);
        java.util.Collections.reverse(order);
        return order;
    }

    /** The file a template name stands for, in the layer it comes from: for messages. */
    private String located(String name) {
        Path found = source(name);
        if (found != null) {
            return display(found);
        }
        if (layers.size() > 1) {
            // Where the site's theme has the name, refused or not, the message points there.
            Path own = layers.get(0).root;
            for (Path candidate : List.of(own.resolve("templates").resolve(name).normalize(), own.resolve(name).normalize())) {
                if (candidate.startsWith(own) && Files.exists(candidate, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    return display(candidate);
                }
            }
            return own.resolve("templates").resolve(name).toString();
        }
        return "built-in theme: templates/" + name;
    }

    private String display(Path path) {
        return display(path, layers.get(layers.size() - 1).root);
    }

    /** A path for messages; files of the built-in theme are named as such. */
    private static String display(Path path, Path builtIn) {
        if (path.startsWith(builtIn)) {
            return "built-in theme: " + builtIn.relativize(path).toString().replace('\\', '/');
        }
        // As the author would type it, like every other file in messages.
        Path workingDir = Path.of("").toAbsolutePath();
        return path.startsWith(workingDir) ? workingDir.relativize(path).toString() : path.toString();
    }

    /**
     * Each component is a template components/NAME.ftlh; its first line may declare the attributes
     * it needs: {@code <#-- requires: src, alt -->}.
     */
    private static Map<String, List<String>> components(ThemeLayer layer) throws IOException {
        Map<String, List<String>> components = new TreeMap<>();
        Path folder = layer.root.resolve("components");
        for (Path file : layer.files("components").stream()
                .filter(f -> folder.equals(f.getParent()) && f.getFileName().toString().endsWith(".ftlh")).toList()) {
            String name = file.getFileName().toString().replace(".ftlh", "");
            if (!Character.isUpperCase(name.charAt(0))) {
                continue; // a helper the components import (icons.ftlh), not a component
            }
            String first = utf8(file).lines().findFirst().orElse("");
            Matcher matcher = REQUIRES.matcher(first);
            List<String> required = matcher.find() && !matcher.group(1).isBlank()
                    ? Arrays.stream(matcher.group(1).split(",")).map(String::strip).toList() : List.of();
            components.put(name, required);
        }
        return components;
    }

    /** A theme file's text; one that is not UTF-8 is refused at the line of its first bad byte (not "Input length = 1"). */
    private static String utf8(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        java.nio.charset.CharsetDecoder decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder();
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length);
        java.nio.charset.CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            int line = 1;
            for (int i = 0; i < in.position(); i++) {
                line += bytes[i] == '\n' ? 1 : 0;
            }
            Path workingDir = Path.of("").toAbsolutePath();
            String shown = file.startsWith(workingDir) ? workingDir.relativize(file).toString() : file.toString();
            throw new IOException(shown + ":" + line + ": not UTF-8 text (byte 0x"
                    + String.format("%02x", bytes[in.position()] & 0xff) + "); theme files are read as UTF-8");
        }
        return out.flip().toString();
    }

    private String fingerprint;

    /**
     * Changes whenever a template, component, word or asset of the theme changes. A file of a theme folder is known by
     * its content's digest, not its size and time: a file rewritten with the same size within the file system's time
     * granularity would otherwise keep the preview's rendered pages; a site's theme is small, so this stays cheap.
     * Files inside Kensho's jar (the built-in theme) are known by path and size: the jar is the running program.
     */
    public synchronized String fingerprint() {
        if (fingerprint == null) {
            StringBuilder out = new StringBuilder();
            for (ThemeLayer layer : layers) {
                for (String folder : ThemeLayer.FOLDERS) {
                    for (Path file : layer.files(folder)) {
                        try {
                            out.append(file).append(' ').append(bundled(file) ? Long.toString(Files.size(file))
                                    : contentHash(Files.readAllBytes(file))).append('\n');
                        } catch (IOException e) {
                            out.append("unreadable ").append(file).append('\n');
                        }
                    }
                }
            }
            fingerprint = out.toString();
        }
        return fingerprint;
    }

    /** True for a file inside Kensho's jar (a zip file system), which cannot change while Kensho runs. */
    public static boolean bundled(Path file) {
        return file.getFileSystem() != java.nio.file.FileSystems.getDefault();
    }

    private Map<String, String> hashedNames;
    /** The bytes each asset's hashed name was made from: what is published under both its names. */
    private final Map<Path, byte[]> assetBytes = new java.util.HashMap<>();

    /** The bytes of an asset ({@link #assets()}) as read for its hashed name: the name and the bytes always agree. */
    public synchronized byte[] assetBytes(Path asset) throws IOException {
        hashedAssetNames();
        byte[] bytes = assetBytes.get(asset);
        if (bytes == null) {
            throw new IOException("not an asset of the theme: " + asset);
        }
        return bytes;
    }

    /**
     * Each asset's name with a content hash in it ("kensho.css" → "kensho.1f0c3a9be2.css"): pages link to these, so a
     * CDN may keep them for a year, and a changed file gets a new name. The plain names are written too, for theme
     * templates of a site that still link to them.
     */
    public synchronized Map<String, String> hashedAssetNames() throws IOException {
        if (hashedNames == null) {
            Map<String, String> names = new TreeMap<>();
            for (Map.Entry<String, Path> asset : assets().entrySet()) {
                String name = asset.getKey();
                int dot = name.lastIndexOf('.');
                int slash = name.lastIndexOf('/');
                byte[] bytes = Files.readAllBytes(asset.getValue());
                assetBytes.put(asset.getValue(), bytes);
                String hash = contentHash(bytes);
                names.put(name, dot > slash + 1 ? name.substring(0, dot) + "." + hash + name.substring(dot) : name + "." + hash);
            }
            hashedNames = Map.copyOf(names);
        }
        return hashedNames;
    }

    private static String contentHash(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 10);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * The theme's copied-as-is files by their path below {@code assets/} ("kensho.css"), each from the first layer
     * that has it.
     */
    /**
     * The built-in theme's file of an asset name whose site copy is published only when it is byte for byte the same: a
     * script. A site's theme is read from the pull request being built, and a script of its would run on every page of
     * the published site (red team helper-98: theme/assets/evil.html and a changed kensho.js were published); the
     * site's theme may restyle and reword Kensho's pages, not add code to them. Null for a file of the built-in theme
     * or of no site theme.
     */
    public Path builtInOf(Path asset) {
        ThemeLayer builtIn = layers.get(layers.size() - 1);
        if (layers.size() == 1 || asset.startsWith(builtIn.root)) {
            return null;
        }
        ThemeLayer site = layers.get(0);
        String relative = site.root.resolve("assets").relativize(asset).toString().replace('\\', '/');
        return builtIn.files("assets").stream().filter(f -> builtIn.root.resolve("assets").relativize(f).toString().replace('\\', '/')
                .equals(relative)).findFirst().orElse(builtIn.root.resolve("assets").resolve(relative));
    }

    private static boolean ownTemplates(List<ThemeLayer> layers) {
        if (layers.size() == 1) {
            return false;
        }
        ThemeLayer site = layers.get(0);
        ThemeLayer builtIn = layers.get(layers.size() - 1);
        for (String folder : List.of("templates", "components")) {
            for (Path file : site.files(folder)) {
                Path same = builtIn.root.resolve(site.root.relativize(file).toString().replace('\\', '/'));
                try {
                    if (!Files.exists(same) || Files.size(same) != Files.size(file)
                            || !java.util.Arrays.equals(Files.readAllBytes(same), Files.readAllBytes(file))) {
                        return true;
                    }
                } catch (IOException e) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether an asset is the site's theme's (not the built-in's): published under content's rules for its type. */
    public boolean fromSiteTheme(Path asset) {
        return layers.size() > 1 && asset.startsWith(layers.get(0).root);
    }

    public Map<String, Path> assets() throws IOException {
        Map<String, Path> assets = new TreeMap<>();
        for (ThemeLayer layer : builtInFirst()) {
            Path folder = layer.root.resolve("assets");
            for (Path file : layer.files("assets")) {
                assets.put(folder.relativize(file).toString().replace('\\', '/'), file);
            }
        }
        return assets;
    }

    @Override
    public Optional<List<String>> requiredAttributes(String component) {
        return Optional.ofNullable(components.get(component));
    }

    @Override
    public List<String> names() {
        return List.copyOf(components.keySet());
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
        Map<String, String> english = readStrings("en");
        Map<String, String> own = new HashMap<>();
        String base = lang.contains("-") ? lang.substring(0, lang.indexOf('-')) : lang;
        if (!base.equals("en")) {
            own.putAll(readStrings(base));
        }
        if (!lang.equals(base)) {
            own.putAll(readStrings(lang));
        }
        Map<String, String> strings = new HashMap<>(english);
        strings.putAll(own);
        // English's singular forms only go with English's words: a language that words KEY itself words its KEY.one too.
        english.keySet().stream().filter(key -> key.endsWith(".one"))
                .filter(key -> own.containsKey(key.substring(0, key.length() - 4)) && !own.containsKey(key))
                .forEach(strings::remove);
        UiStrings ui = new UiStrings(lang, strings);
        uiByLang.put(lang, ui);
        return ui;
    }

    /** A language's words, the built-in theme's with the site's theme folder's over them. */
    private Map<String, String> readStrings(String lang) throws ThemeException {
        Map<String, String> strings = new HashMap<>();
        if (!lang.matches("[A-Za-z0-9-]+")) {
            return strings;
        }
        for (ThemeLayer layer : builtInFirst()) {
            strings.putAll(readStrings(layer, "i18n/" + lang + ".yml"));
        }
        return strings;
    }

    private Map<String, String> readStrings(ThemeLayer layer, String name) throws ThemeException {
        Path file;
        try {
            file = layer.find(name);
        } catch (IOException refused) {
            throw new ThemeException(Diagnostic.at(display(layer.root.resolve(name)), 1, 1, refused.getMessage(), null));
        }
        if (file == null) {
            return Map.of();
        }
        try {
            String text = Files.readString(file);
            // The theme's words come with a pull request too: the bounds of site.yml and front matter hold for them.
            Object loaded = dev.kensho.generator.content.YamlLimits.load(text, display(file));
            Map<String, String> strings = new HashMap<>();
            if (loaded instanceof Map<?, ?> map) {
                map.forEach((k, v) -> strings.put(String.valueOf(k), String.valueOf(v)));
                return strings;
            }
            throw new ThemeException(Diagnostic.at(display(file), 1, 1, "UI strings must be a mapping such as 'search.label: Search'", null));
        } catch (IOException | YamlEngineException e) {
            throw new ThemeException(Diagnostic.at(display(file), 1, 1, "UI strings cannot be read: " + e.getMessage(), null));
        } catch (dev.kensho.generator.content.YamlLimits.Exceeded e) {
            throw new ThemeException(Diagnostic.at(display(file), e.line, e.column, e.getMessage(), null));
        }
    }

    /**
     * Renders a template.
     *
     * @throws ThemeException naming the template file and line when the template is broken
     */
    public String render(String template, Map<String, Object> model) throws ThemeException {
        try {
            String html = UntrustedTemplates.process(freemarker.getTemplate(template), model);
            if (ownTemplates) {
                String problem = ThemeOutputGate.problem(html);
                if (problem != null) {
                    throw new ThemeException(Diagnostic.at(located(template), 1, 1, "template: the page it wrote has " + problem
                            + "; a site's theme is read from the change being built, so what it writes may not run script on the "
                            + "published site (scripts load from the site's own assets, which are Kensho's)", null));
                }
            }
            return html;
        } catch (TemplateException e) {
            throw located(template, e, "template: " + essentials(e.getMessageWithoutStackTop()));
        } catch (UntrustedTemplates.OverBudget e) {
            if (e.where() != null) {
                throw located(template, e.where(), "template: " + e.getMessage());
            }
            throw new ThemeException(Diagnostic.at(located(template), 1, 1, "template: " + e.getMessage(), null));
        } catch (freemarker.core.ParseException e) {
            String file = located(e.getTemplateName() == null ? template : e.getTemplateName());
            throw new ThemeException(Diagnostic.at(file, e.getLineNumber(), e.getColumnNumber(), "template: " + essentials(e.getEditorMessage()), null));
        } catch (freemarker.template.TemplateNotFoundException e) {
            throw new ThemeException(Diagnostic.at(located(template), 1, 1, "template " + template
                    + " not found in the theme folder nor in the built-in theme", null));
        } catch (IOException e) {
            throw new ThemeException(Diagnostic.at(located(template), 1, 1, "template cannot be read: " + e.getMessage(), null));
        }
    }

    /** A failed rendering at the template file, line and column where it failed. */
    private ThemeException located(String template, TemplateException e, String message) {
        String file = located(e.getTemplateSourceName() == null ? template : e.getTemplateSourceName());
        int line = e.getLineNumber() == null ? 1 : e.getLineNumber();
        int column = e.getColumnNumber() == null ? 1 : e.getColumnNumber();
        return new ThemeException(Diagnostic.at(file, line, column, message, null));
    }

    /**
     * FreeMarker's message without its advice and stack: every line up to the first separator, joined, so that a
     * missing name ("==> page.logo") or template ("Template not found for name \"x.ftlh\"") is always in it.
     */
    static String essentials(String message) {
        if (message == null) {
            return "error";
        }
        List<String> kept = new ArrayList<>();
        for (String line : message.split("\n")) {
            String text = line.strip();
            if (text.startsWith("----") || text.startsWith("Tip:") || text.startsWith("FTL stack trace")
                    || text.startsWith("The name was interpreted by") || text.startsWith("Reason given:")) {
                break;
            }
            if (!text.isEmpty()) {
                kept.add(text);
            }
        }
        return kept.isEmpty() ? "error" : String.join(" ", kept);
    }

    /** A broken template; carries the diagnostic to print. */
    public static final class ThemeException extends Exception {
        private final Diagnostic diagnostic;

        public ThemeException(Diagnostic diagnostic) {
            super(diagnostic.message());
            this.diagnostic = diagnostic;
        }

        public Diagnostic diagnostic() {
            return diagnostic;
        }
    }
}
