package dev.kensho.generator;

import dev.kensho.generator.render.RenderMemo;
import dev.kensho.generator.report.Progress;
import dev.kensho.generator.serve.PreviewServer;
import dev.kensho.generator.verify.ServerSession;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.generator.verify.Shard;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kensho serve: edit, rebuild, reload; an error page that clears; the server gone at the end. */
class PreviewServerTest {

    @TempDir
    Path temp;

    private final HttpClient http = HttpClient.newHttpClient();
    private String sourceDateEpoch;

    /** A fixed build time: a rebuild that crosses a minute would render every page showing it again, and counts would vary. */
    @org.junit.jupiter.api.BeforeEach
    void pinBuildTime() {
        sourceDateEpoch = System.getProperty("kensho.sourceDateEpoch");
        System.setProperty("kensho.sourceDateEpoch", "1800000000");
    }

    @org.junit.jupiter.api.AfterEach
    void restoreBuildTime() {
        if (sourceDateEpoch == null) {
            System.clearProperty("kensho.sourceDateEpoch");
        } else {
            System.setProperty("kensho.sourceDateEpoch", sourceDateEpoch);
        }
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Page a as served, or why it could not be had: what a failed assertion shows. */
    private String bodyOfA(int port) {
        try {
            return get(port, "/a/").body();
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static void awaitGeneration(PreviewServer preview, long after) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (preview.generation() <= after && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(preview.generation() > after, "no rebuild after the edit");
    }

    @Test
    void anEditIsRebuiltReverifiedAndAnErrorPageAppearsAndClears() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst version\n"))
                // B reads the clock: its outcome is kept for a day (cache.clockPagesFor), so an edit of A leaves it alone.
                .page("b.md", TestSite.source("B", "\n```sql\nSELECT now() > TIMESTAMPTZ '2000-01-01' AS after_y2k;\n```\n\nanother page\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            HttpResponse<String> first = get(port, "/a/");
            assertEquals(200, first.statusCode());
            assertTrue(first.body().contains("first version"));
            assertTrue(first.body().contains("<script src=\"/__kensho/reload.js\"></script></body>"), "the reload script is injected in preview");
            assertTrue(get(port, "/__kensho/reload.js").body().contains("new EventSource('/__kensho/events')"));
            List<String> server = TestSite.kenshoPostgresProcesses();
            assertEquals(1, server.stream().map(c -> c.replaceAll(".* -D (\\S+).*", "$1")).distinct().count(),
                    "one server (one data folder) for the session: " + server);

            long generation = preview.generation();
            long t0 = System.nanoTime();
            site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 2 AS two;\n```\n\nsecond version\n"));
            awaitGeneration(preview, generation);
            long latencyMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(get(port, "/a/").body().contains("second version"));
            System.out.println("preview: edit to rebuilt page in " + latencyMs + " ms");
            String rebuilt = log.get(log.size() - 1);
            assertTrue(rebuilt.startsWith("rebuilt 2 page(s) in ") && rebuilt.endsWith("ms; parsed 1, rendered 1, reused the rest; 1 page(s) run on PostgreSQL, 1 from the cache (0 read and judged again)"),
                    "only the edited page is verified and rendered again: " + rebuilt);

            generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 2 AS two;\n```\n\nsecond version, prose edited\n"));
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/a/").body().contains("second version, prose edited"));
            String proseOnly = log.get(log.size() - 1);
            assertTrue(proseOnly.endsWith("; 0 page(s) run on PostgreSQL, 2 from the cache (0 read and judged again)"), "a prose edit runs no SQL: " + proseOnly);

            generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n```sql\nSELECT * FROM missing_table;\n```\n"));
            awaitGeneration(preview, generation);
            HttpResponse<String> broken = get(port, "/a/");
            assertEquals(500, broken.statusCode());
            assertTrue(broken.body().contains(site.display("a.md") + ":6:15: error: relation &quot;missing_table&quot; does not exist [42P01]"), broken.body());
            assertTrue(log.stream().anyMatch(line -> line.startsWith(site.display("a.md") + ":6:15: error: relation \"missing_table\"")), log::toString);

            generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 3 AS three;\n```\n\nfixed\n"));
            awaitGeneration(preview, generation);
            HttpResponse<String> fixed = get(port, "/a/");
            assertEquals(200, fixed.statusCode());
            assertTrue(fixed.body().contains("fixed"));
            assertEquals(server, TestSite.kenshoPostgresProcesses(), "the same server served every rebuild");
        }
        assertEquals(List.of(), TestSite.kenshoPostgresProcesses(), "the server outlived serve");
    }

    /**
     * The session keeps each page's judged cache entry: an edit reads and judges again only the pages whose verification
     * inputs changed (the page's SQL or its snippets' places, a site setting the verifier reads, an expiry), never the rest.
     */
    @Test
    void anEditJudgesAgainOnlyThePagesWhoseVerificationInputsChanged() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nlang: en\n")
                .page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst\n"))
                .page("b.md", TestSite.source("B", "\n```sql\nSELECT 2 AS two;\n```\n\nsecond\n"))
                .page("c.md", TestSite.source("C", "\n```sql\nSELECT now() > TIMESTAMPTZ '2000-01-01' AS after_y2k;\n```\n\n"
                        + "import shown from './shown.sql?raw';\n\n<Code code={shown} lang=\"sql\" />\n"))
                .page("shown.sql", "SELECT 'shown first';\n");
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            assertTrue(log.get(log.size() - 1).endsWith("; 3 page(s) run on PostgreSQL, 0 from the cache (0 read and judged again)"), log::toString);

            // Prose after the fence: nothing the verifier reads changed; every outcome is the one judged when it ran.
            long generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst, edited\n"));
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/a/").body().contains("first, edited"), () -> log.toString());
            assertTrue(log.get(log.size() - 1).endsWith("ms; parsed 1, rendered 1, reused the rest; 0 page(s) run on PostgreSQL, "
                    + "3 from the cache (0 read and judged again)"), log::toString);

            // A line above the fence moves its snippet: a's entry is read and judged again for the snippet where it is now.
            generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\nIntro.\n\n```sql\nSELECT 1 AS one;\n```\n\nfirst, edited\n"));
            awaitGeneration(preview, generation);
            assertTrue(log.get(log.size() - 1).endsWith("; 0 page(s) run on PostgreSQL, 3 from the cache (1 read and judged again)"), log::toString);

            // b's SQL: b alone runs.
            generation = preview.generation();
            site.page("b.md", TestSite.source("B", "\n```sql\nSELECT 3 AS three;\n```\n\nsecond\n"));
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/b/").body().contains("three"), () -> log.toString());
            assertTrue(log.get(log.size() - 1).endsWith("; 1 page(s) run on PostgreSQL, 2 from the cache (0 read and judged again)"), log::toString);

            // A file c imports is shown, not run (<Code> displays code): c is rendered anew, nothing is verified again.
            generation = preview.generation();
            site.page("shown.sql", "SELECT 'shown second';\n");
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/c/").body().contains("shown second"), () -> log.toString());
            assertTrue(log.get(log.size() - 1).endsWith("ms; parsed 1, rendered 1, reused the rest; 0 page(s) run on PostgreSQL, "
                    + "3 from the cache (0 read and judged again)"), log::toString);

            // A site setting the verifier reads (an extension in every page's database): every page runs again.
            generation = preview.generation();
            site.page("site.yml", "title: Notes\nlang: en\nextensions: [pg_trgm]\n");
            awaitGeneration(preview, generation);
            assertTrue(log.get(log.size() - 1).endsWith("; 3 page(s) run on PostgreSQL, 0 from the cache (0 read and judged again)"), log::toString);

            // The clock page's marks may be kept no longer (cache: clockPagesFor: 0): c runs again though it was judged.
            generation = preview.generation();
            site.page("site.yml", "title: Notes\nlang: en\nextensions: [pg_trgm]\ncache: {clockPagesFor: 0}\n");
            awaitGeneration(preview, generation);
            assertTrue(log.get(log.size() - 1).endsWith("; 1 page(s) run on PostgreSQL, 2 from the cache (0 read and judged again)"), log::toString);
        }
    }

    /**
     * Red team (h-red finding 2): serve kept the server whose template held the extensions it started with; after
     * site.yml dropped one, a page calling it still passed, and the cache kept the mark for the next build. A server is
     * kept only for the settings it was started with.
     */
    @Test
    void aChangeOfTheSitesExtensionsStartsAServerWithThem() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nlang: en\nextensions: [pg_trgm]\n")
                .page("t.md", TestSite.source("T", "\n```sql\nSELECT similarity('abc', 'abd') > 0 AS similar;\n```\n\n"
                        + "```rows\n similar\n---------\n t\n(1 row)\n```\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            assertEquals(200, get(port, "/t/").statusCode(), log::toString);
            List<String> first = TestSite.kenshoPostgresProcesses();

            long generation = preview.generation();
            site.page("site.yml", "title: Notes\nlang: en\n");
            awaitGeneration(preview, generation);
            HttpResponse<String> without = get(port, "/t/");
            assertEquals(500, without.statusCode(), log::toString);
            assertTrue(without.body().contains(site.display("t.md") + ":6:8: error: function similarity(unknown, unknown) does not exist [42883]"),
                    without.body());
            assertTrue(java.util.Collections.disjoint(first, TestSite.kenshoPostgresProcesses()), "the first server was stopped");
        }
        assertEquals(List.of(), TestSite.kenshoPostgresProcesses(), "the server outlived serve");
    }

    @Test
    void anEditParsesAndRendersOnlyWhatItReaches() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nText a.\n"))
                .page("b.md", TestSite.source("B", "\nText b.\n"))
                .page("c.md", "---\ntitle: C\n---\nimport example from './example.js?raw';\n\n<Code code={example} lang=\"js\" />\n")
                .page("example.js", "const first = 1;\n");
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            assertTrue(log.get(log.size() - 1).endsWith("ms; parsed 3, rendered 3, reused the rest"), log::toString);

            // Prose: that page alone is parsed and rendered, and it is served as edited.
            long generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\nText a, edited.\n"));
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/a/").body().contains("Text a, edited."), () -> log + bodyOfA(port));
            assertTrue(log.get(log.size() - 1).startsWith("rebuilt 3 page(s) in "), log::toString);
            assertTrue(log.get(log.size() - 1).endsWith("ms; parsed 1, rendered 1, reused the rest"), log::toString);

            // A file a page imports: that page, though its own source did not change.
            generation = preview.generation();
            site.page("example.js", "const second = 2;\n");
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/c/").body().contains("second"), () -> log.toString());
            assertTrue(log.get(log.size() - 1).endsWith("ms; parsed 1, rendered 1, reused the rest"), log::toString);

            // A title is in every page's navigation: one page is parsed, every page is rendered.
            generation = preview.generation();
            site.page("b.md", TestSite.source("B renamed", "\nText b.\n"));
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/a/").body().contains("B renamed"), () -> log.toString());
            assertTrue(log.get(log.size() - 1).endsWith("ms; parsed 1, rendered 3, reused the rest"), log::toString);

            // A link the edit breaks is still found on the edited page, and the preview shows the error.
            generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n[gone](missing.md)\n"));
            awaitGeneration(preview, generation);
            assertEquals(500, get(port, "/a/").statusCode());
            assertTrue(log.stream().anyMatch(line -> line.startsWith(site.display("a.md") + ":")
                    && line.contains("missing.md")), log::toString);
        }
    }

    /**
     * What an edit does to the pages it did not touch is still found: a heading removed breaks another page's link to it,
     * a page removed breaks every link to it, each reported at the linking page's line although that page was reused.
     */
    @Test
    void anEditThatBreaksALinkOnAnotherPageFailsAtThatPage() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n## Kept heading\n\nText a.\n"))
                .page("b.md", TestSite.source("B", "\nSee [the heading](a.md#kept-heading).\n"))
                .page("c.md", TestSite.source("C", "\nText c.\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            assertEquals(200, get(port, "/b/").statusCode());

            long generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n## Another heading\n\nText a.\n"));
            awaitGeneration(preview, generation);
            assertEquals(500, get(port, "/b/").statusCode());
            assertEquals(List.of(site.display("b.md") + ":5:19: error: broken link 'a.md#kept-heading': a/index.html has no element with id \"kept-heading\""),
                    log.stream().filter(line -> line.contains("broken link")).map(line -> line.split("\n")[0]).toList(), log::toString);

            generation = preview.generation();
            site.page("a.md", TestSite.source("A", "\n## Kept heading\n\nText a.\n"));
            awaitGeneration(preview, generation);
            assertEquals(200, get(port, "/b/").statusCode(), log::toString);
            assertTrue(log.get(log.size() - 1).startsWith("rebuilt 3 page(s)"), log::toString);

            generation = preview.generation();
            log.clear();
            Files.delete(site.content.resolve("a.md"));
            awaitGeneration(preview, generation);
            assertEquals(500, get(port, "/b/").statusCode());
            assertTrue(log.stream().anyMatch(line -> line.startsWith(site.display("b.md") + ":5:19: error: broken link 'a.md#kept-heading'")),
                    log::toString);
        }
    }

    @Test
    void aChangeToSiteYmlOrTheThemeFolderRendersEveryPageAgain() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Before\nlang: en\n")
                .page("a.md", TestSite.source("A", "\n<Badge text=\"hi\"/>\n")).page("b.md", TestSite.source("B", "\nText b.\n"));
        Path theme = Files.createDirectories(temp.resolve("theme/components"));
        BuildOptions options = new BuildOptions(site.content, temp.resolve("theme"), site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            assertTrue(get(port, "/b/").body().contains("<a class=\"site-title\" href=\"../\">Before</a>"));

            long generation = preview.generation();
            site.page("site.yml", "title: After\nlang: en\n");
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/b/").body().contains("<a class=\"site-title\" href=\"../\">After</a>"), () -> log.toString());
            assertTrue(log.get(log.size() - 1).contains("; parsed 2, rendered 2, reused the rest"), log::toString);

            generation = preview.generation();
            Files.writeString(theme.resolve("Badge.ftlh"), "<#-- requires: text -->\n<b>${attrs.text?string}</b>\n");
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/a/").body().contains("<b>hi</b>"), () -> log.toString());
        }
    }

    /** After edits, every file of the preview's search index is the one a full build of the same sources writes. */
    @Test
    void theSearchIndexAfterAnEditIsAFullBuildsByteForByte() throws Exception {
        TestSite site = new TestSite(temp).page("site.yml", "title: Notes\nlang: en\n")
                .page("a.md", TestSite.source("Alpha", "\nThe lock queue waits.\n\n## Heading one\n\nShared words here.\n"))
                .page("b.md", TestSite.source("Beta", "\nShared words and 行ロック待ち.\n"))
                .page("c.md", TestSite.source("Gamma", "\nAn index scan, shared.\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            // A word gone, a word new, a section more (later pages' section numbers move), and a title changed.
            long generation = preview.generation();
            site.page("a.md", TestSite.source("Alpha", "\nThe deadlock queue waits.\n\n## Heading one\n\nShared.\n\n## Two\n\nVacuum.\n"));
            awaitGeneration(preview, generation);
            generation = preview.generation();
            site.page("c.md", TestSite.source("Gamma prime", "\nAn index scan, shared.\n"));
            awaitGeneration(preview, generation);
            assertTrue(log.get(log.size() - 1).startsWith("rebuilt 3 page(s)"), log::toString);

            TestSite.Run build = site.build();
            assertEquals(0, build.status(), build::toString);
            List<Path> files;
            try (var walk = Files.walk(site.out.resolve("assets/search"))) {
                files = walk.filter(Files::isRegularFile).sorted().toList();
            }
            assertTrue(files.size() >= 5, files::toString); // index.js, a term shard or more, a page file per page
            for (Path file : files) {
                String path = "/" + site.out.relativize(file).toString().replace('\\', '/');
                assertEquals(Files.readString(file), get(port, path).body(), path);
            }
            assertTrue(get(port, "/assets/search/index.js").body().contains("\"pages\":3"));
        }
    }

    /**
     * A theme file replaced by one of the same size and the same modification time (an editor saving by rename within
     * the file system's time granularity) is served and rendered new: theme files are known by their content.
     */
    @Test
    void aThemeFileRewrittenWithTheSameSizeAndTimeIsServedNew() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\n<Badge text=\"hi\"/>\n"));
        Path theme = Files.createDirectories(temp.resolve("theme"));
        Files.createDirectories(theme.resolve("assets"));
        Files.createDirectories(theme.resolve("components"));
        Files.writeString(theme.resolve("assets/extra.css"), "a{color:red}\n");
        Files.writeString(theme.resolve("components/Badge.ftlh"), "<#-- requires: text -->\n<b>${attrs.text?string}</b>\n");
        BuildOptions options = new BuildOptions(site.content, theme, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (PreviewServer preview = new PreviewServer(options, log::add)) {
            int port = preview.start(0);
            assertEquals("a{color:red}\n", get(port, "/assets/extra.css").body());
            assertTrue(get(port, "/a/").body().contains("<b>hi</b>"), () -> bodyOfA(port));

            long generation = preview.generation();
            replaceKeepingSizeAndTime(theme.resolve("assets/extra.css"), "a{color:tan}\n");
            awaitGeneration(preview, generation);
            assertEquals("a{color:tan}\n", get(port, "/assets/extra.css").body(), log::toString);

            generation = preview.generation();
            replaceKeepingSizeAndTime(theme.resolve("components/Badge.ftlh"), "<#-- requires: text -->\n<i>${attrs.text?string}</i>\n");
            awaitGeneration(preview, generation);
            assertTrue(get(port, "/a/").body().contains("<i>hi</i>"), () -> log + bodyOfA(port));
        }
    }

    /** Replaces {@code file} in one step (a rename) by a file of the same size and modification time holding {@code text}. */
    private void replaceKeepingSizeAndTime(Path file, String text) throws Exception {
        assertEquals(Files.size(file), text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, "the same size");
        Path staged = Files.writeString(temp.resolve("staged"), text);
        Files.setLastModifiedTime(staged, Files.getLastModifiedTime(file));
        Files.move(staged, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static String rawGet(int port, String host) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET /a/ HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    @Test
    void anotherHostNameIsRefusedAndADeletedContentFolderIsNoticedWhenItReturns() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\nfirst\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        try (PreviewServer preview = new PreviewServer(options, line -> { })) {
            int port = preview.start(0);
            assertTrue(rawGet(port, "rebound.example:" + port).startsWith("HTTP/1.1 403"));
            assertTrue(rawGet(port, "localhost:" + port).startsWith("HTTP/1.1 200"));

            long generation = preview.generation();
            java.nio.file.Path moved = temp.resolve("content-away");
            java.nio.file.Files.move(site.content, moved);
            awaitGeneration(preview, generation);
            HttpResponse<String> gone = get(port, "/a/");
            assertEquals(500, gone.statusCode(), "a vanished content folder is shown as an error, not as the stale site");
            assertTrue(gone.body().contains("does not exist"), gone.body());

            generation = preview.generation();
            java.nio.file.Files.move(moved, site.content);
            awaitGeneration(preview, generation);
            site.page("a.md", TestSite.source("A", "\nrestored and edited\n"));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!get(port, "/a/").body().contains("restored and edited") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(get(port, "/a/").body().contains("restored and edited"), "watching stopped after the folder came back");
        }
    }

    @Test
    void aNewBuildMinuteReRendersOnlyThePagesThatShowIt() throws Exception {
        TestSite site = new TestSite(temp)
                .page("a.md", TestSite.source("A", "\nNo SQL here.\n"))
                .page("b.md", TestSite.source("B", "\n```sql\nSELECT 1;\n```\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        RenderMemo memo = new RenderMemo();
        String before = System.getProperty("kensho.sourceDateEpoch");
        try {
            System.setProperty("kensho.sourceDateEpoch", "1800000000");
            KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), memo, line -> { });
            assertEquals(2, memo.lastRendered());
            System.setProperty("kensho.sourceDateEpoch", "1800000120"); // two minutes later
            KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), memo, line -> { });
            assertEquals(1, memo.lastRendered(), "only the page showing the build time (verified SQL) is rendered again");
        } finally {
            if (before == null) {
                System.clearProperty("kensho.sourceDateEpoch");
            } else {
                System.setProperty("kensho.sourceDateEpoch", before);
            }
        }
    }

    @Test
    void anEditMakesTheBrowserRunPlansOfOnlyThePagesWhoseOutcomesChanged() throws Exception {
        TwoSqlPages pages = twoSqlPages();
        TestSite site = pages.site();
        BuildOptions options = pages.options();
        // As the preview builds: with its parse memo and the outcomes it judged, kept between rebuilds.
        RenderMemo memo = new RenderMemo();
        dev.kensho.generator.markdown.ParseMemo parses = new dev.kensho.generator.markdown.ParseMemo();
        dev.kensho.generator.verify.JudgedEntries judged = new dev.kensho.generator.verify.JudgedEntries();
        Map<String, String> served = new java.util.HashMap<>();
        KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), memo, parses, judged, line -> { });
        assertEquals(2, memo.lastRunPlansMade());
        // Prose: a's outcomes are the ones judged before, for the same snippets: no plan is made again.
        site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst, edited\n"));
        KenshoBuild.run(options, ServerSession.perBuild(), files -> served.putAll(files.html()), Progress.silent(), memo, parses, judged, line -> { });
        assertEquals(0, memo.lastRunPlansMade());
        // A line above a's fence moves its snippet (its line is in the plan): a's plan alone is made again.
        site.page("a.md", TestSite.source("A", "\nIntro.\n\n```sql\nSELECT 1 AS one;\n```\n\nfirst, edited\n"));
        KenshoBuild.run(options, ServerSession.perBuild(), files -> served.putAll(files.html()), Progress.silent(), memo, parses, judged, line -> { });
        assertEquals(1, memo.lastRunPlansMade());
        // b's SQL: b runs again, and its plan alone is made again.
        site.page("b.md", TestSite.source("B", "\n```sql\nSELECT 3 AS three;\n```\n"));
        KenshoBuild.run(options, ServerSession.perBuild(), files -> served.putAll(files.html()), Progress.silent(), memo, parses, judged, line -> { });
        assertEquals(1, memo.lastRunPlansMade());
        // The plans served are a build's without any memo, byte for byte.
        Map<String, String> fresh = new java.util.HashMap<>();
        KenshoBuild.run(options, ServerSession.perBuild(), files -> fresh.putAll(files.html()), Progress.silent(), line -> { });
        for (String plan : List.of("a/index.run.json", "b/index.run.json")) {
            assertTrue(fresh.containsKey(plan), fresh.keySet()::toString);
            assertEquals(fresh.get(plan), served.get(plan), plan);
        }
        assertTrue(served.get("b/index.run.json").contains("SELECT 3 AS three;"), served.get("b/index.run.json"));
    }

    /** Two pages with SQL and the options a preview of them builds with. */
    private record TwoSqlPages(TestSite site, BuildOptions options) {
    }

    private TwoSqlPages twoSqlPages() throws Exception {
        TestSite site = new TestSite(temp)
                .page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst\n"))
                .page("b.md", TestSite.source("B", "\n```sql\nSELECT 2 AS two;\n```\n"));
        return new TwoSqlPages(site, new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2));
    }

    @Test
    void anUnchangedPageHandsTheSameOutcomesAndCoverageToTheNextBuild() throws Exception {
        TwoSqlPages pages = twoSqlPages();
        TestSite site = pages.site();
        BuildOptions options = pages.options();
        RenderMemo memo = new RenderMemo();
        dev.kensho.generator.markdown.ParseMemo parses = new dev.kensho.generator.markdown.ParseMemo();
        dev.kensho.generator.verify.JudgedEntries judged = new dev.kensho.generator.verify.JudgedEntries();
        KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), memo, parses, judged, line -> { });
        site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst, edited\n"));
        BuildResult second = KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), memo, parses, judged, line -> { });
        site.page("a.md", TestSite.source("A", "\n```sql\nSELECT 1 AS one;\n```\n\nfirst, edited again\n"));
        BuildResult third = KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), memo, parses, judged, line -> { });
        // b is neither parsed nor judged again: its outcome is the very one the last build had, and the coverage too,
        // so nothing downstream (run plans, rendered pages) compares them field by field.
        dev.kensho.sqlchecks.model.Outcome before = outcomeOf(second, "b.md");
        dev.kensho.sqlchecks.model.Outcome after = outcomeOf(third, "b.md");
        assertTrue(before == after, () -> before + " / " + after);
        assertTrue(second.verification().coverage() == third.verification().coverage());
        // a was parsed again (its prose changed) and its snippet reads the same: it is judged from memory, not the folder.
        assertEquals(0, judged.lastJudged());
        assertEquals(before, outcomeOf(KenshoBuild.run(options, ServerSession.perBuild(), files -> { }, Progress.silent(), line -> { }), "b.md"));
    }

    private static dev.kensho.sqlchecks.model.Outcome outcomeOf(BuildResult result, String page) {
        return result.verification().pages().entrySet().stream().filter(e -> e.getKey().endsWith(page))
                .map(e -> e.getValue().outcomes().get(0)).findFirst().orElseThrow(() -> new AssertionError(page + " in " + result.verification().pages().keySet()));
    }

    private HttpResponse<String> get(int port, String path, String... headers) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).headers(headers).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anotherSitesPageCannotReadThePreviewsScripts() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\ndraft text\n"));
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        try (PreviewServer preview = new PreviewServer(options, line -> { })) {
            int port = preview.start(0);
            String index = "/assets/search/index.js";
            assertEquals(200, get(port, index).statusCode());
            assertEquals(200, get(port, index, "Sec-Fetch-Site", "same-origin").statusCode());
            assertEquals(403, get(port, index, "Sec-Fetch-Site", "cross-site").statusCode(), "a <script src> from another site");
            assertEquals(403, get(port, index, "Sec-Fetch-Site", "same-site").statusCode());
            assertEquals(403, get(port, index, "Referer", "http://evil.example/page").statusCode(), "a browser without Sec-Fetch-*");
            assertEquals(200, get(port, index, "Referer", "http://127.0.0.1:" + port + "/a/").statusCode());
        }
    }

    @Test
    void afterAFailedRebuildALinkPlantedSinceIsNotFollowed() throws Exception {
        TestSite site = new TestSite(temp).page("a.md", TestSite.source("A", "\ntext\n")).page("notes.txt", "published notes\n");
        java.nio.file.Path secret = java.nio.file.Files.writeString(temp.resolve("secret.txt"), "KENSHO_CANARY_preview");
        BuildOptions options = new BuildOptions(site.content, TestSite.THEME, site.out, "embedded", "postgres:18", site.report,
                true, VerifierSettings.DEFAULTS, Shard.ALL, null, temp.resolve("cache"), 2);
        try (PreviewServer preview = new PreviewServer(options, line -> { })) {
            int port = preview.start(0);
            assertEquals("published notes\n", get(port, "/notes.txt").body());
            long generation = preview.generation();
            // The file is swapped for a link outside content/ and the page broken in the same edit: the rebuild fails.
            java.nio.file.Files.delete(site.content.resolve("notes.txt"));
            java.nio.file.Files.createSymbolicLink(site.content.resolve("notes.txt"), secret);
            site.page("a.md", TestSite.source("A", "\n<script>alert(1)</script>\n"));
            awaitGeneration(preview, generation);
            assertEquals(500, get(port, "/a/").statusCode());
            HttpResponse<String> notes = get(port, "/notes.txt");
            assertEquals("published notes\n", notes.body(), "the bytes read at the last good build, not the planted link");
        }
    }
}
