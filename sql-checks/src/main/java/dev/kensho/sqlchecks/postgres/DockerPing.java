package dev.kensho.sqlchecks.postgres;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Asks the Docker engine's {@code /_ping} endpoint, giving up after two seconds. */
final class DockerPing {

    private static final Duration LIMIT = Duration.ofSeconds(2);

    private DockerPing() {
    }

    static boolean answers() {
        try {
            return CompletableFuture.supplyAsync(DockerPing::ping).get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean ping() {
        String host = System.getenv("DOCKER_HOST");
        try (SocketChannel channel = open(host == null || host.isBlank() ? "unix:///var/run/docker.sock" : host)) {
            if (channel == null) {
                return false;
            }
            channel.write(ByteBuffer.wrap("GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer reply = ByteBuffer.allocate(512);
            channel.read(reply);
            String text = new String(reply.array(), 0, reply.position(), StandardCharsets.US_ASCII);
            return text.startsWith("HTTP/1.") && text.contains(" 200 ");
        } catch (IOException | RuntimeException e) {
            return false;
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
