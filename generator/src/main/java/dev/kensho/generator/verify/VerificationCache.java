package dev.kensho.generator.verify;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.sqlchecks.assertion.RecordedOutcome;
import dev.kensho.sqlchecks.execution.SessionSettings;
import dev.kensho.sqlchecks.execution.Verifier;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.model.ScenarioTranscript;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.postgres.DatabaseLocale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Comparator;
import java.util.Arrays;
import java.util.function.Consumer;
import java.nio.file.LinkOption;
import java.util.concurrent.atomic.AtomicInteger;
import java.security.GeneralSecurityException;

/**
 * Outcomes of pages whose SQL has not changed, kept on disk. A page's key covers everything that
 * decides its outcome: Kensho's version and a digest of its code (so that a changed checker runs
 * every page again even when nobody edited the version), which server it ran on, the limits, the
 * session settings, and every fence's SQL, meta and expected rows. Only pages that passed are kept,
 * so a failure is always run again. An entry is reused for a day at most; one of a page whose SQL reads
 * the clock ({@link TimeDependentSql}) only for the time site.yml allows ({@code cache: clockPagesFor}),
 * and the page then says when it was verified. A page reading chance is reused as any page: its recorded
 * run is one draw, as a run made now would be. CI runs both kinds afresh.
 *
 * <p>Anyone can compute a key from the public jar, so a key proves nothing: each entry is signed
 * with HMAC-SHA256 under this machine's secret ({@link CacheSecret}) over its key, its page and its
 * content. An entry that does not carry that signature (written by hand, committed, copied from
 * another page or machine, or altered) is never read, and the build says how many it ignored. A
 * signed entry's outcomes are still not taken on their word: each snippet's claims, as the page
 * writes them now, are judged again on the recorded outcome ({@link RecordedOutcome}).
 */
public final class VerificationCache {

    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** Names the signing scheme, so that an entry of another format or purpose never verifies. */
    private static final String SCHEME = "kensho verification cache entry v2";

    private final Path folder;
    private final byte[] secret;
    private final AtomicInteger unsigned = new AtomicInteger();
    private final AtomicInteger unjudged = new AtomicInteger();
    private final AtomicInteger expired = new AtomicInteger();
    /** How long a page's verified outcome is reused: a day, whatever the page reads. */
    static final Duration MAX_AGE = Duration.ofHours(24);
    /** How long a clock-reading page's outcome is reused (at most {@link #MAX_AGE}). */
    private final Duration clockPagesFor;
    /** Whether pages reading the clock or chance are never reused (CI). */
    private final boolean freshTimeDependent;

    private VerificationCache(Path folder, byte[] secret, Duration clockPagesFor, boolean freshTimeDependent) {
        this.folder = folder;
        this.secret = secret.clone();
        this.clockPagesFor = clockPagesFor.compareTo(MAX_AGE) > 0 ? MAX_AGE : clockPagesFor;
        this.freshTimeDependent = freshTimeDependent;
    }

    /**
     * The cache in {@code folder} for the pages in {@code content}, or null when the folder
     * ({@link CacheFolder#refusal}) or the secret cannot be used: then every page runs, and one line
     * on {@code log} says why.
     */
    /**
     * @param clockPagesFor      how long the outcome of a page whose SQL reads the clock is reused ({@link Duration#ZERO}: never)
     * @param freshTimeDependent whether pages reading the clock or chance always run
     */
    public static VerificationCache open(Path folder, Path content, CacheSecret secret, Duration clockPagesFor,
                                         boolean freshTimeDependent, Consumer<String> log) {
        String refusal = CacheFolder.refusal(folder, content);
        if (refusal != null) {
            log.accept("Kensho: verification cache " + folder + " ignored: " + refusal + "; every page runs on PostgreSQL");
            return null;
        }
        try {
            return new VerificationCache(folder, secret.key(), clockPagesFor, freshTimeDependent);
        } catch (CacheSecret.Unusable e) {
            log.accept("Kensho: verification cache " + folder + " ignored: " + e.getMessage() + "; every page runs on PostgreSQL");
            return null;
        }
    }

    /** One line on the entries this build found and would not use, or null when there were none. */
    public String ignoredEntries() {
        int forged = unsigned.get();
        int stale = unjudged.get();
        if (forged == 0 && stale == 0) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (forged > 0) {
            parts.add(forged + " not signed by this machine for their page");
        }
        if (stale > 0) {
            parts.add(stale + " whose page's claims do not hold on the recorded outcome");
        }
        return "Kensho: " + (forged + stale) + " verification cache entr" + (forged + stale == 1 ? "y" : "ies") + " in " + folder
                + " ignored (" + String.join("; ", parts) + "); their pages run on PostgreSQL";
    }

