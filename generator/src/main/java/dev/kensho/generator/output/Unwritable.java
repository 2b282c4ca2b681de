package dev.kensho.generator.output;

import dev.kensho.generator.verify.Owner;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file Kensho must write (its report, JUnit XML, the site) in a folder it may not write: said with the file, the
 * folder, whose it is, and what to do. The usual case is Kensho's image run on a checkout owned by another user
 * (root, on a CI machine): every example is checked, and then the report cannot be written.
 */
public final class Unwritable extends IOException {

    private Unwritable(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * @param what the file's purpose ("the JSON report")
     * @param file the file Kensho meant to write
     */
    public static Unwritable explain(String what, Path file, FileSystemException cause) {
        Path failed = cause.getFile() == null ? file.toAbsolutePath() : Path.of(cause.getFile());
        String reason = cause.getReason() != null ? cause.getReason().toLowerCase(java.util.Locale.ROOT)
                : cause instanceof AccessDeniedException ? "permission denied" : cause.getClass().getSimpleName();
        Path folder = nearestExisting(failed);
        String whose = folder == null ? "" : Owner.problem(folder) == null ? " (" + folder + " is the build user's, but may not be written)"
                : " (" + folder + ": " + Owner.problem(folder) + ")";
        return new Unwritable("cannot write " + what + " " + file + ": " + failed + ": " + reason + whose
                + ". Kensho writes only its report, JUnit XML and site (--report, --junit-xml, --out; by default below target/). "
                + "Run it as the owner of the checkout (with Docker: docker run --user \"$(id -u):$(id -g)\" …), "
                + "or point those options at a folder it may write, such as --report /tmp/kensho/report.json", cause);
    }

    private static Path nearestExisting(Path path) {
        for (Path at = path.toAbsolutePath(); at != null; at = at.getParent()) {
            if (Files.exists(at)) {
                return Files.isDirectory(at) ? at : at.getParent();
            }
        }
        return null;
    }
}
