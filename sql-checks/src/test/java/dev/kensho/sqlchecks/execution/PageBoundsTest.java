package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.model.PageResult;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import dev.kensho.sqlchecks.postgres.PostgresUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a page may not take: extensions, the machine's memory through its messages, notifications, Kensho's paths. */
class PageBoundsTest {

    private static final VerifierSettings SETTINGS = new VerifierSettings(Duration.ofSeconds(5));

    @Test
    void aPageCreatesNoExtensionAndTheRefusalSatisfiesNoClaim() throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(), SETTINGS)) {
            Outcome outcome = TestPage.on(verifier).add("", "CREATE EXTENSION pltcl;").last();
            assertEquals("Kensho: pages may not create or alter extensions (here pltcl); the site's allowed extensions (none) are "
                    + "created by Kensho itself, so CREATE EXTENSION IF NOT EXISTS finds them", outcome.failure().message());
            assertEquals("42501", outcome.failure().sqlState());
            Outcome claimed = TestPage.on(verifier).add("expect-error=42501", "CREATE EXTENSION pgcrypto;").last();
            assertTrue(claimed.failure().message().startsWith("Kensho: pages may not create or alter extensions (here pgcrypto)"),
                    claimed.failure().message());
            assertTrue(claimed.failure().message().endsWith("; only an error the server reports for the lesson's own SQL satisfies "
                    + "expect-error"), claimed.failure().message());
        }
    }

    @Test
    void anAllowedExtensionIsMadeByKenshoAndFoundByThePage() throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(), SETTINGS.withExtensions(List.of("pg_trgm")))) {
            PageResult result = TestPage.on(verifier).add("", "CREATE EXTENSION IF NOT EXISTS pg_trgm;")
                    .add("", "SELECT similarity('kensho', 'kenshou') > 0.5 AS close;", " close\n-------\n t\n").run();
            assertTrue(result.passed(), () -> result.outcomes().toString());
        }
    }

    @Test
    void anAllowedExtensionWithAProceduralLanguageIsRefusedAtStart() {
        PostgresUnavailableException refused = assertThrows(PostgresUnavailableException.class,
                () -> Verifier.start(new EmbeddedPostgres(), SETTINGS.withExtensions(List.of("pltcl"))).close());
        assertTrue(refused.getMessage().contains("the extension pltcl brings the procedural language pltcl, which Kensho does not "
                + "allow"), refused.getMessage());
    }

    @Test
    void aHugeServerMessageIsCutAndDoesNotTakeTheMachine() throws Exception {
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(), SETTINGS)) {
            Outcome outcome = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> TestPage.on(verifier)
                    .add("", "DO $$ BEGIN RAISE EXCEPTION '%', repeat('x', 20000000) USING DETAIL = repeat('d', 9000); END $$;").last());
            assertEquals("x".repeat(3072) + "… (19995904 characters cut by Kensho) …" + "x".repeat(1024), outcome.failure().message());
            assertEquals("d".repeat(3072) + "… (4904 characters cut by Kensho) …" + "d".repeat(1024), outcome.failure().detail());
        }
    }

    @Test
    void notificationsAreLetGo() throws Exception {
        // 140 MB of notifications take 2-3 s on a quiet 2-core machine and over 5 s under load: the limit is not what is tested.
        try (Verifier verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(30)))) {
            PageResult result = TestPage.on(verifier).add("", "LISTEN c;")
                    .add("", "SELECT count(pg_notify('c', g::text || repeat('x', 7000))) FROM generate_series(1, 20000) AS g;",
                            " count\n-------\n 20000\n")
                    .add("", "SELECT 1 AS one;", " one\n-----\n   1\n").run();
            assertTrue(result.passed(), () -> result.outcomes().toString());
        }
    }

    @Test
    void kenshosPathsHostAndProcessIdsLeaveMessages() {
        assertEquals("could not open file \"<kensho>\": Process <pid> waits for ShareLock; blocked by process <pid>.",
                MessageScrubber.scrub("could not open file \"/dev/shm/kensho-pg-1a2b/data/base/x\": Process 4242 waits for "
                        + "ShareLock; blocked by process 4243."));
        assertEquals("library \"<kensho>\" not found", MessageScrubber.scrub("library \"/tmp/kensho-postgres-linux-x86_64-15114736-nobody/lib/x.so\" not found"));
    }
}