    /** What is stored for a page. */
    record Entry(String serverVersion, String serverDescription, long verifiedAtEpochSecond, List<CachedOutcome> outcomes) {
    }

    /** An outcome without its snippet (the snippet comes from the page as it is now). */
    record CachedOutcome(Outcome.Status status, Failure failure, List<ResultTable> results, List<Assertion> assertions,
                         String plan, ScenarioTranscript transcript, long durationNanos) {
    }

    /** A page's outcomes restored from the cache, and when they were verified. */
    public record Hit(PageResult result, String serverVersion, String serverDescription, java.time.Instant verifiedAt) {
    }

    /** How long the outcome of a page reading {@code reading} may be reused; zero when never. */
    Duration reuseFor(TimeDependentSql.Reading reading) {
        if (reading == null) {
            return MAX_AGE;
        }
        return freshTimeDependent ? Duration.ZERO : reading.kind() == TimeDependentSql.Kind.CLOCK ? clockPagesFor : MAX_AGE;
    }

    public static String key(MarkdownDocument document, String kenshoVersion, String serverIdentity, VerifierSettings settings) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            update(digest, kenshoVersion);
            update(digest, CodeDigest.VALUE);
            update(digest, serverIdentity);
            update(digest, settings.toString());
            update(digest, SessionSettings.describe());
            update(digest, DatabaseLocale.PAGE.describe());
            for (MarkdownDocument.SqlFence fence : document.sqlFences()) {
                update(digest, fence.node().getInfo().toString());
                update(digest, fence.snippet().sql());
                update(digest, fence.rowsNode() == null ? "" : fence.rowsNode().getContentChars().toString());
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SHA-256 of the class files that check and parse (the jar, or the classes folders in a development build). */
    static final class CodeDigest {
        static final String VALUE = compute();

        /**
         * The browser's PostgreSQL (16.7 MB of PGlite's files, published byte for byte): nothing of it runs in a build
         * or reaches a cache entry, and reading and hashing it was most of this digest's cost on every build with SQL.
         */
        private static final String NOT_CODE = "dev/kensho/generator/pglite/";

        static boolean isCode(String name) {
            return !name.startsWith(NOT_CODE);
        }

        private static String compute() {
            try {
                MessageDigest digest = MessageDigest.getInstance("SHA-256");
                Set<Path> sources = new LinkedHashSet<>();
                for (Class<?> type : List.of(Verifier.class, VerificationCache.class)) {
                    sources.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()));
                }
                for (Path source : sources) {
                    if (!Files.isDirectory(source)) {
                        // The shaded jar also holds PostgreSQL's binaries; Kensho's own classes are what matter.
                        try (ZipFile jar = new ZipFile(source.toFile())) {
                            List<? extends ZipEntry> entries = jar.stream().filter(e -> e.getName().startsWith("dev/kensho/") && isCode(e.getName()))
                                    .sorted(Comparator.comparing(ZipEntry::getName)).toList();
                            for (ZipEntry entry : entries) {
                                update(digest, entry.getName());
                                try (InputStream in = jar.getInputStream(entry)) {
                                    digest.update(in.readAllBytes());
                                }
                            }
                        }
                        continue;
                    }
                    List<Path> files;
                    try (Stream<Path> walk = Files.walk(source)) {
                        files = walk.filter(Files::isRegularFile)
                                .filter(file -> isCode(source.relativize(file).toString().replace(java.io.File.separatorChar, '/')))
                                .sorted().toList();
                    }
                    for (Path file : files) {
                        update(digest, source.relativize(file).toString());
                        digest.update(Files.readAllBytes(file));
                    }
                }
                return HexFormat.of().formatHex(digest.digest());
            } catch (IOException | URISyntaxException | NoSuchAlgorithmException | RuntimeException e) {
                // Without a digest nothing may be reused: a fresh value per run is a guaranteed miss.
                return "unknown-" + System.nanoTime();
            }
        }
    }

    private static void update(MessageDigest digest, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
        digest.update((byte) ':');
        digest.update(bytes);
    }

    /**
     * The page's outcomes when a signed entry for exactly this key and page is stored and every claim
     * of {@code snippets} holds on it; else empty, and the page runs.
     */
    public Optional<Hit> load(String key, String page, List<Snippet> snippets) {
        Path file = folder.resolve(key + ".json");
        Duration reuseFor = reuseFor(TimeDependentSql.read(snippets.stream().map(Snippet::sql).toList()));
        if (reuseFor.isZero() || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        byte[] stored;
        try {
            stored = Files.readAllBytes(file);
        } catch (IOException e) {
            return Optional.empty(); // An unreadable entry is a miss; it is overwritten after the page runs.
        }
        int newline = indexOf(stored, (byte) '\n');
        byte[] payload = newline < 0 ? new byte[0] : Arrays.copyOfRange(stored, newline + 1, stored.length);
        byte[] signature = newline < 0 ? null : parseHex(new String(stored, 0, newline, StandardCharsets.US_ASCII));
        if (signature == null || !MessageDigest.isEqual(signature, sign(key, page, payload))) {
            unsigned.incrementAndGet();
            return Optional.empty();
        }
        try {
            Entry entry = JSON.readValue(payload, Entry.class);
            long age = java.time.Instant.now().getEpochSecond() - entry.verifiedAtEpochSecond();
            if (age < 0 || age > reuseFor.toSeconds()) {
                // A page may depend on the day in a way TimeDependentSql does not see (a clock read spelt at run time,
                // a value that changes per server): its mark is about the day it ran, so it is made anew at least daily;
                // a page seen reading the clock, as often as site.yml says.
                expired.incrementAndGet();
                return Optional.empty();
            }
            if (entry.outcomes().size() != snippets.size()) {
                unjudged.incrementAndGet();
                return Optional.empty();
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < snippets.size(); i++) {
                CachedOutcome cached = entry.outcomes().get(i);
                Outcome outcome = new Outcome(snippets.get(i), cached.status(), cached.failure(), cached.results(),
                        cached.assertions(), cached.plan(), cached.transcript(), Duration.ofNanos(cached.durationNanos()));
                if (RecordedOutcome.problem(snippets.get(i), outcome) != null) {
                    unjudged.incrementAndGet();
                    return Optional.empty();
                }
                outcomes.add(outcome);
            }
            return Optional.of(new Hit(new PageResult(page, outcomes, Duration.ZERO), entry.serverVersion(), entry.serverDescription(),
                    java.time.Instant.ofEpochSecond(entry.verifiedAtEpochSecond())));
        } catch (IOException | RuntimeException e) {
            unjudged.incrementAndGet();
            return Optional.empty();
        }
    }

    /**
     * Stores a page that passed, signed for its key and page; a write that fails is said on {@code log} and skipped.
     * A page whose record could not bear out its claims when read back (a compared value too long to keep whole)
     * is not stored: it runs on every build.
     *
     * @param verifiedAt when the page ran, which decides how long the entry is reused
     */
    public void store(String key, PageResult result, String serverVersion, String serverDescription, java.time.Instant verifiedAt,
                      Consumer<String> log) {
        if (!result.passed() || reuseFor(TimeDependentSql.read(result.outcomes().stream().map(o -> o.snippet().sql()).toList())).isZero()
                || result.outcomes().stream().anyMatch(o -> RecordedOutcome.problem(o.snippet(), o) != null)) {
            return;
        }
        List<CachedOutcome> outcomes = result.outcomes().stream().map(o -> new CachedOutcome(o.status(), o.failure(),
                o.results(), o.assertions(), o.plan(), o.transcript(), o.duration().toNanos())).toList();
        try {
            byte[] payload = JSON.writeValueAsBytes(new Entry(serverVersion, serverDescription, verifiedAt.getEpochSecond(), outcomes));
            byte[] signature = HexFormat.of().formatHex(sign(key, result.page(), payload)).concat("\n").getBytes(StandardCharsets.US_ASCII);
            Files.createDirectories(folder);
            Path temp = Files.createTempFile(folder, key, ".tmp");
            try {
                Files.write(temp, concat(signature, payload));
                Files.move(temp, folder.resolve(key + ".json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            log.accept("warning: could not write the verification cache: " + e.getMessage());
        }
    }

    /** HMAC-SHA256 under this machine's secret of the scheme, the key, the page and the entry, each length-prefixed. */
    private byte[] sign(String key, String page, byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            for (String part : List.of(SCHEME, key, page)) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                mac.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                mac.update(bytes);
            }
            return mac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] parseHex(String text) {
        try {
            return text.length() == 64 ? HexFormat.of().parseHex(text) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static int indexOf(byte[] bytes, byte wanted) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
