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
import dev.kensho.sqlchecks.script.TimeDependentSql;

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
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicInteger;

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
 * <p>Anyone can compute a key from the public jar, so a key proves nothing: each entry is signed ({@link SignedStore})
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

    private final SignedStore store;
    private final AtomicInteger unjudged = new AtomicInteger();
    private final AtomicInteger expired = new AtomicInteger();
    /** How long a page's verified outcome is reused: a day, whatever the page reads. */
    static final Duration MAX_AGE = Duration.ofHours(24);
    /** How long a clock-reading page's outcome is reused (at most {@link #MAX_AGE}). */
    private final Duration clockPagesFor;
    /** Whether pages reading the clock or chance are never reused (CI). */
    private final boolean freshTimeDependent;

    /** Entry key → when the reused entry was verified and until when it may be reused (epoch seconds), for the up-to-date record. */
    private final java.util.Map<String, long[]> reused = new java.util.concurrent.ConcurrentHashMap<>();

    /** Entries this serve session already judged, or null (a build). */
    private final JudgedEntries judged;

    private VerificationCache(SignedStore store, Duration clockPagesFor, boolean freshTimeDependent, JudgedEntries judged) {
        this.store = store;
        this.judged = judged;
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
        return open(folder, content, secret, clockPagesFor, freshTimeDependent, null, log);
    }

    /** @param judged entries this serve session already read and judged, kept between its rebuilds; or null */
    public static VerificationCache open(Path folder, Path content, CacheSecret secret, Duration clockPagesFor,
                                         boolean freshTimeDependent, JudgedEntries judged, Consumer<String> log) {
        if (judged != null) {
            judged.startBuild();
        }
        try {
            return new VerificationCache(SignedStore.open(folder, content, secret, SCHEME), clockPagesFor, freshTimeDependent, judged);
        } catch (SignedStore.Refused e) {
            log.accept("Kensho: verification cache " + folder + " ignored: " + e.getMessage() + "; every page runs on PostgreSQL");
            return null;
        }
    }

    /** One line on the entries this build found and would not use, or null when there were none. */
    public String ignoredEntries() {
        int forged = store.unsigned();
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
        return "Kensho: " + (forged + stale) + " verification cache entr" + (forged + stale == 1 ? "y" : "ies") + " in " + store.folder()
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

    /** A page's key as last computed, with the inputs besides the page it was computed from. */
    private record KnownKey(String inputs, String key) {
    }

    /**
     * Keys by parsed page (by identity: a parsed page never changes). The preview's parse memo hands an unchanged page's
     * very document to every build, whose key then costs no hashing of every fence again (6 % of an edit's rebuild).
     */
    private static final Map<MarkdownDocument, KnownKey> KEYS = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    public static String key(MarkdownDocument document, String kenshoVersion, String serverIdentity, VerifierSettings settings) {
        String inputs = kenshoVersion + "\n" + serverIdentity + "\n" + settings;
        KnownKey known = KEYS.get(document);
        if (known != null && known.inputs().equals(inputs)) {
            return known.key();
        }
        String key = computeKey(document, kenshoVersion, serverIdentity, settings);
        KEYS.put(document, new KnownKey(inputs, key));
        return key;
    }

    private static String computeKey(MarkdownDocument document, String kenshoVersion, String serverIdentity, VerifierSettings settings) {
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
        Duration reuseFor = reuseFor(TimeDependentSql.read(snippets.stream().map(Snippet::sql).toList()));
        if (reuseFor.isZero()) {
            return Optional.empty();
        }
        JudgedEntries.Judged kept = judged == null ? null : judged.get(key, page, snippets);
        if (kept != null) {
            if (fresh(kept.entry(), reuseFor)) {
                reused(entryName(key, page), kept.entry(), reuseFor);
                // The same outcomes as before for the same snippets; made anew for snippets that only read the same.
                return Optional.of(hit(page, kept.entry(), kept.snippets().equals(snippets) ? kept.outcomes() : outcomes(kept.entry(), snippets)));
            }
            judged.forget(key, page); // expired: read from the folder as any entry, and counted there
        }
        Optional<byte[]> signed = store.read(entryName(key, page), page);
        if (signed.isEmpty()) {
            return Optional.empty();
        }
        try {
            Entry entry = decoded(signed.get());
            if (!fresh(entry, reuseFor)) {
                // A page may depend on the day in a way TimeDependentSql does not see (a clock read spelt at run time,
                // a value that changes per server): its mark is about the day it ran, so it is made anew at least daily;
                // a page seen reading the clock, as often as site.yml says.
                expired.incrementAndGet();
                return Optional.empty();
            }
            if (judged != null) {
                judged.judged();
            }
            Optional<List<Outcome>> outcomes = judge(entry, snippets);
            if (outcomes.isEmpty()) {
                unjudged.incrementAndGet();
                return Optional.empty();
            }
            if (judged != null) {
                judged.put(key, page, snippets, entry, outcomes.get());
            }
            reused(entryName(key, page), entry, reuseFor);
            return Optional.of(hit(page, entry, outcomes.get()));
        } catch (IOException | RuntimeException e) {
            unjudged.incrementAndGet();
            return Optional.empty();
        }
    }

    /**
     * The file an entry is kept in: its key and its page. The key covers only what decides the outcome, so pages holding the
     * same SQL share it; named by the key alone, each such page's entry replaced the other's, and all but one ran again on
     * every build (the signature, over the page as well, kept any from being taken for another's).
     */
    public static String entryName(String key, String page) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            update(digest, key);
            update(digest, page);
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void reused(String key, Entry entry, Duration reuseFor) {
        reused.put(key, new long[]{entry.verifiedAtEpochSecond(), entry.verifiedAtEpochSecond() + reuseFor.toSeconds()});
    }

    /** The files of the entries this build reused. */
    public java.util.Set<Path> reusedFiles() {
        java.util.Set<Path> files = new java.util.TreeSet<>();
        reused.keySet().forEach(key -> files.add(store.folder().resolve(key + ".json")));
        return files;
    }

    /** The latest time a reused entry was verified (epoch seconds; 0 when none was reused): a clock set back before it ends their reuse. */
    public long reusedNotBefore() {
        return reused.values().stream().mapToLong(times -> times[0]).max().orElse(0);
    }

    /** The earliest time a reused entry stops being reused (epoch seconds; Long.MAX_VALUE when none was reused). */
    public long reusedUntil() {
        return reused.values().stream().mapToLong(times -> times[1]).min().orElse(Long.MAX_VALUE);
    }

    private static boolean fresh(Entry entry, Duration reuseFor) {
        long age = java.time.Instant.now().getEpochSecond() - entry.verifiedAtEpochSecond();
        return age >= 0 && age <= reuseFor.toSeconds();
    }

    /** The entry's outcomes for {@code snippets} when there is one per snippet and every claim holds on its record. */
    private static Optional<List<Outcome>> judge(Entry entry, List<Snippet> snippets) {
        if (entry.outcomes().size() != snippets.size()) {
            return Optional.empty();
        }
        List<Outcome> outcomes = outcomes(entry, snippets);
        for (int i = 0; i < snippets.size(); i++) {
            if (RecordedOutcome.problem(snippets.get(i), outcomes.get(i)) != null) {
                return Optional.empty();
            }
        }
        return Optional.of(outcomes);
    }

    private static List<Outcome> outcomes(Entry entry, List<Snippet> snippets) {
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            CachedOutcome cached = entry.outcomes().get(i);
            outcomes.add(new Outcome(snippets.get(i), cached.status(), cached.failure(), cached.results(),
                    cached.assertions(), cached.plan(), cached.transcript(), Duration.ofNanos(cached.durationNanos())));
        }
        return outcomes;
    }

    private static Hit hit(String page, Entry entry, List<Outcome> outcomes) {
        return new Hit(new PageResult(page, outcomes, Duration.ZERO), entry.serverVersion(), entry.serverDescription(),
                java.time.Instant.ofEpochSecond(entry.verifiedAtEpochSecond()));
    }

    /**
     * Entries this process decoded, by their bytes' digest: the preview reads the same entries on every edit, and decoding
     * them was most of what it spent on unchanged pages. Only bytes whose signature was just checked reach it.
     */
    private static final java.util.concurrent.ConcurrentHashMap<String, Entry> DECODED = new java.util.concurrent.ConcurrentHashMap<>();

    private static Entry decoded(byte[] payload) throws IOException {
        String digest;
        try {
            digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Entry entry = DECODED.get(digest);
        if (entry == null) {
            entry = JSON.readValue(payload, Entry.class);
            if (DECODED.size() > 10_000) {
                DECODED.clear();
            }
            DECODED.put(digest, entry);
        }
        return entry;
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
            store.write(entryName(key, result.page()), result.page(), payload);
            if (judged != null) {
                // Kept as a later load would find it: the stored bytes decoded and judged, so the next edit need not read it.
                List<Snippet> snippets = result.outcomes().stream().map(Outcome::snippet).toList();
                Entry entry = JSON.readValue(payload, Entry.class);
                Optional<List<Outcome>> judgedOutcomes = judge(entry, snippets);
                if (judgedOutcomes.isPresent()) {
                    judged.put(key, result.page(), snippets, entry, judgedOutcomes.get());
                }
            }
        } catch (IOException e) {
            log.accept("warning: could not write the verification cache: " + e.getMessage());
        }
    }
}
