package io.multifactor.gateway;

import io.multifactor.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The requests of {@link GatewayBadInputTest} on the gateway served by Netty, and a body that grows past the limit
 * without announcing its length (chunked): a JSON 413, the connection closed, no lease taken.
 */
@Timeout(60)
class NettyGatewayBadInputTest extends GatewayBadInputTest
{
    @Override
    GatewayServer server()
    {
        return GatewayServer.NETTY;
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
            ""), null), GatewayOptions.defaults().withPort(0).withServer(server())))
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
                "\"type\":\"invalid_request_error\"}}");
            assertThat(gateway.engine().inflight(gateway.engine().requireModelId("m"))).isZero();
        }
    }
}
