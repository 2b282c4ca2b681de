package dev.kensho.generator.serve;

import dev.kensho.generator.report.Progress;
import dev.kensho.generator.render.RenderMemo;
import dev.kensho.generator.markdown.ParseMemo;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kensho.generator.BuildOptions;
import dev.kensho.generator.BuildResult;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.KenshoBuild;
import dev.kensho.generator.verify.JudgedEntries;
import dev.kensho.generator.verify.ServerSession;
import org.jsoup.nodes.Entities;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code kensho serve}: builds the site into memory, serves it on 127.0.0.1, rebuilds when a file
 * under content/ or site/ changes and tells open tabs to reload (Server-Sent Events; a few lines of
 * script are added to pages only here). One PostgreSQL server stays up for the whole session, and
 * the verification cache keeps unchanged pages from running again. A failed build is shown in the
 * browser as the compiler-style errors, until the next good build replaces it.
 */
public final class PreviewServer implements AutoCloseable {

    static final String EVENTS = "/__kensho/events";
    /** The reload script, a file of the preview's own: the pages' Content-Security-Policy allows no inline script. */
    static final String RELOAD = "/__kensho/reload.js";
    private static final String RELOAD_SCRIPT = "<script src=\"" + RELOAD + "\"></script>";
    private static final byte[] RELOAD_SOURCE = ("new EventSource('" + EVENTS + "').onmessage = () => location.reload();\n")
            .getBytes(StandardCharsets.UTF_8);

    private final BuildOptions options;
    private final Consumer<String> log;
    private final ServerSession.LongLived session = new ServerSession.LongLived();
    private final RenderMemo memo = new RenderMemo();
    private final ParseMemo parses = new ParseMemo();
    private final JudgedEntries judged = new JudgedEntries();
    private final List<HttpExchange> listeners = new CopyOnWriteArrayList<>();
    /** Open event streams kept at once; the oldest is closed when another tab connects. */
    private static final int MAX_LISTENERS = 32;
    private ScheduledExecutorService heartbeat;
    private volatile KenshoBuild.SiteFiles site = new KenshoBuild.SiteFiles(Map.of(), Map.of());
    private volatile List<Diagnostic> problems = List.of();
    private volatile String environmentError;
    private volatile long generation;
    private HttpServer http;
    private WatchService watcher;
    private Thread watching;

    public PreviewServer(BuildOptions options, Consumer<String> log) {
        this.options = options;
        this.log = log;
    }

