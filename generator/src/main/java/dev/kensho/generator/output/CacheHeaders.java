package dev.kensho.generator.output;

import java.util.Collection;
import java.util.TreeSet;

/**
 * The site's {@code _headers} file (read by Netlify and Cloudflare Pages; other hosts ignore it): the theme's assets
 * whose names carry a content hash are cached for a year and never revalidated; nothing else gets a rule, so HTML,
 * the search index and the site's own files keep the host's default (revalidated) caching. A site that has its own
 * {@code content/_headers} keeps it instead.
 */
public final class CacheHeaders {

    public static final String FILE_NAME = "_headers";

    private CacheHeaders() {
    }

    /**
     * @param hashedAssets names below assets/ that carry a content hash ("kensho.1f0c3a9be2.css")
     * @param versioned    site paths in a folder named by their version (the browser's PostgreSQL), which never change either
     */
    public static String of(Collection<String> hashedAssets, Collection<String> versioned) {
        StringBuilder out = new StringBuilder("# Written by Kensho: theme assets named by a content hash never change.\n");
        for (String name : new TreeSet<>(hashedAssets)) {
            out.append("/assets/").append(name).append("\n  Cache-Control: public, max-age=31536000, immutable\n");
        }
        for (String path : new TreeSet<>(versioned)) {
            out.append('/').append(path).append("\n  Cache-Control: public, max-age=31536000, immutable\n");
        }
        return out.toString();
    }
}
