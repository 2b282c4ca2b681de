package dev.kensho.generator.content;

import dev.kensho.generator.Diagnostic;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A site's own path aliases, as a Starlight site declares them in its tsconfig {@code paths} ({@code "~/*": ["src/*"]}):
 * in site.yml, {@code aliases: {"~/": "shared/"}}, a prefix and the folder inside content/ it stands for. A page's
 * {@code ~/assets/chart.png} (an image, a link, an {@code import …?raw}, a diagram's src) then means
 * {@code /shared/assets/chart.png}, from the content folder's root, and is read through the content gate like any
 * other file a page names: an alias cannot lead out of content/.
 */
public record PathAliases(Map<String, String> folders) {

    public static final PathAliases NONE = new PathAliases(Map.of());

    public PathAliases {
        // The longest prefix first: "~/assets/" before "~/".
        Map<String, String> ordered = new LinkedHashMap<>();
        folders.entrySet().stream().sorted(Comparator.comparing((Map.Entry<String, String> e) -> -e.getKey().length()))
                .forEach(e -> ordered.put(e.getKey(), e.getValue()));
        folders = java.util.Collections.unmodifiableMap(ordered);
    }

    /** "/shared/assets/chart.png" for "~/assets/chart.png"; any other path as written. */
    public String expand(String written) {
        for (Map.Entry<String, String> alias : folders.entrySet()) {
            if (written.startsWith(alias.getKey())) {
                return "/" + alias.getValue() + written.substring(alias.getKey().length());
            }
        }
        return written;
    }

    /** site.yml's {@code aliases:}; a problem is reported at its line and the alias left out. */
    static PathAliases read(Object value, int line, String displayPath, List<Diagnostic> diagnostics) {
        if (value == null) {
            return NONE;
        }
        if (!(value instanceof Map<?, ?> map)) {
            diagnostics.add(Diagnostic.at(displayPath, line, 1, "site settings: aliases maps a prefix to a folder inside content/, "
                    + "such as aliases: {\"~/\": \"shared/\"}", null));
            return NONE;
        }
        Map<String, String> folders = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            String prefix = String.valueOf(entry.getKey());
            String folder = entry.getValue() == null ? "" : String.valueOf(entry.getValue());
            String problem = problem(prefix, folder);
            if (problem != null) {
                diagnostics.add(Diagnostic.at(displayPath, line, 1, "site settings: aliases: '" + prefix + "': " + problem, null));
            } else {
                folders.put(prefix, folder.endsWith("/") || folder.isEmpty() ? folder : folder + "/");
            }
        }
        return new PathAliases(folders);
    }

    private static String problem(String prefix, String folder) {
        if (!prefix.endsWith("/") || prefix.length() < 2 || prefix.startsWith("/") || prefix.startsWith(".") || prefix.contains(":")
                || prefix.contains("\\") || prefix.chars().anyMatch(Character::isWhitespace)) {
            return "a prefix is a short name ending in '/' that no relative path, absolute path or URL starts with, such as '~/' or '@/'";
        }
        Path normalized;
        try {
            normalized = Path.of(folder.isEmpty() ? "." : folder).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return "'" + folder + "' is not a folder name";
        }
        if (normalized.isAbsolute() || normalized.startsWith("..") || folder.contains("\\") || folder.contains(":")) {
            return "'" + folder + "' is outside the content folder; an alias names a folder inside content/, such as 'shared/'";
        }
        return null;
    }
}
