package dev.kensho.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.cli.KenshoCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CI at scale: a matrix of PostgreSQL versions × shards, a {@code check --postgres-version V --shard I/N} per job, and
 * {@code merge-reports} making one report of theirs that says what one build on every version would, and refuses to
 * pass when a job's report is missing.
 */
class CiMatrixTest {

    @TempDir
    Path temp;

    @Test
    void theReportsOfAVersionsTimesShardsMatrixMergeIntoOneThatFailsWhereOneBuildWould() throws Exception {
        TestSite site = new TestSite(temp.resolve("site"))
                .page("site.yml", "postgres:\n  versions: [17, 18]\n")
                .page("a.md", TestSite.source("A", "\n```sql\nCREATE TABLE t (id int, v int);\nINSERT INTO t VALUES (1, 1);\n```\n\n"
                        + "```sql\nUPDATE t SET v = v + 1 RETURNING old.v AS before, new.v AS after;\n```\n"))
                .page("b.md", TestSite.source("B", "\n```sql\nSELECT 1 AS one;\n```\n\n"
                        + "```sql versions=\"18\"\nSELECT 2 AS two;\n```\n"));
        Path reports = Files.createDirectories(temp.resolve("reports"));
        List<String> jobs = new ArrayList<>();
        for (int version : List.of(17, 18)) {
            for (int shard : List.of(1, 2)) {
                Path report = reports.resolve("kensho-report-" + version + "-" + shard + "/kensho-report.json");
                TestSite.Run job = site.check("--postgres-version", Integer.toString(version), "--shard", shard + "/2",
                        "--report", report.toString());
                assertTrue(Files.isRegularFile(report), job::toString);
                jobs.add(version + " " + (job.status() == 0 ? "held" : "failed"));
            }
        }
        // On 17 the job whose shard has a.md fails; the other holds.
        assertEquals(List.of("17 failed", "17 held", "18 held", "18 held"), jobs.stream().sorted().toList());
        Path merged = temp.resolve("merged.json");
        Merge merge = merge("--content", site.content.toString(), "--report", merged.toString(), reports.toString());
        assertEquals(1, merge.status(), merge::toString);
        assertEquals(site.display("a.md") + ":11:34: error: holds on 18; on 17: missing FROM-clause entry for table \"old\" [42P01]\n", merge.err());
        assertEquals("Kensho: merged 4 report(s): PostgreSQL 17, 18 × 2 shard(s) into " + merged + "\n3 passed, 1 failed\n", merge.out());
        JsonNode report = new ObjectMapper().readTree(merged.toFile());
        assertEquals("[17,18]", report.get("postgresVersions").toString());
        assertEquals("[\"PostgreSQL 17, shard 1/2\",\"PostgreSQL 17, shard 2/2\",\"PostgreSQL 18, shard 1/2\",\"PostgreSQL 18, shard 2/2\"]",
                report.get("merged").toString());
        List<String> snippets = new ArrayList<>();
        report.get("snippets").forEach(s -> snippets.add(s.get("file").asText().replaceAll(".*/", "") + ":" + s.get("line").asInt()
                + " " + s.get("status").asText() + " " + s.get("versions")));
        assertEquals(List.of("a.md:6 passed [17,18]", "a.md:11 failed [17,18]", "b.md:6 passed [17,18]", "b.md:10 passed [18]"), snippets);
        assertEquals("{\"snippets\":4,\"passed\":3,\"failed\":1,\"skipped\":0,\"problems\":0}", report.get("totals").toString());

        // A job that never reported (left out of the matrix, or dead before --report): the merge refuses to pass.
        Files.delete(reports.resolve("kensho-report-17-2/kensho-report.json"));
        Merge incomplete = merge("--content", site.content.toString(), "--report", merged.toString(), reports.toString());
        assertEquals(1, incomplete.status(), incomplete::toString);
        assertEquals("error: no report for PostgreSQL 17 shard 2/2 (the site names PostgreSQL 17, 18): every version × shard job of "
                + "the matrix must upload its report; a missing one did not run, or failed before writing it\n", incomplete.err());
    }

