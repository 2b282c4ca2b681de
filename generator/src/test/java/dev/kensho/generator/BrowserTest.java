package dev.kensho.generator;

import com.sun.net.httpserver.HttpServer;
import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The built lesson site in Debian's Chromium, headless: navigation, Japanese search, dark mode,
 * copying code; no console error, no failed request, no request to another host. Screenshots at
 * 1280 and 360 px go to target/screenshots for a person to look at. Skipped, saying why, where
 * chromium or chromedriver is not installed (.ci/run installs both).
 */
class BrowserTest {

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
    /** Every path the server was asked for, in order. */
    private static final List<String> requested = Collections.synchronizedList(new ArrayList<>());
    private static ChromeDriver driver;
    private static String base;

    @BeforeAll
    static void buildAndServe() throws Exception {
        HeadlessChromium.assumeInstalled();
        site = Files.createTempDirectory("kensho-browser-");
        StringWriter out = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(out, true), "build",
                "--content", "../content", "--theme", "../site", "--out", site.resolve("site").toString(),
                "--report", site.resolve("report.json").toString(), "--postgres", "embedded", "--no-cache",
                // What this class tests is the browser: a page's time limit that a machine shared with other builds can
                // exceed (the concurrency page's 60 s at load 20) would fail every method before it runs.
                "--page-timeout", "300s",
                // The playground runs 18 and compares with the 18 run; the lessons on 14-17 are LessonContentTest's.
                "--postgres-version", "18");
        assertEquals(0, status, out::toString);
        Path root = site.resolve("site");
        Path sample = buildMultilingualSample(site.resolve("sample"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> serve(exchange, root, "/", false));
        server.createContext("/sample/", exchange -> serve(exchange, sample, "/sample/", false));
        // The same site as GitHub Pages serves it under a base path: a missing path at any depth gets 404.html.
        server.createContext("/kensho/", exchange -> serve(exchange, root, "/kensho/", true));
        // Several connections at once, as a real host: the playground's worker fetches PGlite while the page loads.
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";

        startBrowser();
    }

