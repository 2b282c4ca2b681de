package dev.kensho.generator.content;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The one gate through which Kensho reads a contributor's file. A file is read or published only
 * when it is a regular file whose real path (after every symbolic link) lies inside the content
 * folder, and it is not larger than the limit for its kind: a link to {@code /proc/self/environ},
 * {@code /etc/passwd}, a FIFO or a device is refused at its path, without reading it and without
 * saying anything about what lies outside.
 */
public final class ContentFiles {

    /** Largest page source read. */
    public static final long MAX_PAGE_BYTES = 4L << 20;
    /** Largest diagram read. */
    public static final long MAX_DIAGRAM_BYTES = 1L << 20;
    /** Largest file copied to the site as it is. */
    public static final long MAX_ASSET_BYTES = 64L << 20;

    private final Path root;
    private final Path realRoot;
    /** The account that owns the content folder; a file owned by another one is not the contributor's to publish. */
    private final Object owner;

    /** What the folder is called in messages ("content", "theme"). */
    private final String folder;

    /** The site's own path prefixes (site.yml's aliases), which name files from the root. */
    private final PathAliases aliases;

    public ContentFiles(Path root) throws IOException {
        this(root, "content");
    }

    /**
     * A gate for another folder of contributor files, such as the theme folder, with the same rules.
     *
     * @param folder what the folder is called in messages ("theme": "outside the theme folder", "inside theme/")
     */
    public ContentFiles(Path root, String folder) throws IOException {
        this.folder = folder;
        this.root = root.toAbsolutePath().normalize();
        this.realRoot = this.root.toRealPath();
        this.owner = unixAttribute(realRoot, "uid");
        this.aliases = PathAliases.NONE;
        this.readOutside = java.util.concurrent.ConcurrentHashMap.newKeySet();
    }

    private ContentFiles(ContentFiles gate, PathAliases aliases) {
        this.folder = gate.folder;
        this.root = gate.root;
        this.realRoot = gate.realRoot;
        this.owner = gate.owner;
        this.aliases = aliases;
        this.readOutside = gate.readOutside; // one build's reads, whichever gate made them
    }

    /** The same gate, where names may also start with one of the site's aliases ({@code ~/assets/chart.png}). */
    public ContentFiles withAliases(PathAliases aliases) {
        return new ContentFiles(this, aliases);
    }

    /**
     * The file a page in {@code folder} names: relative to it, from the root when it starts with "/" or an alias. Only
     * a name: {@link #check} and the reads still refuse anything outside the root.
     */
    public Path named(Path folder, String name) throws Refused {
        String expanded = aliases.expand(name);
        return expanded.startsWith("/") ? resolve(root, expanded.substring(1)) : resolve(folder, expanded);
    }

