package dev.kensho.generator;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Contributor payloads that pass the gate in a changed form, loaded in Chromium: none runs, with the
 * site's Content-Security-Policy and with it removed (the gate alone holds); an injection planted in a
 * page after the build, as one that slipped past the gate would be, is blocked by the policy; the
 * theme's own scripts still run under it, from a server and from the file system.
 */
class ScriptPolicyBrowserTest {

    /** Set by every payload; the page must end with it still undefined. */
    private static final String FLAG = "window.__pwned";

    /** The policy, written out here so that a change to it is a change to this test too. */
    private static final String POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
            + "img-src 'self' https: http: data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'";

    private static Path folder;
    private static Path withPolicy;
    private static Path withoutPolicy;
    private static HttpServer server;
    private static ChromeDriver driver;
    private static String base;

    @BeforeAll
    static void buildAndServe() throws Exception {
        HeadlessChromium.assumeInstalled();
        folder = Files.createTempDirectory("kensho-csp-");
        TestSite site = new TestSite(folder).page("a.md", """
                ---
                title: A
                banner:
                  content: "<!-- <img src=x onerror=__pwned=1> -->Notice"
                ---

                <p title="--><img src=x onerror=__pwned=2>">attribute holding markup</p>

                <!-- <img src=x onerror="__pwned=3"> --> a real comment

                <Aside type="tip">an aside <code>&lt;img src=x onerror=__pwned=4&gt;</code></Aside>

                A [link](https://example.org/?q=%22onmouseover=__pwned=5) and <span title='"><script>__pwned=6</script>'>text</span>.

                <Diagram src="d.svg" alt="a diagram" />

                ```text
                <script>__pwned=7</script>
                ```
                """).page("d.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 9 9\"><text>a<![CDATA[<img src=x "
                + "onerror=__pwned=8>]]></text></svg>").page("x.txt", "window.__pwned = 'contributor file';\n");
        TestSite.Run run = site.build();
        assertEquals(0, run.status(), run::toString);
        withPolicy = site.out;
        // An injection that slipped past the gate, planted after the build: an inline script, a handler, and a
        // look-alike of the theme's shared-sidebar element naming a contributor file.
        Path page = withPolicy.resolve("a/index.html");
        Files.writeString(page, Files.readString(page).replace("<main class=\"content\" id=\"main\">", "<main class=\"content\" id=\"main\">"
                + "<script>window.__pwned = 'inline'</script><img src=\"x\" onerror=\"window.__pwned = 'handler'\">"
                + "<div class=\"sidebar-shared\" id=\"kensho-sidebar-shared\" data-src=\"x.txt\"></div>"));
        withoutPolicy = folder.resolve("no-policy");
        try (Stream<Path> files = Files.walk(withPolicy)) {
            for (Path file : files.toList()) {
                Path copy = withoutPolicy.resolve(withPolicy.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    String name = file.toString();
                    if (name.endsWith(".html")) {
                        Files.writeString(copy, Files.readString(file).replaceAll("<meta http-equiv=\"Content-Security-Policy\"[^>]*>", ""));
                    } else {
                        Files.copy(file, copy);
                    }
                }
            }
        }
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            Path file = folder.resolve(exchange.getRequestURI().getPath().substring(1)).normalize();
            if (Files.isDirectory(file)) {
                file = file.resolve("index.html");
            }
            if (!file.startsWith(folder) || !Files.isRegularFile(file)) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            String name = file.toString();
            exchange.getResponseHeaders().add("Content-Type", name.endsWith(".html") ? "text/html; charset=utf-8"
                    : name.endsWith(".js") ? "text/javascript" : name.endsWith(".css") ? "text/css" : name.endsWith(".svg") ? "image/svg+xml"
                    : "text/plain");
            byte[] body = Files.readAllBytes(file);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
        driver = HeadlessChromium.start(Path.of(System.getProperty("java.io.tmpdir")), "--allow-file-access-from-files");
        driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", """
                window.__violations = [];
                window.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.effectiveDirective), true);
                """));
    }

    @AfterAll
    static void stop() throws Exception {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.stop(0);
        }
        if (folder != null) {
            try (Stream<Path> files = Files.walk(folder)) {
                files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
            }
        }
    }

    private Object load(String url) throws InterruptedException {
        driver.get(url);
        // Let deferred scripts, failed images (onerror) and a script the theme might load run.
        Thread.sleep(700);
        return ((JavascriptExecutor) driver).executeScript("return " + FLAG + " === undefined ? null : String(" + FLAG + ");");
    }

    @Test
    void theGateAloneStopsEveryPayloadThatReachedThePage() throws Exception {
        // Without the policy, the planted injection runs (the test can fail), but no contributor payload does.
        Object flag = load(base + "no-policy/a/index.html");
        assertTrue("inline".equals(flag) || "handler".equals(flag), "the planted injection should run without a policy: " + flag);
        String html = Files.readString(withoutPolicy.resolve("a/index.html"));
        Path clean = withoutPolicy.resolve("a/clean.html");
        Files.writeString(clean, html.replace("<script>window.__pwned = 'inline'</script><img src=\"x\" onerror=\"window.__pwned = 'handler'\">", ""));
        assertNull(load(base + "no-policy/a/clean.html"), "a contributor payload ran with the policy removed");
        assertFalse(((JavascriptExecutor) driver).executeScript("return [...document.scripts].map(s => s.src).join(' ')").toString().contains("x.txt"),
                "the theme's script loaded a page's look-alike of its sidebar element");
        assertTrue(driver.findElements(By.cssSelector(".code-block button.copy, button.copy")).size() > 0, "the theme's script ran");
    }

    @Test
    void thePolicyIsOnEveryPageAndBlocksAPlantedInlineScript() throws Exception {
        assertNull(load(base + "out/site/a/index.html"), "the planted injection ran under the policy");
        @SuppressWarnings("unchecked")
        List<String> violations = (List<String>) ((JavascriptExecutor) driver).executeScript("return window.__violations;");
        assertTrue(violations.contains("script-src-elem") || violations.contains("script-src-attr") || violations.contains("script-src"),
                "the policy reported what it blocked: " + violations);
        assertEquals(POLICY, driver.findElement(By.cssSelector("meta[http-equiv='Content-Security-Policy']")).getAttribute("content"));
        assertTrue(driver.findElements(By.cssSelector("button.copy")).size() > 0, "the theme's own scripts run under the policy");
        for (String other : List.of("index.html", "404.html")) {
            assertEquals(POLICY, org.jsoup.Jsoup.parse(withPolicy.resolve(other).toFile())
                    .selectFirst("meta[http-equiv=Content-Security-Policy]").attr("content"), other);
        }
        assertTrue(Files.readString(withPolicy.resolve("_headers")).contains("Content-Security-Policy: " + POLICY + "; frame-ancestors 'none'\n"));
        // Opened from the file system, the theme still works under the policy ('self' is the page's own folder tree).
        driver.get(withPolicy.resolve("index.html").toUri().toString());
        Thread.sleep(300);
        assertEquals("light", ((JavascriptExecutor) driver).executeScript("return document.documentElement.dataset.theme;"),
                "kensho-theme.js ran from file://");
    }
}
