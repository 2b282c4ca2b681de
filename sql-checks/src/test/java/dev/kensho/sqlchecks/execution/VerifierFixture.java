package dev.kensho.sqlchecks.execution;

import dev.kensho.sqlchecks.model.Outcome;
import dev.kensho.sqlchecks.postgres.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The set-up the verifier's tests share: one real server per test class, pages on it, and what a gate's verdict must be. */
abstract class VerifierFixture {

    static Verifier verifier;

    @BeforeAll
    static void startServer() throws Exception {
        verifier = Verifier.start(new EmbeddedPostgres(), new VerifierSettings(Duration.ofSeconds(10)));
    }

    @AfterAll
    static void stopServer() {
        verifier.close();
    }

    static TestPage page() {
        return TestPage.on(verifier);
    }

    static void assertPassed(Outcome outcome) {
        assertNull(outcome.failure(), () -> outcome.snippet().sql() + " -> " + outcome.failure());
    }

    /** Refused by a gate ("this claim cannot be checked"), not failed by its rows: the claim matched at build. */
    static void assertNotPassed(Outcome outcome) {
        assertNotNull(outcome.failure(), () -> "passed (検証済み): " + outcome.snippet().sql());
        assertTrue(outcome.failure().message().startsWith("this claim cannot be checked"),
                () -> "not refused by the gate, rows compared: " + outcome.snippet().sql() + " -> " + outcome.failure().message()
                        + "\n" + outcome.failure().detail());
    }
}
