package dev.kensho.generator.cli;

import dev.kensho.generator.serve.PreviewServer;
import dev.kensho.generator.starter.StarterSite;
import dev.kensho.generator.verify.ServerSession;
import dev.kensho.generator.report.Progress;
import dev.kensho.generator.KenshoVersion;
import dev.kensho.generator.BuildOptions;
import dev.kensho.generator.BuildResult;
import dev.kensho.generator.Diagnostic;
import dev.kensho.generator.KenshoBuild;
import dev.kensho.generator.report.ConsoleGate;
import dev.kensho.generator.report.GitHubAnnotations;
import dev.kensho.generator.report.JUnitReport;
import dev.kensho.generator.report.ReportMerge;
import dev.kensho.generator.verify.CacheFolder;
import dev.kensho.generator.verify.CacheSecret;
import dev.kensho.generator.verify.Shard;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.postgres.ContainerPostgres;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code kensho build|check}: exit 0 when everything holds, 1 when something fails, 2 for a usage error. */
@Command(name = "kensho", mixinStandardHelpOptions = true, versionProvider = KenshoCommand.Version.class,
        description = "Builds a lesson site whose SQL examples are proven on PostgreSQL 18.",
        subcommands = {KenshoCommand.Init.class, KenshoCommand.Build.class, KenshoCommand.Check.class, KenshoCommand.Serve.class,
                KenshoCommand.MergeReports.class})
