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
 */
public record Page(Path source, String displayPath, String relativePath, FrontMatter frontMatter, String body) {

    /** Where the rendered page goes below the site root ("lessons/keys.html"). */
    public String outputPath() {
        int dot = relativePath.lastIndexOf('.');
        return relativePath.substring(0, dot) + ".html";
    }

    /** The folder the page sits in, "" at the top. */
    public String folder() {
        int slash = relativePath.lastIndexOf('/');
        return slash < 0 ? "" : relativePath.substring(0, slash);
    }
}
