package io.multifactor.gateway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every test of {@link GatewayProxyTest} on the gateway served by Netty ({@code --server netty}), over the same real
 * loopback backends, and what only the Netty side builds itself: keep-alive on both sides (several requests on one
 * client connection, upstream connections pooled, not opened per request) and many streams at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NettyGatewayProxyTest extends GatewayProxyTest
{
    @Override
    GatewayServer server()
    {
        return GatewayServer.NETTY;
    }

    @Test
    void shouldServeSeveralRequestsOnOneClientConnectionOverOnePooledUpstreamConnection() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final int connectionsBefore = stream.connections.get();
        final String body = chat("chat", true);
        final byte[] request = ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
            .getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", gateway.port()))
        {
            socket.setSoTimeout(10_000);
            final OutputStream out = socket.getOutputStream();
            final InputStream in = socket.getInputStream();
            for (int i = 0; i < 3; i++)
            {
                out.write(request);
                out.flush();
                final String head = readHead(in);
                assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked")
                    .containsIgnoringCase("x-selected-model: fast");
                assertThat(readChunked(in)).isEqualTo(TestUpstream.sse(5));
            }
        }
        assertNoLeaseLeft();
        // Three requests in a row on one client connection (one event loop): one upstream connection, kept alive.
        assertThat(stream.connections.get() - connectionsBefore).isEqualTo(1);
    }

    @Test
    void shouldPassManyConcurrentStreamsThroughWhole() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final int connectionsBefore = stream.connections.get();
        final int streams = 64;
        final List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < streams; i++)
        {
            answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() +
                "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(chat("chat", true))).build(),
                HttpResponse.BodyHandlers.ofString()));
        }
        for (final CompletableFuture<HttpResponse<String>> answer : answers)
        {
            final HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(TestUpstream.sse(5));
        }
        assertNoLeaseLeft();
        final int opened = stream.connections.get() - connectionsBefore;
        System.out.printf("%d concurrent streams through the Netty gateway: %d upstream connections opened%n",
            streams, opened);
        assertThat(opened).isBetween(1, streams);
    }

    private static String readHead(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n"))
        {
            final int b = in.read();
            assertThat(b).as("the connection ended inside a response head").isNotNegative();
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Reads one chunked body to its last chunk and returns what the chunks carried, in order. */
    private static String readChunked(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true)
        {
            final String sizeLine = readLine(in);
            final int size = Integer.parseInt(sizeLine.trim(), 16);
            if (size == 0)
            {
                assertThat(readLine(in)).isEmpty();
                return body.toString(StandardCharsets.UTF_8);
            }
            body.write(in.readNBytes(size));
            assertThat(readLine(in)).isEmpty();
        }
    }

    private static String readLine(final InputStream in) throws IOException
    {
        final StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n')
        {
            assertThat(b).as("the connection ended inside a chunked body").isNotNegative();
            if (b != '\r')
            {
                line.append((char)b);
            }
        }
        return line.toString();
    }
}
