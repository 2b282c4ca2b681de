package dev.kensho.generator.output;

import dev.kensho.generator.BuildOptions;
import dev.kensho.generator.KenshoVersion;
import dev.kensho.generator.content.GitDates;
import dev.kensho.generator.content.GitTracked;
import dev.kensho.generator.verify.SignedStore;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A make-style up-to-date check for a whole build: a record, signed like every cache entry ({@link SignedStore}), of the
 * last build of a site whose pages all came from the verification cache, naming the digest of everything that reached
 * its output (every file of content/ and of the theme folder, Kensho's code and libraries, the options, the source date,
 * git's dates for the pages), the digest of every file it wrote (the site, the report, the verification cache entries it
 * reused, files outside content/ it read) and until when its reused marks hold. A build whose inputs, files and clock
 * all match leaves the site as it is: a build of the same inputs would write the same bytes.
 *
 * <p>Why whole-build and not per page: a page's HTML depends on other pages (the sidebar's titles, links, the search
 * index), so a per-page memo still parses every page to know its key, which is most of a cached build's time; one
 * digest over every input costs a read of the files instead. Both the cache folder and the output folder are
 * untrusted: a record this machine did not sign is ignored and said, and every output file is compared by content
 * (a committed or hand-edited {@code target/site} is rebuilt), except one whose identity is still the one this machine
 * recorded with its digest: device, inode, size, modification and change times, and last changed 50 ms or more before
 * the record ({@link #outputDigests}). Size and modification time alone never stand for the bytes (a tool can set both
 * back); the change time is what carries the shortcut, since every write sets it to the clock's now and only the clock's
 * owner can set it back, and a checkout, copy or rename puts another inode in the file's place.
 */
public final class UpToDateSite {

    static final String SCHEME = "kensho up-to-date site v1";
    /** The folder inside a project's cache. */
    public static final String FOLDER = "site";
    /** A file larger than this in content/ or the theme is not hashed: such a build is never skipped. */
    private static final long MAX_HASHED_BYTES = 256L * 1024 * 1024;

    private final SignedStore store;
    private final BuildOptions options;
    private final String inputs;
    private final Map<String, String> gitDates;

    private UpToDateSite(SignedStore store, BuildOptions options, String inputs, Map<String, String> gitDates) {
        this.store = store;
        this.options = options;
        this.inputs = inputs;
        this.gitDates = gitDates;
    }

    /**
     * git's dates for the pages as this record's inputs digest covers them: the build renders these very dates instead of
     * asking git again (a second pair of processes), so that what the record names is what the pages show.
     */
    public Map<String, String> gitDates() {
        return gitDates;
    }

    /** The content folder whose pages {@link #gitDates()} dates. */
    public Path contentRoot() {
        return options.content().toAbsolutePath().normalize();
    }

    /** What a skipped build reports: the counts of the build that wrote the site. */
    public record Counts(long passed, long failed, long skipped, int pages) {
    }

    /**
     * The record for this build's site, or null when a build of these options is never skipped (no cache, check, a
     * shard, a JUnit report, an input that cannot be hashed) or the cache folder cannot be used.
     */
    public static UpToDateSite open(BuildOptions options) {
        if (options.cache() == null || !options.render() || options.junitXml() != null || !options.shard().equals(dev.kensho.generator.verify.Shard.ALL)) {
            return null;
        }
        Map<String, String> dates = GitDates.of(options.content().toAbsolutePath().normalize());
        String inputs = inputs(options, dates);
        dev.kensho.generator.KenshoBuild.phase("inputs");
        if (inputs == null) {
            return null;
        }
        try {
            return new UpToDateSite(SignedStore.open(options.cache().resolve(FOLDER), options.content(), options.cacheSecret(), SCHEME),
                    options, inputs, Map.copyOf(dates));
        } catch (SignedStore.Refused e) {
            return null; // the verification cache says why, in its own line
        }
    }

    private String key() {
        return digest(List.of(options.out().toAbsolutePath().normalize().toString()));
    }

    private String name() {
        return options.out().toAbsolutePath().normalize().toString();
    }

    /** The counts of the build that wrote the site, when the site is what a build now would write; else empty. */
    public Optional<Counts> check(Consumer<String> log) {
        dev.kensho.generator.KenshoBuild.phase("opened");
        Optional<byte[]> signed = store.read(key(), name());
        if (signed.isEmpty()) {
            if (store.unsigned() > 0) {
                log.accept("Kensho: up-to-date record " + store.folder().resolve(key() + ".json")
                        + " ignored (not signed by this machine for this site); the site is built");
            }
            return Optional.empty();
        }
        Map<String, String> outputs = new TreeMap<>();
        Map<String, String[]> recorded = new java.util.HashMap<>();
        Counts counts = null;
        Set<Path> tracked = null;
        boolean inputsMatch = false;
        boolean inTime = false;
        try {
            for (String line : new String(signed.get(), StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "inputs" -> inputsMatch = f[1].equals(inputs);
                    case "valid" -> {
                        long now = Instant.now().getEpochSecond();
                        inTime = now >= Long.parseLong(f[1]) && now <= Long.parseLong(f[2]);
                    }
                    case "counts" -> counts = new Counts(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Integer.parseInt(f[4]));
                    case "output" -> {
                        outputs.put(decode(f[2]), f[1]);
                        recorded.put(decode(f[2]), new String[]{f[1], f[3]});
                    }
                    case "file" -> {
                        if (!f[1].equals(fileDigest(Path.of(decode(f[2]))))) {
                            return Optional.empty();
                        }
                    }
                    case "tracked" -> {
                        Path file = Path.of(decode(f[2]));
                        if (tracked == null) {
                            tracked = GitTracked.files(options.content().toAbsolutePath().normalize());
                        }
                        if (!tracked.contains(file)
                                || !f[1].equals(fileDigest(file))) {
                            return Optional.empty();
                        }
                    }
                    default -> {
                        return Optional.empty();
                    }
                }
                if (!inputsMatch || (f[0].equals("valid") && !inTime)) {
                    return Optional.empty(); // the first lines: nothing more is read when they differ
                }
            }
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        dev.kensho.generator.KenshoBuild.phase("files");
        if (counts == null || !inTime || !outputs.equals(outputDigests(options.out(), recorded))) {
            return Optional.empty();
        }
        return Optional.of(counts);
    }

    /**
     * Records the site just written.
     *
     * @param notBefore     the latest time a reused mark was verified (the clock must not go back before it)
     * @param holdsUntil    the earliest time a reused mark expires
     * @param files         files whose bytes reached the output or decide it (the report, verification cache entries)
     * @param trackedFiles  files outside content/ read because git tracks them
     * @param bundled       output files copied from Kensho's jar ({@link SiteOutput#copyBundled})
     */
    public void record(long notBefore, long holdsUntil, Counts counts, Set<Path> files, Set<Path> trackedFiles,
                       Map<String, SiteOutput.BundledCopy> bundled) throws IOException {
        StringBuilder text = new StringBuilder();
        text.append("inputs ").append(inputs).append('\n');
        text.append("valid ").append(notBefore).append(' ').append(holdsUntil).append('\n');
        text.append("counts ").append(counts.passed()).append(' ').append(counts.failed()).append(' ').append(counts.skipped())
                .append(' ').append(counts.pages()).append('\n');
        for (Path file : files) {
            Path absolute = file.toAbsolutePath().normalize();
            text.append("file ").append(fileDigest(absolute)).append(' ').append(encode(absolute.toString())).append('\n');
        }
        for (Path file : trackedFiles) {
            text.append("tracked ").append(fileDigest(file)).append(' ').append(encode(file.toString())).append('\n');
        }
        // Identities are read before the files are hashed and compared after: a file written meanwhile is not recorded.
        // A file changed within the clock's granularity of its last write could keep its change time, so a file
        // changed less than FRESH_NANOS before this record is never trusted by identity: it is hashed at every check.
        long trustedBefore = nanosNow() - FRESH_NANOS;
        Map<String, String> identities = outputIdentities(options.out());
        Map<String, String> outputs = identities == null ? null : outputDigests(options.out(), fromJar(identities, bundled, this::jarDigests));
        if (identities == null || outputs == null || !identities.equals(outputIdentities(options.out()))) {
            return;
        }
        for (Map.Entry<String, String> output : outputs.entrySet()) {
            String identity = identities.get(output.getKey());
            long changed = Long.parseLong(identity.substring(identity.lastIndexOf(',') + 1));
            text.append("output ").append(output.getValue()).append(' ').append(encode(output.getKey())).append(' ')
                    .append(changed < trustedBefore ? identity : "fresh").append('\n');
        }
        store.write(key(), name(), text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * For each output file copied from the jar whose identity ({@code identities}, read before anything is hashed) is
     * still the one its copy had right after this build wrote it: its digest, the digest of the jar's file, with that
     * identity ({@link #outputDigests} uses it only while the file still has it). Since nothing changed the copy after it
     * was written, its bytes are the jar file's, and 16.7 MB of PGlite are not read back and hashed on every build that
     * writes the site. A copy written to again since (by anything) has another change time, and is hashed as it is.
     */
    static Map<String, String[]> fromJar(Map<String, String> identities, Map<String, SiteOutput.BundledCopy> bundled,
                                         java.util.function.Function<List<Path>, Map<String, String>> jarDigests) {
        Map<String, String[]> known = new java.util.HashMap<>();
        Map<String, String> digests = null;
        for (Map.Entry<String, SiteOutput.BundledCopy> copy : bundled.entrySet()) {
            String identity = copy.getValue().identity();
            if (identity == null || !identity.equals(identities.get(copy.getKey()))) {
                continue;
            }
            if (digests == null) {
                digests = jarDigests.apply(bundled.values().stream().map(SiteOutput.BundledCopy::source).toList());
            }
            String digest = digests.get(copy.getValue().source().toString());
            if (digest != null && !digest.equals(UNREADABLE)) { // else read back from the output, as any other file
                known.put(copy.getKey(), new String[]{digest, identity});
            }
        }
        return known;
    }

    /**
     * SHA-256 of files of Kensho's jar, by their path in it: kept in this cache's signed store under the digest of the jar's
     * code ({@link Code#VALUE}), so that each is read and hashed once per jar and machine; an entry this machine did not
     * sign, or of another jar, is never used. A file of the jar is trusted as Kensho's code is; nothing of the output
     * folder ever goes into this list.
     */
    private Map<String, String> jarDigests(List<Path> sources) {
        Map<String, String> digests = new TreeMap<>();
        if (Code.VALUE.startsWith("unknown")) {
            sources.forEach(source -> digests.put(source.toString(), jarFileDigest(source)));
            return digests;
        }
        String key = digest(List.of("files of the jar", Code.VALUE));
        try {
            Optional<byte[]> kept = store.read(key, Code.VALUE);
            if (kept.isPresent()) {
                for (String line : new String(kept.get(), StandardCharsets.UTF_8).split("\n")) {
                    String[] f = line.split(" ");
                    if (f.length == 2) {
                        digests.put(decode(f[1]), f[0]);
                    }
                }
            }
        } catch (RuntimeException e) {
            digests.clear();
        }
        List<Path> missing = sources.stream().filter(source -> !digests.containsKey(source.toString())).toList();
        if (!missing.isEmpty()) {
            missing.parallelStream().map(source -> new String[]{source.toString(), jarFileDigest(source)})
                    .filter(pair -> !pair[1].equals(UNREADABLE)).toList()
                    .forEach(pair -> digests.put(pair[0], pair[1]));
            StringBuilder text = new StringBuilder();
            digests.forEach((source, digest) -> text.append(digest).append(' ').append(encode(source)).append('\n'));
            try {
                store.write(key, Code.VALUE, text.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // Hashed again by the next build that writes the site.
            }
        }
        return digests;
    }

    /** Removes the record: the site is about to change, or the build that would have recorded it did not. */
    public void forget() {
        try {
            Files.deleteIfExists(store.folder().resolve(key() + ".json"));
        } catch (IOException e) {
            // A record left behind still names the old outputs' digests, which no longer match.
        }
    }

    /**
     * Relative path → SHA-256 of every regular file below {@code out}; null when anything else is there. A file whose
     * identity is still the one recorded with its digest ({@code recorded}: device, inode, size, modification and
     * change times in nanoseconds) is not read again: any write to a file sets its change time to the clock's now,
     * which no tool can set back (only the system clock's owner could), and a file put in its place (a checkout, a
     * copy, a rename) has another inode; the record is made after the files were written, so a later write cannot share
     * the change time the record holds. Hashing the 22 MB of the lesson site (16.7 MB of it PGlite) was most of a skipped
     * build's time.
     */
    static Map<String, String> outputDigests(Path out, Map<String, String[]> recorded) {
        if (!Files.isDirectory(out, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(out)) {
            for (Path path : (Iterable<Path>) walk::iterator) {
                BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (attributes.isRegularFile()) {
                    files.add(path);
                } else if (!attributes.isDirectory()) {
                    return null; // a link or a special file: no build writes one
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        // A file whose identity is the recorded one keeps its recorded digest; any other is read and hashed.
        List<String[]> found = files.parallelStream().map(file -> {
            String path = out.relativize(file).toString().replace('\\', '/');
            String[] known = recorded.get(path);
            return new String[]{path, known != null && known[1].equals(identity(file)) ? known[0] : fileDigest(file)};
        }).toList();
        Map<String, String> digests = new TreeMap<>();
        for (String[] pair : found) {
            digests.put(pair[0], pair[1]);
        }
        return digests;
    }

    /** How long before a record a file must have last changed for its identity to stand for its bytes (the clock's tick is a few ms). */
    private static final long FRESH_NANOS = 50_000_000L;

    private static long nanosNow() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Relative path → identity of every regular file below {@code out}, or null when one cannot be read. */
    static Map<String, String> outputIdentities(Path out) {
        Map<String, String> identities = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(out)) {
            for (Path file : (Iterable<Path>) walk::iterator) {
                if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    String identity = identity(file);
                    if (identity == null) {
                        return null;
                    }
                    identities.put(out.relativize(file).toString().replace('\\', '/'), identity);
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return identities;
    }

    /** The file's device, inode, size and modification and change times (ns), or null when they cannot be read. */
    static String identity(Path file) {
        try {
            Map<String, Object> unix = Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime", LinkOption.NOFOLLOW_LINKS);
            return unix.get("dev") + "," + unix.get("ino") + "," + unix.get("size") + ","
                    + ((java.nio.file.attribute.FileTime) unix.get("lastModifiedTime")).to(java.util.concurrent.TimeUnit.NANOSECONDS) + ","
                    + ((java.nio.file.attribute.FileTime) unix.get("ctime")).to(java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    private static final String UNREADABLE = "unreadable";

    /** SHA-256 of a file of Kensho's jar (a zip file system has no links to refuse), or {@link #UNREADABLE}. */
    private static String jarFileDigest(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return digestOf(in);
        } catch (IOException | NoSuchAlgorithmException | RuntimeException e) {
            return UNREADABLE;
        }
    }

    private static String digestOf(InputStream in) throws IOException, NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = in.read(buffer)) > 0; ) {
            digest.update(buffer, 0, n);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String fileDigest(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return "none";
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                return digestOf(in);
            }
        } catch (IOException | NoSuchAlgorithmException e) {
            return "unreadable";
        }
    }

    /**
     * The digest of everything a build reads that can reach its output, or null when some of it cannot be hashed
     * (the build then always runs). Over-inclusive on purpose: any file of content/ counts, read by a page or not.
     * {@code gitDates}: {@link GitDates#of} for the content folder, read once for the digest and the pages alike.
     */
    private static String inputs(BuildOptions options, Map<String, String> gitDates) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            Path content = options.content().toAbsolutePath().normalize();
            dev.kensho.generator.KenshoBuild.phase(Code.VALUE.startsWith("unknown") ? "code?" : "code");
            List<String> settings = new ArrayList<>(List.of(KenshoVersion.VALUE, Code.VALUE,
                    content.toString(), String.valueOf(options.theme() == null ? null : options.theme().toAbsolutePath().normalize()),
                    options.out().toAbsolutePath().normalize().toString(), String.valueOf(options.postgres()), String.valueOf(options.image()),
                    options.report().toAbsolutePath().normalize().toString(), String.valueOf(options.limits()), String.valueOf(options.shard()),
                    options.cache().toAbsolutePath().normalize().toString(), Integer.toString(options.jobs()),
                    Boolean.toString(options.freshTimeDependent()), Integer.toString(options.postgresVersion()),
                    Path.of("").toAbsolutePath().toString(), String.valueOf(System.getenv("SOURCE_DATE_EPOCH")),
                    String.valueOf(System.getProperty("kensho.sourceDateEpoch")), Locale.getDefault().toString(),
                    String.valueOf(System.getProperty("file.encoding"))));
            // When each page last changed, as the pages show it: a commit can change it without changing a file.
            new TreeMap<>(gitDates).forEach((page, date) -> settings.add(page + "=" + date));
            dev.kensho.generator.KenshoBuild.phase("git");
            settings.forEach(part -> update(digest, part));
            if (!tree(digest, content)) {
                return null;
            }
            if (options.theme() != null && !tree(digest, options.theme().toAbsolutePath().normalize())) {
                return null;
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException | NoSuchAlgorithmException | RuntimeException e) {
            return null;
        }
    }

    /** Every entry below {@code root}: its name, its kind, a file's bytes, a link's target; never follows a link. */
    private static boolean tree(MessageDigest digest, Path root) throws IOException {
        update(digest, "tree " + root);
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            update(digest, "missing");
            return true;
        }
        List<Path> entries;
        try (Stream<Path> walk = Files.walk(root)) {
            entries = walk.sorted().toList();
        }
        byte[] buffer = new byte[1 << 16];
        for (Path entry : entries) {
            BasicFileAttributes attributes = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            update(digest, root.relativize(entry).toString());
            if (attributes.isRegularFile()) {
                if (attributes.size() > MAX_HASHED_BYTES) {
                    return false;
                }
                update(digest, "file " + attributes.size());
                try (InputStream in = Files.newInputStream(entry, LinkOption.NOFOLLOW_LINKS)) {
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        digest.update(buffer, 0, n);
                    }
                }
            } else if (attributes.isDirectory()) {
                update(digest, "folder");
            } else if (attributes.isSymbolicLink()) {
                update(digest, "link " + Files.readSymbolicLink(entry));
            } else {
                update(digest, "other"); // never opened: a FIFO would block
            }
        }
        return true;
    }

    /**
     * Kensho's code and every library it renders with: the central directory of each jar they come from (every entry's
     * name, size and CRC; the shaded jar holds them all, the built-in theme and PGlite's files included), or every file of
     * a classes folder (a development build). Computed on first use (reading the 58 MB jar's central directory is
     * tens of ms): a build with no cache never needs it.
     */
    private static final class Code {
        static final String VALUE = code();
    }

    private static String code() {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            Set<Path> sources = new LinkedHashSet<>();
            for (String type : List.of("dev.kensho.generator.KenshoBuild", "dev.kensho.sqlchecks.execution.Verifier",
                    "com.vladsch.flexmark.parser.Parser", "com.vladsch.flexmark.util.ast.Node", "com.vladsch.flexmark.html.HtmlRenderer",
                    "com.vladsch.flexmark.ext.tables.TablesExtension", "com.vladsch.flexmark.ext.gfm.strikethrough.StrikethroughExtension",
                    "com.vladsch.flexmark.ext.autolink.AutolinkExtension", "com.vladsch.flexmark.ext.footnotes.FootnoteExtension",
                    "com.vladsch.flexmark.ext.gfm.tasklist.TaskListExtension", "freemarker.template.Configuration", "org.jsoup.Jsoup",
                    "org.htmlunit.cssparser.parser.CSSOMParser", "org.snakeyaml.engine.v2.api.Load",
                    "com.fasterxml.jackson.databind.ObjectMapper", "org.mozilla.javascript.Context")) {
                try {
                    sources.add(Path.of(Class.forName(type, false, UpToDateSite.class.getClassLoader())
                            .getProtectionDomain().getCodeSource().getLocation().toURI()));
                } catch (ClassNotFoundException e) {
                    update(digest, "absent " + type);
                }
            }
            // Prism comes as a webjar, files without a class: its jar is found through one of its files.
            java.net.URL prism = UpToDateSite.class.getClassLoader().getResource("META-INF/resources/webjars/prismjs/1.30.0/components/prism-core.js");
            if (prism == null) {
                update(digest, "absent prism");
            } else if (prism.getProtocol().equals("jar")) {
                String spec = prism.getPath();
                sources.add(Path.of(new java.net.URI(spec.substring(0, spec.indexOf("!/")))));
            } else {
                update(digest, prism.toString());
                digest.update(Files.readAllBytes(Path.of(prism.toURI())));
            }
            for (Path source : sources) {
                update(digest, source.toString());
                if (Files.isDirectory(source)) {
                    tree(digest, source);
                } else {
                    centralDirectory(digest, source);
                }
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (Exception e) {
            return "unknown-" + System.nanoTime(); // never equal to a recorded one: no build is skipped
        }
    }

    /** The jar's central directory (names, sizes, CRCs of every entry); the whole file when it cannot be found. */
    private static void centralDirectory(MessageDigest digest, Path jar) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(jar.toFile(), "r")) {
            long length = file.length();
            int tail = (int) Math.min(length, 65_557);
            byte[] end = new byte[tail];
            file.seek(length - tail);
            file.readFully(end);
            for (int i = tail - 22; i >= 0; i--) {
                if (end[i] == 0x50 && end[i + 1] == 0x4b && end[i + 2] == 5 && end[i + 3] == 6) {
                    long size = u32(end, i + 12);
                    long offset = u32(end, i + 16);
                    if (size == 0xFFFFFFFFL || offset == 0xFFFFFFFFL || offset + size > length) {
                        break; // ZIP64: hash the whole file below
                    }
                    byte[] directory = new byte[(int) size];
                    file.seek(offset);
                    file.readFully(directory);
                    digest.update(directory);
                    return;
                }
            }
        }
        try (InputStream in = Files.newInputStream(jar)) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
    }

    private static long u32(byte[] bytes, int at) {
        return (bytes[at] & 0xFFL) | (bytes[at + 1] & 0xFFL) << 8 | (bytes[at + 2] & 0xFFL) << 16 | (bytes[at + 3] & 0xFFL) << 24;
    }

    private static String digest(List<String> parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            parts.forEach(part -> update(digest, part));
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void update(MessageDigest digest, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
        digest.update((byte) ':');
        digest.update(bytes);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
