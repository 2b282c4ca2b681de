package dev.kensho.generator.content;

import java.nio.file.Path;

/**
 * A lesson source as loaded from {@code content/}.
 *
 * @param source       the file on disk
 * @param displayPath  how diagnostics name the file
 * @param relativePath path below the content folder, with forward slashes ("lessons/keys.md")
 * @param frontMatter  parsed header
 * @param body         Markdown after the header; lines the header and MDX imports occupied are blank,
 *                     so that a line in the body is the same line in the file
 * @param outputPath   where the rendered page goes below the site root: "lessons/keys/index.html" with
 *                     directory URLs (Starlight's and Astro's default), "lessons/keys.html" with file URLs
 * @param locale       key of the language the page is served in ({@link SiteLocale#ROOT} on a one-language site)
 * @param localPath    the source's path inside its locale folder ("lessons/keys.md" for "en/lessons/keys.md"):
 *                     translations of one page share it
 * @param fallback     true for the copy of a default-language page served in a locale that has no translation of it
 *                     (as Starlight does); it shares the original's source, relativePath and verification
 */
public record Page(Path source, String displayPath, String relativePath, FrontMatter frontMatter, String body, String outputPath,
                   String locale, String localPath, boolean fallback) {

    /** The output path of a source below content/, in the site's URL format. */
    public static String outputPathOf(String relativePath, UrlFormat format) {
        String stem = relativePath.substring(0, relativePath.lastIndexOf('.'));
        boolean index = stem.equals("index") || stem.endsWith("/index") || stem.equals("404");
        return format == UrlFormat.DIRECTORY && !index ? stem + "/index.html" : stem + ".html";
    }

    /** The folder the page sits in inside its locale, "" at the top. */
    public String folder() {
        int slash = localPath.lastIndexOf('/');
        return slash < 0 ? "" : localPath.substring(0, slash);
    }

    /** The page's slug inside its locale, as a configured sidebar names it: "lessons/keys", "" for the home page, "lessons" for lessons/index.md. */
    public String slug() {
        String stem = localPath.substring(0, localPath.lastIndexOf('.'));
        return stem.equals("index") ? "" : stem.endsWith("/index") ? stem.substring(0, stem.length() - "/index".length()) : stem;
    }
}