    @Test
    void theActionRefusesAVersionOrShardThatIsNotOne() throws Exception {
        assertEquals("::error title=Kensho::postgres-version must be a PostgreSQL major version such as 16, not '16; rm -rf /'",
                action("INPUT_POSTGRES_VERSION", "16; rm -rf /"));
        assertEquals("::error title=Kensho::shard must be I/N such as 1/2, not '$(id)/2'", action("INPUT_SHARD", "$(id)/2"));
        assertEquals("::error title=Kensho::shard is for command: check (a build writes every page)",
                action("INPUT_SHARD", "1/2", "INPUT_COMMAND", "build"));
    }

    @Test
    void noInputOfTheActionCanStartALineOfItsOwn() throws Exception {
        // GitHub's runner reads a line starting with '::' as a workflow command: an input's line break must not make one.
        assertEquals("::error title=Kensho::command must be check, build or merge-reports, not 'check ::add-mask::x'",
                action("INPUT_COMMAND", "check\n::add-mask::x"));
        assertEquals("::error title=Kensho::provider must be auto, embedded, container or a jdbc:postgresql:// URL, not 'x  ::warning::forged'",
                action("INPUT_PROVIDER", "x\r\n::warning::forged"));
        assertEquals("::error title=Kensho::version must be a release such as 0.1.0, or 'source', not '0.1.0 ::error::forged'",
                action("INPUT_VERSION", "0.1.0\n::error::forged"));
        assertEquals("::error title=Kensho::shard must be I/N such as 1/2, not '1/2 ::notice::x'", action("INPUT_SHARD", "1/2\n::notice::x"));
        assertEquals("::error title=Kensho::postgres-version must be a PostgreSQL major version such as 16, not '16 ::x'",
                action("INPUT_POSTGRES_VERSION", "16\u000b::x"));
    }

    @Test
    void aFileNameHoldingAColonIsMergedLikeAnyOther() throws Exception {
        // A page's file name is the contributor's: "a:1.md" is a valid name on Linux, and the merge once parsed
        // file:line:col back apart to sort snippets, failing with a stack trace on it.
        Path reports = Files.createDirectories(temp.resolve("reports"));
        String snippets = "[{\"file\":\"a:1.md\",\"line\":7,\"column\":1,\"status\":\"passed\",\"versions\":[18]},"
                + "{\"file\":\"a:1.md\",\"line\":3,\"column\":1,\"status\":\"failed\",\"message\":\"boom\",\"versions\":[18]},"
                + "{\"file\":\"a.md\",\"line\":2,\"column\":1,\"status\":\"passed\",\"versions\":[18]}]";
        Files.writeString(reports.resolve("r.json"), "{\"kensho\":\"t\",\"postgresVersions\":[18],\"postgresNamed\":[18],"
                + "\"shard\":\"1/1\",\"snippets\":" + snippets + ",\"problems\":[]}");
        Path merged = temp.resolve("merged.json");
        Merge merge = merge("--content", Files.createDirectories(temp.resolve("content")).toString(), "--report", merged.toString(), reports.toString());
        assertEquals(1, merge.status(), merge::toString);
        assertEquals("a:1.md:3:1: error: boom\n", merge.err());
        List<String> order = new ArrayList<>();
        new ObjectMapper().readTree(merged.toFile()).get("snippets")
                .forEach(snippet -> order.add(snippet.get("file").asText() + " " + snippet.get("line").asInt() + " " + snippet.get("status").asText()));
        assertEquals(List.of("a.md 2 passed", "a:1.md 3 failed", "a:1.md 7 passed"), order);
    }

    @Test
    void aReportThePullRequestCommittedIsNeverMerged() throws Exception {
        // A report committed where the jobs' reports are downloaded would stand in for a job that died before writing
        // its own (merge-reports counts every report it finds): the action refuses a reports folder the repository holds.
        Path forged = temp.resolve("target/kensho-reports/kensho-report-18-2/kensho-report.json");
        Files.createDirectories(forged.getParent());
        Files.writeString(forged, "{\"postgresVersions\":[18],\"postgresNamed\":[18],\"shard\":\"2/2\",\"snippets\":[]}");
        for (List<String> git : List.of(List.of("git", "init", "-q"), List.of("git", "add", "-f", "target"))) {
            Process process = new ProcessBuilder(git).directory(temp.toFile()).inheritIO().start();
            assertEquals(0, process.waitFor());
        }
        assertEquals("::error title=Kensho::reports: target/kensho-reports holds files of the repository"
                        + " (target/kensho-reports/kensho-report-18-2/kensho-report.json); only the matrix jobs' downloaded reports may be merged",
                action("INPUT_COMMAND", "merge-reports"));
    }

