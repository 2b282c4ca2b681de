package dev.kensho.generator.verify;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * issue 35: a Docker engine that answers but cannot be used (no image, no registry) held {@code --postgres auto} for
 * about 15 s in Testcontainers, on every re-check of serve, and never said why. A fake engine (plain HTTP on a local
 * port: /_ping answers, every image is missing) stands in for Docker.
 */
class AutoProviderTest {

    @TempDir
    Path temp;

    private FakeEngine engine;

    @AfterEach
    void stop() throws IOException {
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void anEngineWithoutTheImageMeansTheEmbeddedServerDecidedOncePerProcess() throws Exception {
        engine = new FakeEngine(true);
        String host = "tcp://127.0.0.1:" + engine.port();
        ProviderChoice first = ProviderChoice.auto("postgres:18", host);
        assertEquals("embedded", first.provider().name());
        assertEquals("--postgres auto: a Docker engine answered at " + host + ", but it has no image postgres:18 and auto never pulls one "
                + "(docker pull postgres:18, or --postgres container, which pulls)", first.fullReason());
        // Only the engine itself was asked, never Testcontainers (whose retries took the 15 s).
        assertEquals(List.of("GET /_ping HTTP/1.0", "GET /images/postgres:18/json HTTP/1.0"), engine.requests());

        ProviderChoice again = ProviderChoice.auto("postgres:18", host);
        assertEquals(first.fullReason(), again.fullReason());
        assertEquals(2, engine.requests().size(), "asked once per process: " + engine.requests());
    }

    @Test
    void anEngineThatDoesNotAnswerIsGivenUpAfterTheLimit() throws Exception {
        engine = new FakeEngine(false);
        String host = "tcp://127.0.0.1:" + engine.port();
        ProviderChoice choice = ProviderChoice.auto("postgres:17", host);
        assertEquals("embedded", choice.provider().name());
        assertEquals("--postgres auto: the Docker engine at " + host + " did not answer within 1000 ms", choice.fullReason());
    }

    @Test
    void theCommandLineSaysWhichProviderRunsAndWhy() throws Exception {
        engine = new FakeEngine(true);
        Path content = Files.createDirectories(temp.resolve("content"));
        Files.writeString(content.resolve("index.md"), "---\ntitle: A\n---\n\n```sql\nSELECT 1;\n```\n");
        // DOCKER_HOST can only be given to a new process.
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.kensho.generator.cli.KenshoCommand",
                "check", "--content", content.toString(), "--postgres", "auto", "--no-cache", "--report", temp.resolve("r.json").toString())
                .directory(temp.toFile()).redirectErrorStream(true);
        builder.environment().put("DOCKER_HOST", "tcp://127.0.0.1:" + engine.port());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        String first = output.lines().filter(line -> line.startsWith("Kensho: PostgreSQL")).findFirst().orElse(output);
        assertTrue(first.matches("Kensho: PostgreSQL 18\\.\\d+ via embedded \\(--postgres auto: a Docker engine answered at tcp://127\\.0\\.0\\.1:"
                + engine.port() + ", but it has no image postgres:18 and auto never pulls one \\(docker pull postgres:18, or --postgres container, "
                + "which pulls\\)\\): .*"), first);
    }

    /** Answers /_ping with 200 and every other path with 404, as an engine without images; or accepts and never answers. */
    private static final class FakeEngine implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
        private final List<Socket> held = Collections.synchronizedList(new ArrayList<>());
        private final Thread thread;

        FakeEngine(boolean answers) throws IOException {
            thread = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket client = socket.accept();
                        if (!answers) {
                            held.add(client);
                            continue;
                        }
                        try (client; InputStream in = client.getInputStream(); OutputStream out = client.getOutputStream()) {
                            String line = readLine(in);
                            requests.add(line);
                            while (!readLine(in).isEmpty()) {
                                // headers
                            }
                            String reply = line.startsWith("GET /_ping ")
                                    ? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"
                                    : "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n{\"message\":\"No such image\"}";
                            out.write(reply.getBytes(StandardCharsets.US_ASCII));
                        }
                    } catch (IOException e) {
                        // closed
                    }
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        List<String> requests() {
            return List.copyOf(requests);
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (Socket client : held) {
                client.close();
            }
        }
    }
}
