package dev.kensho.generator.report;

import dev.kensho.generator.Diagnostic;

import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The one way Kensho's console output leaves the process: every line of {@code build}, {@code check} and
 * {@code serve} (diagnostics, log lines, summaries, GitHub annotations) is printed here, so that no text a
 * contributor or the server wrote can become a CI command.
 *
 * <p>GitHub's runner reads every line of a step's stdout and stderr as a possible workflow command: a line
 * that starts with {@code ::} once leading white space is trimmed ({@code ::add-mask::}, {@code ::stop-commands::},
 * a forged {@code ::error file=…}), and a line holding {@code ##[} anywhere (the older syntax). Three rules
 * keep them inert:
 * <ol>
 *   <li>each call prints exactly one line: every line break in the text (LF, CR, VT, FF, NEL, U+2028,
 *       U+2029) is printed as an escape ({@link Diagnostic#printable}), so a RAISE message or a file name
 *       cannot start a line of its own;</li>
 *   <li>a line that would still start with {@code ::} (a row of a printed table, a line of a multi-line
 *       DETAIL under a note) has that colon printed as {@code \u003a}, and every {@code ##[} as {@code \u0023#[}:
 *       on any CI system and on a terminal alike;</li>
 *   <li>with {@code GITHUB_ACTIONS=true}, all output runs inside {@code ::stop-commands::TOKEN} …
 *       {@code ::TOKEN::} with a fresh random token nobody can know in advance; commands are switched on
 *       again only for Kensho's own annotations. The runner reads stdout and stderr as two streams, so
 *       this is a second wall behind rules 1 and 2, not a replacement for them.</li>
 * </ol>
 */
public final class ConsoleGate implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean github;
    /** The token that switches commands on again, while they are off; null while they are on. */
    private String stopToken;

    private ConsoleGate(PrintWriter out, PrintWriter err, boolean github) {
        this.out = out;
        this.err = err;
        this.github = github;
    }

    /** A gate over the two streams; under GitHub Actions, commands are switched off from here on. */
    public static ConsoleGate open(PrintWriter out, PrintWriter err, Map<String, String> environment) {
        ConsoleGate gate = new ConsoleGate(out, err, GitHubAnnotations.active(environment));
        if (gate.github) {
            gate.stopCommands();
        }
        return gate;
    }

    /** Whether Kensho runs as a GitHub Actions step (its annotations are then printed). */
    public boolean github() {
        return github;
    }

    /** One line on stdout; whatever the text holds, it stays one line and starts no command. */
    public synchronized void out(String text) {
        print(out, line(text));
    }

    /** One line on stderr; whatever the text holds, it stays one line and starts no command. */
    public synchronized void err(String text) {
        print(err, line(text));
    }

    /** A diagnostic on stderr, in its lines ({@link Diagnostic#lines}), then a blank line. */
    public synchronized void diagnostic(Diagnostic diagnostic) {
        for (String line : diagnostic.lines()) {
            print(err, inert(line));
        }
        print(err, "");
    }

    /**
     * Text Kensho laid out in lines itself (a diagnostic as the preview logs it): split at its line feeds,
     * every other line break escaped, every line made inert.
     */
    public synchronized void block(String text) {
        for (String part : text.split("\n", -1)) {
            if (!part.isEmpty()) {
                print(out, line(part));
            }
        }
    }

    /** Kensho's own workflow commands on stdout: the only lines printed while commands are on. */
    public synchronized void commands(List<String> commands) {
        if (!github || commands.isEmpty()) {
            return;
        }
        resumeCommands();
        for (String command : commands) {
            if (!command.startsWith("::") || command.chars().anyMatch(c -> c == '\n' || c == '\r')) {
                throw new IllegalArgumentException("not a single workflow command: " + command);
            }
            out.println(command);
        }
        stopCommands();
    }

    /** Switches commands on again at the end of Kensho's output, so that later steps of the job work as before. */
    @Override
    public synchronized void close() {
        if (stopToken != null) {
            resumeCommands();
        }
        out.flush();
        err.flush();
    }

    /** The text as one line that starts no workflow command. */
    public static String line(String text) {
        return inert(Diagnostic.printable(text));
    }

    /** A line with a leading {@code ::} and every {@code ##[} escaped, as GitHub's runner would otherwise read them. */
    static String inert(String line) {
        int start = 0;
        while (start < line.length() && (Character.isWhitespace(line.charAt(start)) || Character.isSpaceChar(line.charAt(start)))) {
            start++;
        }
        String safe = line.startsWith("::", start) ? line.substring(0, start) + "\\u003a" + line.substring(start + 1) : line;
        return safe.replace("##[", "\\u0023#[");
    }

    private void stopCommands() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        stopToken = "kensho-" + HexFormat.of().formatHex(bytes);
        out.println("::stop-commands::" + stopToken);
        out.flush();
    }

    private void resumeCommands() {
        out.println("::" + stopToken + "::");
        stopToken = null;
    }

    private static void print(PrintWriter stream, String line) {
        stream.println(line);
        stream.flush();
    }
}
