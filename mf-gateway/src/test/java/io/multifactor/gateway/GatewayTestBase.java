package io.multifactor.gateway;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What the gateway's socket tests share: one Vert.x for their upstreams, a port that refuses connections, a gateway
 * started from a YAML text and closed after each test, and an HTTP/1.1 client.
 */
abstract class GatewayTestBase
{
    static Vertx upstreams;
    static int refusedPort;

    @TempDir
    Path dir;

    Gateway gateway;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startVertxForUpstreams() throws Exception
    {
        upstreams = Vertx.vertx();
        try (ServerSocket socket = new ServerSocket(0))
        {
            refusedPort = socket.getLocalPort();
        }
    }

    @AfterAll
    static void stopUpstreams() throws Exception
    {
        upstreams.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stopGateway()
    {
        if (gateway != null)
        {
            gateway.close();
        }
    }

    Gateway start(final String yaml, final GatewayOptions options) throws Exception
    {
        final Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, yaml);
        gateway = Gateway.start(file, options.withPort(0), result -> { });
        return gateway;
    }

    HttpRequest request(final String path, final String body, final String... headers)
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
            .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0)
        {
            builder.headers(headers);
        }
        return builder.build();
    }
}
