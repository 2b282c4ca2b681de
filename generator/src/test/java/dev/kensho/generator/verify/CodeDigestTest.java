package dev.kensho.generator.verify;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CodeDigestTest {

    @Test
    void theCacheKeyCoversKenshosOwnCode() {
        // A digest of the class files, not a fallback: a changed checker must miss the cache.
        assertTrue(VerificationCache.CodeDigest.VALUE.matches("[0-9a-f]{64}"), VerificationCache.CodeDigest.VALUE);
    }

    @Test
    void theBrowsersPostgresIsNotPartOfTheCode() {
        // Class files and templates the checker reads count; PGlite's files (only published for the browser) do not.
        assertTrue(VerificationCache.CodeDigest.isCode("dev/kensho/generator/verify/VerificationCache.class"));
        assertTrue(VerificationCache.CodeDigest.isCode("dev/kensho/sqlchecks/execution/ScriptRunner.class"));
        assertFalse(VerificationCache.CodeDigest.isCode("dev/kensho/generator/pglite/pglite.wasm"));
        assertFalse(VerificationCache.CodeDigest.isCode("dev/kensho/generator/pglite/VERSION"));
    }
}