    /** A "unix:" attribute of a file, not followed if a link, or null where the file system has none. */
    private static Object unixAttribute(Path file, String name) {
        try {
            return Files.getAttribute(file, "unix:" + name, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Files copied to the site as they are: passive types a browser shows or downloads, never runs.
     * HTML, XHTML, XML, JavaScript and files without an extension would run script on the site's
     * origin (a page may still show their text, through {@code ?raw} imports); SVG is published only as
     * {@code SvgDiagram} sanitises it.
     */
    private static final java.util.Set<String> PASSIVE = java.util.Set.of("png", "jpg", "jpeg", "gif", "webp", "avif", "ico",
            "bmp", "woff", "woff2", "ttf", "otf", "pdf", "txt", "csv", "tsv", "json", "sql", "zip", "gz", "tgz", "mp3", "mp4",
            "webm", "ogg", "wav", "css", "yml", "yaml");

    /** Why a file in content/ (not a page) may not be copied to the site as it is, or null when it may. */
    public static String publishProblem(String relative) {
        String name = relative.substring(relative.lastIndexOf('/') + 1);
        int dot = name.lastIndexOf('.');
        String extension = dot <= 0 ? "" : name.substring(dot + 1).toLowerCase(java.util.Locale.ROOT);
        if (extension.equals("svg") || PASSIVE.contains(extension)) {
            return null;
        }
        return "not published: " + (extension.isEmpty() ? "a file without an extension" : "a ." + extension + " file")
                + " could run script on the site's origin; content/ may publish only images, fonts, PDF, CSS and plain data ("
                + String.join(", ", new java.util.TreeSet<>(PASSIVE)) + "), SVG (sanitised as diagrams are), and files a page imports with ?raw";
    }

    /** True for an SVG file: published only as the SVG sanitiser writes it again, never copied as it is. */
    public static boolean isSvg(String relative) {
        return relative.toLowerCase(java.util.Locale.ROOT).endsWith(".svg");
    }

    public Path root() {
        return root;
    }

    /** A file that may not be read; the message says why, in terms of the content folder only. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * A file a contributor names ({@code src=}, an import, a site.yml setting), relative to {@code folder}.
     * A name no path can hold (a NUL character) is refused like any other file that cannot be read, at the
     * line that names it, rather than escaping as an {@link InvalidPathException} (found by fuzzing).
     */
    public static Path resolve(Path folder, String name) throws Refused {
        try {
            return folder.resolve(name);
        } catch (InvalidPathException e) {
            throw new Refused("it is not a file name (" + e.getReason() + ")");
        }
    }

    /**
     * Checks a path below the content root and returns the real file to read.
     *
     * @param maxBytes the size limit for this kind of file
     */
    public Path check(Path file, long maxBytes) throws Refused {
        Path normalized = file.toAbsolutePath().normalize();
        if (!normalized.startsWith(root)) {
            throw new Refused("it is outside the " + folder + " folder; only files inside " + folder + "/ are read");
        }
        Path real;
        try {
            real = normalized.toRealPath();
        } catch (IOException e) {
            boolean link = Files.isSymbolicLink(normalized);
            throw new Refused(link ? "it is a symbolic link that leads nowhere inside " + folder + "/" : "no such file");
        }
        if (!real.startsWith(realRoot)) {
            throw new Refused("it is a symbolic link to a file outside the " + folder + " folder; Kensho never reads or publishes such a file");
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new Refused("it cannot be read: " + e.getMessage());
        }
        if (!attributes.isRegularFile()) {
            throw new Refused(attributes.isDirectory() ? "it is a folder" : "it is not a regular file (a FIFO, socket or device); Kensho reads only plain files");
        }
        Object links = unixAttribute(real, "nlink");
        if (links instanceof Integer count && count > 1) {
            throw new Refused("it has " + count + " hard links; a file in " + folder + "/ must have one (another link may be a file outside " + folder + "/)");
        }
        Object fileOwner = unixAttribute(real, "uid");
        if (owner != null && fileOwner != null && !owner.equals(fileOwner)) {
            throw new Refused("it is owned by another account (uid " + fileOwner + ") than the " + folder + " folder (uid " + owner + ")");
        }
        if (attributes.size() > maxBytes) {
            throw new Refused("it is " + attributes.size() + " bytes, more than the " + (maxBytes >> 20) + " MiB Kensho reads for this kind of file");
        }
        return real;
    }

    private java.util.Set<Path> tracked;
    /** Files outside content/ read because git tracks them: inputs of the build beside content/'s own. */
    private final java.util.Set<Path> readOutside;

    /** The files outside content/ this gate read (real paths), for the up-to-date record. */
    public java.util.Set<Path> readOutside() {
        return java.util.Set.copyOf(readOutside);
    }

    /**
     * Reads a file inside content/, or, for text a page imports ({@code import x from '../examples/a.sql?raw'}), a file
     * git tracks in the repository that holds content/: never an untracked or ignored one (a build's output, a secret
     * beside the sources), never one reached through a symbolic link, with the same size limit.
     */
    public byte[] readTracked(Path file, long maxBytes) throws Refused {
        Path normalized = file.toAbsolutePath().normalize();
        if (normalized.startsWith(root)) {
            return read(file, maxBytes);
        }
        synchronized (this) {
            if (tracked == null) {
                tracked = GitTracked.files(root);
            }
        }
        Path real;
        try {
            real = normalized.toRealPath();
        } catch (IOException e) {
            real = null;
        }
        if (real == null || Files.isSymbolicLink(normalized) || !tracked.contains(real)) {
            throw new Refused("it is outside the content folder and not a file git tracks in this repository; "
                    + "only files inside content/, or committed beside it, are read");
        }
        readOutside.add(real);
        try (var in = Files.newInputStream(real, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
                throw new Refused("it is not a regular file");
            }
            byte[] bytes = in.readNBytes((int) maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw new Refused("it is more than the " + (maxBytes >> 20) + " MiB Kensho reads for this kind of file");
            }
            return bytes;
        } catch (IOException e) {
            throw new Refused("it cannot be read: " + e.getMessage());
        }
    }

    /** Real paths of the files pages read (diagrams, ?raw imports): their text reaches the site only through a page. */
    private final java.util.Set<Path> readByPages = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Whether a page read this file (as a diagram or a ?raw import) through {@link #read}. */
    public boolean readByAPage(Path file) {
        try {
            return readByPages.contains(file.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /** Reads a checked file (never more than {@code maxBytes}, even if it grew since the check). */
    public byte[] read(Path file, long maxBytes) throws Refused {
        Path real = check(file, maxBytes);
        readByPages.add(real);
        try (var in = Files.newInputStream(real)) {
            byte[] bytes = in.readNBytes((int) maxBytes + 1);
            if (bytes.length > maxBytes) {
                throw new Refused("it grew past the " + (maxBytes >> 20) + " MiB Kensho reads for this kind of file");
            }
            return bytes;
        } catch (IOException e) {
            throw new Refused("it cannot be read: " + e.getMessage());
        }
    }

    /**
     * Why a path below the content root cannot become part of the site's URLs, or null. Names become
     * URLs and link targets: '#', '?', '%', quotes, spaces or control characters would break them or
     * the links that point to them.
     */
    public static String nameProblem(String relative) {
        for (int i = 0; i < relative.length(); ) {
            int cp = relative.codePointAt(i);
            i += Character.charCount(cp);
            if (!Character.isLetterOrDigit(cp) && cp != '-' && cp != '_' && cp != '.' && cp != '/') {
                return "its name holds " + (Character.isISOControl(cp) || Character.isWhitespace(cp)
                        ? String.format("U+%04X", cp) : "'" + new String(Character.toChars(cp)) + "'")
                        + "; file names in content/ become URLs, so they may hold only letters, digits, '-', '_' and '.'";
            }
        }
        return null;
    }

    /** True when the path, not followed, is anything but a regular file or folder (a link, FIFO, device). */
    public static boolean isSpecial(Path path) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return !attributes.isRegularFile() && !attributes.isDirectory();
        } catch (IOException e) {
            return true;
        }
    }
}
