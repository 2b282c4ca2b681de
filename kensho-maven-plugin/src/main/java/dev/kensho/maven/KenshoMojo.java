package dev.kensho.maven;

import dev.kensho.generator.cli.KenshoCommand;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Parameter;

import java.io.File;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What {@code kensho:check} and {@code kensho:build} share: the command line's options as Maven parameters (each
 * also a user property, {@code -Dkensho.postgres=container}), run through the same command so that the two can
 * never drift apart. Problems in the sources fail the build ({@link MojoFailureException}, each problem logged as
 * an error at its file:line:col); a parameter Kensho cannot use is a configuration error
 * ({@link MojoExecutionException}).
 */
abstract class KenshoMojo extends AbstractMojo {

    /** Pages and site.yml. */
    @Parameter(property = "kensho.content", defaultValue = "${project.basedir}/content")
    File content;

    /** A theme folder holding only the files it changes; by default theme/ beside the content folder, if any. */
    @Parameter(property = "kensho.theme")
    File theme;

    /** The site folder, replaced only by a successful build. */
    @Parameter(property = "kensho.out", defaultValue = "${project.build.directory}/kensho-site")
    File out;

    /** Where snippets run: auto, embedded, container or a jdbc:postgresql:// URL. */
    @Parameter(property = "kensho.postgres", defaultValue = "embedded")
    String postgres;

    /** The image for the container provider. */
    @Parameter(property = "kensho.pgImage")
    String pgImage;

    /** The JSON report of every snippet. */
    @Parameter(property = "kensho.report", defaultValue = "${project.build.directory}/kensho-report.json")
    File report;

    /** Kensho's limit on one statement, such as 10s or 500ms. */
    @Parameter(property = "kensho.statementTimeout", defaultValue = "10s")
    String statementTimeout;

    /** Kensho's limit on all of a page's snippets together. */
    @Parameter(property = "kensho.pageTimeout", defaultValue = "60s")
    String pageTimeout;

    /**
     * The verification cache: pages whose SQL did not change reuse their outcomes. Default: Kensho's, a folder per
     * project in the user's cache folder, outside the checkout (a folder a commit could fill is refused).
     */
    @Parameter(property = "kensho.cache")
    File cache;

    /** Run every page's SQL, whatever the cache holds. */
    @Parameter(property = "kensho.noCache", defaultValue = "false")
    boolean noCache;

    /** Pages verified and rendered at once. */
    @Parameter(property = "kensho.jobs", defaultValue = "4")
    int jobs;

    /** A folder for JUnit XML (one test case per snippet and scenario), as Surefire writes for tests. */
    @Parameter(property = "kensho.junitXml", defaultValue = "${project.build.directory}/kensho-junit")
    File junitXml;

    /** Skip Kensho altogether, as -DskipTests skips tests. */
    @Parameter(property = "kensho.skip", defaultValue = "false")
    boolean skip;

    /** "check" or "build". */
    abstract String command();

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("Kensho: skipped (kensho.skip)");
            return;
        }
        List<String> args = new ArrayList<>(List.of(command(), "--content", content.getPath(), "--out", out.getPath(),
                "--postgres", postgres, "--report", report.getPath(), "--statement-timeout", statementTimeout,
                "--page-timeout", pageTimeout, "--jobs", Integer.toString(jobs),
                "--junit-xml", junitXml.getPath()));
        if (theme != null) {
            args.addAll(List.of("--theme", theme.getPath()));
        }
        if (pgImage != null && !pgImage.isBlank()) {
            args.addAll(List.of("--pg-image", pgImage));
        }
        if (cache != null) {
            args.addAll(List.of("--cache", cache.getPath()));
        }
        if (noCache) {
            args.add("--no-cache");
        }
        List<String> errors = new ArrayList<>();
        int status;
        try (PrintWriter info = new PrintWriter(new LineWriter(line -> getLog().info(line)), true);
             PrintWriter error = new PrintWriter(new LineWriter(line -> {
                 getLog().error(line);
                 errors.add(line);
             }), true)) {
            status = KenshoCommand.execute(info, error, args.toArray(String[]::new));
        }
        if (status == 2) {
            throw new MojoExecutionException("Kensho cannot run with this configuration: " + String.join(" ", errors));
        }
        if (status != 0) {
            long problems = errors.stream().filter(line -> line.contains(": error: ") || line.startsWith("error: ")).count();
            throw new MojoFailureException("Kensho: " + problems + " problem(s) in " + content + "; see the errors above"
                    + ("build".equals(command()) ? " (" + out + " is left as it was)" : ""));
        }
    }

    /** Hands each complete line written to it on to Maven's log. */
    private static final class LineWriter extends Writer {
        private final Consumer<String> sink;
        private final StringBuilder line = new StringBuilder();

        LineWriter(Consumer<String> sink) {
            this.sink = sink;
        }

        @Override
        public synchronized void write(char[] chars, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                if (chars[i] == '\n') {
                    sink.accept(line.toString());
                    line.setLength(0);
                } else {
                    line.append(chars[i]);
                }
            }
        }

        @Override
        public void flush() {
            // Lines go out as they end; a partial line waits for its end.
        }

        @Override
        public synchronized void close() {
            if (!line.isEmpty()) {
                sink.accept(line.toString());
                line.setLength(0);
            }
        }
    }
}
