package dev.kensho.generator;

import com.sun.net.httpserver.HttpServer;
import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The built lesson site in Debian's Chromium, headless: navigation, Japanese search, dark mode,
 * copying code; no console error, no failed request, no request to another host. Screenshots at
 * 1280 and 360 px go to target/screenshots for a person to look at. Skipped, saying why, where
 * chromium or chromedriver is not installed (.ci/run installs both).
 */
class BrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** Records script errors, console errors and resources that failed to load, from the first byte of each page. */
    private static final String WATCHER = """
            window.__kenshoProblems = [];
            window.addEventListener('error', (e) => {
              const target = e.target && (e.target.src || e.target.href);
              window.__kenshoProblems.push(target ? 'failed to load ' + target : 'script error: ' + e.message);
            }, true);
            const originalError = console.error;
            console.error = (...args) => { window.__kenshoProblems.push('console.error: ' + args.join(' ')); originalError(...args); };
            """;

    private static Path site;
    private static HttpServer server;
    private static final List<String> notFound = Collections.synchronizedList(new ArrayList<>());
    private static ChromeDriver driver;
    private static String base;

    @BeforeAll
    static void buildAndServe() throws Exception {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String reason = "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)";
            System.out.println("SKIPPED browser tests: " + reason);
            assumeTrue(false, reason);
        }
        site = Files.createTempDirectory("kensho-browser-");
        StringWriter out = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(out, true), "build",
                "--content", "../content", "--theme", "../site", "--out", site.resolve("site").toString(),
                "--report", site.resolve("report.json").toString(), "--postgres", "embedded", "--no-cache");
        assertEquals(0, status, out::toString);
        Path root = site.resolve("site");
        Path sample = buildMultilingualSample(site.resolve("sample"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> serve(exchange, root, "/", false));
        server.createContext("/sample/", exchange -> serve(exchange, sample, "/sample/", false));
        // The same site as GitHub Pages serves it under a base path: a missing path at any depth gets 404.html.
        server.createContext("/kensho/", exchange -> serve(exchange, root, "/kensho/", true));
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";

        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + Files.createTempDirectory("kensho-chrome-"),
                "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
        driver = new ChromeDriver(service, options);
        driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", WATCHER));
    }

    /**
     * A Starlight-style site in two languages using what the lesson site does not: a splash page with a
     * hero and banner, the language picker, a fallback page, nested and folded groups, asides, steps,
     * tabs and Expressive Code markers.
     */
    private static Path buildMultilingualSample(Path folder) throws Exception {
        Path content = Files.createDirectories(folder.resolve("content"));
        Files.writeString(content.resolve("site.yml"), """
                title: Sample
                locales:
                  root: {label: 日本語, lang: ja}
                  en: {label: English, lang: en}
                groups:
                  guides: ガイド
                  guides/advanced: 発展
                """);
        Files.writeString(content.resolve("index.md"), """
                ---
                title: ホーム
                template: splash
                hero:
                  tagline: 検証した例
                  actions:
                    - {text: 始める, link: /guides/a/}
                banner:
                  content: 新しい版です。<a href="/guides/a/">ガイドへ</a>
                ---

                本文。
                """);
        Files.createDirectories(content.resolve("guides/advanced"));
        Files.createDirectories(content.resolve("en/guides"));
        Files.writeString(content.resolve("guides/a.mdx"), """
                ---
                title: A ページ
                ---

                :::tip[覚えておく]
                短く。
                :::

                <Steps>

                1. 入れる:

                   <Tabs>
                   <TabItem label="npm">
                   `npm i` を実行。
                   </TabItem>
                   </Tabs>

                2. 終わり

                </Steps>

                ```js "answer" del=/old(Value)/ collapse={2-3}
                const answer = 42;
                const a = 1;
                const b = 2;
                const oldValue = answer;
                ```
                """);
        Files.writeString(content.resolve("guides/advanced/deep.md"), "---\ntitle: 深い\n---\n\n深い本文。\n");
        Files.writeString(content.resolve("en/guides/a.md"), "---\ntitle: Page A\n---\n\n## Section\n\nEnglish text.\n");
        StringWriter out = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(out, true), "build",
                "--content", content.toString(), "--theme", "../site", "--out", folder.resolve("site").toString(),
                "--report", folder.resolve("report.json").toString(), "--postgres", "embedded", "--no-cache");
        assertEquals(0, status, out::toString);
        return folder.resolve("site");
    }

    /** A static host: a directory URL serves its index.html; a missing file is a 404 (with 404.html when asked). */
    private static void serve(com.sun.net.httpserver.HttpExchange exchange, Path root, String prefix, boolean notFoundPage) throws java.io.IOException {
        String path = java.net.URLDecoder.decode(exchange.getRequestURI().getPath().substring(prefix.length()), "UTF-8");
        Path file = root.resolve(path.isEmpty() || path.endsWith("/") ? path + "index.html" : path).normalize();
        int code = 200;
        if (!file.startsWith(root) || !Files.isRegularFile(file)) {
            if (!notFoundPage) {
                notFound.add(exchange.getRequestURI().getPath());
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            file = root.resolve("404.html");
            code = 404;
        }
        String name = file.toString();
        String type = name.endsWith(".html") ? "text/html; charset=utf-8" : name.endsWith(".css") ? "text/css"
                : name.endsWith(".js") ? "text/javascript" : name.endsWith(".svg") ? "image/svg+xml" : "application/octet-stream";
        byte[] body = Files.readAllBytes(file);
        exchange.getResponseHeaders().add("Content-Type", type);
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream stream = exchange.getResponseBody()) {
            stream.write(body);
        }
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private static WebDriverWait waitUpTo(int seconds) {
        return new WebDriverWait(driver, Duration.ofSeconds(seconds));
    }

    private static void assertClean() {
        @SuppressWarnings("unchecked")
        List<String> problems = (List<String>) driver.executeScript("return window.__kenshoProblems || []");
        assertEquals(List.of(), problems, "console errors or failed loads on " + driver.getCurrentUrl());
        @SuppressWarnings("unchecked")
        List<String> foreign = (List<String>) driver.executeScript(
                "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))");
        assertEquals(List.of(), foreign, "requests to another host from " + driver.getCurrentUrl());
        assertEquals(List.of(), notFound, "requests the site could not answer");
    }

    @Test
    void aReaderFollowsTheSidebarAndTheNextLinks() {
        driver.get(base + "idempotency/overview/");
        assertEquals("タイムアウトは「結果不明」", driver.findElement(By.cssSelector("h1")).getText());
        driver.findElement(By.linkText("キーセットページネーション")).click();
        waitUpTo(5).until(d -> d.getCurrentUrl().endsWith("idempotency/keyset/"));
        assertEquals("page", driver.findElement(By.cssSelector(".sidebar a[aria-current]")).getAttribute("aria-current"));
        driver.get(base + "idempotency/overview/");
        driver.findElement(By.cssSelector(".pager .next")).click();
        waitUpTo(5).until(d -> d.getCurrentUrl().endsWith("idempotency/contract/"));
        assertClean();
    }

    @Test
    void japaneseAndSqlQueriesFindTheRightPagesAndAHitOpens() {
        Map<String, String> expectations = Map.of(
                "冪等", "idempotency/",
                "一意制約", "idempotency/",
                "カーソル", "idempotency/keyset/",
                "結果不明", "idempotency/overview/",
                "ON CONFLICT", "idempotency/");
        for (Map.Entry<String, String> query : expectations.entrySet()) {
            driver.get(base + "index.html");
            WebElement input = driver.findElement(By.id("search-input"));
            input.click();
            input.sendKeys(query.getKey());
            waitUpTo(5).until(d -> !d.findElements(By.cssSelector("#search-results a")).isEmpty());
            List<WebElement> hits = driver.findElements(By.cssSelector("#search-results a"));
            assertTrue(hits.get(0).getAttribute("href").contains(query.getValue()), query.getKey() + " → " + hits.get(0).getAttribute("href"));
            assertTrue(driver.findElement(By.cssSelector("#search-results mark")).getText().length() > 0, "the passage marks the match");
        }
        driver.get(base + "index.html");
        WebElement input = driver.findElement(By.id("search-input"));
        input.click();
        input.sendKeys("結果不明");
        waitUpTo(5).until(d -> !d.findElements(By.cssSelector("#search-results a")).isEmpty());
        String target = driver.findElement(By.cssSelector("#search-results a")).getAttribute("href");
        driver.findElement(By.cssSelector("#search-results a")).click();
        waitUpTo(5).until(d -> d.getCurrentUrl().equals(target));
        assertClean();
    }

    @Test
    void darkModeTogglesAndIsRemembered() {
        driver.get(base + "idempotency/keyset/");
        String before = driver.findElement(By.tagName("html")).getAttribute("data-theme");
        driver.findElement(By.cssSelector(".theme-toggle")).click();
        String after = driver.findElement(By.tagName("html")).getAttribute("data-theme");
        assertTrue(!before.equals(after), before + " → " + after);
        driver.navigate().refresh();
        assertEquals(after, driver.findElement(By.tagName("html")).getAttribute("data-theme"));
        driver.findElement(By.cssSelector(".theme-toggle")).click();
        assertClean();
    }

    @Test
    void aCodeBlockIsCopied() {
        driver.get(base + "idempotency/overview/");
        WebElement button = driver.findElement(By.cssSelector(".code-block .copy"));
        button.click();
        waitUpTo(5).until(d -> button.getText().equals("コピーしました"));
        assertClean();
    }

    @Test
    void thePreviewReloadsTheOpenTabAfterAnEditAndShowsAndClearsABuildError() throws Exception {
        Path dir = Files.createTempDirectory("kensho-preview-");
        TestSite preview = new TestSite(dir).page("a.md", TestSite.source("Preview", "\n```sql\nSELECT 1;\n```\n\nfirst text\n"));
        BuildOptions options = new BuildOptions(preview.content, TestSite.THEME, preview.out, "embedded", "postgres:18", preview.report,
                true, dev.kensho.sqlchecks.execution.VerifierSettings.DEFAULTS, dev.kensho.generator.verify.Shard.ALL, null, dir.resolve("cache"), 2);
        try (dev.kensho.generator.serve.PreviewServer server = new dev.kensho.generator.serve.PreviewServer(options, line -> { })) {
            int port = server.start(0);
            driver.get("http://127.0.0.1:" + port + "/a/");
            assertTrue(driver.findElement(By.tagName("main")).getText().contains("first text"));
            preview.page("a.md", TestSite.source("Preview", "\n```sql\nSELECT 2;\n```\n\nsecond text\n"));
            waitUpTo(20).until(d -> d.findElement(By.tagName("body")).getText().contains("second text"));
            preview.page("a.md", TestSite.source("Preview", "\n```sql\nSELECT nope FROM nowhere;\n```\n"));
            waitUpTo(20).until(d -> d.findElement(By.tagName("body")).getText().contains("Build failed"));
            assertTrue(driver.findElement(By.cssSelector("pre.diagnostic")).getText().contains(":6:18: error: relation \"nowhere\" does not exist [42P01]"),
                    driver.findElement(By.tagName("body")).getText());
            preview.page("a.md", TestSite.source("Preview", "\n```sql\nSELECT 3;\n```\n\nthird text\n"));
            waitUpTo(20).until(d -> d.findElement(By.tagName("body")).getText().contains("third text"));
        }
    }

    @Test
    void screenshotsAtDesktopAndPhoneWidths() throws IOException {
        Path folder = Files.createDirectories(Path.of("target/screenshots"));
        for (String page : List.of("idempotency/overview/", "idempotency/concurrency/", "idempotency/keyset/")) {
            for (int width : new int[] {1280, 360}) {
                for (String theme : List.of("light", "dark")) {
                    driver.manage().window().setSize(new Dimension(width, 900));
                    driver.get(base + page);
                    ((JavascriptExecutor) driver).executeScript("localStorage.setItem('kensho-theme', arguments[0]); document.documentElement.dataset.theme = arguments[0];", theme);
                    long overflow = (Long) ((JavascriptExecutor) driver).executeScript(
                            "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
                    assertTrue(overflow <= 0, page + " scrolls sideways by " + overflow + " px at " + width + " px");
                    File shot = driver.getScreenshotAs(OutputType.FILE);
                    Files.copy(shot.toPath(), folder.resolve(page.replace('/', '-').replace(".html", "") + "-" + width + "-" + theme + ".png"),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        driver.manage().window().setSize(new Dimension(1280, 900));
        assertClean();
    }

    @Test
    void theNotFoundPageWorksFromANestedPathUnderTheBasePath() {
        driver.get(base + "kensho/idempotency/no/such/page.html");
        assertEquals("ページが見つかりません", driver.findElement(org.openqa.selenium.By.tagName("h1")).getText());
        Object rules = driver.executeScript("return [...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0)");
        assertTrue(((Number) rules).intValue() > 10, "the 404 page's stylesheet did not load: " + rules);
        String overview = driver.findElement(org.openqa.selenium.By.cssSelector(".sidebar a[href$='idempotency/overview/']")).getAttribute("href");
        assertEquals(base + "kensho/idempotency/overview/", overview);
        driver.findElement(org.openqa.selenium.By.cssSelector(".site-title")).click();
        waitUpTo(5).until(d -> d.getCurrentUrl().equals(base + "kensho/"));
        assertTrue(driver.findElements(org.openqa.selenium.By.tagName("h1")).stream().noneMatch(h -> h.getText().equals("ページが見つかりません")));
    }

    /** axe-core from npm (.ci/run installs it here); the test says so and skips without it. */
    private static final Path AXE = Path.of(System.getenv().getOrDefault("KENSHO_AXE_JS", "/tmp/kensho-axe/node_modules/axe-core/axe.min.js"));

    @Test
    void axeFindsNoViolationOnAnyPageAtEitherWidthInEitherTheme() throws Exception {
        assertNoAxeViolations(site.resolve("site"), base);
    }

    @Test
    void axeFindsNoViolationOnTheMultilingualSplashAndFallbackPages() throws Exception {
        assertNoAxeViolations(site.resolve("sample/site"), base + "sample/");
    }

    private static void assertNoAxeViolations(Path root, String siteBase) throws Exception {
        if (!Files.isReadable(AXE)) {
            String reason = "axe-core is not installed at " + AXE + " (npm install --prefix /tmp/kensho-axe axe-core@4)";
            System.out.println("SKIPPED axe checks: " + reason);
            assumeTrue(false, reason);
        }
        String axe = Files.readString(AXE);
        List<String> pages;
        try (var files = Files.walk(root)) {
            pages = files.filter(f -> f.toString().endsWith(".html")).map(f -> root.relativize(f).toString()).sorted().toList();
        }
        List<String> violations = new ArrayList<>();
        try {
            for (int width : new int[]{1280, 360}) {
                driver.manage().window().setSize(new org.openqa.selenium.Dimension(width, 900));
                for (String theme : List.of("light", "dark")) {
                    driver.get(siteBase + "index.html");
                    driver.executeScript("localStorage.setItem('kensho-theme', arguments[0])", theme);
                    for (String page : pages) {
                        driver.get(siteBase + page);
                        // Evidence, answers, folded code and the language picker open, so that what a reader can open is checked too.
                        driver.executeScript("document.querySelectorAll('details').forEach(d => d.open = true)");
                        driver.executeScript(axe);
                        Object result = driver.executeAsyncScript("const done = arguments[arguments.length - 1];"
                                + "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => v.id + ' ('"
                                + " + v.impact + '): ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))));");
                        for (Object violation : (List<?>) result) {
                            violations.add(page + " at " + width + " px, " + theme + ": " + violation);
                        }
                    }
                }
            }
        } finally {
            driver.executeScript("localStorage.removeItem('kensho-theme')");
            driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 900));
        }
        System.out.println("axe-core (" + siteBase + "): " + pages.size() + " pages x 2 widths x 2 themes, " + violations.size() + " violation(s)");
        assertEquals(List.of(), violations);
    }

    @Test
    void searchWaitsForTheImeMarksWholeWordsAndIsAComboboxForTheKeyboard() {
        driver.get(base + "index.html");
        WebElement input = driver.findElement(By.id("search-input"));
        input.click();
        // An IME mid-conversion: the raw kana are no query yet, so nothing is shown.
        driver.executeScript("const i = arguments[0]; i.dispatchEvent(new CompositionEvent('compositionstart'));"
                + "i.value = 'けっかふめい'; i.dispatchEvent(new InputEvent('input', {isComposing: true}));", input);
        sleep(400);
        assertTrue(driver.findElement(By.id("search-results")).getAttribute("hidden") != null, "results appeared during composition");
        driver.executeScript("const i = arguments[0]; i.value = '結果不明'; i.dispatchEvent(new CompositionEvent('compositionend'));", input);
        waitUpTo(5).until(d -> !d.findElements(By.cssSelector("#search-results a")).isEmpty());
        assertTrue(driver.findElement(By.cssSelector(".search-status")).getText().matches("\\d+ ページ.*"),
                driver.findElement(By.cssSelector(".search-status")).getText());

        input.sendKeys(Keys.ARROW_DOWN);
        assertEquals("search-hit-0", input.getAttribute("aria-activedescendant"));
        assertEquals("true", driver.findElement(By.id("search-hit-0")).getAttribute("aria-selected"));
        assertEquals("true", input.getAttribute("aria-expanded"));

        driver.get(base + "index.html");
        input = driver.findElement(By.id("search-input"));
        input.click();
        input.sendKeys("on");
        waitUpTo(5).until(d -> !d.findElements(By.cssSelector("#search-results mark")).isEmpty());
        for (WebElement mark : driver.findElements(By.cssSelector("#search-results mark"))) {
            assertEquals("on", mark.getText().toLowerCase(java.util.Locale.ROOT), "a highlight inside a longer word");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
