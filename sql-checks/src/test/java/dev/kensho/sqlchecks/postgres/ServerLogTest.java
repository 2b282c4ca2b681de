package dev.kensho.sqlchecks.postgres;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The embedded server's log keeps its first part; the rest is read (the server never waits on the pipe) and let go. */
class ServerLogTest {

    @Test
    void theFirstBytesAreKeptAndTheRestReadAndCounted(@TempDir Path dir) throws Exception {
        byte[] output = new byte[200_000];
        Arrays.fill(output, (byte) 'x');
        ByteArrayInputStream server = new ByteArrayInputStream(output);
        Path log = dir.resolve("postgres.log");
        ServerLog.start(server, log, 4_096).awaitEnd(10_000);
        assertEquals(0, server.available(), "every byte the server wrote was read");
        assertEquals("x".repeat(4_096) + "\n[kensho] the server wrote 195904 more bytes, read and let go: Kensho keeps the first "
                + "4096 bytes of its log\n", Files.readString(log, StandardCharsets.UTF_8));
    }

    @Test
    void aLogWithinTheBoundIsKeptWhole(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("postgres.log");
        ServerLog.start(new ByteArrayInputStream("LOG:  database system is ready to accept connections\n".getBytes(StandardCharsets.UTF_8)),
                log, 4_096).awaitEnd(10_000);
        assertEquals("LOG:  database system is ready to accept connections\n", Files.readString(log, StandardCharsets.UTF_8));
    }
}
