package dev.kensho.generator.starter;

import dev.kensho.generator.KenshoVersion;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code kensho init} writes: a site that builds at once (a page with one verified query and one scenario,
 * site.yml with title, language and logo), a GitHub workflow that checks it with Kensho's action, and a .gitignore.
 * The files are resources under {@code kensho-starter/} (language-specific ones under {@code en/} and {@code ja/}).
 */
public final class StarterSite {

    public static final List<String> LANGUAGES = List.of("en", "ja");

    private StarterSite() {
    }

    /** The files of a starter site in {@code lang}: path below the folder → resource. */
    private static Map<String, String> files(String lang) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("content/index.md", lang + "/index.md");
        files.put("content/site.yml", lang + "/site.yml");
        files.put("content/logo.svg", "common/logo.svg");
        files.put("content/custom.css", "common/custom.css");
        files.put(".github/workflows/kensho.yml", "common/kensho.yml");
        files.put(".gitignore", "common/gitignore");
        return files;
    }

    /** Files that would be overwritten: init writes nothing over a file that is there. */
    public static final class AlreadyThere extends Exception {
        AlreadyThere(List<String> files) {
            super("not written, these files are already there: " + String.join(", ", files));
        }
    }

    /** Paths init would write through a symbolic link: it writes only inside the folder, so it writes nothing. */
    public static final class LinkInTheWay extends Exception {
        LinkInTheWay(Path folder, List<String> links) {
            super("nothing written: " + String.join(", ", links.stream().map(link -> folder.resolve(link).toString()).toList())
                    + (links.size() == 1 ? " is a symbolic link" : " are symbolic links") + "; kensho init writes only inside "
                    + folder + ", never through a link that may lead elsewhere. Remove the link, or choose another folder");
        }
    }

    /**
     * Writes the starter site into {@code folder} (made if missing).
     *
     * @return the files written, relative to the folder
     * @throws AlreadyThere when any of them exists; then nothing is written
     * @throws LinkInTheWay when a folder or file below {@code folder} that a file would be written through is a
     *                      symbolic link; then nothing is written
     */
    public static List<String> write(Path folder, String lang) throws IOException, AlreadyThere, LinkInTheWay {
        if (!LANGUAGES.contains(lang)) {
            throw new IllegalArgumentException("--lang takes " + String.join(" or ", LANGUAGES) + ", not '" + lang + "'");
        }
        Map<String, String> files = files(lang);
        // Every path below the folder that a file is written through (content, .github, .github/workflows, the file),
        // checked for all files before any is written.
        java.util.Set<String> links = new java.util.LinkedHashSet<>();
        for (String file : files.keySet()) {
            Path below = Path.of("");
            for (Path part : Path.of(file)) {
                below = below.resolve(part);
                if (Files.isSymbolicLink(folder.resolve(below))) {
                    links.add(below.toString());
                }
            }
        }
        if (!links.isEmpty()) {
            throw new LinkInTheWay(folder, List.copyOf(links));
        }
        List<String> existing = new ArrayList<>();
        for (String file : files.keySet()) {
            if (Files.exists(folder.resolve(file), LinkOption.NOFOLLOW_LINKS)) {
                existing.add(file);
            }
        }
        if (!existing.isEmpty()) {
            throw new AlreadyThere(existing);
        }
        Map<String, String> texts = new LinkedHashMap<>();
        for (Map.Entry<String, String> file : files.entrySet()) {
            texts.put(file.getKey(), resource(file.getValue()));
        }
        for (Map.Entry<String, String> file : texts.entrySet()) {
            Path target = folder.resolve(file.getKey());
            Files.createDirectories(target.getParent());
            // CREATE_NEW never follows a link that appeared since the check: it fails on anything already there.
            Files.writeString(target, file.getValue(), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }
        return List.copyOf(files.keySet());
    }

    /** A starter file, with the action this Kensho is (a release's tag, else the commit it was built from) filled in. */
    private static String resource(String name) throws IOException {
        try (InputStream in = StarterSite.class.getResourceAsStream("/kensho-starter/" + name)) {
            if (in == null) {
                throw new IOException("this Kensho was built without its starter files (kensho-starter/" + name + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("@ACTION@", KenshoVersion.actionReference());
        }
    }
}