public final class KenshoCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** "Kensho 0.1.0-SNAPSHOT (commit …)": the version alone does not say which snapshot. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{KenshoVersion.describe()};
        }
    }

    /** The real standard output; a progress line is drawn only for a run that writes there (not in tests). */
    private static PrintWriter DEFAULT_OUT;

    public static void main(String[] args) {
        DEFAULT_OUT = new PrintWriter(System.out, true);
        System.exit(execute(DEFAULT_OUT, new PrintWriter(System.err, true), args));
    }

    /** The environment the command reads (GITHUB_ACTIONS); a test gives its own. */
    private java.util.Map<String, String> environment = System.getenv();

    /** Runs the command line with the given streams; returns the exit status. */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        return execute(out, err, System.getenv(), args);
    }

    /** Runs the command line with the given streams and environment; returns the exit status. */
    public static int execute(PrintWriter out, PrintWriter err, java.util.Map<String, String> environment, String... args) {
        KenshoCommand command = new KenshoCommand();
        command.environment = environment;
        CommandLine commandLine = new CommandLine(command);
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setOverwrittenOptionsAllowed(true);
        return commandLine.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: init, build, check, serve or merge-reports");
    }

    /** Options shared by build and check. */
    static final class CommonOptions {
        @Option(names = "--content", defaultValue = "content", description = "Lesson sources (default: ${DEFAULT-VALUE}).")
        Path content;

        @Option(names = "--theme", paramLabel = "DIR", description = "A theme folder holding only the files it changes "
                + "(templates/, components/, i18n/, assets/); every other file comes from the built-in theme "
                + "(default: theme/ beside the content folder when there is one).")
        Path theme;

        /** The theme folder given, else theme/ beside the content folder, else none (the built-in theme alone). */
        Path themeFolder() {
            if (theme != null) {
                return theme;
            }
            Path parent = content.toAbsolutePath().normalize().getParent();
            Path beside = parent == null ? null : parent.resolve("theme");
            return beside != null && java.nio.file.Files.isDirectory(beside) ? beside : null;
        }

        @Option(names = "--out", defaultValue = "target/site", description = "Site folder, replaced only by a successful build (default: ${DEFAULT-VALUE}).")
        Path out;

        @Option(names = "--postgres", defaultValue = "auto", paramLabel = "auto|embedded|container|JDBC_URL",
                description = "Where snippets run: auto (container when a Docker engine answers and already holds the image, else embedded), "
                        + "embedded PostgreSQL 18.6 binaries, a Testcontainers container, or an existing server (default: ${DEFAULT-VALUE}).")
        String postgres;

        @Option(names = "--pg-image", defaultValue = ContainerPostgres.DEFAULT_IMAGE, description = "Image for the container provider (default: ${DEFAULT-VALUE}).")
        String image;

        @Option(names = "--report", defaultValue = "target/kensho-report.json", description = "JSON report (default: ${DEFAULT-VALUE}).")
        Path report;

        @Option(names = "--statement-timeout", defaultValue = "10s", description = "Kensho's limit on one snippet statement, "
                + "e.g. 10s or 500ms; a statement stopped by it fails and never satisfies a claim (default: ${DEFAULT-VALUE}).")
        String statementTimeout;

        @Option(names = "--page-timeout", defaultValue = "60s", description = "Kensho's limit on all of a page's snippets "
                + "together; a page stopped by it fails (default: ${DEFAULT-VALUE}).")
        String pageTimeout;

        @Option(names = "--cache", paramLabel = "DIR",
                description = "Verification cache: pages whose SQL did not change reuse their outcomes, signed by this machine "
                        + "(default: a folder per project in $XDG_CACHE_HOME/kensho or ~/.cache/kensho, outside the checkout).")
        Path cache;

        @Option(names = "--no-cache", description = "Run every page's SQL, whatever the cache holds.")
        boolean noCache;

        @Option(names = "--jobs", paramLabel = "N", description = "Pages verified and rendered at once (default: 4).")
        int jobs = 4;

        @Option(names = "--postgres-version", paramLabel = "N", description = "Check on PostgreSQL N alone, one of the versions "
                + "site.yml names in postgres.versions (default: every one of them).")
        Integer postgresVersion;

        /** Where a path leads: its deepest existing folder with links followed, and the rest of it as written. */
        private static Path resolved(Path path) {
            Path absolute = path.toAbsolutePath().normalize();
            Path existing = absolute;
            while (existing != null && !java.nio.file.Files.exists(existing)) {
                existing = existing.getParent();
            }
            try {
                return existing == null ? absolute : existing.toRealPath().resolve(existing.relativize(absolute));
            } catch (java.io.IOException e) {
                return absolute;
            }
        }

        /** The options as the build takes them; a value that cannot be used is a usage error (exit 2). */
        BuildOptions buildOptions(CommandLine.Model.CommandSpec spec, boolean render, Shard shard, Path junit,
                                  java.util.Map<String, String> environment) {
            return buildOptions(spec, render, shard, junit, render, environment);
        }

        /**
         * @param writesOut   whether the command writes --out (build does; check and serve do not)
         * @param environment where the user's cache folder and the cache's secret are found
         */
        BuildOptions buildOptions(CommandLine.Model.CommandSpec spec, boolean render, Shard shard, Path junit, boolean writesOut,
                                  java.util.Map<String, String> environment) {
            try {
                VerifierSettings limits = new VerifierSettings(duration("--statement-timeout", statementTimeout))
                        .withPageTimeout(duration("--page-timeout", pageTimeout));
                if (!postgres.matches("auto|embedded|container") && !postgres.startsWith("jdbc:postgresql:")) {
                    throw new IllegalArgumentException("--postgres takes auto, embedded, container or a jdbc:postgresql:// URL, not '"
                            + postgres + "'");
                }
                if (writesOut) {
                    Path site = resolved(out);
                    Path sources = resolved(content);
                    if (site.startsWith(sources) || sources.startsWith(site)) {
                        // The site would be published into its own sources (or replace them): every build would read the last one.
                        throw new IllegalArgumentException("--out " + out + " and --content " + content + " may not lie inside one "
                                + "another; write the site outside the content folder");
                    }
                }
                // Where the build writes: never through a link committed in the folder it builds (LinkFreePaths).
                dev.kensho.generator.output.LinkFreePaths.refuseLinks("--report", report, content);
                if (junit != null) {
                    dev.kensho.generator.output.LinkFreePaths.refuseLinks("--junit-xml", junit.resolve(JUnitReport.FILE_NAME), content);
                }
                if (writesOut) {
                    dev.kensho.generator.output.LinkFreePaths.refuseLinks("--out", out, content);
                    Path lock = out.toAbsolutePath().normalize();
                    if (lock.getParent() != null) {
                        dev.kensho.generator.output.LinkFreePaths.refuseLinks("--out", lock.getParent().resolve("." + lock.getFileName() + ".lock"), content);
                    }
                }
                Path verificationCache = noCache ? null : cache != null ? cache : CacheFolder.forProject(content, environment);
                // CI (CI or GITHUB_ACTIONS set, as hosted CI systems do) runs clock- and chance-reading pages afresh: its build publishes.
                boolean inCi = environment.get("CI") != null || "true".equals(environment.get("GITHUB_ACTIONS"));
                if (postgresVersion != null && !dev.kensho.sqlchecks.postgres.PostgresReleases.supported(postgresVersion)) {
                    throw new IllegalArgumentException("--postgres-version takes a PostgreSQL major version Kensho checks on ("
                            + dev.kensho.sqlchecks.postgres.PostgresReleases.describe(dev.kensho.sqlchecks.postgres.PostgresReleases.SUPPORTED)
                            + "), not " + postgresVersion);
                }
                return new BuildOptions(content, themeFolder(), out, postgres, image, report, render, limits, shard, junit,
                        verificationCache, Math.max(1, jobs), CacheSecret.of(environment), inCi, postgresVersion == null ? 0 : postgresVersion);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }

        @Option(names = "--junit-xml", paramLabel = "DIR", description = "Also write JUnit XML (DIR/" + JUnitReport.FILE_NAME
                + "): one test case per snippet and scenario, for CI systems.")
        Path junitXml;
    }

    abstract static class Run implements Callable<Integer> {
        @Mixin
        CommonOptions options = new CommonOptions();

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.ParentCommand
        KenshoCommand parent;

        abstract boolean render();

        /** The environment the command reads (GITHUB_ACTIONS, the cache's folder and secret). */
        java.util.Map<String, String> environment() {
            return parent == null ? System.getenv() : parent.environment;
        }

        /** The share of pages to verify; every page unless the command takes --shard. */
        Shard shard() {
            return Shard.ALL;
        }

        @Override
        public Integer call() {
            Shard shard;
            try {
                shard = shard();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            BuildOptions buildOptions = options.buildOptions(spec, render(), shard, options.junitXml, environment());
            // Every line from here on passes the gate: no page, file name or server message becomes a CI command.
            try (ConsoleGate console = ConsoleGate.open(spec.commandLine().getOut(), spec.commandLine().getErr(), environment())) {
                return report(buildOptions, console);
            }
        }

        private int report(BuildOptions buildOptions, ConsoleGate console) {
            BuildResult result;
            try (Progress progress = spec.commandLine().getOut() == DEFAULT_OUT
                    ? Progress.onStandardError() : Progress.silent()) {
                result = KenshoBuild.run(buildOptions, ServerSession.perBuild(), null, progress, console::out);
            } catch (IOException e) {
                console.err("error: " + e.getMessage());
                return 1;
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                // A bug of ours, not a problem in the sources: say so plainly, without a stack trace.
                StackTraceElement where = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
                console.err("error: internal error in Kensho (" + e + (where == null ? "" : " at " + where)
                        + "); the previous site is left as it was. Please report this with the command you ran"
                        + (environment().containsKey("KENSHO_TRACE") ? "." : " (KENSHO_TRACE=1 adds the stack trace)."));
                if (environment().containsKey("KENSHO_TRACE")) {
                    // For a bug report, on request; each line passes the console gate as any other.
                    java.io.StringWriter trace = new java.io.StringWriter();
                    e.printStackTrace(new java.io.PrintWriter(trace));
                    trace.toString().lines().map(line -> line.replace("\t", "    ")).forEach(console::err);
                }
                return 1;
            }
            result.diagnostics().forEach(console::diagnostic);
            if (result.environmentError() != null) {
                console.err("error: " + result.environmentError());
            }
            if (console.github()) {
                Path workingDir = Path.of("").toAbsolutePath();
                List<String> annotations = new java.util.ArrayList<>(result.diagnostics().stream()
                        .map(diagnostic -> GitHubAnnotations.error(diagnostic, workingDir)).toList());
                if (result.environmentError() != null) {
                    annotations.add(GitHubAnnotations.error(result.environmentError()));
                }
                console.commands(annotations);
            }
            if (result.upToDate() != null) {
                // Nothing ran: the counts are those of the build that wrote the site, which is what this build would write.
                console.out("up to date: " + options.out + " is left as it was (" + String.format(Locale.ROOT, "%.2f s",
                        result.elapsed().toNanos() / 1e9) + ")");
                console.out(result.upToDate().passed() + " passed, " + result.upToDate().failed() + " failed"
                        + (result.upToDate().skipped() > 0 ? ", " + result.upToDate().skipped() + " skipped" : ""));
                return 0;
            }
            long failedSnippets = result.verification().count(Outcome.Status.FAILED);
            long otherProblems = result.diagnostics().size() - failedSnippets;
            console.out(summary(result, otherProblems));
            if (!result.ignoredSql().isEmpty()) {
                console.out(result.ignoredSql().size() + " SQL fence(s) marked ignore shown as not verified: "
                        + String.join(", ", result.ignoredSql()));
            }
            console.out(result.verification().count(Outcome.Status.PASSED) + " passed, " + failedSnippets + " failed"
                    + (result.verification().count(Outcome.Status.SKIPPED) > 0
                    ? ", " + result.verification().count(Outcome.Status.SKIPPED) + " skipped" : ""));
            return result.succeeded() ? 0 : 1;
        }

        private String summary(BuildResult result, long otherProblems) {
            String seconds = String.format(Locale.ROOT, "%.2f s", result.elapsed().toNanos() / 1e9);
            String problems = otherProblems > 0 ? "; " + otherProblems + " other problem(s) in the sources" : "";
            if (result.written()) {
                return "built " + result.pages() + " page(s) into " + options.out + " in " + seconds + problems;
            }
            if (render()) {
                return "nothing written: " + options.out + " is left as it was (" + seconds + ")" + problems;
            }
            return "checked " + result.pages() + " page(s) in " + seconds + problems;
        }
    }

    static Duration duration(String option, String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        try {
            if (value.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
            }
            if (value.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1000));
            }
            if (value.endsWith("min")) {
                return Duration.ofMinutes(Long.parseLong(value.substring(0, value.length() - 3)));
            }
        } catch (NumberFormatException ignored) {
            // Falls through to the message below.
        }
        throw new IllegalArgumentException(option + " takes a duration such as 10s or 500ms, not '" + text + "'");
    }

    @Command(name = "build", mixinStandardHelpOptions = true,
            description = "Verify every SQL snippet, then render the site into --out (replaced only when all holds).")
    static final class Build extends Run {
        @Override
        boolean render() {
            return true;
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = "Preview the site on http://127.0.0.1:PORT/, rebuilding and reloading the browser on every change.")
    static final class Serve implements Callable<Integer> {
        @Mixin
        CommonOptions options = new CommonOptions();

        @CommandLine.ParentCommand
        KenshoCommand parent;

        @Option(names = "--port", defaultValue = "4321", description = "Port on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0 picks a free one).")
        int port;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            java.util.Map<String, String> environment = parent == null ? System.getenv() : parent.environment;
            BuildOptions buildOptions = options.buildOptions(spec, true, Shard.ALL, null, false, environment);
            // The preview's log passes the same gate as build's output (a diagnostic arrives as Kensho laid it out).
            ConsoleGate console = ConsoleGate.open(spec.commandLine().getOut(), spec.commandLine().getErr(), environment);
            PreviewServer preview = new PreviewServer(buildOptions, console::block);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                preview.close();
                console.close();
            }, "kensho-preview-shutdown"));
            int bound = preview.start(port);
            console.out("Kensho: previewing on http://127.0.0.1:" + bound + "/ (Ctrl-C to stop)");
            Thread.currentThread().join();
            return 0;
        }
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Verify every SQL snippet and check every link and anchor, as build does, without writing the site.")
    static final class Check extends Run {
        @Option(names = "--shard", paramLabel = "I/N", description = "Verify only the I-th of N deterministic shares of the pages "
                + "(by a hash of each page's path; all shares together cover every page once).")
        String shard;

        @Override
        boolean render() {
            return false;
        }

        @Override
        Shard shard() {
            return shard == null ? Shard.ALL : Shard.parse(shard);
        }
    }

    @Command(name = "merge-reports", mixinStandardHelpOptions = true,
            description = "Merge the JSON reports of a CI matrix (check --postgres-version V --shard I/N per job) into one: each "
                    + "snippet once, failing where it failed on any version; refused unless every version site.yml names "
                    + "reported every shard.")
    static final class MergeReports implements Callable<Integer> {
        @CommandLine.Parameters(arity = "1..*", paramLabel = "REPORT|DIR", description = "Reports, or folders holding them (*.json).")
        List<Path> reports;

        @Option(names = "--report", defaultValue = "target/kensho-report.json", description = "The merged report (default: ${DEFAULT-VALUE}).")
        Path out;

        @Option(names = "--content", defaultValue = "content",
                description = "The content folder whose site.yml names the PostgreSQL versions every report must cover (default: ${DEFAULT-VALUE}).")
        Path content;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ReportMerge.Merged merged;
            try {
                dev.kensho.generator.output.LinkFreePaths.refuseLinks("--report", this.out, content.toAbsolutePath());
                List<Integer> required = siteVersions(err);
                if (required == null) {
                    return 2;
                }
                merged = ReportMerge.merge(ReportMerge.find(reports), required);
                ReportMerge.write(this.out, merged);
            } catch (ReportMerge.Refused e) {
                err.println(ConsoleGate.line("error: " + e.getMessage()));
                return 1;
            } catch (IllegalArgumentException e) {
                err.println(ConsoleGate.line("error: " + e.getMessage()));
                return 2;
            } catch (IOException e) {
                err.println(ConsoleGate.line("error: cannot write " + this.out + ": " + e.getMessage()));
                return 1;
            }
            // Server messages and file names come from the pages: each line passes the console gate.
            merged.failures().forEach(line -> err.println(ConsoleGate.line(line)));
            out.println(ConsoleGate.line("Kensho: merged " + merged.sources() + " report(s): PostgreSQL "
                    + dev.kensho.sqlchecks.postgres.PostgresReleases.describe(merged.versions()) + " × " + merged.shards()
                    + " shard(s) into " + this.out));
            out.println(merged.passed() + " passed, " + merged.failed() + " failed"
                    + (merged.skipped() > 0 ? ", " + merged.skipped() + " skipped" : ""));
            return merged.failures().isEmpty() ? 0 : 1;
        }

        /** The versions site.yml names (what a build would check), or null once its problems are printed. */
        private List<Integer> siteVersions(PrintWriter err) throws IOException {
            if (!java.nio.file.Files.isDirectory(content)) {
                throw new IllegalArgumentException("content folder " + content + " does not exist: merge-reports reads its site.yml"
                        + " to know which PostgreSQL versions must have reported (--content)");
            }
            dev.kensho.generator.content.ContentFiles files = new dev.kensho.generator.content.ContentFiles(content.toAbsolutePath().normalize());
            List<dev.kensho.generator.Diagnostic> diagnostics = new java.util.ArrayList<>();
            dev.kensho.generator.content.SiteConfig site = dev.kensho.generator.content.SiteConfig.load(files,
                    content.resolve(dev.kensho.generator.content.SiteConfig.FILE_NAME).toString(), diagnostics);
            if (!diagnostics.isEmpty()) {
                diagnostics.forEach(d -> d.lines().forEach(line -> err.println(ConsoleGate.line(line))));
                return null;
            }
            return site.postgresVersions();
        }
    }

    @Command(name = "init", mixinStandardHelpOptions = true,
            description = "Start a site in DIR (default: the current folder): content/index.md with a verified query and a scenario, "
                    + "content/site.yml, content/logo.svg and content/custom.css (the branding to change), a GitHub workflow using Kensho's action, and .gitignore. Writes nothing over an existing file.")
    static final class Init implements Callable<Integer> {
        @CommandLine.Parameters(arity = "0..1", paramLabel = "DIR", defaultValue = ".")
        Path folder;

        @Option(names = "--lang", defaultValue = "en", paramLabel = "en|ja",
                description = "Language of the pages and the theme's words (site.yml's lang; default: ${DEFAULT-VALUE}).")
        String lang;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            List<String> written;
            try {
                written = StarterSite.write(folder, lang);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            } catch (StarterSite.LinkInTheWay e) {
                err.println("error: " + e.getMessage());
                return 2;
            } catch (StarterSite.AlreadyThere | IOException e) {
                err.println(ConsoleGate.line("error: " + e.getMessage()));
                return 1;
            }
            written.forEach(file -> out.println(ConsoleGate.line("  created " + folder.resolve(file).normalize())));
            String cd = folder.normalize().toString().isEmpty() || folder.normalize().toString().equals(".") ? ""
                    : "cd " + folder.normalize() + " && ";
            out.println("Next: " + cd + "kensho serve   (preview on http://127.0.0.1:4321/, checked again on every save)");
            return 0;
        }
    }
}
