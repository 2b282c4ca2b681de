package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded server's identity (part of every verification cache key) names the C library its binaries run on: the
 * page databases' character type (C.UTF-8) comes from it, so an entry verified under one glibc is not reused under
 * another. CI and this project's machines run Debian's glibc.
 */
class EmbeddedIdentityTest {

    @Test
    void theIdentityNamesTheCLibrary() {
        String identity = new EmbeddedPostgres(18).identity();
        assertTrue(Pattern.compile(":glibc \\d+\\.\\d+$").matcher(identity).find(), identity);
    }
}
