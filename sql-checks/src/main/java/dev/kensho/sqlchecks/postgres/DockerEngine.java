package dev.kensho.sqlchecks.postgres;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Plain HTTP requests to a Docker engine's API, each bounded in time, without Testcontainers: Testcontainers retries
 * for seconds (15 s or more, in a container without a registry) where an engine answers but cannot be used, so what
 * must be quick (whether {@code --postgres auto} can use a container at all) asks the engine itself.
 */
public final class DockerEngine {

    private DockerEngine() {
    }

    /** Where the engine listens: {@code DOCKER_HOST}, else Docker's default socket. */
    public static String host() {
        String host = System.getenv("DOCKER_HOST");
        return host == null || host.isBlank() ? "unix:///var/run/docker.sock" : host;
    }

    /**
     * Null when the engine at {@code host} answers and holds {@code image}; else why {@code --postgres auto} does not
     * use a container. Two requests ({@code /_ping}, then the image), within {@code limit} together. auto never pulls:
     * without a registry a pull only times out, and with one it takes minutes the author did not ask for.
     */
    public static String whyAutoCannotUse(String host, String image, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            int ping = status(host, "/_ping", deadline);
            if (ping == -1) {
                return "no Docker engine answered at " + host;
            }
            if (ping != 200) {
                return "the Docker engine at " + host + " answered /_ping with HTTP " + ping;
            }
            int found = status(host, "/images/" + URLEncoder.encode(image, StandardCharsets.UTF_8).replace("%2F", "/")
                    .replace("%3A", ":") + "/json", deadline);
            if (found == 404) {
                return "a Docker engine answered at " + host + ", but it has no image " + image
                        + " and auto never pulls one (docker pull " + image + ", or --postgres container, which pulls)";
            }
            return found == 200 ? null : "the Docker engine at " + host + " answered HTTP " + found + " when asked for image " + image;
        } catch (TimeoutException e) {
            return "the Docker engine at " + host + " did not answer within " + limit.toMillis() + " ms";
        }
    }

    /** Whether the engine answers {@code /_ping} within {@code limit}. */
    static boolean answers(String host, Duration limit) {
        try {
            return status(host, "/_ping", System.nanoTime() + limit.toNanos()) == 200;
        } catch (TimeoutException e) {
            return false;
        }
    }

    /** The HTTP status of {@code GET path}, or -1 when nothing listens there or the reply is not HTTP. */
    private static int status(String host, String path, long deadline) throws TimeoutException {
        CompletableFuture<Integer> request = CompletableFuture.supplyAsync(() -> request(host, path));
        try {
            return request.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted");
        } catch (ExecutionException e) {
            return -1;
        } catch (TimeoutException e) {
            request.cancel(true);
            throw e;
        }
    }

    private static int request(String host, String path) {
        try (SocketChannel channel = open(host)) {
            if (channel == null) {
                return -1;
            }
            channel.write(ByteBuffer.wrap(("GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer reply = ByteBuffer.allocate(64);
            while (reply.hasRemaining() && channel.read(reply) > 0) {
                String text = new String(reply.array(), 0, reply.position(), StandardCharsets.US_ASCII);
                if (text.length() >= 12) {
                    break;
                }
            }
            String text = new String(reply.array(), 0, reply.position(), StandardCharsets.US_ASCII);
            return text.matches("(?s)HTTP/1\\.[01] \\d{3}.*") ? Integer.parseInt(text.substring(9, 12)) : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static SocketChannel open(String host) throws IOException {
        URI uri = URI.create(host);
        if ("unix".equals(uri.getScheme())) {
            Path socket = Path.of(uri.getPath());
            if (!Files.exists(socket)) {
                return null;
            }
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
            return channel;
        }
        if ("tcp".equals(uri.getScheme())) {
            return SocketChannel.open(new InetSocketAddress(uri.getHost(), uri.getPort()));
        }
        return null;
    }
}
