package dev.kensho.generator.render.page;

import dev.kensho.generator.render.RenderMemo;
import dev.kensho.generator.verify.CacheSecret;
import dev.kensho.generator.verify.SignedStore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Prism's HTML of code blocks, kept between builds beside the verification cache: highlighting in Rhino was a third of
 * a cached build's CPU, and the same blocks come out the same every time. An entry's key covers everything that
 * decides the HTML: the highlighter's class file, Prism's and Rhino's versions, the language and the code. A cache
 * folder is untrusted input, so entries are signed as the verification cache's are ({@link SignedStore}); one this machine did not sign is never used (the block is highlighted afresh)
 * and the build says how many it ignored.
 */
public final class HighlightCache {

    /** The cache's own scheme: an entry of the verification cache never verifies as a highlight, nor the reverse. */
    static final String SCHEME = "kensho highlight cache entry v1";
    /** The folder inside a project's cache. */
    public static final String FOLDER = "highlight";

    private final SignedStore store;
    private final AtomicInteger reused = new AtomicInteger();
    private final AtomicReference<String> writeProblem = new AtomicReference<>();

    HighlightCache(SignedStore store) {
        this.store = store;
    }

    /**
     * The highlight cache inside the project cache {@code cache}, or null when that folder or the secret cannot be
     * used (said on {@code log}): then every block is highlighted.
     */
    public static HighlightCache open(Path cache, Path content, CacheSecret secret, Consumer<String> log) {
        Path folder = cache.resolve(FOLDER);
        try {
            return new HighlightCache(SignedStore.open(folder, content, secret, SCHEME));
        } catch (SignedStore.Refused e) {
            log.accept("Kensho: highlight cache " + folder + " ignored: " + e.getMessage() + "; code is highlighted afresh");
            return null;
        }
    }

    /** Prism's HTML of {@code code} in {@code prism}: the signed entry when there is one, else {@code fresh}'s, then kept. */
    String highlight(String prism, String code, Supplier<String> fresh) {
        String key = key(prism, code);
        Optional<byte[]> kept = store.read(key, prism);
        if (kept.isPresent()) {
            reused.incrementAndGet();
            return new String(kept.get(), StandardCharsets.UTF_8);
        }
        String html = fresh.get();
        try {
            store.write(key, prism, html.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            writeProblem.compareAndSet(null, e.getMessage());
        }
        return html;
    }

    /** How many blocks came from the cache. */
    public int reused() {
        return reused.get();
    }

    /** Lines on what this build ignored or could not write, for the build's log. */
    public void report(Consumer<String> log) {
        int forged = store.unsigned();
        if (forged > 0) {
            log.accept("Kensho: " + forged + " highlight cache entr" + (forged == 1 ? "y" : "ies") + " in " + store.folder()
                    + " ignored (not signed by this machine for their code); that code was highlighted afresh");
        }
        if (writeProblem.get() != null) {
            log.accept("warning: could not write the highlight cache: " + writeProblem.get());
        }
    }

    /**
     * The highlighter's own class file, hex-encoded: the cached HTML is what it makes of Prism's output, nothing after
     * it (line splitting, marks) is cached. Reading one class is cheaper than the digest of all of Kensho's code, which
     * a build without SQL never needs.
     */
    private static final String HIGHLIGHTER = highlighterCode();

    private static String highlighterCode() {
        try (var in = SyntaxHighlighter.class.getResourceAsStream("SyntaxHighlighter.class")) {
            if (in == null) {
                return "unknown-" + System.nanoTime(); // without it nothing may be reused: a guaranteed miss
            }
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
        } catch (IOException | NoSuchAlgorithmException e) {
            return "unknown-" + System.nanoTime();
        }
    }

    static String key(String prism, String code) {
        return RenderMemo.key(HIGHLIGHTER, SyntaxHighlighter.PRISM, SyntaxHighlighter.ENGINE, prism, code);
    }
}