    private static void startBrowser() throws IOException {
        driver = HeadlessChromium.start(Path.of(System.getProperty("java.io.tmpdir")));
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
        // Sections that hold the word 順位 more or less: search shows the best three, best first.
        Files.writeString(content.resolve("guides/rank.md"), """
                ---
                title: 並べ方
                ---

                ## 最初

                順位は一度だけ。

                ## 順位の話

                見出しにある。

                ## 三番目

                順位、順位、順位。

                ## 四番目

                順位と順位。
                """);
        // The playground where the lesson site has no case of its own: a sorted result the build showed without
        // comparing it, and an exercise whose task shows a runnable snippet of its own.
        Files.writeString(content.resolve("guides/run.md"), """
                ---
                title: 実行
                ---

                ```sql
                CREATE TABLE t (id int PRIMARY KEY, grp int, name text);
                INSERT INTO t VALUES (1, 2, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, 1, 'd');
                ```

                ```sql
                SELECT id, name FROM t ORDER BY id DESC;
                ```

                <Exercise title="名前を並べる">
                表の中身です。

                ```sql
                SELECT * FROM t;
                ```

                `name` を `grp`、`id` の順に並べて返してください。

                <Fragment slot="answer">

                ```sql
                SELECT name FROM t ORDER BY grp, id;
                ```

                ```rows
                 name
                ------
                 b
                 d
                 a
                 c
                (4 rows)
                ```

                ```sql case="grp 0 の行と id 0 の行"
                INSERT INTO t VALUES (5, 0, 'e'), (0, 2, 'z');
                ```

                ```rows
                 name
                ------
                 e
                 b
                 d
                 z
                 a
                 c
                (6 rows)
                ```

                </Fragment>
                </Exercise>
                """);
        // What a reader meets in the playground (issue 33 §4-§6): a bigserial column the reader did not touch, a sorted
        // result whose ORDER BY a reader may remove, a value a reader may change.
        Files.writeString(content.resolve("guides/reader.md"), """
                ---
                title: 読者
                ---

                ```sql
                CREATE TABLE items (id bigserial PRIMARY KEY, name text NOT NULL);
                INSERT INTO items (name) VALUES ('b'), ('a'), ('c');
                ```

                ```sql
                SELECT id, name FROM items ORDER BY id;
                ```

                ```rows
                 id | name
                ----+------
                  1 | b
                  2 | a
                  3 | c
                (3 rows)
                ```

                ```sql
                CREATE TYPE mood AS ENUM ('ok', 'sad');
                SELECT 'ok'::mood AS m, 1 AS n;
                ```
                """);
        // Snippets after a scenario (issue 33 §3): two sessions insert rows, the snippets after read them and draw the sequence
        // on from the restored state; a second scenario makes a table in its setup, which no restore brings back.
        Files.writeString(content.resolve("guides/restored.md"), """
                ---
                title: 復元
                ---

                ```sql
                CREATE TABLE orders (id bigserial PRIMARY KEY, note text, amount numeric);
                ```

                ```scenario title="二人が同時に注文する"
                session a
                step a1 { INSERT INTO orders (note, amount) VALUES ('from a', 1.50); }
                session b
                step b1 { INSERT INTO orders (note, amount) VALUES ('it''s b', NULL); }
                permutation a1 b1
                ```

                ```sql
                SELECT id, note, amount FROM orders ORDER BY id;
                ```

                ```rows
                 id |  note  | amount
                ----+--------+--------
                  1 | from a |   1.50
                  2 | it's b | (null)
                (2 rows)
                ```

                ```sql
                INSERT INTO orders (note) VALUES ('later') RETURNING id;
                ```

                ```rows
                 id
                ----
                  3
                (1 row)
                ```

                ```scenario title="表を作ってから読む"
                setup { CREATE TABLE waits (n int); }
                session a
                step a2 { INSERT INTO waits VALUES (1); }
                session b
                step b2 { SELECT count(*) AS n FROM waits; }
                permutation a2 b2
                ```

                ```sql
                SELECT count(*) AS n FROM waits;
                ```
                """);
        // The playground's engine: a session setting and a transaction block before the snippets after them.
        Files.writeString(content.resolve("guides/engine.md"), """
                ---
                title: エンジン
                ---

                ```sql
                CREATE SCHEMA ledger;
                SET search_path = ledger, public;
                CREATE TABLE counter (n int);
                INSERT INTO counter VALUES (1), (2);
                ```

                ```sql
                BEGIN;
                INSERT INTO counter VALUES (3);
                COMMIT;
                SELECT count(*) AS rows FROM counter;
                ```

                ```sql
                SELECT sum(n) AS total FROM counter;
                ```
                """);
        // A transaction the page leaves open between snippets: what the next one does first in it is its own.
        Files.writeString(content.resolve("guides/opentx.md"), """
                ---
                title: 開いた取引
                ---

                ```sql
                CREATE TABLE t (n int);
                INSERT INTO t VALUES (1);
                BEGIN;
                ```

                ```sql
                SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
                SELECT current_setting('transaction_isolation') AS level, pg_current_xact_id_if_assigned() IS NULL AS none;
                ```

                ```sql
                COMMIT;
                ```
                """);
        // What Kensho asks of the reader's session must not show in what the reader's statements see: a sorted result the
        // build showed without comparing it, then a read of the session's temporary schema (made by the first temporary
        // object of a session) and the database's schemas, compared in order.
        Files.writeString(content.resolve("guides/probe.md"), """
                ---
                title: 順序の確かめ方
                ---

                ```sql
                CREATE TABLE t (id int PRIMARY KEY, name text);
                INSERT INTO t VALUES (2, 'b'), (1, 'a');
                SELECT id, name FROM t ORDER BY id;
                ```

                ```sql
                SELECT nspname, pg_my_temp_schema() = 0 AS no_temp FROM pg_namespace WHERE nspname NOT LIKE 'pg_toast%' ORDER BY nspname;
                ```

                ```rows
                      nspname       | no_temp
                --------------------+---------
                 information_schema | t
                 pg_catalog         | t
                 public             | t
                (3 rows)
                ```
                """);
        // What Kensho asks of an engine (is the session one a snapshot can keep?) must not be counted in what the reader's
        // statements see: the database's count of scans of pg_class (its statistics) before and after, which the build's run
        // shows nothing between the two snippets changed. No claim: per-table statistics arrive at the server's pace, so the
        // gate refuses a claim on them (ServerWideReaders PACE); the browser compares the run with the build's run.
        Files.writeString(content.resolve("guides/quiet.md"), """
                ---
                title: 静かなセッション
                ---

                ```sql
                CREATE TABLE seen AS SELECT pg_stat_get_numscans('pg_class'::regclass) + pg_stat_get_xact_numscans('pg_class'::regclass) AS scans;
                ```

                ```sql
                SELECT pg_stat_get_numscans('pg_class'::regclass) + pg_stat_get_xact_numscans('pg_class'::regclass) - scans AS more FROM seen;
                ```
                """);
        // Rows that tie under a sort's own equality but print differently: numeric 1.0 and 1.00 are equal keys.
        Files.writeString(content.resolve("guides/ties.md"), """
                ---
                title: 等しいキー
                ---

                ```sql
                CREATE TABLE price (item text, amount numeric);
                INSERT INTO price VALUES ('a', 1.0), ('b', 1.00), ('c', 2);
                ```

                ```sql
                SELECT item, amount FROM price ORDER BY amount;
                ```

                ```rows
                 item | amount
                ------+--------
                 a    |    1.0
                 b    |   1.00
                 c    |      2
                (3 rows)
                ```

                ```sql
                SELECT item, amount FROM price ORDER BY amount, item;
                ```

                ```rows
                 item | amount
                ------+--------
                 a    |    1.0
                 b    |   1.00
                 c    |      2
                (3 rows)
                ```
                """);
        // A page whose snippets read the clock: a lease of 3 seconds, then whether it is still held.
        Files.writeString(content.resolve("guides/lease.md"), """
                ---
                title: リース
                ---

                ```sql
                CREATE TABLE holder (name text NOT NULL);
                INSERT INTO holder VALUES ('a');
                SELECT count(*) AS holders FROM holder;
                ```

                ```sql
                CREATE TABLE lease (until timestamptz NOT NULL);
                INSERT INTO lease VALUES (now() + interval '3 seconds');
                ```

                ```sql
                SELECT until > now() AS held FROM lease;
                ```
                """);
        // A page with a sequence: a start from a snapshot would recover it 32 values ahead.
        Files.writeString(content.resolve("guides/sequence.md"), """
                ---
                title: 連番
                ---

                ```sql
                CREATE TABLE item (id serial PRIMARY KEY, v text NOT NULL);
                INSERT INTO item (v) VALUES ('a'), ('b'), ('c');
                ```

                ```sql
                SELECT count(*) AS items FROM item;
                ```

                ```sql
                INSERT INTO item (v) VALUES ('d') RETURNING id;
                ```
                """);
        // A page that reads the clock only in a transaction block it rolls back (as keyset's burst of inserts does): no
        // time is left in the states after the ROLLBACK.
        Files.writeString(content.resolve("guides/burst.md"), """
                ---
                title: 一瞬の挿入
                ---

                ```sql
                CREATE TABLE stock (n int NOT NULL);
                INSERT INTO stock VALUES (1), (2);
                ```

                ```sql
                BEGIN;
                CREATE TEMP TABLE burst (n int, at timestamptz DEFAULT now());
                INSERT INTO burst (n) VALUES (1), (2);
                SELECT count(*) AS made FROM burst;
                ```

                ```sql
                ROLLBACK;
                ```

                ```sql
                SELECT sum(n) AS total FROM stock;
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
        requested.add(exchange.getRequestURI().getPath());
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
                : name.endsWith(".js") ? "text/javascript" : name.endsWith(".svg") ? "image/svg+xml" : name.endsWith(".wasm") ? "application/wasm"
                : name.endsWith(".json") ? "application/json" : "application/octet-stream";
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

    /**
     * Every test starts as in a fresh tab and a fresh profile's storage: no mark of an earlier test's run (which makes
     * later pages start PostgreSQL early), no choice about the early start, no kept edit of a snippet and no theme
     * choice, so no test's outcome depends on the order the tests ran in. The tab itself and its Cache Storage (the
     * initialised cluster) are kept: a new one per test would cost seconds.
     */
    @BeforeEach
    void asInAFreshTab() throws IOException {
        if (driver != null && !HeadlessChromium.alive(driver)) {
            // A renderer that died in an earlier test (that test failed for it) would fail every later one the same
            // way; a new browser keeps the failure where it happened.
            System.out.println("browser tests: the tab had crashed; starting a new browser");
            try {
                driver.quit();
            } catch (RuntimeException ignored) {
                // The crashed browser may already be gone.
            }
            startBrowser();
        }
        if (driver != null && base != null && driver.getCurrentUrl().startsWith(base)) {
            js("try { sessionStorage.clear(); localStorage.clear() } catch (e) {}");
            // The last test's page goes, with its engines (up to 4 GB of the renderer's memory while an exercise's
            // cases run): the next test does not start beside them.
            driver.get("about:blank");
        }
    }

    private static WebDriverWait waitUpTo(int seconds) {
        // A page that reloads while a condition reads it (the preview's live reload) leaves the element just found
        // stale; the condition is asked again rather than failing the test on the race.
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(seconds));
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
        return wait;
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
    void theSchemeIsAutoLightOrDarkFollowsTheSystemLiveInAutoAndTheControlSaysWhichIsOn() {
        try {
            systemScheme("light");
            driver.get(base + "idempotency/keyset/");
            driver.executeScript("localStorage.removeItem('kensho-theme')");
            driver.navigate().refresh();
            org.openqa.selenium.support.ui.Select scheme = new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("theme-select")));
            assertEquals("light", theme());
            assertEquals("自動（ライト）", scheme.getFirstSelectedOption().getText());
            systemScheme("dark");
            waitUpTo(5).until(d -> theme().equals("dark"));
            assertEquals("自動（ダーク）", scheme.getFirstSelectedOption().getText(), "auto follows the system while the page is open");
            scheme.selectByValue("light");
            assertEquals("light", theme());
            assertEquals("ライト", scheme.getFirstSelectedOption().getText());
            driver.navigate().refresh();
            scheme = new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("theme-select")));
            assertEquals("light", theme(), "a choice is remembered");
            assertEquals("light", scheme.getFirstSelectedOption().getAttribute("value"));
            systemScheme("light");
            systemScheme("dark");
            assertEquals("light", theme(), "a choice is not overridden by the system");
            scheme.selectByValue("auto");
            assertEquals("dark", theme());
            assertEquals(null, driver.executeScript("return localStorage.getItem('kensho-theme')"));
            assertClean();
        } finally {
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features", List.of()));
        }
    }

    private static void systemScheme(String scheme) {
        driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features", List.of(Map.of("name", "prefers-color-scheme", "value", scheme))));
    }

    private static String theme() {
        return driver.findElement(By.tagName("html")).getAttribute("data-theme");
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
        try {
            for (String page : List.of("idempotency/overview/", "idempotency/concurrency/", "idempotency/keyset/")) {
                for (int width : WIDTHS) {
                    for (String theme : SCHEMES) {
                        open(page, width, theme);
                        long overflow = (Long) js("return document.documentElement.scrollWidth - document.documentElement.clientWidth");
                        assertTrue(overflow <= 0, page + " scrolls sideways by " + overflow + " px at " + width + " px");
                        String name = page.replace('/', '-') + width + "-" + theme;
                        shoot(folder.resolve(name + ".png"));
                        if (page.endsWith("concurrency/")) {
                            // A scenario's diagram, the search open over the text, and the printed page.
                            js("document.querySelectorAll('.sequence')[1].scrollIntoView({block: 'center'})");
                            shoot(folder.resolve(name + "-diagram.png"));
                            press(Keys.CONTROL, "k");
                            driver.switchTo().activeElement().sendKeys("lock_timeout");
                            waitUpTo(5).until(d -> d.findElement(By.id("search-panel")).getAttribute("hidden") == null);
                            shoot(folder.resolve(name + "-search.png"));
                            driver.switchTo().activeElement().sendKeys(Keys.ESCAPE);
                            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", "print"));
                            js("window.scrollTo(0, 0)");
                            shoot(folder.resolve(name + "-print.png"));
                            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", ""));
                        }
                    }
                }
            }
        } finally {
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", ""));
            resetViewport();
        }
        assertClean();
    }

    private static void shoot(Path file) throws IOException {
        File shot = driver.getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
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
        assertNoAxeViolations(site.resolve("site"), base, "冪等");
    }

    @Test
    void axeFindsNoViolationOnTheMultilingualSplashAndFallbackPages() throws Exception {
        assertNoAxeViolations(site.resolve("sample/site"), base + "sample/", "順位");
    }

    private static final String RUN_AXE = "const done = arguments[arguments.length - 1];"
            + "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => v.id + ' ('"
            + " + v.impact + '): ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))));";

    /** Every page at 1280 and 360 px in both schemes, as it loads (details opened) and again with search results shown. */
    private static void assertNoAxeViolations(Path root, String siteBase, String query) throws Exception {
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
        int searched = 0;
        try {
            for (int width : new int[]{1280, 360}) {
                viewport(width);
                for (String theme : List.of("light", "dark")) {
                    driver.get(siteBase + "index.html");
                    driver.executeScript("localStorage.setItem('kensho-theme', arguments[0])", theme);
                    for (String page : pages) {
                        driver.get(siteBase + page);
                        // Evidence, answers, folded code and the language picker open, so that what a reader can open is checked too.
                        driver.executeScript("document.querySelectorAll('details').forEach(d => d.open = true)");
                        driver.executeScript(axe);
                        for (Object violation : (List<?>) driver.executeAsyncScript(RUN_AXE)) {
                            violations.add(page + " at " + width + " px, " + theme + ": " + violation);
                        }
                        // The sample's 404 page links to the root of its own host, which this server does not serve the sample from.
                        if (driver.findElements(By.id("search-input")).isEmpty() || (page.equals("404.html") && !siteBase.equals(base))) {
                            continue;
                        }
                        press(Keys.CONTROL, "k");
                        driver.switchTo().activeElement().sendKeys(query);
                        waitUpTo(5).withMessage("search results on " + page)
                                .until(d -> d.findElement(By.id("search-panel")).getAttribute("hidden") == null);
                        searched++;
                        for (Object violation : (List<?>) driver.executeAsyncScript(RUN_AXE)) {
                            violations.add(page + " at " + width + " px, " + theme + ", search open: " + violation);
                        }
                    }
                }
            }
        } finally {
            driver.executeScript("localStorage.removeItem('kensho-theme')");
            resetViewport();
        }
        System.out.println("axe-core (" + siteBase + "): " + pages.size() + " pages x 2 widths x 2 themes, " + searched
                + " of them again with search open, " + violations.size() + " violation(s)");
        assertTrue(searched >= 4, "search was opened on " + searched + " page views");
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
        assertTrue(driver.findElement(By.id("search-panel")).getAttribute("hidden") != null, "results appeared during composition");
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

    /** A viewport of this width (a headless window is never narrower than 500 px; the emulated one is), 900 px high. */
    private static void viewport(int width) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", 900, "deviceScaleFactor", 1,
                "mobile", width < 500));
    }

    private static void resetViewport() {
        driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    }

    /** A key with a modifier held, sent to whatever has focus (the page itself when nothing does). */
    private static void press(Keys modifier, String key) {
        new org.openqa.selenium.interactions.Actions(driver).keyDown(modifier).sendKeys(key).keyUp(modifier).perform();
    }

    private static Object js(String script, Object... args) {
        return driver.executeScript(script, args);
    }

    private static double number(String script, Object... args) {
        return ((Number) js(script, args)).doubleValue();
    }

    /** Loads a page at a width in a scheme (remembered as the reader's choice, as a reader would pick it). */
    private static void open(String page, int width, String theme) {
        viewport(width);
        driver.get(base + page);
        js("localStorage.setItem('kensho-theme', arguments[0])", theme);
        driver.navigate().refresh();
        assertEquals(theme, theme());
    }

    private static final List<String> SCHEMES = List.of("light", "dark");
    private static final int[] WIDTHS = {1280, 360};

    /**
     * Newcomer trial helper-102: a site titled "Newcomer B's SQL Lessons" with a logo pushed search and the scheme menu off a
     * 360 px screen (the page scrolled sideways by 90 px), and a block's copy button covered its first line of code.
     */
    @Test
    void onAPhoneALongSiteTitleGivesWayAndNoCopyButtonCoversCode() {
        try {
            for (String theme : SCHEMES) {
                open("idempotency/keyset/", 360, theme);
                js("const t = document.querySelector('.site-title'); t.lastChild.textContent = \"Newcomer B's SQL Lessons and Notes\";"
                        + " const img = document.createElement('img'); img.className = 'site-logo'; img.style.width = '28px';"
                        + " img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='; t.prepend(img);");
                sleep(100);
                assertEquals(0, number("return document.documentElement.scrollWidth - document.documentElement.clientWidth"), theme + ": no sideways scroll");
                assertTrue(number("return document.querySelector('.theme-select').getBoundingClientRect().right") <= 360, theme + ": scheme menu on screen");
                assertTrue(number("return document.getElementById('search-input').getBoundingClientRect().width") >= 70, theme + ": search box usable");
                assertEquals("ellipsis", js("return getComputedStyle(document.querySelector('.site-title')).textOverflow"));
                Object covered = js("return [...document.querySelectorAll('.copy + pre')].filter(pre => pre.offsetParent)"
                        + ".filter(pre => { const b = pre.previousElementSibling.getBoundingClientRect();"
                        + " const line = pre.querySelector('.line') || pre; const r = line.getBoundingClientRect();"
                        + " return r.top < b.bottom - 0.5; }).map(pre => pre.textContent.slice(0, 30))");
                assertEquals(List.of(), covered, theme + ": code under a copy button");
                assertTrue(number("return document.querySelectorAll('.copy + pre').length") > 5, "blocks without a title bar were measured");
            }
        } finally {
            resetViewport();
        }
    }

    @Test
    void theHeaderWithSearchStaysOnScreenAndOnPhonesABarNamesTheSectionBeingRead() {
        try {
            for (int width : WIDTHS) {
                for (String theme : SCHEMES) {
                    String at = width + " px, " + theme;
                    open("idempotency/concurrency/", width, theme);
                    js("document.getElementById(arguments[0]).scrollIntoView()", "待てる時間に上限を付ける");
                    js("window.scrollBy(0, 200)");
                    sleep(200);
                    assertTrue(number("return scrollY") > 1500, at + ": the page scrolled");
                    assertEquals(0, number("return document.querySelector('.site-header').getBoundingClientRect().top"), at + ": header top");
                    double headerBottom = number("return document.querySelector('.site-header').getBoundingClientRect().bottom");
                    assertTrue(headerBottom <= 64, at + ": the header is compact, " + headerBottom + " px");
                    assertTrue((Boolean) js("const r = document.getElementById('search-input').getBoundingClientRect();"
                            + "return r.top >= 0 && r.bottom <= arguments[0] && r.width >= 100", headerBottom), at + ": search box on screen");
                    if (width == 360) {
                        assertTrue(driver.findElement(By.cssSelector(".menu-toggle")).isDisplayed(), at + ": menu button");
                        assertEquals(headerBottom, number("return document.querySelector('.toc summary').getBoundingClientRect().top"), 1.0,
                                at + ": the contents bar sits right under the header");
                        assertEquals("目次 待てる時間に上限を付ける", bar(), at);
                        assertEquals("待てる時間に上限を付ける", driver.findElement(By.cssSelector(".toc a[aria-current]")).getAttribute("textContent"));
                        // A section chosen from the bar lands below the header and the bar, and the bar names it.
                        driver.findElement(By.cssSelector(".toc summary")).click();
                        driver.findElement(By.linkText("先行する要求がロールバックする場合")).click();
                        sleep(300);
                        assertEquals("目次 先行する要求がロールバックする場合", bar(), at);
                        double tocBottom = number("return document.querySelector('.toc').getBoundingClientRect().bottom");
                        double headingTop = number("return document.getElementById('先行する要求がロールバックする場合').getBoundingClientRect().top");
                        assertTrue(headingTop >= tocBottom && headingTop < tocBottom + 80, at + ": heading at " + headingTop + ", bar ends at " + tocBottom);
                    } else {
                        assertTrue(number("return document.querySelector('.sidebar').getBoundingClientRect().top") >= headerBottom - 1,
                                at + ": the sidebar starts under the header");
                        assertTrue(!driver.findElement(By.cssSelector(".toc .toc-current")).isDisplayed(), "no bar beside the text at 1280 px");
                    }
                }
            }
            assertClean();
        } finally {
            resetViewport();
        }
    }

    /** What the phone's contents bar shows, as one line (its full name, for screen readers, is not shown). */
    private static String bar() {
        return driver.findElement(By.cssSelector(".toc .toc-bar-label")).getText() + " " + driver.findElement(By.cssSelector(".toc .toc-current")).getText();
    }

    @Test
    void thePhoneMenuCoversThePageAndLocksItsScrollUntilClosed() {
        try {
            open("idempotency/keyset/", 360, "light");
            js("window.scrollTo(0, 3000)");
            double before = number("return scrollY");
            driver.findElement(By.cssSelector(".menu-toggle")).click();
            assertEquals("true", driver.findElement(By.cssSelector(".menu-toggle")).getAttribute("aria-expanded"));
            assertEquals("hidden", js("return getComputedStyle(document.body).overflow"));
            // A reader's scroll (the wheel, or a finger) moves the menu at most, not the page behind it.
            new org.openqa.selenium.interactions.Actions(driver).scrollByAmount(0, 800).perform();
            sleep(300);
            assertEquals(before, number("return scrollY"), "the page behind the open menu does not scroll");
            assertEquals(number("return document.querySelector('.site-header').getBoundingClientRect().bottom"),
                    number("return document.querySelector('.sidebar').getBoundingClientRect().top"), 1.0, "the menu opens under the header");
            assertTrue(driver.findElement(By.linkText("同時に届いた再送")).isDisplayed(), "the menu lists the pages on screen");
            driver.findElement(By.cssSelector(".menu-toggle")).sendKeys(Keys.ESCAPE);
            assertEquals("visible", js("return getComputedStyle(document.body).overflow"));
            new org.openqa.selenium.interactions.Actions(driver).scrollByAmount(0, 800).perform();
            sleep(300);
            assertTrue(number("return scrollY") > before, "the page scrolls again once the menu is closed");
            assertClean();
        } finally {
            resetViewport();
        }
    }

    @Test
    void searchOpensWithCtrlKAndSlashEscapeKeepsTheQueryAndThreeBestSectionsShowPerPage() {
        driver.get(base + "idempotency/overview/");
        js("window.scrollTo(0, 2000)");
        press(Keys.CONTROL, "k");
        assertEquals("search-input", driver.switchTo().activeElement().getAttribute("id"), "Ctrl+K focuses the search box");
        driver.switchTo().activeElement().sendKeys("a_commit");
        waitUpTo(5).until(d -> !d.findElements(By.cssSelector("#search-results a")).isEmpty());
        List<String> hits = driver.findElements(By.cssSelector("#search-results a")).stream().map(a -> a.getAttribute("href")).toList();
        assertTrue(hits.stream().anyMatch(h -> h.contains("idempotency/concurrency/#")), "a step name inside a diagram is found: " + hits);
        assertEquals(3, hits.stream().filter(h -> h.contains("idempotency/concurrency/#")).count(), "at most three sections of a page, though more hold a_commit: " + hits);
        driver.switchTo().activeElement().sendKeys(Keys.ESCAPE);
        assertTrue(driver.findElement(By.id("search-panel")).getAttribute("hidden") != null, "Escape closes the results");
        assertEquals("a_commit", driver.findElement(By.id("search-input")).getAttribute("value"), "Escape keeps the query");
        // "/" from the page (not from a text field) goes to the search box and shows the kept query's results again.
        js("document.activeElement.blur()");
        new org.openqa.selenium.interactions.Actions(driver).sendKeys("/").perform();
        assertEquals("search-input", driver.switchTo().activeElement().getAttribute("id"), "/ focuses the search box");
        assertEquals("a_commit", driver.findElement(By.id("search-input")).getAttribute("value"), "the slash is not typed into the box");
        waitUpTo(5).until(d -> d.findElement(By.id("search-panel")).getAttribute("hidden") == null);

        driver.get(base + "sample/guides/rank/");
        press(Keys.CONTROL, "k");
        assertEquals("search-input", driver.switchTo().activeElement().getAttribute("id"), "Ctrl+K on another page");
        driver.findElement(By.id("search-input")).sendKeys("順位");
        waitUpTo(10).withMessage(() -> "results for 順位: " + driver.findElement(By.id("search-panel")).getAttribute("outerHTML"))
                .until(d -> !d.findElements(By.cssSelector("#search-results a")).isEmpty());
        assertEquals(List.of("並べ方 › 順位の話", "並べ方 › 三番目", "並べ方 › 四番目"),
                driver.findElements(By.cssSelector("#search-results .hit-title")).stream().map(WebElement::getText).toList(),
                "the heading that holds the query first, then the sections that hold it most");
        assertEquals("option", driver.findElement(By.cssSelector("#search-results a")).getAttribute("role"), "the link is the option");
        assertClean();
    }

    @Test
    void sequenceDiagramsFitTheColumnWriteEveryLabelWholeAtAboutBodySize() {
        try {
            for (int width : WIDTHS) {
                for (String theme : SCHEMES) {
                    String at = width + " px, " + theme;
                    open("idempotency/concurrency/", width, theme);
                    @SuppressWarnings("unchecked")
                    List<String> problems = (List<String>) js("""
                            const out = [];
                            const body = parseFloat(getComputedStyle(document.querySelector('.page-content p')).fontSize);
                            for (const table of document.querySelectorAll('.sequence-table')) {
                              const column = table.closest('.sequence').getBoundingClientRect();
                              const box = table.getBoundingClientRect();
                              if (box.left < column.left - 0.5 || box.right > column.right + 0.5) out.push('table wider than its column: ' + box.width + ' > ' + column.width);
                              if (box.height > 900) out.push('diagram ' + box.height + ' px tall');
                              for (const label of table.querySelectorAll('.seq-step, .seq-note, .seq-session')) {
                                const cell = label.closest('th, td').getBoundingClientRect();
                                const r = label.getBoundingClientRect();
                                const size = parseFloat(getComputedStyle(label).fontSize);
                                if (label.scrollWidth > label.clientWidth + 1 || r.left < cell.left - 0.5 || r.right > cell.right + 0.5) out.push('cut or overflowing: ' + label.textContent);
                                if (label.textContent.includes('…')) out.push('ellipsis: ' + label.textContent);
                                if (size > body || size < body * 0.75) out.push(size + ' px against body ' + body + ' px: ' + label.textContent);
                              }
                            }
                            if (!document.querySelector('.sequence-table')) out.push('no diagram');
                            return out;""");
                    assertEquals(List.of(), problems, at);
                    List<String> notes = driver.findElements(By.cssSelector(".seq-note.seq-failed")).stream().map(WebElement::getText)
                            .map(t -> t.replace("\n", "")).toList();
                    assertTrue(notes.contains("待ちの上限（lock_timeout）で文が失敗: エラー 55P03。再送 A のロックは解放されていない"), at + ": " + notes);
                }
            }
            assertClean();
        } finally {
            resetViewport();
        }
    }

    @Test
    void aCodeBlocksCopyButtonNeverCoversItsTitle() {
        try {
            for (int width : WIDTHS) {
                for (String theme : SCHEMES) {
                    open("idempotency/keyset/", width, theme);
                    // The title's own text, measured on its text nodes (not on the bar that holds it and the button).
                    @SuppressWarnings("unchecked")
                    List<String> overlaps = (List<String>) js("""
                            const out = [];
                            const titles = [...document.querySelectorAll('.code-title')].filter(t => t.querySelector('.copy'));
                            for (const title of titles) {
                              const button = title.querySelector('.copy').getBoundingClientRect();
                              for (const node of title.childNodes) {
                                if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
                                const range = document.createRange();
                                range.selectNodeContents(node);
                                for (const r of range.getClientRects()) {
                                  if (r.right > button.left && r.left < button.right && r.bottom > button.top && r.top < button.bottom) out.push(title.textContent);
                                }
                              }
                            }
                            return titles.length ? out : ['no titled code block with a copy button'];""");
                    assertEquals(List.of(), overlaps, width + " px, " + theme);
                }
            }
            assertClean();
        } finally {
            resetViewport();
        }
    }

    @Test
    void headingAnchorsAreThereOnTouchScreens() {
        try {
            viewport(360);
            driver.executeCdpCommand("Emulation.setTouchEmulationEnabled", Map.of("enabled", true, "maxTouchPoints", 1));
            driver.get(base + "idempotency/keyset/");
            assertEquals(Boolean.TRUE, js("return matchMedia('(hover: none)').matches"));
            WebElement anchor = driver.findElement(By.cssSelector("h2 .anchor"));
            assertTrue(Double.parseDouble(anchor.getCssValue("opacity")) >= 0.5, "opacity " + anchor.getCssValue("opacity"));
            assertTrue(anchor.getSize().getWidth() >= 24 && anchor.getSize().getHeight() >= 24, "a target big enough to tap: " + anchor.getSize());
            anchor.click();
            waitUpTo(5).until(d -> d.getCurrentUrl().endsWith(anchor.getAttribute("href").substring(anchor.getAttribute("href").indexOf('#'))));
        } finally {
            driver.executeCdpCommand("Emulation.setTouchEmulationEnabled", Map.of("enabled", false));
            resetViewport();
        }
    }

    @Test
    void printingShowsTheArticleAloneWithCodeWrappedAnswersOpenAndDiagramsWhole() {
        try {
            for (int width : WIDTHS) {
                for (String theme : SCHEMES) {
                    String at = width + " px, " + theme;
                    open("idempotency/concurrency/", width, theme);
                    driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", "print"));
                    @SuppressWarnings("unchecked")
                    List<String> shown = (List<String>) js("""
                            return [...document.querySelectorAll('.site-header, .sidebar, .toc, .pager, .copy, .anchor, .menu-toggle, #theme-select')]
                              .filter(e => e.checkVisibility()).map(e => e.className || e.id);""");
                    assertEquals(List.of(), shown, at + ": navigation and buttons are not printed");
                    assertEquals(0, number("return [...document.querySelectorAll('.evidence-body, .predict-content')].filter(e => !e.checkVisibility()).length"),
                            at + ": evidence and answers print open");
                    assertTrue(number("return document.querySelectorAll('.evidence-body, .predict-content').length") > 5, at);
                    assertEquals(List.of(), js("return [...document.querySelectorAll('pre')].filter(p => getComputedStyle(p).whiteSpace !== 'pre-wrap'"
                            + " || p.scrollWidth > p.clientWidth + 1).map(p => p.textContent.slice(0, 40))"), at + ": code wraps, nothing cut");
                    assertEquals(List.of(), js("return [...document.querySelectorAll('.sequence')].filter(s => getComputedStyle(s).breakInside !== 'avoid')"
                            + ".map(s => s.textContent.slice(0, 40))"), at + ": a diagram is kept on one page");
                    assertEquals("rgb(0, 0, 0)", js("return getComputedStyle(document.body).color"), at + ": printed in black on white");
                    driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", ""));
                    assertTrue(driver.findElement(By.cssSelector(".site-header")).isDisplayed(), "the screen shows the header again");
                }
            }
            assertClean();
        } finally {
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", ""));
            resetViewport();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- Run it yourself: verified snippets and exercises on PGlite in the reader's browser ----

    /** The lesson pages with verified SQL, as the build publishes them. */
    private static List<String> lessonPages() throws IOException {
        Path root = site.resolve("site");
        try (var files = Files.walk(root)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".run.json"))
                    .map(f -> root.relativize(f.getParent()).toString().replace('\\', '/') + "/").sorted().toList();
        }
    }

    /** Loads a page with run controls and waits until its snippets are there (a worker of the last page may still be fetching). */
    private static List<WebElement> openWithRunControls(String url) {
        driver.get(url);
        // Every figure of a long page, not the ones parsed so far.
        waitUpTo(30).until(d -> "complete".equals(js("return document.readyState")));
        return waitUpTo(30).withMessage(() -> "run controls on " + url + " (now at " + driver.getCurrentUrl() + ", title "
                        + driver.getTitle() + ", " + js("return document.documentElement.outerHTML.length") + " characters)")
                .until(d -> {
                    List<WebElement> figures = d.findElements(By.cssSelector("figure[data-kensho-snippet]"));
                    return figures.isEmpty() ? null : figures;
                });
    }

    /** Opens a snippet's run control (its folded details first) and waits for the verdict line. */
    private static WebElement runAndWait(WebElement figure) {
        js("const d = arguments[0].closest('details'); if (d) d.open = true; arguments[0].scrollIntoView({block: 'center'})", figure);
        figure.findElement(By.cssSelector("[data-kensho-run]")).click();
        return waitUpTo(120).withMessage("a verdict for snippet " + figure.getAttribute("data-kensho-snippet") + " on " + driver.getCurrentUrl())
                .until(d -> figure.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).stream().findFirst().orElse(null));
    }

    @Test
    void noPageLoadsThePlaygroundOrPgliteBeforeTheReaderClicks() throws IOException {
        List<String> pages = new ArrayList<>(lessonPages());
        pages.add("");
        for (String page : pages) {
            requested.clear();
            driver.get(base + page);
            waitUpTo(10).until(d -> "complete".equals(js("return document.readyState")));
            sleep(300);
            List<String> early = requested.stream().filter(p -> p.contains("pglite") || p.contains("kensho-run") || p.endsWith(".run.json")).toList();
            assertEquals(List.of(), early, "files of the playground loaded before any click on " + page);
            if (!page.isEmpty()) {
                List<WebElement> controls = driver.findElements(By.cssSelector("[data-kensho-snippet] [data-kensho-run]"));
                assertTrue(!controls.isEmpty() && controls.stream().allMatch(c -> c.getAttribute("hidden") == null),
                        "run controls are shown (where script runs) on " + page);
            }
            assertClean();
        }
    }

    @Test
    void theFirstSnippetWithComparedRowsOnTheKeysetPageReproducesThemInTheBrowser() {
        driver.get(base + "idempotency/keyset/");
        // The first snippet whose rows the build compared (its run plan entry says so).
        Number first = (Number) driver.executeAsyncScript("const done = arguments[0]; fetch('index.run.json').then(r => r.json())"
                + ".then(p => done(p.runs.find(r => r.expect && r.expect.rows).snippet))");
        WebElement figure = driver.findElement(By.cssSelector("[data-kensho-snippet='" + first.intValue() + "']"));
        requested.clear();
        WebElement verdict = runAndWait(figure);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じです。", verdict.getText());
        String verified = figure.findElement(By.cssSelector("[data-kensho-verified-rows]")).getAttribute("textContent");
        String output = figure.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent");
        assertTrue(verified.contains("rows)") || verified.contains("row)"), verified);
        assertEquals(List.of(verified.split("\n")), List.of(output.split("\n")), "the run prints the verified rows line for line");
        // What the author wrote under the snippet as psql prints it is what the reader's run printed.
        String expectedFence = (String) js("let n = arguments[0].nextElementSibling; while (n && !n.matches('.expected-rows')) n = n.nextElementSibling;"
                + " return n ? n.querySelector('pre').textContent : null", figure);
        assertEquals(expectedFence.strip(), output.strip());
        assertTrue(figure.findElement(By.cssSelector(".run-engine")).getText().contains("PostgreSQL 18.6 (PGlite 0.5.16)"),
                figure.findElement(By.cssSelector(".run-engine")).getText());
        assertTrue(requested.stream().anyMatch(p -> p.endsWith("/pglite.wasm")), "PGlite loads on the click: " + requested);
        // The click fetched the page's replay file and this snippet's rows, no other snippet's.
        assertEquals(List.of("/idempotency/keyset/index.run." + first.intValue() + ".json"),
                requested.stream().filter(p -> p.matches(".*\\.run\\.\\d+\\.json")).distinct().toList());
        assertClean();
    }

    @Test
    void everyRunnableLessonSnippetEndsInTheBrowserAsItDidOnTheServer() throws Exception {
        List<String> differ = new ArrayList<>();
        List<String> uncontrolled = new ArrayList<>();
        int runs = 0;
        for (String page : lessonPages()) {
            // Every snippet its page's run plan calls runnable has a run control, and each ends as on the server.
            Path plan = site.resolve("site").resolve(page).resolve("index.run.json");
            List<Integer> planned = new ArrayList<>();
            for (Object run : (List<?>) new com.fasterxml.jackson.databind.ObjectMapper().readValue(plan.toFile(), Map.class).get("runs")) {
                if (!((Map<?, ?>) run).containsKey("reason")) {
                    planned.add(((Number) ((Map<?, ?>) run).get("snippet")).intValue());
                }
            }
            List<WebElement> figures = openWithRunControls(base + page);
            List<Integer> controlled = figures.stream().map(f -> Integer.valueOf(f.getAttribute("data-kensho-snippet"))).sorted().toList();
            if (!controlled.equals(planned.stream().sorted().toList())) {
                uncontrolled.add(page + ": planned " + planned + ", controls " + controlled);
            }
            for (WebElement figure : figures) {
                WebElement verdict = runAndWait(figure);
                runs++;
                String kind = verdict.getAttribute("data-kensho-verdict");
                if (!kind.equals("same") && !kind.equals("plan")) {
                    differ.add(page + " snippet " + figure.getAttribute("data-kensho-snippet") + ": " + kind + " " + verdict.getText());
                    // Printed as it happens: a run killed before the end still names what differed.
                    System.out.println("browser run differs: " + differ.get(differ.size() - 1) + "\n  output: "
                            + figure.findElements(By.cssSelector("[data-kensho-run-output]")).stream().map(o -> o.getAttribute("textContent")).toList());
                }
            }
            assertClean();
        }
        System.out.println("browser runs: " + runs + " snippet runs in PGlite on " + lessonPages().size() + " pages, " + differ.size()
                + " ended otherwise than on the server");
        assertEquals(List.of(), uncontrolled, "every runnable snippet has a run control");
        assertTrue(runs >= 100, "runs: " + runs);
        assertEquals(List.of(), differ);
    }

    @Test
    void anExerciseAcceptsItsModelAnswerAndRefusesAWrongQuery() throws IOException {
        int checked = 0;
        for (String page : lessonPages()) {
            driver.get(base + page);
            for (WebElement exercise : driver.findElements(By.cssSelector("[data-kensho-exercise]:has([data-kensho-exercise-start])"))) {
                String answer = (String) js("return arguments[0].querySelector('.exercise-answer figure[data-kensho-snippet] pre').textContent", exercise);
                WebElement editor = startExercise(exercise);
                assertEquals("", editor.getAttribute("value"), "the reader starts from an empty editor, not the answer");
                js("arguments[0].value = arguments[1]", editor, answer);
                exercise.findElement(By.cssSelector(".run-go")).click();
                WebElement verdict = waitUpTo(240).withMessage(() -> page + ": a verdict; the status says: "
                                + exercise.findElement(By.cssSelector(".run-status")).getText())
                        .until(d -> exercise.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).stream().findFirst().orElse(null));
                assertEquals("same", verdict.getAttribute("data-kensho-verdict"), page + ": " + verdict.getText());
                boolean english = "en".equals(driver.findElement(By.tagName("html")).getAttribute("lang"));
                int cases = exercise.findElements(By.cssSelector(".exercise-answer figure[data-kensho-case]")).size();
                assertEquals(cases > 0 && english ? "Correct. Your query returns the model answer's result on this page's data and on all "
                        + cases + " cases the build verified the model answer on (other data; the result is compared, not how the query is written)."
                        : cases > 0 ? right(cases)
                        : english ? "Correct. Your query returns the model answer's result (the result is compared, not how the query is written)."
                        : "正解です。模範解答と同じ結果になりました（比べたのは結果で、書き方までは確かめていません）。", verdict.getText());
                // A wrong query: the model answer's rows, one short.
                js("arguments[0].value = 'SELECT * FROM (' + arguments[1].replace(/;\\s*$/, '') + ') AS answer OFFSET 1'", editor, answer);
                exercise.findElement(By.cssSelector(".run-go")).click();
                waitUpTo(120).until(d -> "different".equals(exercise.findElement(By.cssSelector(".run-verdict")).getAttribute("data-kensho-verdict")));
                assertTrue(exercise.findElement(By.cssSelector(".run-verdict")).getText().startsWith(english ? "Not yet." : "まだ違います。"),
                        exercise.findElement(By.cssSelector(".run-verdict")).getText());
                checked++;
            }
            assertClean();
        }
        assertTrue(checked >= 1, "exercises checked: " + checked);
    }

    @Test
    void aSnippetRunsUnderABasePathWithEveryFileFromTheSiteItself() {
        requested.clear();
        WebElement verdict = runAndWait(openWithRunControls(base + "kensho/idempotency/payments/").get(1));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertTrue(requested.stream().anyMatch(p -> p.equals("/kensho/assets/pglite/0.5.16/pglite.wasm")), requested.toString());
        assertTrue(requested.stream().filter(p -> p.contains("pglite")).allMatch(p -> p.startsWith("/kensho/assets/pglite/0.5.16/")), requested.toString());
        assertClean();
    }

    @Test
    void theBrowserPrintsAndComparesAsTheBuildDoes() {
        driver.get(base + "idempotency/keyset/");
        // Tables whose psql output sql-checks' PsqlOutputTest holds (made by psql): a result without columns, names with
        // spaces of their own, C0 and C1 controls, wide emoji, and the cases the printer always had.
        List<List<List<String>>> tables = List.of(
                List.of(List.of("id", "名前", "note"), List.of("int4", "text", "text"),
                        java.util.Arrays.asList("1", "冪等キー", "two\nlines"), java.util.Arrays.asList("20", null, "tab\there"),
                        java.util.Arrays.asList("300", "é\u0301", "\u0007bell")),
                List.of(List.of(), List.of(), List.of(), List.of()),
                List.of(List.of("x", "  bunch o blanks  "), List.of("text", "text"), List.of("a\u0085b\u0001\u007fc\u009f", "y")),
                List.of(List.of("  bunch o blanks  ", "n"), List.of("text", "int4"), List.of("y", "1"), List.of("cr\rx", "22")),
                // psql's widths (ucs_wcwidth's tables): emoji and symbols Unicode made wide take two columns.
                List.of(List.of("a", "b"), List.of("text", "text"), List.of("\uD83D\uDE80|\n\u231A", "y"), List.of("\uFE50", "\u4DC0")));
        for (List<List<String>> table : tables) {
            List<String> columns = table.get(0);
            List<String> types = table.get(1);
            List<List<String>> rows = table.subList(2, table.size());
            String printedByTheBuild = dev.kensho.sqlchecks.script.PsqlFormat.format(columns, types, rows, null);
            String script = "const done = arguments[arguments.length - 1]; import(new URL(document.body.dataset.runModule, location.href).href)"
                    + ".then(m => done(m.formatTable({columns: arguments[0], types: arguments[1], rows: arguments[2]})))";
            assertEquals(printedByTheBuild, driver.executeAsyncScript(script, columns, types, rows), "the browser prints psql's aligned format as the build does");
        }

        // The comparison: a multiset without ORDER BY; in order with it; rows that tie on every sort key in any order.
        String compare = "const done = arguments[arguments.length - 1]; import(new URL(document.body.dataset.runModule, location.href).href)"
                + ".then(m => { const plan = {ui: {}}; const t = (rows) => ({columns: ['k', 'v'], types: ['int4', 'text'], rows, total: rows.length});"
                + " const tie = [{column: 0, eq: 96, exact: true}];"
                + " const a = [['1', 'x'], ['1', 'y'], ['2', 'z']], b = [['1', 'y'], ['1', 'x'], ['2', 'z']], c = [['2', 'z'], ['1', 'x'], ['1', 'y']];"
                + " done([m.tableDifference(plan, t(a), t(c), null), m.tableDifference(plan, t(a), t(b), {ordered: true, ties: tie}),"
                + " m.tableDifference(plan, t(a), t(b), {ordered: true, ties: null}), m.tableDifference(plan, t(a), t(c), {ordered: true, ties: tie}),"
                + " m.tableDifference(plan, t(a), t([['1', 'x'], ['1', 'x'], ['2', 'z']]), null)]); })";
        assertEquals(java.util.Arrays.asList(null, null, "orderDiffers", "orderDiffers", "missingRows extraRows"),
                ((List<?>) driver.executeAsyncScript(compare)).stream().map(v -> v == null ? null : String.valueOf(v)
                        .replaceAll("missingRows.*extraRows.*", "missingRows extraRows")).toList());
    }

    @Test
    void whatTheReaderChangesIsJudgedForWhatItIs() {
        List<WebElement> figures = openWithRunControls(base + "idempotency/keyset/");
        // A snippet with parameters: the reader's text is one statement bound to the build's values, or an error.
        WebElement bound = figures.get(2);
        runAndWait(bound);
        assertEquals("この例のパラメーター（ビルドと同じ値を結び付けます）：$1 = 6f1c2a4e-0000-4000-8000-000000000001 (uuid), $2 = 2 (integer)",
                bound.findElement(By.cssSelector(".run-parameters")).getText());
        WebElement editor = bound.findElement(By.cssSelector("textarea"));
        js("arguments[0].value = arguments[0].value + '\\nSELECT 1 AS extra;'", editor);
        WebElement verdict = rerun(bound);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertTrue(bound.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent")
                .endsWith("ERROR:  cannot insert multiple commands into a prepared statement\nSQLSTATE: 42601"));
        // Said plainly: the PREPARE with the build's types takes one statement, not a syntax error of the reader's.
        String oneStatement = "パラメーター（$1 など）のある例は、SQL をビルドと同じパラメーターの型で 1 つの文として PREPARE し、ビルドの値を結び付けて実行します。"
                + "そのため、書ける文は 1 つだけです（SET などを前に置くことはできません）。この SQL の文はどれも実行していません。";
        assertEquals(oneStatement, verdict.getText());
        String firstPage = "SELECT order_id, created_at\nFROM orders\nWHERE account_id = '6f1c2a4e-0000-4000-8000-000000000001'\n";
        // A SET before the query: the server's PREPARE fails at "SET" (shown), the verdict says why.
        js("arguments[0].value = arguments[1]", editor, "SET TimeZone = 'Asia/Tokyo';\n" + firstPage + "ORDER BY created_at DESC, order_id DESC\nLIMIT 2;");
        verdict = rerun(bound);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals(oneStatement, verdict.getText());
        assertTrue(bound.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent")
                .endsWith("ERROR:  syntax error at or near \"SET\"\nSQLSTATE: 42601"));
        // One statement PREPARE does not take.
        js("arguments[0].value = arguments[1]", editor, "SET TimeZone = 'Asia/Tokyo';");
        verdict = rerun(bound);
        assertEquals("パラメーター（$1 など）のある例は、SQL をビルドと同じパラメーターの型で PREPARE し、ビルドの値を結び付けて実行します。"
                + "PREPARE できるのは SELECT、INSERT、UPDATE、DELETE、MERGE の文だけなので、この文は実行していません。", verdict.getText());
        // A typo stays the server's syntax error (no word about PREPARE).
        js("arguments[0].value = arguments[1]", editor, "SELEC 1;");
        verdict = rerun(bound);
        assertEquals("検証済みの結果と違います。検証済みの実行はエラーなく終わりましたが、この実行はエラーになりました。", verdict.getText());
        // The reader's SQL with literals for $1 and $2 has no parameters: its ORDER BY is read as any query's.
        js("arguments[0].value = arguments[1]", editor, firstPage + "ORDER BY created_at DESC, order_id DESC\nLIMIT 2;");
        verdict = rerun(bound);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じです。", verdict.getText());
        // The same rows with no ORDER BY for the whole result: not guaranteed, as on a snippet without parameters.
        js("arguments[0].value = arguments[1]", editor, "SELECT * FROM (" + firstPage + "ORDER BY created_at DESC, order_id DESC\nLIMIT 2) AS page;");
        verdict = rerun(bound);
        assertEquals("caution", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じ行ですが、この SQL には結果全体の ORDER BY がないため、行の順序は保証されません。", verdict.getText());
        // Text that does name a parameter: its order cannot be read, and the verdict says it is for the parameter.
        js("arguments[0].value = arguments[1]", editor, "SELECT order_id, created_at\nFROM orders\nWHERE account_id = $1\n"
                + "ORDER BY created_at DESC, order_id DESC\nLIMIT 2;");
        verdict = rerun(bound);
        assertEquals("検証済みの結果と同じ行ですが、行の順序が保証されているかを確かめられませんでした（パラメーター（$1 など）のある SQL の並び順は確かめられません。）。",
                verdict.getText());
        // An EXPLAIN replaced by another query is not "the same".
        WebElement explain = figures.stream().filter(f -> f.getAttribute("textContent").contains("EXPLAIN (GENERIC_PLAN"))
                .findFirst().orElseThrow();
        runAndWait(explain);
        js("arguments[0].value = 'SELECT 42 AS answer;'", explain.findElement(By.cssSelector("textarea")));
        verdict = rerun(explain);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertTrue(verdict.getText().startsWith("検証済みの結果と違います。列が違います（検証済み：QUERY PLAN／この実行：answer）。"), verdict.getText());
        // An exercise: rows in order by chance are not sorted rows; the same digits as text are not the same result.
        WebElement exercise = driver.findElement(By.cssSelector("[data-kensho-exercise]:has([data-kensho-exercise-start])"));
        WebElement answer = startExercise(exercise);
        js("arguments[0].value = \"SELECT order_id, amount_minor FROM orders WHERE order_id = '00000000-0000-4000-8000-00000000000d'\"", answer);
        verdict = rerun(exercise.findElement(By.cssSelector(".exercise-try")));
        assertEquals("まだ違います。行はそろっていますが、並び順を決める ORDER BY がありません（課題は並び順も求めています）。", verdict.getText());
        js("arguments[0].value = \"SELECT order_id, amount_minor::text AS amount_minor FROM orders WHERE order_id = '00000000-0000-4000-8000-00000000000d' ORDER BY 1\"", answer);
        verdict = rerun(exercise.findElement(By.cssSelector(".exercise-try")));
        assertTrue(verdict.getText().startsWith("まだ違います。列の型が違います（模範解答：order_id uuid, amount_minor int8／あなたのクエリ：order_id uuid, amount_minor text）"),
                verdict.getText());
        assertClean();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every verified scenario's run can be replayed step by step: the step's row of the sequence diagram is marked, and
     * the panel shows the step's session and name, its SQL and what the build saw it do, as the build recorded them.
     */
    @Test
    void aScenarioReplaysTheVerifiedRunStepByStep() {
        driver.get(base + "idempotency/concurrency/");
        List<WebElement> controls = waitUpTo(30).until(d -> {
            List<WebElement> found = d.findElements(By.cssSelector("[data-kensho-replay]"));
            return found.isEmpty() || !found.get(0).isDisplayed() ? null : found;
        });
        assertEquals(driver.findElements(By.cssSelector("figure.scenario.verified .sequence")).size(), controls.size(),
                "every verified scenario's run has a replay");
        WebElement sequence = controls.get(0).findElement(By.xpath("ancestor::div[contains(@class,'sequence')][1]"));
        js("arguments[0].scrollIntoView({block: 'center'})", controls.get(0));
        controls.get(0).click();
        WebElement panel = sequence.findElement(By.cssSelector(".sequence-replay"));
        assertEquals("ビルドが PostgreSQL で実行して確かめた記録を、一歩ずつ再生します。ブラウザーで実行しているのではありません。待ちと結果は、ビルドが見たとおりです。",
                panel.findElement(By.cssSelector(".sequence-replay-note")).getText());
        List<WebElement> rows = sequence.findElements(By.cssSelector(".sequence-table tbody tr"));
        List<String> sessions = sequence.findElements(By.cssSelector(".sequence-table thead th")).stream().map(WebElement::getText).toList();
        assertEquals(List.of("再送 A", "再送 B"), sessions);
        // The first scenario's first step, as content/idempotency/concurrency.md writes it and the build ran it.
        assertEquals("手順 1 / " + rows.size() + "：再送 A の a_begin", panel.findElement(By.cssSelector(".sequence-replay-position")).getText());
        assertEquals("BEGIN;", panel.findElement(By.cssSelector(".sequence-replay-sql")).getAttribute("textContent"));
        WebElement next = panel.findElement(By.cssSelector("[data-replay-step='1']"));
        WebElement previous = panel.findElement(By.cssSelector("[data-replay-step='-1']"));
        assertFalse(previous.isEnabled());
        boolean sawWait = false;
        for (int i = 0; i < rows.size(); i++) {
            final int at = i;
            List<Integer> marked = new ArrayList<>();
            for (int r = 0; r < rows.size(); r++) {
                if (rows.get(r).getAttribute("class").contains("seq-current")) marked.add(r);
            }
            assertEquals(List.of(at), marked, "only the step's row is marked");
            assertEquals("step", rows.get(i).getAttribute("aria-current"));
            List<WebElement> cells = rows.get(i).findElements(By.cssSelector("td"));
            int column = 0;
            while (cells.get(column).findElements(By.cssSelector(".seq-step")).isEmpty()) column++;
            WebElement step = cells.get(column).findElement(By.cssSelector(".seq-step"));
            List<WebElement> note = cells.get(column).findElements(By.cssSelector(".seq-note"));
            assertEquals("手順 " + (i + 1) + " / " + rows.size() + "：" + sessions.get(column) + " の " + step.getText(),
                    panel.findElement(By.cssSelector(".sequence-replay-position")).getText());
            assertEquals(step.getAttribute("title"), panel.findElement(By.cssSelector(".sequence-replay-sql")).getAttribute("textContent"));
            String result = note.isEmpty() ? "" : note.get(0).getText();
            assertEquals(result, panel.findElement(By.cssSelector(".sequence-replay-result")).getText());
            sawWait |= result.equals("再送 A の終了を待つ");
            if (i + 1 < rows.size()) {
                // By keyboard, as a reader without a mouse steps through it: Enter on Next, which keeps the focus.
                assertEquals(true, js("return document.activeElement === arguments[0]", next), "step " + (i + 1) + ": focus on Next");
                next.sendKeys(Keys.ENTER);
            } else {
                assertFalse(next.isEnabled(), "the last step is the end");
            }
        }
        assertTrue(sawWait, "B's reservation waits for A, as the build saw it");
        assertTrue(previous.isEnabled());
        // Next is disabled at the end: the focus went to Previous, not to the page's body.
        assertEquals("◀ 前へ", js("return document.activeElement.textContent.trim()"));
        assertEquals(true, js("return document.activeElement === arguments[0]", previous));
        assertClean();
    }

    /**
     * An edited run starts from the state before its snippet, every time: the second run of the same edit does not
     * see the first's row, the session's SET before it holds, and the snippet after it still runs on the build's state.
     */
    @Test
    void anEditedRunStartsFromTheStateBeforeItsSnippetEveryTime() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/engine/");
        WebElement middle = figures.get(1);
        assertEquals("same", runAndWait(middle).getAttribute("data-kensho-verdict"));
        assertEquals(" rows\n------\n    3\n(1 row)", middle.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        WebElement area = middle.findElement(By.cssSelector("textarea"));
        for (int run = 0; run < 2; run++) {
            if (run == 1) {
                pause(2000); // the reader reads the first edit's result: the engine prepares the state before the snippet meanwhile
            }
            js("arguments[0].value = arguments[1]", area,
                    "INSERT INTO counter VALUES (10);\nSELECT count(*) AS rows, sum(n) AS total, current_setting('search_path') AS path FROM counter;");
            WebElement verdict = rerun(middle);
            assertEquals(" rows | total |      path\n------+-------+----------------\n    3 |    13 | ledger, public\n(1 row)",
                    middle.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"), "run " + run);
            // The second run starts on an engine brought to the state before the snippet while the reader read the first's result.
            if (run == 1) {
                assertTrue(verdict.getAttribute("data-kensho-engine").startsWith("prepared "), verdict.getAttribute("data-kensho-engine"));
            }
        }
        js("arguments[0].value = arguments[1]", area, "SET search_path = public;\nDELETE FROM ledger.counter;");
        rerun(middle);
        WebElement last = figures.get(2);
        WebElement verdict = runAndWait(last);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals(" total\n-------\n     6\n(1 row)", last.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertClean();
    }

    /**
     * The reader's server starts as a stock one, as the build's does: PGlite's own start-up options set search_path to
     * public and allow_system_table_mods on (a reader's CREATE SCHEMA pg_x succeeded where the build's failed; red team
     * helper-74). The worker starts it without them.
     */
    @Test
    void theReadersServerStartsWithAStockSession() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/engine/");
        WebElement first = figures.get(0);
        assertEquals("same", runAndWait(first).getAttribute("data-kensho-verdict"));
        js("arguments[0].value = arguments[1]", first.findElement(By.cssSelector("textarea")),
                "RESET search_path;\nSELECT current_setting('search_path') AS path, current_setting('allow_system_table_mods') AS mods;");
        rerun(first);
        String output = first.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent");
        assertTrue(output.contains(" \"$user\", public | off\n(1 row)"), output);
        assertClean();
    }

    /**
     * Once the reader comes back to a snippet's editor after its answer, a second worker prepares the state before it: the
     * edited run answers from that engine ("prepared"), and the two workers change places, the other preparing the
     * same state for the next edit, which answers from it too and does not see the first edit's row. The snippet
     * after it still runs on the build's state.
     */
    @Test
    void anEditAnswersFromTheEnginePreparedBesideTheOneTheReaderRunsOn() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/engine/");
        assertEquals("same", runAndWait(figures.get(0)).getAttribute("data-kensho-verdict"));
        WebElement middle = figures.get(1);
        WebElement opened = runAndWait(middle);
        assertEquals("same", opened.getAttribute("data-kensho-verdict"));
        assertEquals("running 1", opened.getAttribute("data-kensho-engine"), "the verified run goes on the engine that is there");
        WebElement area = middle.findElement(By.cssSelector("textarea"));
        area.click(); // the reader comes back to the editor: the worker beside starts to prepare
        for (int run = 0; run < 2; run++) {
            // Set without an input event: the preparation was asked for when the reader came back to the editor.
            js("arguments[0].value = arguments[1]", area, "INSERT INTO counter VALUES (" + (10 + run)
                    + ");\nSELECT count(*) AS rows, sum(n) AS total, current_setting('search_path') AS path FROM counter;");
            WebElement verdict = rerun(middle);
            // The state before the snippet holds a SET: no snapshot is kept of it, so both start from the page's start.
            assertEquals("prepared 0", verdict.getAttribute("data-kensho-engine"), "run " + run);
            assertEquals(" rows | total |      path\n------+-------+----------------\n    3 |    1" + (3 + run) + " | ledger, public\n(1 row)",
                    middle.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"), "run " + run);
        }
        WebElement last = figures.get(2);
        WebElement verdict = runAndWait(last);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals(" total\n-------\n     6\n(1 row)", last.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertClean();
    }

    /**
     * In a transaction the page left open, the verified statements run first in it as on the build's server: nothing of
     * Kensho's (the probe whether a statement sorts its rows) takes the transaction's snapshot or an ID before them.
     * Before, the probe's query in a savepoint made SET TRANSACTION fail and pg_current_xact_id_if_assigned() set.
     */
    @Test
    void inATransactionThePageLeftOpenTheVerifiedStatementsAreTheFirstQueriesOfIt() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/opentx/");
        assertEquals("same", runAndWait(figures.get(0)).getAttribute("data-kensho-verdict"));
        WebElement verdict = runAndWait(figures.get(1));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("      level      | none\n-----------------+------\n repeatable read | t\n(1 row)",
                figures.get(1).findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertEquals("same", runAndWait(figures.get(2)).getAttribute("data-kensho-verdict"));
        assertClean();
    }

    /** What the build verified of the probe page's schemas, as psql prints it. */
    private static final String NO_TEMP_SCHEMA = "      nspname       | no_temp\n--------------------+---------\n"
            + " information_schema | t\n pg_catalog         | t\n public             | t\n(3 rows)";

    /**
     * The verified statements run in the reader's session before anything of Kensho's that a statement could see: how
     * each verified statement sorts its rows the build decided (the rows file says it), so no temporary view is made
     * to find out (before, a probe made one before every run, in a transaction it rolled back: the temporary schema went
     * with it, the transaction ID and OIDs it took did not). The rows file carries the build's decision.
     */
    @Test
    void theVerifiedStatementsSeeNoTemporarySchemaOrTransactionOfKenshos() throws IOException {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/probe/");
        WebElement first = runAndWait(figures.get(0));
        // No claim on the first snippet: its run is compared with the build's, which verified nothing there.
        assertEquals("ビルドの実行と同じ結果です（ビルドはこの行について何も主張していないため、行は検証していません）。", first.getText());
        WebElement verdict = runAndWait(figures.get(1));
        assertEquals("検証済みの結果と同じです。", verdict.getText());
        assertEquals(NO_TEMP_SCHEMA, figures.get(1).findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertClean();
        // The sorted result the build showed without comparing it: its order, from the build's parse, is in the rows file.
        String rows = Files.readString(site.resolve("sample/site/guides/probe/index.run.0.json"));
        assertTrue(rows.contains("\"sorted\":true,\"keys\":[0]"), rows);
    }

    /**
     * Nothing Kensho asks runs in a session the reader's statements run in: the engine prepared beside the one the reader
     * runs on is asked whether its session holds more than a snapshot keeps (a scan of pg_class, counted in the database's
     * statistics), so the reader's edited run goes to an engine that was not asked. Before, it ran on the engine asked,
     * and the edited query, the verified one with a comment, counted Kensho's scan ("more" 1 where the build verified 0).
     */
    @Test
    void theReadersEditedStatementsCountNoScanOfKenshosInTheStatistics() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/quiet/");
        WebElement second = figures.get(1);
        WebElement verdict = runAndWait(second);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        // No claim: the same as the build's run, which verified nothing here (never "the verified result").
        assertEquals("ビルドの実行と同じ結果です（ビルドはこの行について何も主張していないため、行は検証していません）。", verdict.getText());
        WebElement area = second.findElement(By.cssSelector("textarea"));
        area.click(); // the worker beside prepares the state before the snippet, and keeps a snapshot of it
        pause(8000); // the reader reads: the preparation ends (a snapshot is asked for only when no run waits)
        js("arguments[0].value = arguments[1]", area, "-- the same query\n"
                + "SELECT pg_stat_get_numscans('pg_class'::regclass) + pg_stat_get_xact_numscans('pg_class'::regclass) - scans AS more FROM seen;");
        verdict = rerun(second);
        assertEquals(" more\n------\n    0\n(1 row)", second.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"),
                verdict.getAttribute("data-kensho-engine"));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertClean();
    }

    /**
     * Whether the reader's own text sorts its rows is asked after it ran, on the engine it ran on (no run uses it again):
     * their statements see the session as the build's did. Where it cannot be asked (several statements), the order
     * was not checked, and the verdict says so in the caution's colour, never "the same".
     */
    @Test
    void theReadersOwnQueryIsProbedOnlyAfterItRanAndAnOrderNotCheckedIsNeverTheSame() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/probe/");
        WebElement figure = figures.get(1);
        assertEquals("same", runAndWait(figure).getAttribute("data-kensho-verdict"));
        WebElement area = figure.findElement(By.cssSelector("textarea"));
        js("arguments[0].value = arguments[1]", area,
                "SELECT nspname, pg_my_temp_schema() = 0 AS no_temp FROM pg_namespace WHERE nspname NOT LIKE 'pg_toast%' ORDER BY 1;");
        WebElement verdict = rerun(figure);
        assertEquals("検証済みの結果と同じです。", verdict.getText());
        assertEquals(NO_TEMP_SCHEMA, figure.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        js("arguments[0].value = arguments[1]", area, "SET enable_seqscan = off;\n"
                + "SELECT nspname, pg_my_temp_schema() = 0 AS no_temp FROM pg_namespace WHERE nspname NOT LIKE 'pg_toast%' ORDER BY 1;");
        verdict = rerun(figure);
        assertEquals("caution", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じ行ですが、行の順序が保証されているかを確かめられませんでした（サーバーがこの SQL を 1 つの問い合わせとして読めませんでした。"
                + "複数の文などは確かめられません。）。", verdict.getText());
        assertEquals(NO_TEMP_SCHEMA, figure.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        // A top-level ORDER BY whose key is no result column guarantees nothing the result can show: never "the same".
        js("arguments[0].value = arguments[1]", area,
                "SELECT nspname, pg_my_temp_schema() = 0 AS no_temp FROM pg_namespace WHERE nspname NOT LIKE 'pg_toast%' ORDER BY (SELECT 1), 1;");
        verdict = rerun(figure);
        assertEquals("caution", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じ行ですが、行の順序が保証されているかを確かめられませんでした（ORDER BY のキーに結果の列でない式があり、"
                + "どの行が同順位かが結果から分かりません。）。", verdict.getText());
        assertClean();
    }

    /**
     * A reader who ran SQL in this tab finds PostgreSQL started on a further page with run controls before their first
     * click there: the page says so where it says what a run costs, fetches the engine while idle, and the first run
     * answers on that engine ("running 0") with the verified rows. Before that run, in the same fresh tab, the same
     * page fetched nothing of the playground.
     */
    @Test
    void aFurtherPageInATabWhereTheReaderRanSqlStartsTheEngineBeforeTheClick() {
        try {
            requested.clear();
            List<WebElement> unrun = openWithRunControls(base + "sample/guides/lease/");
            assertEquals("初回は PostgreSQL（約 16 MB）を読み込みます", unrun.get(0).findElement(By.cssSelector(".run-cost")).getText());
            sleep(1500);
            assertEquals(List.of(), requested.stream().filter(p -> p.contains("pglite") || p.contains("kensho-run")).toList(),
                    "a fresh tab loads nothing of the playground before a click");
            List<WebElement> figures = openWithRunControls(base + "sample/guides/engine/");
            assertEquals("same", runAndWait(figures.get(0)).getAttribute("data-kensho-verdict"));
            assertEquals("1", js("return sessionStorage.getItem('kensho-run-ran')"));
            assertTrue(figures.get(0).findElement(By.cssSelector(".run-early-box")).isSelected(), "on, as the tab's run made it, until the reader chooses");
            assertEquals(null, js("return localStorage.getItem('kensho-run-early')"), "nothing chosen, nothing kept beyond the tab");
            requested.clear();
            List<WebElement> next = openWithRunControls(base + "sample/guides/lease/");
            assertEquals("このタブで実行したので、PostgreSQL をブラウザーのキャッシュから先に起動しています（CPU と約 200 MB のメモリを使います。"
                    + "やめるには実行パネルのチェックを外します）", next.get(0).findElement(By.cssSelector(".run-cost")).getText());
            waitUpTo(60).withMessage(() -> "the engine fetched before any click: " + requested)
                    .until(d -> requested.stream().anyMatch(p -> p.endsWith("/pglite.wasm")));
            WebElement verdict = runAndWait(next.get(0));
            assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
            assertEquals("running 0", verdict.getAttribute("data-kensho-engine"), "the run goes on the engine started early");
            assertEquals(" holders\n---------\n       1\n(1 row)", next.get(0).findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
            assertClean();
        } finally {
            js("sessionStorage.removeItem('kensho-run-ran')"); // no other test's page starts the engine before a click
        }
    }

    /**
     * The box in a run panel turns the early start off and on, kept in this browser over the tab's mark: unticked, a
     * further page says the plain cost and fetches nothing before a click although the reader ran SQL in this tab;
     * ticked, a further page in a tab with no run starts the engine early and says it was the reader's choice.
     */
    @Test
    void aReaderWhoChoseToStartTheEngineEarlyFindsItStartedOnTheNextPageAndOneWhoChoseNotDoesNot() {
        try {
            List<WebElement> figures = openWithRunControls(base + "sample/guides/engine/");
            assertEquals("same", runAndWait(figures.get(0)).getAttribute("data-kensho-verdict"));
            WebElement box = figures.get(0).findElement(By.cssSelector(".run-early-box"));
            assertTrue(box.isSelected(), "on after a run in this tab, until the reader chooses");
            assertEquals("次のページからは、開いたときに PostgreSQL を先に起動しておく（このタブで実行した後は、選ぶまでオン。選択はこのブラウザーに記録します。"
                    + "読み込みはブラウザーのキャッシュから。起動のたびに CPU と約 200 MB のメモリを使います）", figures.get(0).findElement(By.cssSelector(".run-early")).getText());
            box.click();
            assertEquals("0", js("return localStorage.getItem('kensho-run-early')"));
            requested.clear();
            List<WebElement> off = openWithRunControls(base + "sample/guides/lease/");
            assertEquals("初回は PostgreSQL（約 16 MB）を読み込みます", off.get(0).findElement(By.cssSelector(".run-cost")).getText());
            sleep(1500);
            assertEquals(List.of(), requested.stream().filter(p -> p.contains("pglite") || p.contains("kensho-run")).toList(),
                    "the reader's opt-out holds over the tab's run");
            WebElement untouched = runAndWait(off.get(0));
            assertEquals("same", untouched.getAttribute("data-kensho-verdict"), untouched.getText());
            WebElement unticked = off.get(0).findElement(By.cssSelector(".run-early-box"));
            assertFalse(unticked.isSelected(), "the reader's choice, not the tab's run");
            unticked.click();
            assertEquals("1", js("return localStorage.getItem('kensho-run-early')"));
            js("sessionStorage.removeItem('kensho-run-ran')"); // as in a new tab: the choice alone starts it
            requested.clear();
            List<WebElement> next = openWithRunControls(base + "sample/guides/engine/");
            assertEquals("以前に選んだとおり、PostgreSQL をブラウザーのキャッシュから先に起動しています（CPU とメモリを使います。やめるには実行パネルのチェックを外します）",
                    next.get(0).findElement(By.cssSelector(".run-cost")).getText());
            waitUpTo(60).withMessage(() -> "the engine fetched before any click: " + requested)
                    .until(d -> requested.stream().anyMatch(p -> p.endsWith("/pglite.wasm")));
            WebElement verdict = runAndWait(next.get(0));
            assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
            assertEquals("running 0", verdict.getAttribute("data-kensho-engine"), "the run goes on the engine started early, not on one beside it");
            assertClean();
        } finally {
            js("sessionStorage.removeItem('kensho-run-ran'); localStorage.removeItem('kensho-run-early')"); // no other test's page starts the engine before a click
        }
    }

    @Test
    void onAPageThatReadsTheClockAnEditedRunAfterItReplaysJustBeforeItRunsAndOneBeforeItIsPrepared() {
        // The build ran the snippets one after another: the lease of 3 seconds was held. A state prepared while the
        // reader read (or kept in a snapshot) holds a lease taken when it was prepared, expired by the edited run.
        List<WebElement> figures = openWithRunControls(base + "sample/guides/lease/");
        // Before the page's first snippet that reads the clock the state holds no time: it is prepared as on any page.
        WebElement before = figures.get(0);
        assertEquals("same", runAndWait(before).getAttribute("data-kensho-verdict"));
        // Typing asks the worker to prepare the state before the snippet while the reader types.
        type(before.findElement(By.cssSelector("textarea")),
                "CREATE TABLE holder (name text NOT NULL);\nSELECT count(*) AS holders FROM holder;");
        pause(3000);
        WebElement prepared = rerun(before);
        assertEquals("prepared 0", prepared.getAttribute("data-kensho-engine"));
        assertEquals(" holders\n---------\n       0\n(1 row)", before.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        WebElement check = figures.get(2);
        assertEquals("same", runAndWait(check).getAttribute("data-kensho-verdict"));
        pause(8000); // longer than the lease and than the time the engine waits before it prepares a state
        js("arguments[0].value = arguments[1]", check.findElement(By.cssSelector("textarea")), "SELECT until > now() AS still_held FROM lease;");
        WebElement verdict = rerun(check);
        List<String> output = List.of(check.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent").split("\n"));
        assertEquals(List.of("still_held", "t", "(1 row)"), List.of(output.get(0).strip(), output.get(2).strip(), output.get(3)), output.toString());
        assertEquals("started 0", verdict.getAttribute("data-kensho-engine"), "the page is started anew and replayed, not prepared");
        assertClean();
    }

    /**
     * Rows tie as the sort's equality operator ties them, as the build compared them, not by their text: 1.0 and 1.00 are
     * one numeric key. So the verified ORDER BY amount's a and b may come in either order ("the same", where the page
     * once called b before a another order), and a reader's ORDER BY amount, where the verified order was amount, item,
     * does not guarantee the verified order of a and b (a caution, where the page once said "the same").
     */
    @Test
    void rowsTieAsTheSortsEqualityTiesThemNotAsTheirTextReads() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/ties/");
        WebElement byAmount = figures.get(1);
        assertEquals("same", runAndWait(byAmount).getAttribute("data-kensho-verdict"));
        js("arguments[0].value = arguments[1]", byAmount.findElement(By.cssSelector("textarea")),
                "SELECT item, amount FROM price ORDER BY amount, item DESC;");
        WebElement verdict = rerun(byAmount);
        assertEquals(" item | amount\n------+--------\n b    |   1.00\n a    |    1.0\n c    |      2\n(3 rows)",
                byAmount.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じです。", verdict.getText());
        WebElement byAmountAndItem = figures.get(2);
        assertEquals("same", runAndWait(byAmountAndItem).getAttribute("data-kensho-verdict"));
        js("arguments[0].value = arguments[1]", byAmountAndItem.findElement(By.cssSelector("textarea")),
                "SELECT item, amount FROM price ORDER BY amount;");
        verdict = rerun(byAmountAndItem);
        assertEquals("caution", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("検証済みの結果と同じ行ですが、行の順序が保証されているかを確かめられませんでした（ORDER BY のキーで同順位になる行を、"
                + "検証済みの結果は並べ分けています。その行どうしの順序は保証されません。）。", verdict.getText());
        assertClean();
    }

    /**
     * The reader runs a snippet and stays at its answer with the cursor in its editor: the state
     * before the snippet is prepared beside meanwhile, without their typing or coming back to the editor, so their edit,
     * typed just before Run, answers from that engine, with exactly what their statements give at the build's state. The
     * page read the clock before the snippet, in a transaction block it rolled back: no time is left in that state, so it
     * is prepared as on any page. Before, an edit there was always served by an engine started and replayed on the edit's
     * path ("started 0"): nothing was prepared after a page's first clock reading, and nothing before the first keystroke.
     */
    @Test
    void anEditAfterTheReaderStayedAtTheAnswerAnswersFromThePreparedEngineEvenAfterAClockReadRolledBack() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/burst/");
        WebElement total = figures.get(3);
        js("arguments[0].scrollIntoView({block: 'center'})", total);
        total.findElement(By.cssSelector("[data-kensho-run]")).click();
        // The reader clicks into the editor while the engine starts (with a fine pointer the panel puts the cursor there
        // itself; this browser has none): coming to the editor during a run asks for nothing.
        WebElement area = waitUpTo(10).until(d -> total.findElement(By.cssSelector("textarea")));
        area.click();
        WebElement verdict = waitUpTo(120).until(d -> total.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).stream().findFirst().orElse(null));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals(" total\n-------\n     3\n(1 row)", total.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertEquals(true, js("return document.activeElement === arguments[0]", area), "the cursor stays in the editor");
        pause(8000); // the reader reads the answer
        // Set without an input event, then Run: nothing but the stay at the answer asked for the preparation.
        js("arguments[0].value = arguments[1]", area, "INSERT INTO stock VALUES (40);\nSELECT sum(n) AS total, count(*) AS rows FROM stock;");
        verdict = rerun(total);
        assertTrue(verdict.getAttribute("data-kensho-engine").startsWith("prepared "), verdict.getAttribute("data-kensho-engine"));
        assertEquals(" total | rows\n-------+------\n    43 |    3\n(1 row)",
                total.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertClean();
    }

    @Test
    void anEditedRunAfterASequenceGetsTheNextValueAsOnAFreshServer() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/sequence/");
        WebElement insert = figures.get(2);
        assertEquals("same", runAndWait(insert).getAttribute("data-kensho-verdict"));
        for (int run = 0; run < 2; run++) {
            pause(3000); // the engine prepares the state before the snippet meanwhile (and would keep a snapshot of it)
            js("arguments[0].value = arguments[1]", insert.findElement(By.cssSelector("textarea")), "INSERT INTO item (v) VALUES ('e') RETURNING id;");
            rerun(insert);
            List<String> output = List.of(insert.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent").split("\n"));
            assertEquals("4", output.get(2).strip(), "run " + run + ": " + output);
        }
        assertClean();
    }

    @Test
    void sortedRowsCompareInOrderAndAnExerciseIsCheckedAgainstItsOwnAnswer() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/run/");
        WebElement sorted = figures.get(1);
        assertEquals("same", runAndWait(sorted).getAttribute("data-kensho-verdict"));
        js("arguments[0].value = 'SELECT id, name FROM t ORDER BY id;'", sorted.findElement(By.cssSelector("textarea")));
        WebElement verdict = rerun(sorted);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertTrue(verdict.getText().startsWith("検証済みの結果と違います。行はそろっていますが、順序が違います"), verdict.getText());
        // Results before an error are shown with it, as psql shows them.
        js("arguments[0].value = 'SELECT 1 AS one; SELECT * FROM no_such_table;'", sorted.findElement(By.cssSelector("textarea")));
        rerun(sorted);
        assertEquals(" one\n-----\n   1\n(1 row)\n\nERROR:  relation \"no_such_table\" does not exist\nSQLSTATE: 42P01",
                sorted.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));

        WebElement exercise = driver.findElement(By.cssSelector("[data-kensho-exercise]"));
        WebElement answer = startExercise(exercise);
        js("arguments[0].value = 'SELECT * FROM t;'", answer); // the task's own snippet, not the model answer
        verdict = rerun(exercise.findElement(By.cssSelector(".exercise-try")));
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        // Sorted by a key the result does not show, coarser than the model answer's (grp ties): the order is not the
        // model answer's, though this data's rows may come out in it.
        js("arguments[0].value = 'SELECT name FROM t ORDER BY grp;'", answer);
        verdict = rerun(exercise.findElement(By.cssSelector(".exercise-try")));
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        // The model answer's own keys, not shown, then one more: its order, refined.
        js("arguments[0].value = 'SELECT name FROM t ORDER BY grp, id, name;'", answer);
        verdict = rerun(exercise.findElement(By.cssSelector(".exercise-try")));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        js("arguments[0].value = 'SELECT name FROM t ORDER BY grp, id;'", answer);
        verdict = rerun(exercise.findElement(By.cssSelector(".exercise-try")));
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertClean();
    }

    /** The verdict on a query that gives the model answer's result on the page's data and on its {@code cases} cases. */
    private static String right(int cases) {
        return "正解です。このページのデータでも、ビルドが模範解答で確かめた " + cases + " 件のケース（別のデータ）でも、模範解答と同じ結果になりました"
                + "（比べたのは結果で、書き方までは確かめていません）。";
    }

    /** The verdict on a query whose result differs from the model answer's on the case named {@code name}: its name, no row of it. */
    private static String wrongOnCase(String name) {
        return "まだ違います。ケース「" + name + "」で、結果が模範解答と違います（このページのデータとは別に、ビルドが模範解答で確かめたデータです。"
                + "どんなデータかは模範解答を開くと見られます）。";
    }

    @Test
    void anExerciseIsJudgedOnEachVerifiedCaseAndAWrongQueryIsToldTheCaseByName() {
        openWithRunControls(base + "sample/guides/run/");
        WebElement exercise = driver.findElement(By.cssSelector("[data-kensho-exercise]"));
        assertEquals("あなたのクエリは、このページのデータのほかに、ビルドが模範解答で確かめた 1 件の別のデータ（ケース）でも模範解答と比べます。"
                + "どれか一つでも結果が違えば、そのケースの名前を示します。", exercise.findElement(By.cssSelector(".exercise-cases")).getText());
        WebElement answer = startExercise(exercise);
        WebElement place = exercise.findElement(By.cssSelector(".exercise-try"));
        // Right on the page's data (b d a c), wrong on the case's: z sorts after a and c by name, before them by id.
        js("arguments[0].value = 'SELECT name FROM t ORDER BY grp, name;'", answer);
        WebElement verdict = rerun(place);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("まだ違います。ケース「grp 0 の行と id 0 の行」で、行はそろっていますが順序が模範解答と違います。", verdict.getText());
        // The output shown is the reader's run on the page's data; nothing of the case's rows.
        assertFalse(place.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent").contains("z"));
        js("arguments[0].value = 'SELECT name FROM t ORDER BY grp, id LIMIT 100 + 0 / (SELECT count(*) - 6 FROM t);'", answer);
        verdict = rerun(place);
        assertEquals("まだ違います。ケース「grp 0 の行と id 0 の行」で、あなたのクエリはエラーになりました（SQLSTATE 22012）。", verdict.getText());
        // A query that ends the transaction a case runs in is not judged on that case's data (it would stay).
        js("arguments[0].value = 'COMMIT; SELECT name FROM t ORDER BY grp, id;'", answer);
        verdict = rerun(place);
        assertEquals("まだ違います。あなたのクエリがトランザクションを終えたため、ケース「grp 0 の行と id 0 の行」では確かめられません"
                + "（各ケースは一つのトランザクションの中で実行し、最後に取り消します）。クエリだけを書いてください。", verdict.getText());
        // The next check starts from the page's state again (the committed case data is gone): the model answer holds everywhere.
        js("arguments[0].value = 'SELECT name FROM t ORDER BY grp, id;'", answer);
        verdict = rerun(place);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals(right(1), verdict.getText());
        assertEquals(" name\n------\n b\n d\n a\n c\n(4 rows)", place.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
        assertClean();
    }

    /**
     * The mistakes each lesson page warns about, as a reader would write them: each is refused, by the case that
     * tells it from the model answer (or by the page's own data), and the model answer passes on every case. A sample
     * per page, to show the browser names the same case as the build: LessonExerciseMistakesTest holds every mistake,
     * checked on PostgreSQL 18.6.
     */
    @Test
    void theLessonExercisesRefuseTheMistakesTheirPagesWarnAbout() {
        String account = "'6f1c2a4e-0000-4000-8000-000000000001'";
        Map<String, List<List<String>>> mistakes = new java.util.LinkedHashMap<>();
        mistakes.put("idempotency/keyset/", List.of(
                List.of("SELECT order_id, amount_minor FROM orders WHERE account_id = " + account
                        + " ORDER BY created_at DESC, order_id DESC OFFSET 3 LIMIT 3;", wrongOnCase("一覧の先頭に新しい注文が入った")),
                List.of("SELECT order_id, amount_minor FROM orders WHERE account_id = " + account
                        + " AND created_at < timestamptz '2026-11-20 10:02:00+00' ORDER BY created_at DESC, order_id DESC LIMIT 3;",
                        wrongOnCase("カーソルと同じ時刻の注文")),
                // No tie-breaker in ORDER BY: the tied orders in PGlite's storage order, as on the server.
                List.of("SELECT order_id, amount_minor FROM orders WHERE account_id = " + account + " AND (created_at, order_id)"
                        + " < (timestamptz '2026-11-20 10:02:00+00', '00000000-0000-4000-8000-00000000000c'::uuid)"
                        + " ORDER BY created_at DESC LIMIT 3;", wrongOnCase("インデックスの無い表で、同じ時刻の注文がページをまたぐ")),
                // The OR form without its parentheses (reader trial helper-93 found it called right before the case was added).
                List.of("SELECT order_id, amount_minor FROM orders WHERE account_id = " + account
                        + " AND created_at < timestamptz '2026-11-20 10:02:00+00' OR (created_at = timestamptz '2026-11-20 10:02:00+00'"
                        + " AND order_id < '00000000-0000-4000-8000-00000000000c'::uuid) ORDER BY created_at DESC, order_id DESC LIMIT 3;",
                        wrongOnCase("C と同じ時刻の注文が後から入り、別のアカウントにも同じ時刻の注文がある")),
                List.of("SELECT '00000000-0000-4000-8000-00000000000d'::uuid AS order_id, 4000::bigint AS amount_minor ORDER BY 1;",
                        wrongOnCase("カーソルと同じ時刻の注文"))));
        String decision = " AS decision, response_status FROM idempotency_records WHERE account_id = " + account
                + " AND operation = 'create_order' AND key = 'k-7f3a';";
        mistakes.put("idempotency/overview/", List.of(
                List.of("SELECT CASE WHEN response_status IS NULL THEN 'in_progress' WHEN canonical_request <> "
                        + "'{\"currency\": \"JPY\", \"item\": \"book-43\", \"quantity\": 1}'::jsonb THEN 'mismatch' ELSE 'replay' END"
                        + decision, wrongOnCase("処理中の記録に、別の本文の再送")),
                // Always "mismatch" with the record's status: right while the body differs, wrong once it is the same.
                List.of("SELECT 'mismatch'" + decision, wrongOnCase("処理中の記録に、同じ本文の再送")),
                List.of("SELECT CASE WHEN canonical_request <> '{\"currency\": \"JPY\", \"item\": \"book-43\", \"quantity\": 1}'::jsonb"
                        + " THEN 'mismatch' WHEN response_status IS NULL THEN 'in_progress' ELSE 'replay' END AS decision, response_status"
                        + " FROM idempotency_records WHERE key = 'k-7f3a';", wrongOnCase("別のアカウントと別の操作も、同じキー k-7f3a を使っている"))));
        mistakes.put("idempotency/fingerprint/", List.of(
                List.of("SELECT '{\"quantity\": 1, \"item\": \"book-42\", \"quantity\": 2}'::jsonb::text AS duplicated_as_text,"
                        + " true AS jsonb_equal, true AS hash_equal;", wrongOnCase("後ろの quantity が一度目と違う再送")),
                List.of("SELECT body::jsonb::text AS duplicated_as_text, true AS jsonb_equal, true AS hash_equal"
                        + " FROM arrived_bodies WHERE label = 'first';", wrongOnCase("後ろの quantity が一度目と違う再送"))));
        String inquiry = "SELECT merchant_reference, amount_minor, currency, order_id FROM payment_attempts ";
        mistakes.put("idempotency/payments/", List.of(
                List.of(inquiry + "WHERE state <> 'succeeded' ORDER BY merchant_reference;",
                        wrongOnCase("失敗が確定した後の払い直しと、まだ送っていない試行")),
                List.of("SELECT a.merchant_reference, o.amount_minor, a.currency, a.order_id FROM payment_attempts AS a"
                        + " JOIN orders AS o USING (order_id) WHERE a.state = 'unknown' ORDER BY a.merchant_reference;",
                        wrongOnCase("一部をポイントで払った注文"))));
        String permits = "SELECT permit_id, split_part(permit_id, ':', 2) AS order_ref, split_part(permit_id, ':', 3)::integer AS attempt_no"
                + " FROM call_permits ";
        mistakes.put("idempotency/at-most-once/", List.of(
                List.of(permits + "WHERE state <> 'succeeded' ORDER BY permit_id;", wrongOnCase("失敗が確定した試行と、まだ消費していない許可"))));
        mistakes.put("idempotency/records/", List.of(
                List.of("SELECT key, CASE WHEN canonical_request <> '{\"api_version\": \"2026-09-01\", \"currency\": \"JPY\", \"item\":"
                        + " \"book-42\", \"quantity\": 1}'::jsonb THEN 'mismatch' WHEN response_status IS NULL THEN 'in_progress' ELSE 'replay'"
                        + " END AS decision FROM idempotency_records WHERE account_id = " + account + " ORDER BY key;",
                        wrongOnCase("別の操作にも、同じキー K1 の処理中の記録がある"))));
        mistakes.put("idempotency/troubleshooting/", List.of(
                List.of("SELECT attempt_id, timestamptz '2026-11-29 10:00:00+00' - unknown_since AS waiting_for FROM payment_attempts"
                        + " WHERE state = 'unknown' ORDER BY attempt_id;", "まだ違います。ケース「番号の大きい試行が、いちばん長く待っている」で、"
                        + "行はそろっていますが順序が模範解答と違います。")));
        List<String> unexpected = new ArrayList<>();
        mistakes.forEach((page, queries) -> {
            openWithRunControls(base + page);
            WebElement exercise = driver.findElement(By.cssSelector("[data-kensho-exercise]:has([data-kensho-exercise-start])"));
            String model = (String) js("return arguments[0].querySelector('.exercise-answer figure[data-kensho-snippet] pre').textContent", exercise);
            int cases = exercise.findElements(By.cssSelector(".exercise-answer figure[data-kensho-case]")).size();
            WebElement answer = startExercise(exercise);
            WebElement place = exercise.findElement(By.cssSelector(".exercise-try"));
            for (List<String> mistake : queries) {
                js("arguments[0].value = arguments[1]", answer, mistake.get(0));
                WebElement verdict = rerun(place);
                if (!verdict.getText().equals(mistake.get(1))) {
                    unexpected.add(page + " " + mistake.get(0) + "\n  expected: " + mistake.get(1) + "\n  got:      " + verdict.getText());
                }
            }
            js("arguments[0].value = arguments[1]", answer, model);
            WebElement verdict = rerun(place);
            if (!verdict.getText().equals(right(cases))) {
                unexpected.add(page + " the model answer: " + verdict.getText());
            }
            assertClean();
        });
        assertEquals("", String.join("\n", unexpected));
    }

    /** Opens an exercise's editor and returns it. */
    private static WebElement startExercise(WebElement exercise) {
        js("arguments[0].scrollIntoView({block: 'center'})", exercise);
        exercise.findElement(By.cssSelector("[data-kensho-exercise-start]")).click();
        return waitUpTo(10).until(d -> exercise.findElement(By.cssSelector(".exercise-try textarea.run-editor")));
    }

    /** Presses the panel's Run (or Check) and waits for a new verdict. */
    private static WebElement rerun(WebElement container) {
        js("arguments[0].querySelector('.run-verdict').removeAttribute('data-kensho-verdict')", container);
        container.findElement(By.cssSelector(".run-go")).click();
        return waitUpTo(240).withMessage(() -> "a verdict; the status says: " + container.findElement(By.cssSelector(".run-status")).getText())
                .until(d -> container.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).stream().findFirst().orElse(null));
    }

    // ---- Issue 33 §4-§6: a verdict a reader can read, edits kept and shared, the reader's device ----

    /** The sample's reader page, its sorted bigserial snippet opened and run unedited; returns its figure. */
    private static WebElement openReaderSnippet() {
        WebElement figure = openWithRunControls(base + "sample/guides/reader/").get(1);
        js("localStorage.clear()");
        return figure;
    }

    /** Puts text in a panel's editor as typing would (an input event: what the page keeps). */
    private static void type(WebElement area, String text) {
        js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", area, text);
    }

    /**
     * A snippet after a scenario runs from the state the build recorded after it, and the run says so; the sequence goes on
     * where the scenario left it. After a scenario whose restore the build could not prove, the note stays.
     */
    @Test
    void aSnippetAfterAScenarioRunsFromTheRestoredStateAndSaysSo() {
        List<WebElement> figures = openWithRunControls(base + "sample/guides/restored/");
        assertEquals(List.of("0", "2", "3"), figures.stream().map(f -> f.getAttribute("data-kensho-snippet")).toList());
        assertEquals(List.of("ブラウザーでは実行できません（複数のセッションを同時に使う例で、ブラウザーの PostgreSQL（PGlite）の接続は一つだけのため）",
                "ブラウザーでは実行できません（複数のセッションを同時に使う例で、ブラウザーの PostgreSQL（PGlite）の接続は一つだけのため）",
                "ブラウザーでは実行できません（ブラウザーでは再現できない例「表を作ってから読む」の後に実行されるため）"),
                driver.findElements(By.cssSelector(".run-unavailable")).stream().map(WebElement::getText).toList());
        WebElement rows = figures.get(1);
        WebElement verdict = runAndWait(rows);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        assertEquals("シナリオの後の状態は、ビルドの実行が残した行から復元しています（ブラウザーではシナリオを実行せず、ビルドが記録した表の行と順序の位置を入れ直します）。",
                rows.findElement(By.cssSelector(".run-restored")).getText());
        String output = rows.findElement(By.cssSelector(".run-output")).getText();
        assertTrue(output.contains("1 | from a |   1.50") && output.contains("2 | it's b |"), output);
        WebElement next = figures.get(2);
        verdict = runAndWait(next);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"), "the sequence goes on at 3, as after the scenario: " + verdict.getText());
        // A snippet before any scenario says nothing of a restore.
        runAndWait(figures.get(0));
        assertEquals(0, figures.get(0).findElements(By.cssSelector(".run-restored")).size());
        assertClean();
    }

    /**
     * An exercise's editor keeps the reader's query across a reload and shares it by link like a snippet's; a kept or shared
     * query is never judged before the reader presses Check, and a shared one is said to be someone else's.
     */
    @Test
    void anExerciseKeepsTheReadersQueryAndSharesItAndJudgesItOnlyOnCheck() {
        String page = base + "sample/guides/run/";
        openWithRunControls(page);
        js("localStorage.clear()");
        WebElement exercise = driver.findElement(By.cssSelector("[data-kensho-exercise]"));
        WebElement area = startExercise(exercise);
        String mine = "SELECT name FROM t ORDER BY id; -- <b>mine</b>";
        type(area, mine);
        assertEquals("編集済み", exercise.findElement(By.cssSelector(".run-edited-badge")).getText());
        assertEquals("前に書いたクエリです（このブラウザーに保存してあります）。まだ確かめていません。",
                exercise.findElement(By.cssSelector(".run-edited-words")).getText());
        String answer = exercise.findElement(By.cssSelector(".exercise-answer figure[data-kensho-snippet]")).getAttribute("data-kensho-snippet");
        // Kept apart from the model answer's own snippet, whose editor it never opens in.
        assertEquals(List.of("kensho-edit:/sample/guides/run/#x" + answer), ((List<?>) js("return Object.keys(localStorage)"))
                .stream().map(k -> k.toString().replaceAll(":[0-9a-f]{16}$", "")).toList());
        driver.navigate().refresh();
        openWithRunControls(page);
        WebElement reloaded = driver.findElement(By.cssSelector("[data-kensho-exercise]"));
        assertEquals("編集済みの SQL を開きます", reloaded.findElement(By.cssSelector(".exercise-try .run-kept")).getText());
        requested.clear();
        WebElement kept = startExercise(reloaded);
        assertEquals(mine, kept.getAttribute("value"));
        assertEquals("編集済み", reloaded.findElement(By.cssSelector(".run-edited-badge")).getText());
        assertEquals(0, reloaded.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).size(), "not judged before Check");
        // Shared: without a clipboard (as here) the link goes to the address bar.
        js("Object.defineProperty(navigator, 'clipboard', {value: {writeText: () => Promise.reject(new Error('no'))}})");
        reloaded.findElement(By.cssSelector(".run-share")).click();
        waitUpTo(5).until(d -> d.getCurrentUrl().contains("#run=x" + answer + ":"));
        String link = driver.getCurrentUrl();
        assertEquals("クリップボードを使えないため、リンクをアドレスバーに入れました。そこからコピーしてください。",
                reloaded.findElement(By.cssSelector(".exercise-try .run-status")).getText());
        js("localStorage.clear()");
        driver.get("about:blank");
        requested.clear();
        driver.get(link);
        openWithRunControls(link);
        WebElement opened = driver.findElement(By.cssSelector("[data-kensho-exercise]"));
        assertEquals("共有リンクの SQL を開きます（検証済みの SQL ではありません）", opened.findElement(By.cssSelector(".exercise-try .run-shared")).getText());
        WebElement sharedArea = startExercise(opened);
        assertEquals(mine, sharedArea.getAttribute("value"));
        assertEquals("共有リンクの SQL", opened.findElement(By.cssSelector(".run-edited-badge")).getText());
        assertEquals("リンクに入っていたクエリで、あなたが書いたものでも模範解答でもありません。読んでから確かめてください。",
                opened.findElement(By.cssSelector(".run-edited-words")).getText());
        assertEquals("共有リンクのクエリを開きました。中身を確かめてから「確かめる」を押してください。",
                opened.findElement(By.cssSelector(".exercise-try .run-status")).getText());
        assertEquals(0, opened.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).size(), "not judged before Check");
        assertEquals(0L, js("return arguments[0].querySelectorAll('.exercise-try b').length", opened), "the fragment never becomes markup");
        assertEquals(List.of(), requested.stream().filter(p -> p.contains("pglite")).toList(), "no engine before Check");
        WebElement verdict = rerun(opened.findElement(By.cssSelector(".exercise-try")));
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        // Cleared: the editor is empty again and nothing is kept.
        opened.findElement(By.cssSelector(".run-back")).click();
        assertEquals("", sharedArea.getAttribute("value"));
        assertFalse(opened.findElement(By.cssSelector(".run-edited")).isDisplayed());
        assertEquals(0L, js("return Object.keys(localStorage).filter(k => k.startsWith('kensho-edit:')).length"));
        assertClean();
    }

    @Test
    void anUntouchedBigserialColumnIsTheVerifiedResultAndAnUnorderedOneIsACautionNotSame() throws IOException {
        // The build records the type the server reports for the result column (int8), as the browser sees it.
        String rows = Files.readString(site.resolve("sample/site/guides/reader/index.run.1.json"));
        assertTrue(rows.contains("\"types\":[\"int8\",\"text\"]"), rows);
        WebElement figure = openReaderSnippet();
        WebElement verdict = runAndWait(figure);
        assertEquals("same", verdict.getAttribute("data-kensho-verdict"));
        assertEquals("検証済みの結果と同じです。", verdict.getText());
        assertEquals("\"✓\"", js("return getComputedStyle(arguments[0], '::before').content", verdict));
        // ORDER BY removed: the rows came in the verified order today, which nothing promises any more.
        type(figure.findElement(By.cssSelector("textarea")), "SELECT id, name FROM items;");
        verdict = rerun(figure);
        assertEquals("caution", verdict.getAttribute("data-kensho-verdict"));
        assertEquals("検証済みの結果と同じ行ですが、この SQL には結果全体の ORDER BY がないため、行の順序は保証されません。", verdict.getText());
        assertEquals("\"⚠\"", js("return getComputedStyle(arguments[0], '::before').content", verdict));
        // A type the page created: the build names it by its OID (it reads no catalog in the page's session), the
        // browser's server gives it another OID; both are the page's own type, and the result is the verified one.
        String enumRows = Files.readString(site.resolve("sample/site/guides/reader/index.run.2.json"));
        assertTrue(enumRows.matches("(?s).*\"types\":\\[\"[0-9]+\",\"int4\"\\].*"), enumRows);
        WebElement enumVerdict = runAndWait(driver.findElements(By.cssSelector("figure[data-kensho-snippet]")).get(2));
        assertEquals("ビルドの実行と同じ結果です（ビルドはこの行について何も主張していないため、行は検証していません）。", enumVerdict.getText());
        // Said once in the panel, not under every run.
        assertEquals("編集済み", figure.findElement(By.cssSelector(".run-edited-badge")).getText());
        assertEquals("この SQL は検証済みのものではありません。一つの要求として送り（エラーが出ると、この実行の文はすべて取り消されます）、"
                + "後の例は元の SQL で状態を作り直してから実行します。", figure.findElement(By.cssSelector(".run-edited-words")).getText());
        assertEquals("検証済みの SQL に戻す", figure.findElement(By.cssSelector(".run-back")).getText());
        assertFalse(verdict.getText().contains("一つの要求"), "the note is not repeated in the verdict");
        assertFalse(figure.findElement(By.cssSelector(".evidence")).isDisplayed(), "the build's mark is not shown over the reader's SQL");
        assertClean();
    }

    @Test
    void aDifferingResultIsOneTableWithItsRowAndCellMarkedAndTheMissingRowUnderIt() throws IOException {
        WebElement figure = openReaderSnippet();
        runAndWait(figure);
        type(figure.findElement(By.cssSelector("textarea")), "SELECT id, CASE WHEN id = 2 THEN 'x' ELSE name END AS name FROM items ORDER BY id;");
        WebElement verdict = rerun(figure);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"));
        assertEquals("検証済みの結果と違います。足りない行 1（表の下）。余分な行 1（表に印）。", verdict.getText());
        assertEquals(true, js("const s = getComputedStyle(arguments[0]); return arguments[0].clientHeight - parseFloat(s.paddingTop)"
                + " - parseFloat(s.paddingBottom) < 2 * parseFloat(s.lineHeight)", verdict), "the verdict is one line at 1280 px");
        WebElement output = figure.findElement(By.cssSelector("[data-kensho-run-output]"));
        assertEquals(" id | name\n----+------\n  1 | b\n  2 | x\n  3 | c\n(3 rows)", output.getAttribute("textContent"));
        assertEquals(List.of("  2 | x"), js("return [...arguments[0].querySelectorAll('.run-row-extra')].map(e => e.textContent)", output));
        assertEquals(List.of("x"), js("return [...arguments[0].querySelectorAll('mark.run-cell-differs')].map(e => e.textContent)", output));
        assertEquals("\"  ← 検証済みの結果にない行\"", js("return getComputedStyle(arguments[0].querySelector('.run-row-extra'), '::after').content", output));
        assertEquals(" id | name\n----+------\n  2 | a\n(1 row)", figure.findElement(By.cssSelector(".run-missing-rows")).getAttribute("textContent"));
        // The verified result is one fold away, not a second box above the reader's.
        assertFalse(figure.findElement(By.cssSelector("[data-kensho-verified-rows]")).isDisplayed());
        // A long result: psql's footer counts every row; the note says how many are shown.
        type(figure.findElement(By.cssSelector("textarea")), "SELECT g AS id, 'n' AS name FROM generate_series(1, 3000) AS g;");
        rerun(figure);
        String printed = output.getAttribute("textContent");
        assertTrue(printed.endsWith("\n 1000 | n\n…（先頭の 1000 行だけを表示しています）\n(3000 rows)"), printed.substring(printed.length() - 120));
        assertFalse(printed.contains("(1000 rows)"), "no footer contradicts the count");
        shootReader("reader-differs");
        assertClean();
    }

    /**
     * Screenshots of the reader page's panel with a differing result at both widths in both schemes, for a person to look
     * at: opened from a share link of the differing SQL, so that each takes one run.
     */
    private static void shootReader(String name) throws IOException {
        Path shots = Files.createDirectories(Path.of("target/screenshots"));
        String link = base + "sample/guides/reader/#run=1:" + java.net.URLEncoder.encode(
                "SELECT id, CASE WHEN id = 2 THEN 'x' ELSE name END AS name FROM items ORDER BY id;", java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
        try {
            for (int width : WIDTHS) {
                for (String theme : SCHEMES) {
                    viewport(width);
                    driver.get("about:blank");
                    driver.get(link);
                    js("localStorage.setItem('kensho-theme', arguments[0])", theme);
                    driver.navigate().refresh();
                    WebElement figure = openWithRunControls(link).get(1);
                    figure.findElement(By.cssSelector("[data-kensho-run]")).click();
                    waitUpTo(10).until(d -> figure.findElement(By.cssSelector(".run-verdict")));
                    assertEquals("different", rerun(figure).getAttribute("data-kensho-verdict"));
                    js("arguments[0].scrollIntoView({block: 'start'})", figure);
                    shoot(shots.resolve(name + "-" + width + "-" + theme + ".png"));
                }
            }
        } finally {
            js("localStorage.clear()");
            resetViewport();
        }
    }

    @Test
    void anEditIsKeptAcrossAReloadUntilTheReaderGoesBackAndAStaleOneIsDropped() {
        WebElement figure = openReaderSnippet();
        runAndWait(figure);
        type(figure.findElement(By.cssSelector("textarea")), "SELECT id FROM items ORDER BY id DESC;");
        driver.navigate().refresh();
        figure = openWithRunControls(base + "sample/guides/reader/").get(1);
        assertEquals("編集済みの SQL を開きます", figure.findElement(By.cssSelector(".run-kept")).getText());
        WebElement verdict = runAndWait(figure);
        assertEquals("SELECT id FROM items ORDER BY id DESC;", figure.findElement(By.cssSelector("textarea")).getAttribute("value"));
        assertEquals("編集済み", figure.findElement(By.cssSelector(".run-edited-badge")).getText());
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"));
        figure.findElement(By.cssSelector(".run-back")).click();
        assertEquals("SELECT id, name FROM items ORDER BY id;\n".strip(), figure.findElement(By.cssSelector("textarea")).getAttribute("value").strip());
        assertFalse(figure.findElement(By.cssSelector(".run-edited")).isDisplayed());
        assertEquals(0L, js("return Object.keys(localStorage).filter(k => k.startsWith('kensho-edit:')).length"));
        // An edit kept for another text of the snippet (the page changed since) is not put over the new one.
        js("localStorage.setItem('kensho-edit:' + location.pathname + '#1:0000000000000000', 'SELECT 1 AS stale;')");
        driver.navigate().refresh();
        figure = openWithRunControls(base + "sample/guides/reader/").get(1);
        runAndWait(figure);
        assertEquals("SELECT id, name FROM items ORDER BY id;", figure.findElement(By.cssSelector("textarea")).getAttribute("value").strip());
        assertEquals(0L, js("return Object.keys(localStorage).filter(k => k.startsWith('kensho-edit:')).length"));
        assertClean();
    }

    @Test
    void aShareLinkCarriesTheEditedSqlAndOpensItAsTheReadersOwnNeverAsMarkup() {
        WebElement figure = openReaderSnippet();
        runAndWait(figure);
        String mine = "SELECT name FROM items WHERE name <> 'a' ORDER BY name; -- <b>mine</b> & 日本語";
        type(figure.findElement(By.cssSelector("textarea")), mine);
        // Without a clipboard (as here) the link goes to the address bar.
        js("Object.defineProperty(navigator, 'clipboard', {value: {writeText: () => Promise.reject(new Error('no'))}})");
        figure.findElement(By.cssSelector(".run-share")).click();
        waitUpTo(5).until(d -> d.getCurrentUrl().contains("#run=1:"));
        String link = driver.getCurrentUrl();
        assertEquals("クリップボードを使えないため、リンクをアドレスバーに入れました。そこからコピーしてください。",
                figure.findElement(By.cssSelector(".run-status")).getText());
        js("localStorage.clear()");
        driver.get("about:blank");
        driver.get(link);
        WebElement opened = openWithRunControls(link).get(1);
        assertEquals("共有リンクの SQL を開きます（検証済みの SQL ではありません）", opened.findElement(By.cssSelector(".run-shared")).getText());
        opened.findElement(By.cssSelector("[data-kensho-run]")).click();
        WebElement area = waitUpTo(10).until(d -> opened.findElement(By.cssSelector("textarea")));
        assertEquals(mine, area.getAttribute("value"));
        assertEquals("共有リンクの SQL", opened.findElement(By.cssSelector(".run-edited-badge")).getText());
        assertEquals("共有リンクの SQL を開きました。中身を確かめてから「実行」を押してください。", opened.findElement(By.cssSelector(".run-status")).getText());
        assertFalse(opened.findElement(By.cssSelector(".evidence")).isDisplayed(), "no verified mark over the shared SQL");
        assertEquals(0L, js("return arguments[0].querySelectorAll('b').length", opened), "the fragment never becomes markup");
        // It waits for the reader's Run; then it is judged as the reader's SQL.
        WebElement verdict = rerun(opened);
        assertEquals("different", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        // A hostile fragment is text; an oversized one is not read at all.
        driver.get("about:blank");
        driver.get(base + "sample/guides/reader/#run=1:%3Cimg%20src%3Dx%20onerror%3D%22window.__owned%3D1%22%3E");
        WebElement hostile = openWithRunControls(driver.getCurrentUrl()).get(1);
        hostile.findElement(By.cssSelector("[data-kensho-run]")).click();
        assertEquals("<img src=x onerror=\"window.__owned=1\">", waitUpTo(10).until(d -> hostile.findElement(By.cssSelector("textarea"))).getAttribute("value"));
        assertEquals(0L, js("return document.querySelectorAll('main img[src=\"x\"]').length + (window.__owned ? 1 : 0)"));
        driver.get("about:blank");
        driver.get(base + "sample/guides/reader/#run=1:" + "x".repeat(20001));
        assertEquals(0, openWithRunControls(driver.getCurrentUrl()).get(1).findElements(By.cssSelector(".run-shared")).size());
        assertClean();
    }

    @Test
    void theCostIsSaidBeforeTheFirstClickAndTheLoadShowsItsStageSecondsAndBytes() throws IOException {
        driver.get(base + "sample/guides/reader/");
        List<WebElement> figures = openWithRunControls(base + "sample/guides/reader/");
        WebElement cost = figures.get(1).findElement(By.cssSelector(".run-cost"));
        java.util.regex.Matcher said = java.util.regex.Pattern.compile("初回は PostgreSQL（約 (\\d+) MB）を読み込みます").matcher(cost.getText());
        assertTrue(said.matches(), cost.getText());
        requested.clear();
        // Every text the status shows, as it changes (the loading figures pass too fast to be polled).
        js("window.kenshoStatuses = []; const figure = arguments[0];"
                + " new MutationObserver(() => { const s = figure.querySelector('.run-status');"
                + " if (s && s.textContent !== window.kenshoStatuses[window.kenshoStatuses.length - 1]) window.kenshoStatuses.push(s.textContent); })"
                + ".observe(figure, { subtree: true, childList: true, characterData: true });", figures.get(1));
        figures.get(1).findElement(By.cssSelector("[data-kensho-run]")).click();
        waitUpTo(120).until(d -> figures.get(1).findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).size() == 1);
        // While PGlite loads: its stage and seconds, then the megabytes of its WebAssembly and data come so far, of their
        // total, rising to every byte of them (the server here says each file's length).
        List<String> statuses = ((List<?>) js("return window.kenshoStatuses")).stream().map(String::valueOf).toList();
        String first = statuses.stream().filter(t -> t.startsWith("PostgreSQL")).findFirst().orElseThrow();
        assertTrue(first.matches("PostgreSQL を読み込んでいます…（\\d+ 秒）"), statuses.toString());
        Path engine = site.resolve("sample/site/assets/pglite/" + dev.kensho.generator.render.playground.BrowserEngine.version());
        long engineBytes = Files.size(engine.resolve("pglite.wasm")) + Files.size(engine.resolve("initdb.wasm")) + Files.size(engine.resolve("pglite.data"));
        String total = String.format(java.util.Locale.ROOT, "%.1f", engineBytes / 1_000_000.0);
        java.util.regex.Pattern bytesSaid = java.util.regex.Pattern.compile("PostgreSQL を読み込んでいます… (\\d+\\.\\d) / " + java.util.regex.Pattern.quote(total) + " MB（\\d+ 秒）");
        List<Double> figuresSaid = statuses.stream().map(bytesSaid::matcher).filter(java.util.regex.Matcher::matches)
                .map(m -> Double.parseDouble(m.group(1))).toList();
        assertTrue(figuresSaid.size() >= 2, statuses.toString());
        assertEquals(0.0, figuresSaid.get(0), statuses.toString());
        assertEquals(Double.parseDouble(total), figuresSaid.get(figuresSaid.size() - 1), statuses.toString());
        for (int i = 1; i < figuresSaid.size(); i++) {
            assertTrue(figuresSaid.get(i) >= figuresSaid.get(i - 1), statuses.toString());
        }
        // The figure said is what the first run downloaded, in MB rounded.
        long bytes = 0;
        for (String path : requested.stream().filter(p -> p.contains("/assets/pglite/")).distinct().toList()) {
            bytes += Files.size(site.resolve("sample/site").resolve(path.substring("/sample/".length())));
        }
        assertEquals(Math.round(bytes / 1_000_000.0), Long.parseLong(said.group(1)), requested.toString());
        assertEquals(0, driver.findElements(By.cssSelector(".run-cost")).size(), "said until it is downloaded, not after");
        assertClean();
    }

    @Test
    void focusStaysOnTheControlsAndARunawayQueryIsStoppedByStopAndByTheClock() {
        WebElement figure = openReaderSnippet();
        WebElement control = figure.findElement(By.cssSelector("[data-kensho-run]"));
        js("arguments[0].scrollIntoView({block: 'center'})", control);
        control.sendKeys(Keys.ENTER); // opened without a mouse
        waitUpTo(120).until(d -> figure.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).size() == 1);
        assertEquals(true, js("return arguments[0].contains(document.activeElement) && document.activeElement.matches('textarea.run-editor, .run-go')", figure),
                "opened by keyboard, focus is on the editor (or Run where there is no fine pointer), not the page's body");
        WebElement go = figure.findElement(By.cssSelector(".run-go"));
        type(figure.findElement(By.cssSelector("textarea")), "SELECT pg_sleep(60);");
        go.sendKeys(Keys.ENTER);
        WebElement stop = waitUpTo(10).until(d -> figure.findElement(By.cssSelector(".run-stop")).isDisplayed() ? figure.findElement(By.cssSelector(".run-stop")) : null);
        assertEquals(true, js("return document.activeElement === arguments[0]", go), "Run keeps focus while it runs");
        assertEquals("true", go.getAttribute("aria-disabled"));
        waitUpTo(60).until(d -> figure.findElement(By.cssSelector(".run-status")).getText().startsWith("実行しています… 30 秒たっても終わらなければ止めます。")
                || figure.findElement(By.cssSelector(".run-status")).getText().startsWith("実行しています…30 秒たっても終わらなければ止めます。"));
        stop.sendKeys(Keys.ENTER);
        waitUpTo(10).until(d -> !stop.isDisplayed());
        assertEquals(true, js("return document.activeElement === arguments[0]", go), "after Stop, focus is on Run");
        assertEquals("実行を止めました。次の実行では、PostgreSQL を起動し直してページの状態を作り直します。",
                figure.findElement(By.cssSelector(".run-status")).getText());
        // Nobody presses Stop: the page stops it after the time it said.
        go.sendKeys(Keys.ENTER);
        waitUpTo(150).until(d -> figure.findElement(By.cssSelector(".run-status")).getText()
                .equals("30 秒たっても終わらなかったため止めました。次の実行では、PostgreSQL を起動し直してページの状態を作り直します。"));
        assertEquals(true, js("return document.activeElement === arguments[0]", go));
        assertClean();
    }

    @Test
    void anEmptyExerciseDoesNotStartPostgres() {
        openWithRunControls(base + "sample/guides/run/");
        WebElement exercise = driver.findElement(By.cssSelector("[data-kensho-exercise]"));
        WebElement answer = startExercise(exercise);
        requested.clear();
        js("arguments[0].value = '  -- nothing yet\\n'", answer);
        exercise.findElement(By.cssSelector(".run-go")).click();
        assertEquals("クエリを書いてから「確かめる」を押してください。", exercise.findElement(By.cssSelector(".exercise-try .run-status")).getText());
        sleep(500);
        assertEquals(List.of(), requested.stream().filter(p -> p.contains("pglite")).toList(), "no engine for an empty query");
        assertEquals(0, exercise.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).size());
        assertClean();
    }

    @Test
    void onAPhoneTheEditorIs16PxAndRunControls44PxTallAndPrintHidesEveryRunControl() {
        try {
            viewport(360);
            WebElement figure = openReaderSnippet();
            assertTrue(number("return arguments[0].getBoundingClientRect().height", figure.findElement(By.cssSelector("[data-kensho-run]"))) >= 44);
            runAndWait(figure);
            assertEquals("16px", js("return getComputedStyle(arguments[0]).fontSize", figure.findElement(By.cssSelector("textarea"))));
            @SuppressWarnings("unchecked")
            List<Number> heights = (List<Number>) js("return [...arguments[0].querySelectorAll('.run-actions button')].filter(b => b.checkVisibility())"
                    + ".map(b => b.getBoundingClientRect().height)", figure);
            assertFalse(heights.isEmpty());
            assertTrue(heights.stream().allMatch(h -> h.doubleValue() >= 44), heights.toString());
            // The keyset page at 360 px: its diagrams are whole (they scale, or scroll in their own frame).
            open("idempotency/keyset/", 360, "light");
            assertTrue(number("return document.querySelectorAll('.diagram-scroll').length") >= 2);
            assertEquals(List.of(), js("return [...document.querySelectorAll('.diagram-scroll')].filter(s => s.getBoundingClientRect().right > innerWidth + 1"
                    + " || s.scrollWidth > s.clientWidth + 1).map(s => s.closest('figure').textContent.slice(0, 40))"), "every diagram is whole at 360 px");
            // Copy buttons are tapped too: 44 px at 360 px (28 px on a desktop, below).
            @SuppressWarnings("unchecked")
            List<Number> copies = (List<Number>) js("return [...document.querySelectorAll('.copy')].filter(b => b.checkVisibility())"
                    + ".map(b => b.getBoundingClientRect().height)");
            assertFalse(copies.isEmpty());
            assertTrue(copies.stream().allMatch(h -> h.doubleValue() >= 44), "copy buttons at 360 px: " + copies);
            WebElement panel = driver.findElements(By.cssSelector("figure[data-kensho-snippet]")).get(2);
            runAndWait(panel);
            // The panel that replaced the code starts below the copy button over it.
            assertTrue(number("return arguments[0].querySelector('.run-panel .run-editor').getBoundingClientRect().top"
                    + " - arguments[0].querySelector(':scope > .copy').getBoundingClientRect().bottom", panel) >= 0, "the editor starts below the copy button");
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", "print"));
            assertEquals(List.of(), js("return [...document.querySelectorAll('button, .run-unavailable, .run-cost, textarea ~ .run-key-hint')]"
                    + ".filter(e => e.checkVisibility()).map(e => e.className + ': ' + e.textContent.slice(0, 30))"), "print shows no run control or note");
            assertTrue(number("return document.querySelectorAll('.run-unavailable').length") > 0, "the page has notes to hide");
            // An opened run panel and its editor do not print; the verified SQL the panel replaced on screen does.
            assertEquals(List.of("none", "none"), js("return [arguments[0].querySelector('.run-panel'), arguments[0].querySelector('.run-editor')]"
                    + ".map(e => getComputedStyle(e).display)", panel));
            assertEquals(List.of(), js("return [...document.querySelectorAll('.run-panel, .run-editor, .sequence-replay')]"
                    + ".filter(e => e.checkVisibility()).map(e => e.className)"), "print shows no run panel or editor");
            assertEquals(true, js("return arguments[0].querySelector(':scope > pre').checkVisibility()", panel), "the verified SQL prints");
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", ""));
            resetViewport();
            open("idempotency/keyset/", 1280, "light");
            assertEquals("28px", js("return getComputedStyle(document.querySelector('.copy')).minHeight"), "a desktop's copy buttons are as they were");
        } finally {
            driver.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("media", ""));
            js("localStorage.clear()");
            resetViewport();
        }
        assertClean();
    }

    @Test
    void anExplainOfASnippetWithPlanClaimsSaysWhichStillHoldInTheBrowser() {
        List<WebElement> figures = openWithRunControls(base + "idempotency/keyset/");
        WebElement claimed = figures.stream().filter(f -> f.getAttribute("textContent").contains("backward-scan.sql")).findFirst().orElseThrow();
        runAndWait(claimed);
        js("arguments[0].querySelector('.run-verdict').removeAttribute('data-kensho-verdict')", claimed);
        claimed.findElement(By.cssSelector(".run-explain")).click();
        WebElement verdict = waitUpTo(120).until(d -> claimed.findElements(By.cssSelector(".run-verdict[data-kensho-verdict]")).stream().findFirst().orElse(null));
        assertEquals("plan", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
        String plan = claimed.findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent");
        System.out.println("the browser's plan of backward-scan.sql:\n" + plan);
        @SuppressWarnings("unchecked")
        List<String> checks = (List<String>) js("return [...arguments[0].querySelectorAll('.run-check-list li')].map(li => li.textContent)", claimed);
        boolean index = plan.contains("using orders_ascending_idx on orders");
        boolean sort = plan.matches("(?s).*\\bSort\\b.*");
        assertEquals(List.of((index ? "✓ 索引 orders_ascending_idx を使う：この計画でも成り立ちます" : "✗ 索引 orders_ascending_idx を使う：この計画では成り立ちません"),
                (sort ? "✗ Sort ノードがない：この計画では成り立ちません" : "✓ Sort ノードがない：この計画でも成り立ちます")), checks);
        assertEquals("実行計画です（行は比べていません）。ビルドの計画の検証項目 2 件のうち、" + ((index ? 1 : 0) + (sort ? 0 : 1))
                + " 件がこのブラウザーの計画でも成り立ちます。", verdict.getText());
        assertClean();
    }

    @Test
    void aRunControlOpenedFromAFileSaysAWebServerIsNeeded() {
        driver.get(site.resolve("site/idempotency/keyset/index.html").toUri().toString());
        WebElement control = driver.findElement(By.cssSelector("[data-kensho-snippet] [data-kensho-run]"));
        js("const d = arguments[0].closest('details'); if (d) d.open = true", control);
        control.click();
        WebElement status = waitUpTo(5).until(d -> control.findElement(By.xpath("following-sibling::p[@class='run-status']")));
        assertTrue(status.getText().startsWith("ブラウザーで実行するには、サイトを Web サーバーから開いてください。"), status.getText());
    }

    @Test
    void axeFindsNoViolationWithThePlaygroundOpenAtEitherWidthInEitherTheme() throws Exception {
        assumeTrue(Files.isReadable(AXE), "axe-core is not installed at " + AXE);
        String axe = Files.readString(AXE);
        List<String> violations = new ArrayList<>();
        Path shots = Path.of("target/screenshots");
        Files.createDirectories(shots);
        try {
            for (int width : WIDTHS) {
                for (String theme : SCHEMES) {
                    open("idempotency/keyset/", width, theme);
                    WebElement figure = driver.findElements(By.cssSelector("figure[data-kensho-snippet]")).get(2);
                    runAndWait(figure);
                    List<WebElement> exercises = driver.findElements(By.cssSelector("[data-kensho-exercise]"));
                    if (!exercises.isEmpty()) {
                        exercises.get(0).findElement(By.cssSelector("[data-kensho-exercise-start]")).click();
                        js("arguments[0].querySelectorAll('details').forEach(d => d.open = true)", exercises.get(0));
                    }
                    js("arguments[0].scrollIntoView({block: 'start'})", figure);
                    shoot(shots.resolve("playground-" + width + "-" + theme + ".png"));
                    driver.executeScript(axe);
                    for (Object violation : (List<?>) driver.executeAsyncScript(RUN_AXE)) {
                        violations.add(width + " px, " + theme + ": " + violation);
                    }
                }
            }
        } finally {
            driver.executeScript("localStorage.removeItem('kensho-theme')");
            resetViewport();
        }
        assertEquals(List.of(), violations);
    }

    /**
     * The cluster initdb made on a reader's first run is written to the browser's storage only after that run answered
     * (a 40 MB write beside the first run slowed it): the first run's split says initdb ran and the cluster was dumped
     * before the engine started, the copy is in Cache Storage soon after the answer, and a further page then starts
     * from it without initdb (no initdb in its split) with the verified rows.
     */
    @Test
    void theClusterMadeOnTheFirstRunIsKeptAfterItsAnswerAndAFurtherPageStartsFromIt() {
        String keptCopy = "const done = arguments[arguments.length - 1]; caches.keys()"
                + ".then((names) => Promise.all(names.filter((n) => n.startsWith('kensho-cluster ')).map((n) => caches.open(n)"
                + ".then((c) => c.match(new URL('kensho-initialised-cluster-2.tar', new URL(document.body.dataset.engine, location.href)).href)))))"
                + ".then((found) => done(found.filter(Boolean).length), (e) => done('cache: ' + e))";
        try {
            driver.get(base + "sample/guides/engine/");
            driver.executeAsyncScript("const done = arguments[arguments.length - 1]; caches.keys()"
                    + ".then((names) => Promise.all(names.filter((n) => n.startsWith('kensho-cluster ')).map((n) => caches.delete(n)))).then(() => done())");
            assertEquals(0L, driver.executeAsyncScript(keptCopy), "no copy before the first run");
            List<WebElement> figures = openWithRunControls(base + "sample/guides/engine/");
            WebElement first = runAndWait(figures.get(0));
            assertEquals("same", first.getAttribute("data-kensho-verdict"), first.getText());
            Map<?, ?> split = (Map<?, ?>) js("return JSON.parse(arguments[0])", first.getAttribute("data-kensho-timings"));
            assertTrue(split.containsKey("initdb") && ((Number) split.get("initdb")).longValue() <= ((Number) split.get("dumped")).longValue()
                    && ((Number) split.get("dumped")).longValue() <= ((Number) split.get("started")).longValue(), "made here: " + split);
            waitUpTo(30).withMessage("the cluster kept after the first answer").until(d -> Long.valueOf(1).equals(driver.executeAsyncScript(keptCopy)));
            js("sessionStorage.removeItem('kensho-run-ran')"); // the further page starts nothing before the click
            List<WebElement> next = openWithRunControls(base + "sample/guides/lease/");
            WebElement verdict = runAndWait(next.get(0));
            assertEquals("same", verdict.getAttribute("data-kensho-verdict"), verdict.getText());
            // The click starts the engine (the page asks its version first) and the run finds it there, at the page's start;
            // its split has no initdb: it started from the kept cluster.
            assertEquals("running 0", verdict.getAttribute("data-kensho-engine"));
            assertFalse(verdict.getAttribute("data-kensho-timings").contains("initdb"), verdict.getAttribute("data-kensho-timings"));
            assertEquals(" holders\n---------\n       1\n(1 row)", next.get(0).findElement(By.cssSelector("[data-kensho-run-output]")).getAttribute("textContent"));
            assertClean();
        } finally {
            js("sessionStorage.removeItem('kensho-run-ran')");
        }
    }

    /**
     * Red team: the cluster kept in Cache Storage is read back as a tar (keptDataDir's untarInto) whatever it holds. A
     * damaged one must neither hang the worker (a negative size walks the reader back to a header it already read,
     * forever) nor write outside the data directory (a name with a .. part): each fails at once with the damage named,
     * which makes the engine start from a fresh cluster. The worker's own function runs in a worker of its own, so that a
     * loop is seen as "hung" and ended rather than hanging the test's page. No PGlite is loaded.
     */
    @Test
    void aDamagedKeptClusterNeitherHangsNorWritesOutsideTheDataDirectory() {
        driver.get(base + "idempotency/overview/");
        // The worker's file opened as a document of its own: the pages' Content-Security-Policy allows no blob: worker.
        driver.get((String) js("return new URL(document.body.dataset.runWorker, location.href).href"));
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        Object verdicts;
        try {
            verdicts = ((JavascriptExecutor) driver).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                (async () => {
                  const source = await (await fetch(location.href)).text();
                  const from = source.indexOf('function untarInto(');
                  const fn = source.slice(from, source.indexOf('\\n}\\n', from) + 3);
                  const header = (name, size) => {
                    const h = new Uint8Array(512);
                    for (let i = 0; i < name.length; i++) h[i] = name.charCodeAt(i);
                    for (let i = 0; i < size.length; i++) h[124 + i] = size.charCodeAt(i);
                    h[136] = 0; h[156] = 48; // type '0': a file
                    return h;
                  };
                  const tar = (...parts) => { const t = new Uint8Array(parts.length * 512 + 1024); parts.forEach((p, i) => t.set(p, i * 512)); return t; };
                  const cases = {
                    backwards: tar(header('PG_VERSION', '00000000000'), header('base/1/x', '-0000002000')),
                    escaping: tar(header('../../usr/local/pgsql/share/x', '00000000000')),
                  };
                  const worker = `${fn}
                    onmessage = (e) => {
                      const written = [];
                      const FS = { analyzePath: () => ({ exists: true }), mkdirTree() {}, mkdir() {},
                        writeFile: (path) => written.push(path), utime() {} };
                      try { untarInto(FS, e.data, '/pgdata'); postMessage('read: ' + written.join(' ')); }
                      catch (error) { postMessage('failed: ' + error.message + (written.length ? ' after ' + written.join(' ') : '')); }
                    };`;
                  const verdicts = {};
                  for (const [name, bytes] of Object.entries(cases)) {
                    const w = new Worker(URL.createObjectURL(new Blob([worker], { type: 'text/javascript' })));
                    verdicts[name] = await new Promise((resolve) => {
                      const hung = setTimeout(() => { w.terminate(); resolve('hung'); }, 5000);
                      w.onmessage = (e) => { clearTimeout(hung); w.terminate(); resolve(e.data); };
                      w.onerror = (e) => { clearTimeout(hung); w.terminate(); resolve('error: ' + e.message); };
                      w.postMessage(bytes);
                    });
                  }
                  return JSON.stringify(verdicts);
                })().then(done, (e) => done('test page: ' + e));
                """);
        } finally {
            driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30)); // Selenium's default, as other tests expect
            // Chromium asks /favicon.ico for a document that declares no icon, as the worker's file opened above does (every
            // page of the site declares its own): that request is this test's doing, not a load the site could not answer,
            // and is taken out of the list the other tests' assertClean reads once it has come.
            long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!requested.contains("/favicon.ico") && System.nanoTime() < until) {
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
            }
            notFound.removeIf("/favicon.ico"::equals);
        }
        assertEquals("{\"backwards\":\"failed: the kept data directory is damaged at byte 512 (\\\"base/1/x\\\") after /pgdata/PG_VERSION\","
                + "\"escaping\":\"failed: the kept data directory is damaged at byte 0 (\\\"../../usr/local/pgsql/share/x\\\")\"}", verdicts);
    }
    /**
     * Red team: a reader whose browser asks to save data is never sent PostgreSQL before a click, even in a tab where
     * they ran SQL; and the note under a run control then says the plain cost, not that PostgreSQL is starting.
     */
    @Test
    void aReaderWhoAsksToSaveDataIsToldThePlainCostAndLoadsNothingBeforeAClick() {
        Object script = driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source",
                "Object.defineProperty(navigator, 'connection', { get: () => ({ saveData: true }) });")).get("identifier");
        try {
            openWithRunControls(base + "sample/guides/engine/");
            js("sessionStorage.setItem('kensho-run-ran', '1')");
            requested.clear();
            List<WebElement> next = openWithRunControls(base + "sample/guides/lease/");
            assertEquals("初回は PostgreSQL（約 16 MB）を読み込みます", next.get(0).findElement(By.cssSelector(".run-cost")).getText());
            sleep(3500);
            assertEquals(List.of(), requested.stream().filter(p -> p.contains("pglite") || p.contains("kensho-run")).toList(),
                    "Save-Data: nothing of the playground before a click");
        } finally {
            driver.executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument", Map.of("identifier", script));
            js("sessionStorage.removeItem('kensho-run-ran')");
        }
    }
}
