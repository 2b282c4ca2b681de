package dev.kensho.generator.output;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where Kensho writes (the site, its lock, the reports): never through a symbolic link inside the folder it runs in. A
 * pull request may commit {@code target} or {@code target/kensho-report.json} as a link to {@code /etc/passwd}; a build
 * run as root that followed it would truncate that file (red team helper-98). Judged: the parts of a path inside the
 * folder Kensho runs in or the project folder (the content folder's parent), where a checkout's files are. Parts outside
 * them are the user's own choice (a home folder that is a link) and are not judged.
 */
public final class LinkFreePaths {

    private LinkFreePaths() {
    }

    /**
     * Refuses {@code path} (given as {@code option}) when a part of it inside the working folder or the project folder of
     * {@code content} exists as a symbolic link.
     *
     * @throws IllegalArgumentException saying which part is a link, and to what
     */
    public static void refuseLinks(String option, Path path, Path content) {
        refuseLinksBelow(option, path, Path.of("").toAbsolutePath().normalize());
        Path project = content.toAbsolutePath().normalize().getParent();
        if (project != null && project.getParent() != null) {
            refuseLinksBelow(option, path, project);
        }
    }

    private static void refuseLinksBelow(String option, Path path, Path workingFolder) {
        Path absolute = path.toAbsolutePath().normalize();
        if (!absolute.startsWith(workingFolder) || absolute.equals(workingFolder)) {
            return;
        }
        Path part = workingFolder;
        for (Path name : workingFolder.relativize(absolute)) {
            part = part.resolve(name);
            if (Files.isSymbolicLink(part)) {
                String to;
                try {
                    to = Files.readSymbolicLink(part).toString();
                } catch (IOException e) {
                    to = "somewhere Kensho cannot read";
                }
                throw new IllegalArgumentException(option + " " + path + ": " + workingFolder.relativize(part) + " is a symbolic link (to "
                        + to + "); Kensho does not write through links in the folder it builds, so that a link committed there "
                        + "cannot send its output elsewhere. Remove the link, or name a path outside this folder");
            }
            if (!Files.exists(part, LinkOption.NOFOLLOW_LINKS)) {
                return; // what does not exist yet is made by Kensho, as folders
            }
        }
    }

    /** A new or truncated file, refusing to open it through a link made after the options were checked. */
    public static OutputStream create(Path file) throws IOException {
        return Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
    }
}
