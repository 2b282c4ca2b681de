package dev.kensho.generator;

import dev.kensho.generator.cli.KenshoCommand;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A content folder in a temp directory, built with the real CLI against the real theme. */
final class TestSite {

    static final Path THEME = Path.of("../site").toAbsolutePath().normalize();

    final Path root;
    final Path content;
    final Path out;
    final Path report;
    /** The theme folder the site is built with: the real one unless a test gives its own; null for none (built-in). */
    Path theme = THEME;

    TestSite(Path root) throws IOException {
        this.root = root;
        this.content = Files.createDirectories(root.resolve("content"));
        this.out = root.resolve("out/site");
        this.report = root.resolve("out/report.json");
    }

    TestSite page(String relative, String text) throws IOException {
        Path file = content.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return this;
    }

    String display(String relative) {
        return content.resolve(relative).toString();
    }

    Run build(String... extra) {
        return run("build", extra);
    }

    Run check(String... extra) {
        return run("check", extra);
    }

    private Run run(String command, String... extra) {
        List<String> args = new ArrayList<>(List.of(command, "--content", content.toString()));
        if (theme != null) {
            args.addAll(List.of("--theme", theme.toString()));
        }
        args.addAll(List.of("--out", out.toString(), "--report", report.toString(), "--postgres", "embedded",
                "--cache", root.resolve("cache").toString()));
        args.addAll(List.of(extra));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = KenshoCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
        return new Run(status, out.toString(), err.toString());
    }

    record Run(int status, String out, String err) {
        @Override
        public String toString() {
            return "exit " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /**
     * Embedded servers this test JVM started (descendants whose data folder is kensho-pg-*): a
     * developer's own PostgreSQL or another build on the machine is none of the tests' business.
     */
    static List<String> kenshoPostgresProcesses() {
        return serversBelow(ProcessHandle.current()).stream().map(p -> p.info().commandLine().orElse("")).toList();
    }

    /** Embedded servers started by {@code parent} or its descendants. */
    static List<ProcessHandle> serversBelow(ProcessHandle parent) {
        return parent.descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("/bin/postgres")
                        && p.info().commandLine().orElse("").contains("kensho-pg-"))
                .toList();
    }

    static String source(String title, String body) {
        return "---\ntitle: " + title + "\n---\n" + body;
    }
}
