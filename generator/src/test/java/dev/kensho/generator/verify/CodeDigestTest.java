package dev.kensho.generator.verify;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class CodeDigestTest {

    @Test
    void theCacheKeyCoversKenshosOwnCode() {
        // A digest of the class files, not a fallback: a changed checker must miss the cache.
        assertTrue(VerificationCache.CodeDigest.VALUE.matches("[0-9a-f]{64}"), VerificationCache.CodeDigest.VALUE);
    }
}
