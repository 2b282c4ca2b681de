package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;
import dev.kensho.sqlchecks.postgres.ContainerTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The container provider end to end; skipped, with the reason printed, where Docker is missing. */
class ContainerBuildTest {

    static final String IMAGE = System.getenv().getOrDefault("KENSHO_TEST_PG_IMAGE", "kensho/postgres:18.6");

    @TempDir
    Path temp;

    @BeforeEach
    void requireDocker() {
        ContainerTestSupport.assumeDockerAndImage(IMAGE);
    }

    private static List<String> kenshoContainers() {
        return DockerClientFactory.instance().client().listContainersCmd().withShowAll(true)
                .withLabelFilter(List.of("dev.kensho.owner")).exec().stream().map(c -> c.getId()).toList();
    }

    @Test
    void theLessonSiteVerifiesThroughAContainer() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), "check",
                "--content", "../content", "--theme", "../site", "--report", temp.resolve("report.json").toString(),
                // The image is 18's (content/site.yml names 14-18; LessonContentTest checks those on embedded servers).
                "--postgres", "container", "--pg-image", IMAGE, "--no-cache", "--postgres-version", "18");
        assertEquals(0, status, () -> out + "\n" + err);
        assertTrue(out.toString().startsWith("Kensho: [18] PostgreSQL 18.6 via container (--postgres container): container " + IMAGE), out::toString);
        assertEquals(List.of(), kenshoContainers(), "the container outlived the build");
    }

    @Test
    void ctrlCMidBuildRemovesTheContainer() throws Exception {
        TestSite site = new TestSite(temp).page("slow.md", TestSite.source("Slow", "\n```sql\nSELECT pg_sleep(120);\n```\n"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process build = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                KenshoCommand.class.getName(), "check", "--postgres", "container", "--pg-image", IMAGE,
                "--statement-timeout", "300s", "--content", site.content.toString(), "--theme", TestSite.THEME.toString(), "--report", site.report.toString())
                .redirectErrorStream(true).start();
        String first = new BufferedReader(new InputStreamReader(build.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(first != null && first.startsWith("Kensho: PostgreSQL 18.6 via container"), "unexpected first line: " + first);
        Thread.sleep(1000);
        assertEquals(1, kenshoContainers().size());

        new ProcessBuilder("kill", "-INT", Long.toString(build.pid())).start().waitFor();
        assertTrue(build.waitFor(60, TimeUnit.SECONDS), "the build did not end after SIGINT");
        assertEquals(List.of(), kenshoContainers(), "the container outlived an interrupted build");
    }
}
