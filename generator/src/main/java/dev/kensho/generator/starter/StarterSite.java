package dev.kensho.generator.starter;

import dev.kensho.generator.KenshoVersion;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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

    /**
     * Writes the starter site into {@code folder} (made if missing).
     *
     * @return the files written, relative to the folder
     * @throws AlreadyThere when any of them exists; then nothing is written
     */
    public static List<String> write(Path folder, String lang) throws IOException, AlreadyThere {
        if (!LANGUAGES.contains(lang)) {
            throw new IllegalArgumentException("--lang takes " + String.join(" or ", LANGUAGES) + ", not '" + lang + "'");
        }
        Map<String, String> files = files(lang);
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
            Files.writeString(target, file.getValue(), StandardCharsets.UTF_8);
        }
        return List.copyOf(files.keySet());
    }

    /** A starter file, with the action's repository and this Kensho's version filled in. */
    private static String resource(String name) throws IOException {
        try (InputStream in = StarterSite.class.getResourceAsStream("/kensho-starter/" + name)) {
            if (in == null) {
                throw new IOException("this Kensho was built without its starter files (kensho-starter/" + name + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("@REPOSITORY@", KenshoVersion.REPOSITORY).replace("@VERSION@", KenshoVersion.VALUE);
        }
    }
}
