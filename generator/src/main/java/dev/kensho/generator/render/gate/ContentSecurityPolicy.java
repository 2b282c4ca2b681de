package dev.kensho.generator.render.gate;

/**
 * The Content-Security-Policy of every published page: a second fence behind {@link HtmlGate}. Scripts
 * run only from the site's own origin ('self': the theme's files and the files the build generates;
 * content/ may publish no script, see ContentFiles), never inline, from an event handler or from a
 * javascript: URL; no plugin; no {@code <base>} that would move relative URLs; no form posts or frames.
 * WebAssembly may be compiled ('wasm-unsafe-eval', which allows no eval of script) for the browser's
 * PostgreSQL, which loads from the site itself on a reader's click. Styles may be inline (diagrams carry presentation styles), images may come from anywhere a page
 * links to.
 */
public final class ContentSecurityPolicy {

    /** As the theme's pages carry it in {@code <meta http-equiv="Content-Security-Policy">}. */
    public static final String POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
            + "img-src 'self' https: http: data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'";

    /** For hosts that read a {@code _headers} file (Netlify, Cloudflare Pages), which can also forbid framing. */
    public static final String HEADERS_FILE = "_headers";

    private ContentSecurityPolicy() {
    }

    public static String headersFile() {
        return "/*\n  Content-Security-Policy: " + POLICY + "; frame-ancestors 'none'\n  X-Content-Type-Options: nosniff\n";
    }
}
