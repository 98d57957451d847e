package io.multifactor.gateway;

import io.multifactor.config.ConfigLoader;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The access log's {@code prompt_tokens} and {@code completion_tokens} of non-streamed answers, read from the body's
 * {@code usage} as it passes through the gateway (chat, text completions and responses from the fake model servers;
 * the bound and a body without usage are SseStreamMeterTest's).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayAccessLogUsageTest
{
    @TempDir
    Path dir;

    @Test
    void shouldLogTheUsageOfNonStreamedAnswers() throws Exception
    {
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        final Path logFile = dir.resolve("access.log");
        final AccessLog log = AccessLog.append(logFile);
        try (FakeBackends fakes = FakeBackends.start(new BackendsProfile(3,
            List.of(FakeModelProfile.steady("m", 2, 1, 8, 4)))))
        {
            final Gateway gateway = Gateway.start(ConfigLoader.load("gateway.yaml", String.join("\n",
                    "models:",
                    "  - name: m",
                    "    backend_refs: [{endpoint: 127.0.0.1:" + fakes.port("m") + "}]",
                    "decisions:",
                    "  - name: chat",
                    "    modelRefs: [{model: m}]",
                    ""), null), null, null, null, GatewayOptions.defaults().withPort(0),
                new OperatingOptions(null, OperatingOptions.NO_ADMIN_PORT, null, log, 0, 0), result -> { });
            final JsonObject chat;
            final JsonObject text;
            final JsonObject responses;
            try
            {
                chat = answer(http, gateway, "/v1/chat/completions", "{\"model\":\"chat\",\"max_tokens\":6," +
                    "\"messages\":[{\"role\":\"user\",\"content\":\"a prompt of some forty bytes, give or take\"}]}");
                text = answer(http, gateway, "/v1/completions",
                    "{\"model\":\"chat\",\"max_tokens\":3,\"prompt\":\"hello there\"}");
                responses = answer(http, gateway, "/v1/responses",
                    "{\"model\":\"chat\",\"max_output_tokens\":4,\"input\":\"hello over there\"}");
                GatewayProxyTest.poll("three lines written", () -> log.written() == 3);
            }
            finally
            {
                gateway.close();
            }
            final List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            assertThat(lines).hasSize(3);
            assertUsageLogged(new JsonObject(lines.get(0)), chat, "prompt_tokens", "completion_tokens");
            assertUsageLogged(new JsonObject(lines.get(1)), text, "prompt_tokens", "completion_tokens");
            // The Responses API names them input_tokens and output_tokens; the log keeps its own two names.
            assertUsageLogged(new JsonObject(lines.get(2)), responses, "input_tokens", "output_tokens");
        }
    }

    private static JsonObject answer(final HttpClient http, final Gateway gateway, final String path,
        final String body) throws Exception
    {
        final HttpResponse<String> answer = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.port() + path)).timeout(Duration.ofSeconds(20))
            .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("content-type")).hasValueSatisfying(
            type -> assertThat(type).startsWith("application/json"));
        return new JsonObject(answer.body());
    }

    private static void assertUsageLogged(final JsonObject line, final JsonObject answer, final String promptName,
        final String completionName)
    {
        final JsonObject usage = answer.getJsonObject("usage");
        assertThat(usage.getLong(promptName)).as(answer.encode()).isPositive();
        assertThat(usage.getLong(completionName)).as(answer.encode()).isPositive();
        assertThat(line.getInteger("status")).isEqualTo(200);
        assertThat(line.getLong("prompt_tokens")).as(line.encode()).isEqualTo(usage.getLong(promptName));
        assertThat(line.getLong("completion_tokens")).as(line.encode()).isEqualTo(usage.getLong(completionName));
        assertThat(line.getValue("ttft_ms")).as("a non-streamed answer has no TTFT").isNull();
    }
}
