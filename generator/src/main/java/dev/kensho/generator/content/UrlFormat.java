package dev.kensho.generator.content;

/**
 * How page URLs look, as Astro's {@code build.format}: {@code lessons/keys/} served from
 * {@code lessons/keys/index.html} (the default, as in Starlight), or {@code lessons/keys.html}, which
 * also works when the site is opened from the file system.
 */
public enum UrlFormat {
    DIRECTORY,
    FILE;

    /** The URL path of an output file: "lessons/keys/" for "lessons/keys/index.html" with directory URLs, "" for the home page. */
    public String urlPath(String outputPath) {
        if (this == DIRECTORY && (outputPath.equals("index.html") || outputPath.endsWith("/index.html"))) {
            return outputPath.substring(0, outputPath.length() - "index.html".length());
        }
        return outputPath;
    }
}