    /** Builds once, then serves and watches; returns the port. */
    public int start(int port) throws IOException {
        rebuild();
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        http.createContext("/", this::handle);
        http.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "kensho-preview-http");
            thread.setDaemon(true);
            return thread;
        }));
        http.start();
        watcher = FileSystems.getDefault().newWatchService();
        register(options.content());
        register(options.theme());
        // A closed tab is only noticed when something is written to it: a comment line now and then
        // lets its socket go instead of keeping it until the next rebuild.
        heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "kensho-preview-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        heartbeat.scheduleWithFixedDelay(() -> broadcast(": ping\n\n"), 10, 10, TimeUnit.SECONDS);
        watching = new Thread(this::watch, "kensho-preview-watch");
        watching.setDaemon(true);
        watching.start();
        return http.getAddress().getPort();
    }

    /** Which build the preview shows; goes up by one with every rebuild. */
    public long generation() {
        return generation;
    }

    /**
     * Watches every folder below {@code root}, and the folder above it for the root itself being
     * removed or coming back (deleted and restored from git, say); events there about anything else
     * are ignored (see {@link #relevant}).
     */
    private void register(Path root) throws IOException {
        if (root == null) {
            return; // the built-in theme only: nothing of it changes while serving
        }
        Path absolute = root.toAbsolutePath().normalize();
        Path existing = absolute.getParent();
        while (existing != null && !Files.isDirectory(existing)) {
            existing = existing.getParent();
        }
        if (existing != null) {
            existing.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        }
        if (!Files.isDirectory(absolute)) {
            return;
        }
        try (Stream<Path> dirs = Files.walk(absolute)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            }
        } catch (UncheckedIOException | NoSuchFileException vanished) {
            // A folder went away while it was walked; the next event registers what is there then.
        }
    }

    /** True for an event inside content/ or site/, or about those folders themselves; not for their siblings. */
    private boolean relevant(WatchKey key, WatchEvent<?> event) {
        if (!(key.watchable() instanceof Path folder) || !(event.context() instanceof Path name)) {
            return true;
        }
        Path changed = folder.resolve(name).toAbsolutePath().normalize();
        for (Path root : java.util.stream.Stream.of(options.content(), options.theme()).filter(java.util.Objects::nonNull).toList()) {
            Path absolute = root.toAbsolutePath().normalize();
            if (changed.startsWith(absolute) || absolute.startsWith(changed)) {
                return true;
            }
        }
        return false;
    }

    /** How long no file event must come before a rebuild starts (was a 30 ms sleep and 30 ms of quiet: 60 ms at least). */
    private static final long QUIET_MILLIS = 20;

    private void watch() {
        try {
            while (true) {
                WatchKey key = watcher.take();
                // Editors save in several steps (a backup renamed, the file written, its mode set), each a few
                // milliseconds apart at most: the build starts once no event came for QUIET_MILLIS. Every
                // millisecond waited here is one more between the save and the page served.
                boolean changed = false;
                do {
                    for (WatchEvent<?> event : key.pollEvents()) {
                        changed |= relevant(key, event);
                    }
                    key.reset();
                    key = watcher.poll(QUIET_MILLIS, TimeUnit.MILLISECONDS);
                } while (key != null);
                if (!changed) {
                    continue;
                }
                try {
                    register(options.content());
                    register(options.theme());
                } catch (IOException e) {
                    log.accept("warning: could not watch every folder: " + e.getMessage());
                }
                rebuild();
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // The preview is ending.
        }
    }

    synchronized void rebuild() {
        long t0 = System.nanoTime();
        try {
            BuildResult result = KenshoBuild.run(options, session, files -> site = files,
                    Progress.silent(), memo, parses, judged, line -> { });
            problems = result.diagnostics();
            environmentError = result.environmentError();
            for (Diagnostic diagnostic : problems) {
                log.accept(diagnostic.format());
            }
            if (environmentError != null) {
                log.accept("error: " + environmentError);
            }
            log.accept((problems.isEmpty() && environmentError == null ? "rebuilt " : "build failed: " + problems.size()
                    + " problem(s); ") + result.pages() + " page(s) in " + (System.nanoTime() - t0) / 1_000_000 + " ms"
                    + "; parsed " + parses.lastParsed() + ", rendered " + memo.lastRendered() + ", reused the rest" + verified(result, judged));
        } catch (IOException | RuntimeException e) {
            problems = List.of();
            environmentError = e.toString();
            log.accept("error: " + e.getMessage());
        }
        generation++;
        broadcast("data: " + generation + "\n\n");
    }

    /**
     * How many pages with SQL ran on PostgreSQL in this rebuild and how many kept their outcomes (unchanged since they ran),
     * and of those how many were read from the cache folder and judged again (the others as an earlier rebuild judged them).
     */
    private static String verified(BuildResult result, JudgedEntries judged) {
        int pages = result.verification().pages().size();
        int reused = result.verification().fromCache().size();
        return pages == 0 ? "" : "; " + (pages - reused) + " page(s) run on PostgreSQL, " + reused + " from the cache ("
                + judged.lastJudged() + " read and judged again)";
    }

    private void broadcast(String event) {
        for (HttpExchange listener : listeners) {
            try {
                OutputStream stream = listener.getResponseBody();
                stream.write(event.getBytes(StandardCharsets.UTF_8));
                stream.flush();
            } catch (IOException gone) {
                listeners.remove(listener);
                listener.close();
            }
        }
    }

    /**
     * Only requests addressed to this machine's loopback name are served: a page on another site
     * cannot read the preview through a DNS name that it points at 127.0.0.1 (DNS rebinding).
     */
    private boolean fromThisMachine(HttpExchange exchange) {
        String host = exchange.getRequestHeaders().getFirst("Host");
        if (host == null) {
            return false;
        }
        String name = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.split(":", 2)[0];
        return name.equals("127.0.0.1") || name.equals("localhost") || name.equals("[::1]");
    }

    /**
     * False for a request another site's page made (Sec-Fetch-Site cross-site or same-site, or an Origin
     * or Referer of another origin); a request typed or bookmarked by the reader carries neither.
     */
    private static boolean sameOrigin(HttpExchange exchange) {
        String site = exchange.getRequestHeaders().getFirst("Sec-Fetch-Site");
        if (site != null) {
            return site.equals("same-origin") || site.equals("none");
        }
        String host = exchange.getRequestHeaders().getFirst("Host");
        for (String header : List.of("Origin", "Referer")) {
            String value = exchange.getRequestHeaders().getFirst(header);
            if (value != null && !value.equals("null")) {
                try {
                    java.net.URI uri = java.net.URI.create(value);
                    if (!"http".equals(uri.getScheme()) || host == null || !host.equalsIgnoreCase(uri.getRawAuthority())) {
                        return false;
                    }
                } catch (IllegalArgumentException e) {
                    return false;
                }
            }
        }
        return true;
    }

    private void handle(HttpExchange exchange) throws IOException {
        if (!fromThisMachine(exchange)) {
            send(exchange, 403, "text/plain; charset=utf-8", "the preview answers only to 127.0.0.1 and localhost\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String path = URLDecoder.decode(exchange.getRequestURI().getPath(), StandardCharsets.UTF_8);
        if (path.equals(EVENTS)) {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.getResponseHeaders().add("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            OutputStream stream = exchange.getResponseBody();
            stream.write((": kensho preview\n\n").getBytes(StandardCharsets.UTF_8));
            stream.flush();
            listeners.add(exchange);
            while (listeners.size() > MAX_LISTENERS) {
                HttpExchange oldest = listeners.remove(0);
                oldest.close();
            }
            return; // Kept open; written to on every rebuild.
        }
        if (!sameOrigin(exchange)) {
            // Another web page may link to the preview, never read it: a cross-origin <script src> of the
            // search index or a sidebar file would hand it the drafts being previewed.
            send(exchange, 403, "text/plain; charset=utf-8", "the preview answers only its own pages\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (path.equals(RELOAD)) {
            send(exchange, 200, "text/javascript", RELOAD_SOURCE);
            return;
        }
        String relative = path.substring(1);
        if (relative.isEmpty() || relative.endsWith("/")) {
            relative += "index.html";
        }
        if (!problems.isEmpty() || environmentError != null) {
            if (relative.endsWith(".html")) {
                send(exchange, 500, "text/html; charset=utf-8", errorPage().getBytes(StandardCharsets.UTF_8));
                return;
            }
        }
        KenshoBuild.SiteFiles files = site;
        if (!files.html().containsKey(relative) && files.html().containsKey(relative + "/index.html")) {
            // As static hosts do for directory URLs: /a/b answers with a redirect to /a/b/.
            exchange.getResponseHeaders().set("Location", path + "/");
            exchange.sendResponseHeaders(301, -1);
            exchange.close();
            return;
        }
        String html = files.html().get(relative);
        if (html != null) {
            String type = relative.endsWith(".html") ? "text/html; charset=utf-8" : relative.endsWith(".js") ? "text/javascript"
                    : relative.endsWith(".xml") ? "application/xml" : relative.endsWith(".svg") ? "image/svg+xml"
                    : relative.endsWith(".json") ? "application/json" : "text/plain; charset=utf-8";
            String body = relative.endsWith(".html") ? html.replace("</body>", RELOAD_SCRIPT + "</body>") : html;
            send(exchange, 200, type, body.getBytes(StandardCharsets.UTF_8));
            return;
        }
        // Bytes read through the content gate when the build ended: a link planted since is never followed.
        byte[] copy = files.copies().get(relative);
        if (copy != null) {
            String type = relative.endsWith(".css") ? "text/css" : relative.endsWith(".js") ? "text/javascript"
                    : relative.endsWith(".png") ? "image/png" : relative.endsWith(".wasm") ? "application/wasm" // compiled as it streams in
                    : "application/octet-stream";
            send(exchange, 200, type, copy);
            return;
        }
        String notFound = files.html().getOrDefault("404.html", "<h1>404</h1>");
        send(exchange, 404, "text/html; charset=utf-8", notFound.replace("</body>", RELOAD_SCRIPT + "</body>").getBytes(StandardCharsets.UTF_8));
    }

    String errorPage() {
        StringBuilder page = new StringBuilder("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Kensho: build failed</title>"
                + "<style>body{font-family:ui-monospace,Menlo,Consolas,monospace;margin:2rem;background:#1f1f1f;color:#eee}"
                + "h1{color:#ff8182;font-family:sans-serif}pre{background:#111;padding:1rem;border-radius:6px;overflow-x:auto}</style>"
                + "</head><body><h1>Build failed</h1><p>Fix the sources; this page reloads by itself after the next good build.</p>");
        if (environmentError != null) {
            page.append("<pre>error: ").append(Entities.escape(environmentError)).append("</pre>");
        }
        for (Diagnostic diagnostic : problems) {
            page.append("<pre class=\"diagnostic\">").append(Entities.escape(diagnostic.format())).append("</pre>");
        }
        return page.append(RELOAD_SCRIPT).append("</body></html>").toString();
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.getResponseHeaders().add("Cache-Control", "no-store");
        exchange.getResponseHeaders().add("X-Content-Type-Options", "nosniff"); // a data file is never run as a script
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        if (heartbeat != null) {
            heartbeat.shutdownNow();
        }
        listeners.forEach(HttpExchange::close);
        listeners.clear();
        if (watching != null) {
            watching.interrupt();
        }
        try {
            if (watcher != null) {
                watcher.close();
            }
        } catch (IOException ignored) {
            // Closing anyway.
        }
        if (http != null) {
            http.stop(0);
        }
        session.close();
    }
}
