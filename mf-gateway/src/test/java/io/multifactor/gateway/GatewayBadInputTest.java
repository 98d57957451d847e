package io.multifactor.gateway;

import io.multifactor.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests no client should send, on a raw socket: a flood of headers, a request line longer than any path, a body
 * announced far beyond the limit. Each gets a 4xx without the gateway reading it all, and the gateway serves the next
 * request on a new connection.
 */
@Timeout(60)
class GatewayBadInputTest
{
    private static final String CONFIG = String.join("\n",
        "models:",
        "  - name: m",
        "    backend_refs: [{endpoint: 127.0.0.1:9}]",
        "decisions:",
        "  - name: d",
        "    modelRefs: [{model: m}]",
        "");

    @Test
    void shouldRefuseOversizedHeadersRequestLinesAndBodiesAndKeepServing() throws Exception
    {
        try (Gateway gateway = Gateway.start(ConfigLoader.load("g.yaml", CONFIG, null),
            GatewayOptions.defaults().withPort(0)))
        {
            final StringBuilder headers = new StringBuilder();
            for (int i = 0; i < 5_000; i++)
            {
                headers.append("x-h").append(i).append(": ").append("v".repeat(40)).append("\r\n");
            }
            final String flood = exchange(gateway.port(), "POST /v1/chat/completions HTTP/1.1\r\nhost: g\r\n" + headers +
                "content-length: 2\r\n\r\n{}");
            final String longLine = exchange(gateway.port(), "GET /" + "a".repeat(100_000) + " HTTP/1.1\r\nhost: g\r\n\r\n");
            final String hugeBody = exchange(gateway.port(), "POST /v1/chat/completions HTTP/1.1\r\nhost: g\r\n" +
                "content-type: application/json\r\ncontent-length: 9000000000\r\n\r\n{\"model\":");
            System.out.printf("header flood: %s; 100 KB request line: %s; 9 GB body announced: %s%n",
                statusLine(flood), statusLine(longLine), statusLine(hugeBody));
            assertThat(statusLine(flood)).matches("HTTP/1\\.[01] 4\\d\\d .*");
            assertThat(statusLine(longLine)).matches("HTTP/1\\.[01] 4\\d\\d .*");
            assertThat(statusLine(hugeBody)).startsWith("HTTP/1.1 413");
            assertThat(hugeBody).contains("larger than 8 MiB");

            final String health = exchange(gateway.port(), "GET /healthz HTTP/1.1\r\nhost: g\r\nconnection: close\r\n\r\n");
            assertThat(statusLine(health)).startsWith("HTTP/1.1 200");
            assertThat(gateway.engine().inflight(gateway.engine().requireModelId("m"))).isZero();
        }
    }

    /** Sends the bytes (as far as the gateway takes them) and reads what comes back until it closes or stays quiet. */
    private static String exchange(final int port, final String request) throws IOException
    {
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(5_000);
            final OutputStream out = socket.getOutputStream();
            try
            {
                out.write(request.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            catch (final IOException ex)
            {
                // The gateway answered and closed before taking everything: what it answered is still to be read.
            }
            final InputStream in = socket.getInputStream();
            final ByteArrayOutputStream answer = new ByteArrayOutputStream();
            final byte[] buffer = new byte[8192];
            try
            {
                int n;
                while ((n = in.read(buffer)) > 0)
                {
                    answer.write(buffer, 0, n);
                    if (answer.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n") && complete(answer))
                    {
                        break;
                    }
                }
            }
            catch (final SocketTimeoutException | java.net.SocketException ex)
            {
                // Quiet or reset after the answer: take what came.
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** @return whether the answer has its whole body (by content-length), or has no length to wait for. */
    private static boolean complete(final ByteArrayOutputStream answer)
    {
        final String text = answer.toString(StandardCharsets.ISO_8859_1);
        final int end = text.indexOf("\r\n\r\n");
        final String head = text.substring(0, end).toLowerCase(java.util.Locale.ROOT);
        final int at = head.indexOf("content-length:");
        if (at < 0)
        {
            return false;
        }
        final int lineEnd = head.indexOf("\r\n", at);
        final long length = Long.parseLong(head.substring(at + 15, lineEnd < 0 ? head.length() : lineEnd).trim());
        return text.length() - end - 4 >= length;
    }

    private static String statusLine(final String answer)
    {
        final int end = answer.indexOf("\r\n");
        return end < 0 ? "(no answer: " + answer.length() + " bytes)" : answer.substring(0, end);
    }

    @Test
    void shouldRefuseAChunkedBodyThatGrowsPastTheLimitWithAJson413() throws Exception
    {
        try (Gateway gateway = Gateway.start(ConfigLoader.load("g.yaml", String.join("\n",
            "models:",
            "  - name: m",
            "    backend_refs: [{endpoint: 127.0.0.1:9}]",
            "decisions:",
            "  - name: d",
            "    modelRefs: [{model: m}]",
            ""), null), GatewayOptions.defaults().withPort(0)))
        {
            final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
            final byte[] piece = new byte[1024 * 1024];
            java.util.Arrays.fill(piece, (byte)'x');
            final java.util.List<byte[]> pieces = java.util.Collections.nCopies(9, piece);
            // ofByteArrays has no known length: the JDK client sends it chunked.
            final HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" +
                gateway.port() + "/v1/chat/completions")).timeout(Duration.ofSeconds(20))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArrays(pieces)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(413);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"request body is larger than 8 MiB\"," +
                "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"request_too_large\"}}");
            assertThat(gateway.engine().inflight(gateway.engine().requireModelId("m"))).isZero();
        }
    }
}