    @Test
    void aReportOfAnotherShapeIsRefusedNamingItsFile() throws Exception {
        Path reports = Files.createDirectories(temp.resolve("reports"));
        Path report = reports.resolve("r.json");
        Files.writeString(report, "{\"postgresVersions\":[18],\"postgresNamed\":[18],\"shard\":\"1/1\",\"snippets\":[],\"problems\":[1]}");
        Merge merge = merge("--content", Files.createDirectories(temp.resolve("content")).toString(),
                "--report", temp.resolve("merged.json").toString(), reports.toString());
        assertEquals(1, merge.status(), merge::toString);
        assertEquals("error: " + report + ": not a report of kensho check (it names no postgresVersions, postgresNamed or shard, or its snippets and problems are not lists of objects);"
                + " each job of the matrix writes one with --report\n", merge.err());
    }

    @Test
    void whichVersionsMustHaveReportedComesFromSiteYmlNeverFromTheReports() throws Exception {
        // Red team helper-101: a forged report naming no version (postgresVersions and postgresNamed empty) and a
        // snippet "passed" on no version merged into "1 passed, 0 failed", exit 0.
        Path content = Files.createDirectories(temp.resolve("content"));
        Files.writeString(content.resolve("site.yml"), "postgres:\n  versions: [17, 18]\n");
        Path reports = Files.createDirectories(temp.resolve("reports"));
        String forged = "{\"kensho\":\"0.1.0-SNAPSHOT\",\"postgresVersions\":[],\"postgresNamed\":[],\"shard\":\"%d/2\","
                + "\"snippets\":[{\"file\":\"content/index.md\",\"line\":6,\"column\":1,\"status\":\"passed\",\"versions\":[]}],\"problems\":[]}";
        Files.writeString(reports.resolve("1.json"), String.format(forged, 1));
        Files.writeString(reports.resolve("2.json"), String.format(forged, 2));
        Merge empty = merge("--content", content.toString(), "--report", temp.resolve("m.json").toString(), reports.toString());
        assertEquals(1, empty.status(), empty::toString);
        assertEquals("error: " + reports.resolve("1.json") + ": it reports PostgreSQL [] checked, while site.yml names [17, 18];"
                + " a job of the matrix checks one or more of the site's versions\n", empty.err());

        // A report that names fewer versions than site.yml does: of another site or commit.
        String one = "{\"postgresVersions\":[18],\"postgresNamed\":[18],\"shard\":\"1/1\",\"snippets\":[],\"problems\":[]}";
        Files.writeString(reports.resolve("1.json"), one);
        Files.delete(reports.resolve("2.json"));
        Merge fewer = merge("--content", content.toString(), "--report", temp.resolve("m.json").toString(), reports.toString());
        assertEquals("error: " + reports.resolve("1.json") + ": its site names PostgreSQL [18], while site.yml here names [17, 18];"
                + " the report is of another site or commit\n", fewer.err());

        // A snippet said to have run on a version its job did not check.
        Files.writeString(content.resolve("site.yml"), "postgres:\n  versions: [18]\n");
        Files.writeString(reports.resolve("1.json"), "{\"postgresVersions\":[18],\"postgresNamed\":[18],\"shard\":\"1/1\","
                + "\"snippets\":[{\"file\":\"a.md\",\"line\":6,\"column\":1,\"status\":\"passed\",\"versions\":[17]}],\"problems\":[]}");
        Merge elsewhere = merge("--content", content.toString(), "--report", temp.resolve("m.json").toString(), reports.toString());
        assertEquals("error: " + reports.resolve("1.json") + ": a.md:6 ran on PostgreSQL [17], which its job did not check ([18])\n",
                elsewhere.err());

        // A snippet "passed" on no version is skipped, whatever its report said.
        Files.writeString(reports.resolve("1.json"), "{\"postgresVersions\":[18],\"postgresNamed\":[18],\"shard\":\"1/1\","
                + "\"snippets\":[{\"file\":\"a.md\",\"line\":6,\"column\":1,\"status\":\"passed\",\"versions\":[]}],\"problems\":[]}");
        Merge nowhere = merge("--content", content.toString(), "--report", temp.resolve("m.json").toString(), reports.toString());
        assertEquals(0, nowhere.status(), nowhere::toString);
        assertTrue(nowhere.out().endsWith("0 passed, 0 failed, 1 skipped\n"), nowhere::toString);

        // A failure counts whatever its versions: versions="17" on a site that checks 18 fails before it runs anywhere
        // (red team helper-103: the merge called it skipped and passed).
        Files.writeString(reports.resolve("1.json"), "{\"postgresVersions\":[18],\"postgresNamed\":[18],\"shard\":\"1/1\","
                + "\"snippets\":[{\"file\":\"a.md\",\"line\":6,\"column\":1,\"status\":\"failed\",\"versions\":[],\"errorLine\":5,"
                + "\"errorColumn\":1,\"message\":\"versions=\\\"17\\\" names none of the versions this site checks\"}],"
                + "\"problems\":[{\"file\":\"a.md\",\"line\":5,\"column\":1,\"message\":\"versions=\\\"17\\\" names none of the versions this site checks\"}]}");
        Merge failedNowhere = merge("--content", content.toString(), "--report", temp.resolve("m.json").toString(), reports.toString());
        assertEquals(1, failedNowhere.status(), failedNowhere::toString);
        assertEquals("a.md:5:1: error: versions=\"17\" names none of the versions this site checks\n", failedNowhere.err());
        assertTrue(failedNowhere.out().endsWith("0 passed, 1 failed\n"), failedNowhere::toString);

        // Without the site's content folder there is nothing to tell the required versions by.
        Merge noContent = merge("--content", temp.resolve("missing").toString(), "--report", temp.resolve("m.json").toString(), reports.toString());
        assertEquals(2, noContent.status(), noContent::toString);
        assertEquals("error: content folder " + temp.resolve("missing") + " does not exist: merge-reports reads its site.yml to know which"
                + " PostgreSQL versions must have reported (--content)\n", noContent.err());
    }

