package dev.kensho.generator;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** After every test of a class that uses it: no embedded PostgreSQL Kensho started is still running. */
final class NoServerOutlivesATest implements AfterEachCallback {

    @Override
    public void afterEach(ExtensionContext context) {
        assertEquals(List.of(), TestSite.kenshoPostgresProcesses(), "a server outlived " + context.getDisplayName());
    }
}
