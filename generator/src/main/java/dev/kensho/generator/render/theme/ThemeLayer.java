package dev.kensho.generator.render.theme;

import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.content.ContentFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * One theme folder (a site's own, or the built-in one), whose files are read only through the gate content files pass
 * ({@link ContentFiles}): a regular file whose real path lies inside the folder, with one link, owned by the folder's
 * owner, not larger than its kind allows. A theme comes with a pull request like content does, so a link in it (to
 * {@code /etc/passwd}, to a folder outside) is refused at its path, and never read, listed or published.
 */
final class ThemeLayer {

    /** The folders a theme has: page templates, components, the theme's words, files copied as they are. */
    static final List<String> FOLDERS = List.of("templates", "components", "i18n", "assets");

    /** Largest template, component or words file read. */
    static final long MAX_TEXT_BYTES = 1L << 20;

    final Path root;
    private final ContentFiles gate;
    /** Each folder's files (regular files that passed the gate), by their path below the layer. */
    private final Map<String, List<Path>> files = new TreeMap<>();
    private final List<Diagnostic> problems = new ArrayList<>();

    /** @param display names a path in messages */
    ThemeLayer(Path root, Function<Path, String> display) throws IOException {
        this.root = root;
        this.gate = new ContentFiles(root, "theme");
        for (String folder : FOLDERS) {
            List<Path> found = new ArrayList<>();
            Path start = root.resolve(folder);
            if (Files.exists(start, LinkOption.NOFOLLOW_LINKS)) {
                // Not followed: a link is listed as itself, and refused below, never walked into.
                try (var walk = Files.walk(start)) {
                    for (Path path : walk.sorted().toList()) {
                        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                            continue;
                        }
                        long limit = folder.equals("assets") ? ContentFiles.MAX_ASSET_BYTES : MAX_TEXT_BYTES;
                        try {
                            gate.check(path, limit);
                            found.add(path);
                        } catch (ContentFiles.Refused refused) {
                            problems.add(Diagnostic.at(display.apply(path), 1, 1, "not read: " + refused.getMessage(), null));
                        }
                    }
                }
            }
            files.put(folder, List.copyOf(found));
        }
    }

    /** The files of a folder of the layer that passed the gate, in a stable order. */
    List<Path> files(String folder) {
        return files.getOrDefault(folder, List.of());
    }

    /** The theme files this layer refused, each at its path. */
    List<Diagnostic> problems() {
        return List.copyOf(problems);
    }

    /**
     * The file at {@code relative} (a path below the layer, as FreeMarker names a template), or null when the layer
     * has nothing there.
     *
     * @throws IOException saying why, when something is there but may not be read (a link, a FIFO, a file too large)
     */
    Path find(String relative) throws IOException {
        if (relative.startsWith("/") || relative.contains("\\") || relative.indexOf('\0') >= 0
                || List.of(relative.split("/")).contains("..")) {
            throw new IOException("\"" + relative + "\" is not a name inside the theme: templates are named by their path "
                    + "below the theme folder, without \"..\" or a leading \"/\"");
        }
        Path candidate = root.resolve(relative).normalize();
        if (!candidate.startsWith(root) || !Files.exists(candidate, LinkOption.NOFOLLOW_LINKS)
                || Files.isDirectory(candidate, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try {
            return gate.check(candidate, MAX_TEXT_BYTES);
        } catch (ContentFiles.Refused refused) {
            throw new IOException(relative + " is not read: " + refused.getMessage());
        }
    }
}