    @Test
    void theActionWritesItsReportOutsideTheCheckout() throws Exception {
        // Red team helper-101: a report committed at target/kensho-report.json stayed in place when the job stopped at a
        // refused option, and the workflow uploaded it as the job's. Under GitHub Actions the report goes to RUNNER_TEMP,
        // and an old one there is removed before Kensho starts.
        Path runnerTemp = Files.createDirectories(temp.resolve("runner-temp"));
        Path stale = Files.createDirectories(runnerTemp.resolve("kensho")).resolve("kensho-report.json");
        Files.writeString(stale, "{}");
        Path output = temp.resolve("github-output");
        Files.writeString(output, "");
        ProcessBuilder builder = new ProcessBuilder("bash", Path.of("../bin/kensho-action").toAbsolutePath().toString())
                .directory(temp.toFile()).redirectErrorStream(true);
        builder.environment().put("RUNNER_TEMP", runnerTemp.toString());
        builder.environment().put("GITHUB_OUTPUT", output.toString());
        builder.environment().put("INPUT_VERSION", "9.9.9");
        builder.environment().put("KENSHO_HOME", Files.createDirectories(temp.resolve("releases")).toString());
        builder.environment().put("KENSHO_RELEASES_URL", "http://127.0.0.1:9/none");
        Process process = builder.start();
        String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, process.exitValue(), log); // no such release: it stops before running Kensho
        assertTrue(Files.notExists(stale), log);
        assertEquals("report=" + runnerTemp.resolve("kensho/kensho-report.json") + "\n", Files.readString(output));
    }

    private String action(String... environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", Path.of("../bin/kensho-action").toAbsolutePath().toString())
                .directory(temp.toFile()).redirectErrorStream(true);
        for (int i = 0; i < environment.length; i += 2) {
            builder.environment().put(environment[i], environment[i + 1]);
        }
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, process.exitValue(), output);
        return output.strip();
    }

    private record Merge(int status, String out, String err) {
    }

    private static Merge merge(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> command = new ArrayList<>(List.of("merge-reports"));
        command.addAll(List.of(args));
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), command.toArray(String[]::new));
        return new Merge(status, out.toString(), err.toString());
    }
}
