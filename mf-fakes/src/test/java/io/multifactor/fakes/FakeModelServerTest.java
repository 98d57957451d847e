package io.multifactor.fakes;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fake model servers over real loopback sockets, read by the JDK's HTTP client: the streamed and whole formats of
 * both APIs, {@code /metrics} in Prometheus text with vLLM's names, 429 with {@code Retry-After} inside its window only,
 * the error rate, queueing beyond the batch, and a client that goes away freeing its place.
 */
@Timeout(60)
class FakeModelServerTest
{
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\} (\\S+)$");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static FakeBackends start(final FakeModelProfile... models)
    {
        return FakeBackends.start(new BackendsProfile(7, List.of(models)));
    }

    private HttpRequest post(final FakeBackends backends, final String model, final String path, final String json)
    {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + backends.port(model) + path))
            .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }

    private static List<String> dataLines(final String body)
    {
        final List<String> lines = new ArrayList<>();
        for (final String event : body.split("\n\n"))
        {
            if (!event.isEmpty())
            {
                assertThat(event).startsWith("data: ");
                lines.add(event.substring(6));
            }
        }
        return lines;
    }

    /** A small Prometheus text parser: {@code name{labels} value} lines; comments must be HELP or TYPE. */
    private static Map<String, Double> metrics(final String text, final String model)
    {
        final Map<String, Double> values = new HashMap<>();
        for (final String line : text.split("\n"))
        {
            if (line.startsWith("#"))
            {
                assertThat(line).matches("# (HELP|TYPE) vllm:\\w+ .+");
                continue;
            }
            final Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            assertThat(m.group(2)).isEqualTo("model_name=\"" + model + "\"");
            values.put(m.group(1), Double.parseDouble(m.group(3)));
        }
        return values;
    }

    private Map<String, Double> scrape(final FakeBackends backends, final String model) throws Exception
    {
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + backends.port(model) + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
        return metrics(response.body(), model);
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean())
        {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void shouldStreamRoleThenContentThenFinishThenUsageThenDone() throws Exception
    {
        try (FakeBackends backends = start(FakeModelProfile.steady("m", 5, 2, 4, 10)))
        {
            final HttpResponse<String> response = http.send(post(backends, "m", "/v1/chat/completions",
                "{\"model\":\"m\",\"stream\":true,\"max_tokens\":6,\"stream_options\":{\"include_usage\":true}," +
                "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
            final List<String> lines = dataLines(response.body());
            // role, 6 content chunks (max_tokens caps the 10 of the profile), finish, usage, [DONE]
            assertThat(lines).hasSize(10);
            final JsonObject role = new JsonObject(lines.get(0));
            assertThat(role.getString("object")).isEqualTo("chat.completion.chunk");
            assertThat(role.getString("model")).isEqualTo("m");
            assertThat(role.getJsonArray("choices").getJsonObject(0).getJsonObject("delta").getString("role"))
                .isEqualTo("assistant");
            assertThat(role.getJsonArray("choices").getJsonObject(0).getJsonObject("delta").getString("content"))
                .isEmpty();
            for (int i = 1; i <= 6; i++)
            {
                final JsonObject chunk = new JsonObject(lines.get(i));
                assertThat(chunk.getJsonArray("choices").getJsonObject(0).getJsonObject("delta").getString("content"))
                    .isNotEmpty();
                assertThat(chunk.getJsonArray("choices").getJsonObject(0).getValue("finish_reason")).isNull();
            }
            assertThat(new JsonObject(lines.get(7)).getJsonArray("choices").getJsonObject(0).getString("finish_reason"))
                .isEqualTo("stop");
            final JsonObject usage = new JsonObject(lines.get(8)).getJsonObject("usage");
            assertThat(usage.getInteger("completion_tokens")).isEqualTo(6);
            assertThat(lines.get(9)).isEqualTo("[DONE]");
            assertThat(backends.server("m").completed()).isEqualTo(1);
        }
    }

    @Test
    void shouldAnswerWholeAndTextCompletionsToo() throws Exception
    {
        try (FakeBackends backends = start(FakeModelProfile.steady("m", 5, 1, 4, 3)))
        {
            final HttpResponse<String> whole = http.send(post(backends, "m", "/v1/chat/completions",
                "{\"model\":\"m\",\"messages\":[]}"), HttpResponse.BodyHandlers.ofString());
            assertThat(whole.statusCode()).isEqualTo(200);
            final JsonObject json = new JsonObject(whole.body());
            assertThat(json.getString("object")).isEqualTo("chat.completion");
            assertThat(json.getJsonArray("choices").getJsonObject(0).getJsonObject("message").getString("content"))
                .isEqualTo("the model says ");
            assertThat(json.getJsonObject("usage").getInteger("completion_tokens")).isEqualTo(3);

            final HttpResponse<String> text = http.send(post(backends, "m", "/v1/completions",
                "{\"model\":\"m\",\"stream\":true,\"prompt\":\"x\"}"), HttpResponse.BodyHandlers.ofString());
            final List<String> lines = dataLines(text.body());
            assertThat(lines).hasSize(6);
            assertThat(new JsonObject(lines.get(0)).getJsonArray("choices").getJsonObject(0).getString("text")).isEmpty();
            assertThat(new JsonObject(lines.get(1)).getJsonArray("choices").getJsonObject(0).getString("text"))
                .isEqualTo("the ");
            assertThat(lines.get(5)).isEqualTo("[DONE]");
        }
    }

    @Test
    void shouldAnswerTheResponsesApiStreamedAndWholeAndEmbeddings() throws Exception
    {
        try (FakeBackends backends = start(FakeModelProfile.steady("m", 5, 1, 4, 3)))
        {
            final HttpResponse<String> streamed = http.send(post(backends, "m", "/v1/responses",
                "{\"model\":\"m\",\"stream\":true,\"input\":\"hello\"}"), HttpResponse.BodyHandlers.ofString());
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.headers().firstValue("content-type")).hasValue("text/event-stream");
            final List<String> lines = new ArrayList<>();
            for (final String event : streamed.body().split("\n\n"))
            {
                final String[] parts = event.split("\n");
                assertThat(parts).hasSize(2);
                assertThat(parts[0]).startsWith("event: ");
                assertThat(parts[1]).startsWith("data: ");
                assertThat(new JsonObject(parts[1].substring(6)).getString("type")).isEqualTo(parts[0].substring(7));
                lines.add(parts[1].substring(6));
            }
            assertThat(lines).hasSize(5);
            assertThat(new JsonObject(lines.get(0)).getString("type")).isEqualTo("response.created");
            assertThat(new JsonObject(lines.get(1)).getString("type")).isEqualTo("response.output_text.delta");
            assertThat(new JsonObject(lines.get(1)).getString("delta")).isEqualTo("the ");
            assertThat(new JsonObject(lines.get(3)).getString("delta")).isEqualTo("says ");
            final JsonObject completed = new JsonObject(lines.get(4));
            assertThat(completed.getString("type")).isEqualTo("response.completed");
            assertThat(completed.getJsonObject("response").getJsonObject("usage").getInteger("output_tokens")).isEqualTo(3);
            assertThat(streamed.body()).doesNotContain("[DONE]");

            final HttpResponse<String> whole = http.send(post(backends, "m", "/v1/responses",
                "{\"model\":\"m\",\"input\":\"hello\"}"), HttpResponse.BodyHandlers.ofString());
            final JsonObject response = new JsonObject(whole.body());
            assertThat(response.getString("object")).isEqualTo("response");
            assertThat(response.getJsonArray("output").getJsonObject(0).getJsonArray("content").getJsonObject(0)
                .getString("text")).isEqualTo("the model says ");

            final HttpResponse<String> embeddings = http.send(post(backends, "m", "/v1/embeddings",
                "{\"model\":\"m\",\"input\":[\"a\",\"b\"]}"), HttpResponse.BodyHandlers.ofString());
            assertThat(embeddings.statusCode()).isEqualTo(200);
            final JsonObject list = new JsonObject(embeddings.body());
            assertThat(list.getJsonArray("data")).hasSize(2);
            assertThat(list.getJsonArray("data").getJsonObject(1).getJsonArray("embedding"))
                .hasSize(ResponsesFormat.EMBEDDING_DIMENSIONS);
            assertThat(backends.server("m").completed()).isEqualTo(3);
        }
    }

    @Test
    void shouldRefuseBadRequestsWithJsonErrors() throws Exception
    {
        try (FakeBackends backends = start(FakeModelProfile.steady("m", 5, 1, 4, 3)))
        {
            final HttpResponse<String> notJson = http.send(post(backends, "m", "/v1/chat/completions", "{not json"),
                HttpResponse.BodyHandlers.ofString());
            assertThat(notJson.statusCode()).isEqualTo(400);
            assertThat(new JsonObject(notJson.body()).getJsonObject("error").getString("type"))
                .isEqualTo("invalid_request_error");
            final HttpResponse<String> unknown = http.send(post(backends, "m", "/v2/x", "{}"),
                HttpResponse.BodyHandlers.ofString());
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(backends.server("m").requests()).isZero();
        }
    }

    @Test
    void shouldAnswer429WithRetryAfterInsideItsWindowOnly() throws Exception
    {
        final FakeModelProfile limited = FakeModelProfile.steady("m", 5, 1, 4, 2)
            .withRateLimited(List.of(new TimeWindow(0.0, 1.5, 1.0, 1.0, 3L, 1.0)));
        try (FakeBackends backends = start(limited))
        {
            final HttpResponse<String> refused = http.send(post(backends, "m", "/v1/chat/completions",
                "{\"stream\":true}"), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("retry-after")).hasValue("3");
            assertThat(new JsonObject(refused.body()).getJsonObject("error").getInteger("code")).isEqualTo(429);
            Thread.sleep(1600);
            final HttpResponse<String> served = http.send(post(backends, "m", "/v1/chat/completions",
                "{\"stream\":true}"), HttpResponse.BodyHandlers.ofString());
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(backends.server("m").rateLimited()).isEqualTo(1);
        }
    }

    @Test
    void shouldAnswer500AtItsErrorRate() throws Exception
    {
        try (FakeBackends backends = start(FakeModelProfile.steady("m", 5, 1, 4, 2).withErrorRate(1.0)))
        {
            final HttpResponse<String> failed = http.send(post(backends, "m", "/v1/chat/completions", "{}"),
                HttpResponse.BodyHandlers.ofString());
            assertThat(failed.statusCode()).isEqualTo(500);
            assertThat(backends.server("m").failed()).isEqualTo(1);
        }
    }

    @Test
    void shouldAnswer500InsideAFailingWindowOnly() throws Exception
    {
        // Two servers started together: one inside its failing window from its start, one whose window starts in an
        // hour.
        final FakeModelProfile down = FakeModelProfile.steady("down", 5, 1, 4, 2)
            .withFailing(List.of(new TimeWindow(0.0, 3600.0, 1.0, 1.0, 0L, 1.0)));
        final FakeModelProfile later = FakeModelProfile.steady("later", 5, 1, 4, 2)
            .withFailing(List.of(new TimeWindow(3600.0, 7200.0, 1.0, 1.0, 0L, 1.0)));
        try (FakeBackends backends = FakeBackends.start(new BackendsProfile(3, List.of(down, later))))
        {
            for (int i = 0; i < 3; i++)
            {
                final HttpResponse<String> failed = http.send(post(backends, "down", "/v1/chat/completions",
                    "{\"stream\":true}"), HttpResponse.BodyHandlers.ofString());
                assertThat(failed.statusCode()).isEqualTo(500);
                final HttpResponse<String> served = http.send(post(backends, "later", "/v1/chat/completions",
                    "{\"stream\":true}"), HttpResponse.BodyHandlers.ofString());
                assertThat(served.statusCode()).isEqualTo(200);
            }
            assertThat(backends.server("down").failed()).isEqualTo(3);
            assertThat(backends.server("down").completed()).isZero();
            assertThat(backends.server("later").failed()).isZero();
            assertThat(backends.server("later").completed()).isEqualTo(3);
        }
    }

    @Test
    void shouldQueueBeyondTheBatchAndReportTheRealQueueInMetrics() throws Exception
    {
        // One request at a time, each holding its place for about 300 + 2 x 100 ms.
        final FakeModelProfile one = new FakeModelProfile("m", 0, 300, 100, 0.0, 1, 3, 0.0, 0.4, List.of(), List.of());
        try (FakeBackends backends = start(one))
        {
            assertThat(scrape(backends, "m")).containsEntry("vllm:num_requests_running", 0.0)
                .containsEntry("vllm:num_requests_waiting", 0.0).containsEntry("vllm:kv_cache_usage_perc", 0.0);
            final List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            final long[] doneNs = new long[3];
            for (int i = 0; i < 3; i++)
            {
                final int index = i;
                calls.add(http.sendAsync(post(backends, "m", "/v1/chat/completions", "{\"stream\":true}"),
                    HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> doneNs[index] = System.nanoTime()));
            }
            final FakeModelServer server = backends.server("m");
            await(() -> server.running() == 1 && server.waiting() == 2, "one running, two waiting");
            final Map<String, Double> busy = scrape(backends, "m");
            assertThat(busy).containsEntry("vllm:num_requests_running", 1.0)
                .containsEntry("vllm:num_requests_waiting", 2.0).containsEntry("vllm:kv_cache_usage_perc", 0.4);
            final long startNs = System.nanoTime();
            for (final CompletableFuture<HttpResponse<String>> call : calls)
            {
                assertThat(call.get().statusCode()).isEqualTo(200);
            }
            // Served one after another: the last ends at least two more service times (2 x 500 ms) after the queue was
            // seen full (a lower bound only: a loaded machine is slower, never faster).
            final long last = Math.max(doneNs[0], Math.max(doneNs[1], doneNs[2]));
            assertThat((last - startNs) / 1_000_000L).isGreaterThanOrEqualTo(900L);
            await(() -> server.running() == 0 && server.waiting() == 0, "an empty server");
            assertThat(server.completed()).isEqualTo(3);
        }
    }

    @Test
    void shouldFreeThePlaceOfAClientThatGoesAway() throws Exception
    {
        final FakeModelProfile slow = new FakeModelProfile("m", 0, 10, 200, 0.0, 1, 1000, 0.0, 1.0, List.of(), List.of());
        try (FakeBackends backends = start(slow))
        {
            final FakeModelServer server = backends.server("m");
            final HttpResponse<InputStream> streaming = http.send(post(backends, "m", "/v1/chat/completions",
                "{\"stream\":true}"), HttpResponse.BodyHandlers.ofInputStream());
            final CompletableFuture<HttpResponse<String>> queued = http.sendAsync(post(backends, "m",
                "/v1/chat/completions", "{\"stream\":true,\"max_tokens\":1}"), HttpResponse.BodyHandlers.ofString());
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(streaming.body(),
                StandardCharsets.UTF_8)))
            {
                assertThat(reader.readLine()).startsWith("data: {");
                await(() -> server.waiting() == 1, "the second request waiting");
            }
            // Closing the body before its end closes the connection: the first place frees, the waiting one runs.
            assertThat(queued.get().statusCode()).isEqualTo(200);
            await(() -> server.cancelled() == 1 && server.running() == 0, "the cancelled stream released");
            assertThat(server.completed()).isEqualTo(1);
        }
    }

    @Test
    void shouldRefuseAPortTakenByAnotherServer()
    {
        try (FakeBackends first = start(FakeModelProfile.steady("a", 5, 1, 1, 1)))
        {
            final FakeModelProfile clash = new FakeModelProfile("b", first.port("a"), 5, 1, 0, 1, 1, 0, 1, List.of(),
                List.of());
            final Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> start(clash));
            assertThat(thrown).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("\"b\" on port " + first.port("a") + " could not listen");
        }
    }
}
