package dev.kensho.generator.report;

import dev.kensho.generator.Diagnostic;

import java.nio.file.Path;

/**
 * GitHub Actions workflow commands ({@code ::error file=…,line=…,col=…::message}), printed besides the usual
 * messages when {@code GITHUB_ACTIONS=true}, so that each problem shows on the pull request's line. GitHub resolves
 * the file against the repository's root, which is the job's working directory unless a step changes it: paths are
 * written relative to Kensho's working directory.
 */
public final class GitHubAnnotations {

    private GitHubAnnotations() {
    }

    /** Whether the environment is a GitHub Actions job. */
    public static boolean active(java.util.Map<String, String> environment) {
        return "true".equals(environment.get("GITHUB_ACTIONS"));
    }

    public static String error(Diagnostic diagnostic, Path workingDir) {
        String message = diagnostic.message() + (diagnostic.code() == null ? "" : " [" + diagnostic.code() + "]");
        return "::error file=" + property(relative(diagnostic.file(), workingDir)) + ",line=" + diagnostic.line()
                + ",col=" + diagnostic.column() + ",title=" + property("Kensho") + "::" + data(message);
    }

    /** A problem with no place in the sources (no server could be started). */
    public static String error(String message) {
        return "::error title=Kensho::" + data(message);
    }

    private static String relative(String file, Path workingDir) {
        Path path = Path.of(file);
        if (!path.isAbsolute()) {
            return file.replace('\\', '/');
        }
        Path normal = path.normalize();
        Path base = workingDir.toAbsolutePath().normalize();
        return (normal.startsWith(base) ? base.relativize(normal) : normal).toString().replace('\\', '/');
    }

    /**
     * Escapes of a command's message, as GitHub's toolkit writes them (line breaks as %0A, which the annotation shows as
     * breaks), and inside each line what the console gate escapes too ({@link Diagnostic#printable}): other line
     * separators (U+2028, U+0085), control characters and bidirectional controls, which would reorder the annotation's
     * text (red team helper-101). One rule for every line Kensho prints, annotation or not.
     */
    static String data(String text) {
        String[] lines = text.replace("%", "%25").replace("\r\n", "\n").split("\n", -1);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < lines.length; i++) {
            out.append(i == 0 ? "" : "%0A").append(Diagnostic.printable(lines[i]));
        }
        return out.toString();
    }

    /** Escapes of a property value (file, title), as GitHub's toolkit writes them. */
    private static String property(String text) {
        return data(text).replace(":", "%3A").replace(",", "%2C");
    }
}
