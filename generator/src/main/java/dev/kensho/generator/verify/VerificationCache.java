package dev.kensho.generator.verify;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kensho.generator.markdown.MarkdownDocument;
import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.execution.SessionSettings;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.execution.Verifier;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.model.ScenarioTranscript;
import dev.kensho.sqlchecks.model.Assertion;
import dev.kensho.sqlchecks.model.Failure;
import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.model.ResultTable;
import dev.kensho.sqlchecks.execution.SessionSettings;
import dev.kensho.sqlchecks.model.Snippet;
import dev.kensho.sqlchecks.execution.Verifier;
import dev.kensho.sqlchecks.execution.VerifierSettings;
import dev.kensho.sqlchecks.postgres.DatabaseLocale;
import dev.kensho.sqlchecks.model.ScenarioTranscript;

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

/**
 * Outcomes of pages whose SQL has not changed, kept on disk. A page's key covers everything that
 * decides its outcome: Kensho's version and a digest of its code (so that a changed checker runs
 * every page again even when nobody edited the version), which server it ran on, the limits, the
 * session settings, and every fence's SQL, meta and expected rows. Only pages that passed are kept,
 * so a failure is always run again, and never a page whose SQL reads the clock or the random
 * generator ({@link TimeDependentSql}): its ✓ was about the day it ran, so such a page runs on
 * every build.
 */
public final class VerificationCache {

    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final Path folder;

    public VerificationCache(Path folder) {
        this.folder = folder;
    }

    /** What is stored for a page. */
    record Entry(String serverVersion, String serverDescription, List<CachedOutcome> outcomes) {
    }

    /** An outcome without its snippet (the snippet comes from the page as it is now). */
    record CachedOutcome(Outcome.Status status, Failure failure, List<ResultTable> results, List<Assertion> assertions,
                         String plan, ScenarioTranscript transcript, long durationNanos) {
    }

    /** A page's outcomes restored from the cache. */
    public record Hit(PageResult result, String serverVersion, String serverDescription) {
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
                            List<? extends ZipEntry> entries = jar.stream().filter(e -> e.getName().startsWith("dev/kensho/"))
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
                        files = walk.filter(Files::isRegularFile).sorted().toList();
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

    public Optional<Hit> load(String key, String page, List<Snippet> snippets) {
        Path file = folder.resolve(key + ".json");
        if (!Files.isRegularFile(file) || TimeDependentSql.find(snippets.stream().map(Snippet::sql).toList()) != null) {
            return Optional.empty();
        }
        try {
            Entry entry = JSON.readValue(file.toFile(), Entry.class);
            if (entry.outcomes().size() != snippets.size()) {
                return Optional.empty();
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < snippets.size(); i++) {
                CachedOutcome cached = entry.outcomes().get(i);
                outcomes.add(new Outcome(snippets.get(i), cached.status(), cached.failure(), cached.results(),
                        cached.assertions(), cached.plan(), cached.transcript(), Duration.ofNanos(cached.durationNanos())));
            }
            return Optional.of(new Hit(new PageResult(page, outcomes, Duration.ZERO), entry.serverVersion(), entry.serverDescription()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // An unreadable entry is a miss; it is overwritten after the page runs.
        }
    }

    public void store(String key, PageResult result, String serverVersion, String serverDescription) {
        if (!result.passed() || TimeDependentSql.find(result.outcomes().stream().map(o -> o.snippet().sql()).toList()) != null) {
            return;
        }
        List<CachedOutcome> outcomes = result.outcomes().stream().map(o -> new CachedOutcome(o.status(), o.failure(),
                o.results(), o.assertions(), o.plan(), o.transcript(), o.duration().toNanos())).toList();
        try {
            Files.createDirectories(folder);
            Path temp = Files.createTempFile(folder, key, ".tmp");
            JSON.writeValue(temp.toFile(), new Entry(serverVersion, serverDescription, outcomes));
            Files.move(temp, folder.resolve(key + ".json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("warning: could not write the verification cache: " + e.getMessage());
        }
    }
}
