package io.multifactor.gateway;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sessions through the gateway over real sockets (section 4.6): requests with one {@code x-session-id} land on one
 * model where requests without it scatter, {@code x-session-token} is read when {@code x-session-id} is absent, and a
 * 5xx of the session's model is retried on the other model, which the session is handed off to and then stays on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewaySessionTest
{
    @TempDir
    Path dir;

    private Vertx upstreams;
    private TestUpstream one;
    private TestUpstream two;
    private Gateway gateway;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception
    {
        upstreams = Vertx.vertx();
        one = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 0);
        two = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 0);
        final Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, String.join("\n",
            "models:",
            "  - {name: one, quality_score: 0.5, backend_refs: [{endpoint: 127.0.0.1:" + one.port() + "}]}",
            "  - {name: two, quality_score: 0.5, backend_refs: [{endpoint: 127.0.0.1:" + two.port() + "}]}",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: one}, {model: two}]",
            "    algorithm:",
            "      type: multi_factor",
            "      multi_factor:",
            "        weights: {quality: 1.0}",
            "        tie_break: random",
            "        session: {stay_bias: 0.1, switch_margin: 0.05}",
            ""));
        gateway = Gateway.start(file, GatewayOptions.defaults().withPort(0).withTimeouts(5_000, 5_000), result -> { });
    }

    @AfterEach
    void stop() throws Exception
    {
        if (gateway != null)
        {
            gateway.close();
        }
        upstreams.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private HttpResponse<String> chat(final String... headers) throws Exception
    {
        final HttpRequest.Builder builder = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
            .timeout(Duration.ofSeconds(20))
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\": \"chat\", \"max_tokens\": 8, " +
                "\"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}"));
        if (headers.length > 0)
        {
            builder.headers(headers);
        }
        final HttpResponse<String> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private static String model(final HttpResponse<String> response)
    {
        return response.headers().firstValue("x-selected-model").orElseThrow();
    }

    @Test
    void shouldKeepASessionOnOneModelWhereRequestsWithoutOneScatter() throws Exception
    {
        final Set<String> scattered = new HashSet<>();
        for (int i = 0; i < 40 && scattered.size() < 2; i++)
        {
            scattered.add(model(chat()));
        }
        assertThat(scattered).containsExactlyInAnyOrder("one", "two");
        final String first = model(chat("x-session-id", "conversation-1"));
        for (int i = 0; i < 10; i++)
        {
            assertThat(model(chat("x-session-id", "conversation-1"))).isEqualTo(first);
        }
        // llm-d's header names the session when x-session-id is absent: the same key, the same model.
        final String token = model(chat("x-session-token", "agent-7"));
        for (int i = 0; i < 5; i++)
        {
            assertThat(model(chat("x-session-token", "agent-7"))).isEqualTo(token);
        }
        assertThat(model(chat("x-session-id", "agent-7", "x-session-token", "other"))).isEqualTo(token);
    }

    @Test
    void shouldHandASessionOffWhenItsModelFailsAndThenStayThere() throws Exception
    {
        final String first = model(chat("x-session-id", "s-42"));
        assertThat(model(chat("x-session-id", "s-42"))).isEqualTo(first);
        final TestUpstream failing = "one".equals(first) ? one : two;
        final String other = "one".equals(first) ? "two" : "one";
        failing.mode = TestUpstream.Mode.STATUS_500;
        final HttpResponse<String> retried = chat("x-session-id", "s-42", "x-mf-explain", "1");
        assertThat(model(retried)).isEqualTo(other);
        assertThat(retried.headers().firstValue("x-mf-explain").orElseThrow())
            .contains("\"session\":{\"previous\":\"" + first + "\",\"rule\":\"handoff\"}");
        failing.mode = TestUpstream.Mode.JSON;
        for (int i = 0; i < 5; i++)
        {
            final HttpResponse<String> stayed = chat("x-session-id", "s-42", "x-mf-explain", "1");
            assertThat(model(stayed)).isEqualTo(other);
            assertThat(stayed.headers().firstValue("x-mf-explain").orElseThrow())
                .contains("\"session\":{\"previous\":\"" + other + "\",\"rule\":\"stay\"}");
        }
        gateway.engine().refreshNow();
        assertThat(gateway.registry().scrape())
            .contains("mf_sessions_total{decision=\"chat\",rule=\"handoff\"} 1.0")
            .contains("mf_sessions_total{decision=\"chat\",rule=\"new\"} 1.0");
    }
}
