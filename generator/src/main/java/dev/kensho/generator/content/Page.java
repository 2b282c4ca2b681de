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
 */
public record Page(Path source, String displayPath, String relativePath, FrontMatter frontMatter, String body, String outputPath) {

    /** The output path of a source below content/, in the site's URL format. */
    public static String outputPathOf(String relativePath, UrlFormat format) {
        String stem = relativePath.substring(0, relativePath.lastIndexOf('.'));
        boolean index = stem.equals("index") || stem.endsWith("/index") || stem.equals("404");
        return format == UrlFormat.DIRECTORY && !index ? stem + "/index.html" : stem + ".html";
    }

    /** The folder the page sits in, "" at the top. */
    public String folder() {
        int slash = relativePath.lastIndexOf('/');
        return slash < 0 ? "" : relativePath.substring(0, slash);
    }
}
