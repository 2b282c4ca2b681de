package dev.kensho.generator.render.playground;

import dev.kensho.generator.render.theme.BundledFolder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * PGlite, the PostgreSQL the reader's browser runs snippets on: the npm package's browser files, which
 * the Maven build fetched at a pinned version, checked by SHA-256 and put in the jar byte for byte
 * (generator/pom.xml). Published under a folder named by the version, so that browsers may keep them for good.
 */
public final class BrowserEngine {

    private static final String BUNDLED = "/dev/kensho/generator/pglite/VERSION";

    private BrowserEngine() {
    }

    /** The PGlite version Kensho carries. */
    public static String version() throws IOException {
        return Files.readString(folder().resolve("VERSION"), StandardCharsets.UTF_8).strip();
    }

    /** Where the engine's files are published in a site, relative to its root, ending in /. */
    public static String sitePath() throws IOException {
        return "assets/pglite/" + version() + "/";
    }

    /** Every file to publish (site path → bundled file). */
    public static Map<String, Path> files() throws IOException {
        Map<String, Path> files = new TreeMap<>();
        String base = sitePath();
        try (Stream<Path> listed = Files.list(folder())) {
            for (Path file : (Iterable<Path>) listed::iterator) {
                String name = file.getFileName().toString();
                if (!name.equals("VERSION")) {
                    files.put(base + name, file);
                }
            }
        }
        return files;
    }

    /**
     * Bytes a reader's browser downloads on the first run, which the page says (rounded) before the first click: the
     * module (index.js and its chunks), the WebAssembly and its data. The package's other scripts (pglite.js and
     * initdb.js, which the module does not import; templating.js) and the licence are published but never fetched.
     * BrowserTest compares the figure with what a first run in Chromium fetched.
     */
    public static long downloadBytes() throws IOException {
        long bytes = 0;
        for (Map.Entry<String, Path> file : files().entrySet()) {
            String name = file.getKey().substring(file.getKey().lastIndexOf('/') + 1);
            if (name.equals("index.js") || name.startsWith("chunk-") || name.endsWith(".wasm") || name.endsWith(".data")) {
                bytes += Files.size(file.getValue());
            }
        }
        return bytes;
    }

    private static Path folder() throws IOException {
        return BundledFolder.of(BUNDLED, 1, "this Kensho was built without PGlite (no dev/kensho/generator/pglite/ in the jar); "
                + "rebuild it with mvn package, which fetches it from the npm registry");
    }
}
