package dev.kensho.maven;

import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.logging.SystemStreamLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The goals run as Maven runs them: parameters set, execute() called, the log and the exception read. */
class KenshoMojoTest {

    @TempDir
    Path project;

    private final List<String> errors = new ArrayList<>();
    private final List<String> infos = new ArrayList<>();

    private <T extends KenshoMojo> T configured(T mojo) {
        // The parameters' default values, as Maven fills them in for ${project.basedir} and ${project.build.directory}.
        Path target = project.resolve("target");
        mojo.content = project.resolve("content").toFile();
        mojo.out = target.resolve("kensho-site").toFile();
        mojo.postgres = "embedded";
        mojo.report = target.resolve("kensho-report.json").toFile();
        mojo.statementTimeout = "10s";
        mojo.pageTimeout = "60s";
        mojo.cache = target.resolve("kensho-cache").toFile();
        mojo.jobs = 4;
        mojo.junitXml = target.resolve("kensho-junit").toFile();
        mojo.setLog(new SystemStreamLog() {
            @Override
            public void info(CharSequence content) {
                infos.add(content.toString());
            }

            @Override
            public void error(CharSequence content) {
                errors.add(content.toString());
            }
        });
        return mojo;
    }

    private void page(String name, String sql) throws Exception {
        Files.createDirectories(project.resolve("content"));
        Files.writeString(project.resolve("content/site.yml"), "title: Our notes\nlang: en\n");
        Files.writeString(project.resolve("content").resolve(name), "---\ntitle: Notes\n---\n\n```sql\n" + sql + "\n```\n");
    }

    @Test
    void buildWritesTheSiteWithTheBuiltInTheme() throws Exception {
        page("index.md", "SELECT 1;");
        configured(new BuildMojo()).execute();
        assertTrue(Files.isRegularFile(project.resolve("target/kensho-site/index.html")));
        assertTrue(Files.readString(project.resolve("target/kensho-site/index.html")).contains("Verified on PostgreSQL 18.6"));
        assertTrue(Files.isRegularFile(project.resolve("target/kensho-junit/TEST-kensho.xml")));
        assertEquals("1 passed, 0 failed", infos.get(infos.size() - 1));
        assertEquals(List.of(), errors);
    }

    @Test
    void aFailingExampleFailsTheBuildAndIsLoggedAtItsLine() throws Exception {
        page("index.md", "SELECT * FROM missing_table;");
        MojoFailureException failure = assertThrows(MojoFailureException.class, () -> configured(new CheckMojo()).execute());
        assertEquals("Kensho: 1 problem(s) in " + project.resolve("content") + "; see the errors above", failure.getMessage());
        assertTrue(errors.get(0).endsWith("content/index.md:6:15: error: relation \"missing_table\" does not exist [42P01]"), errors.toString());
        assertFalse(Files.exists(project.resolve("target/kensho-site")), "check writes no site");
    }

    @Test
    void aParameterKenshoCannotUseIsAConfigurationError() throws Exception {
        page("index.md", "SELECT 1;");
        CheckMojo mojo = configured(new CheckMojo());
        mojo.statementTimeout = "soon";
        MojoExecutionException error = assertThrows(MojoExecutionException.class, mojo::execute);
        assertTrue(error.getMessage().startsWith("Kensho cannot run with this configuration: --statement-timeout takes a duration such as 10s or 500ms, not 'soon'"),
                error.getMessage());
    }

    @Test
    void skipRunsNothing() throws Exception {
        CheckMojo mojo = configured(new CheckMojo());
        mojo.skip = true;
        mojo.execute();   // no content folder at all: nothing is looked at
        assertEquals(List.of("Kensho: skipped (kensho.skip)"), infos);
    }
}
