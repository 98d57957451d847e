package io.multifactor.gateway;

import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.BeforeAll;
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
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayProxyTest extends GatewayTestBase
{
    static TestUpstream stream;
    static TestUpstream json;
    static TestUpstream failing;
    static TestUpstream slow;

    @BeforeAll
    static void startUpstreams() throws Exception
    {
        stream = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 5, 5);
        json = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 0);
        failing = new TestUpstream(upstreams, TestUpstream.Mode.STATUS_500, 0, 0);
        slow = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 40, 20);
    }

    static String config(final String extraModels, final String extraDecisions)
    {
        return String.join("\n",
            "models:",
            "  - name: fast",
            "    quality_score: 0.9",
            "    provider_model_id: acme/fast-7b",
            "    backend_refs: [{name: fast-1, endpoint: 127.0.0.1:" + stream.port() + "}]",
            "  - name: plain",
            "    quality_score: 0.8",
            "    backend_refs: [{endpoint: 127.0.0.1:" + json.port() + "}]",
            "  - name: refusing",
            "    quality_score: 1.0",
            "    backend_refs: [{endpoint: 127.0.0.1:" + refusedPort + "}]",
            "  - name: erroring",
            "    quality_score: 1.0",
            "    backend_refs: [{endpoint: 127.0.0.1:" + failing.port() + "}]",
            "  - name: slow",
            "    quality_score: 0.5",
            "    backend_refs: [{endpoint: 127.0.0.1:" + slow.port() + "}]",
            extraModels + "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: fast}, {model: slow}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
            "  - name: plain",
            "    modelRefs: [{model: plain}]",
            "  - name: retry_refused",
            "    modelRefs: [{model: refusing}, {model: fast}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
            "  - name: retry_5xx",
            "    modelRefs: [{model: erroring}, {model: plain}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
            "  - name: slow",
            "    modelRefs: [{model: slow}]",
            "  - name: strict",
            "    modelRefs: [{model: plain}]",
            "    algorithm: {type: multi_factor, multi_factor: {slo: {min_quality: 0.99}, on_no_candidates: fail}}",
            extraDecisions);
    }

    Gateway start(final String yaml, final long firstByteMs, final long idleMs) throws Exception
    {
        return start(yaml, GatewayOptions.defaults().withTimeouts(firstByteMs, idleMs));
    }

    HttpResponse<byte[]> post(final String path, final String body, final String... headers) throws Exception
    {
        return http.send(request(path, body, headers), HttpResponse.BodyHandlers.ofByteArray());
    }

    static String chat(final String model, final boolean streamed)
    {
        return "{\"model\": \"" + model + "\", \"stream\": " + streamed + ", \"max_tokens\": 32, " +
            "\"messages\": [{\"role\": \"user\", \"content\": \"hello there\"}]}";
    }

    static void poll(final String what, final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    long inflight(final String model)
    {
        final MultiFactorEngine engine = gateway.engine();
        return engine.inflight(engine.modelId(model));
    }

    void assertNoLeaseLeft() throws InterruptedException
    {
        for (final String model : new String[] {"fast", "plain", "refusing", "erroring", "slow"})
        {
            poll("in-flight of " + model + " back to 0", () -> inflight(model) == 0);
        }
    }

    static String text(final HttpResponse<byte[]> response)
    {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldPassStreamedBytesThroughUnchangedAndInOrderAndRewriteTheModel() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        stream.bodies.clear();
        final String body = chat("chat", true);
        final HttpResponse<byte[]> response = post("/v1/chat/completions", body, "x-mf-explain", "1");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(text(response)).isEqualTo(TestUpstream.sse(5));
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(response.headers().firstValue("x-mf-decision")).hasValue("chat");
        assertThat(response.headers().firstValue("x-selected-model")).hasValue("fast");
        assertThat(response.headers().firstValue("x-mf-explain").orElseThrow())
            .startsWith("{\"decision\":\"chat\",\"outcome\":\"scored\",\"selected\":\"fast\"")
            .contains("\"candidates\":[{\"model\":\"fast\"");
        // The backend got the body as sent, but for model, which became fast's provider_model_id.
        assertThat(stream.bodies).containsExactly(body.replace("\"model\": \"chat\"", "\"model\": \"acme/fast-7b\""));
        assertNoLeaseLeft();
        final MultiFactorEngine engine = gateway.engine();
        engine.refreshNow();
        final var candidate = engine.explain(engine.decisionId("chat"), null).candidates().get(0);
        assertThat(candidate.ttftMs()).isPositive();
        assertThat(candidate.tpotMs()).isPositive();
        System.out.printf("streamed through the gateway: ttft %.2f ms, tpot %.2f ms%n", candidate.ttftMs(),
            candidate.tpotMs());
    }

    @Test
    void shouldPassANonStreamedAnswerAndTheDecisionFromTheHeader() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final HttpResponse<byte[]> response = post("/v1/completions", "{\"model\":\"whatever\",\"prompt\":\"hi\"}",
            "x-mf-decision", "plain");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(text(response)).contains("\"content\":\"hi\"");
        assertThat(response.headers().firstValue("x-selected-model")).hasValue("plain");
        assertThat(response.headers().firstValue("x-mf-explain")).isEmpty();
        assertThat(json.bodies).contains("{\"model\":\"plain\",\"prompt\":\"hi\"}");
        assertNoLeaseLeft();
        gateway.engine().refreshNow();
        assertThat(gateway.engine().explain(gateway.engine().decisionId("plain"), null).candidates().get(0).ttftMs())
            .isNaN();
    }

    @Test
    void shouldAnswerAnExpectContinueAtOnce() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" +
                gateway.port() + "/v1/chat/completions")).expectContinue(true).timeout(Duration.ofSeconds(20))
            .POST(HttpRequest.BodyPublishers.ofString(chat("plain", false))).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-selected-model")).hasValue("plain");
        assertNoLeaseLeft();
    }

    @Test
    void shouldEndTheLeaseWhenTheClientDisconnectsMidStream() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final int closedBefore = slow.closedEarly.get();
        final String body = chat("slow", true);
        try (Socket socket = new Socket("127.0.0.1", gateway.port()))
        {
            socket.setSoTimeout(10_000);
            final OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
                "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.UTF_8));
            out.flush();
            final InputStream in = socket.getInputStream();
            final StringBuilder seen = new StringBuilder();
            final byte[] buffer = new byte[4096];
            while (!seen.toString().contains("tok1"))
            {
                final int n = in.read(buffer);
                assertThat(n).isPositive();
                seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            }
            assertThat(inflight("slow")).isEqualTo(1);
        }
        assertNoLeaseLeft();
        // The gateway let go of the backend too.
        poll("the backend's stream closed early", () -> slow.closedEarly.get() > closedBefore);
    }

    @Test
    void shouldStopReadingTheBackendWhileTheClientDoesNotRead() throws Exception
    {
        try (TestUpstream flood = new TestUpstream(upstreams, TestUpstream.Mode.FLOOD, 0, 0))
        {
            start(config("  - name: flood\n    backend_refs: [{endpoint: 127.0.0.1:" + flood.port() + "}]\n",
                "  - name: flood\n    modelRefs: [{model: flood}]\n"), 5_000, 30_000);
            final String body = chat("flood", true);
            try (Socket socket = new Socket())
            {
                // A small, fixed receive buffer: what the client holds unread stays far below the flood.
                socket.setReceiveBufferSize(64 * 1024);
                socket.connect(new java.net.InetSocketAddress("127.0.0.1", gateway.port()), 5_000);
                socket.setSoTimeout(20_000);
                final OutputStream out = socket.getOutputStream();
                out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                    "Content-Type: application/json\r\nContent-Length: " +
                    body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
                out.flush();
                final InputStream in = socket.getInputStream();
                final byte[] buffer = new byte[64 * 1024];
                long received = in.read(buffer);
                assertThat(received).isPositive();
                // The client reads nothing more: once the socket buffers between are full, the backend must stall.
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                long before = -1;
                long now = flood.floodWritten.get();
                while (now != before && now < TestUpstream.FLOOD_BYTES && System.nanoTime() < deadline)
                {
                    Thread.sleep(500);
                    before = now;
                    now = flood.floodWritten.get();
                }
                System.out.printf("the backend stalled after %.1f MiB of %d MiB while the client did not read%n",
                    now / 1048576.0, TestUpstream.FLOOD_BYTES / 1048576);
                assertThat(now).isLessThan(TestUpstream.FLOOD_BYTES / 2);
                int n;
                while ((n = in.read(buffer)) > 0)
                {
                    received += n;
                }
                assertThat(received).isGreaterThan(TestUpstream.FLOOD_BYTES);
            }
            assertNoLeaseLeft();
            poll("flood's lease ended", () -> inflight("flood") == 0);
        }
    }

    @Test
    void shouldEndAStreamWhoseBackendDiesMidWayWithAnSseErrorEventAndTheLeaseWithStatus0() throws Exception
    {
        try (TestUpstream dying = new TestUpstream(upstreams, TestUpstream.Mode.DIE_MID_STREAM, 10, 5))
        {
            // consecutive_5xx: 1 ejects the model on the first failure: the lease's status 0 is one, a cancel is not.
            start(config("  - name: dying\n    quality_score: 0.9\n    backend_refs: [{endpoint: 127.0.0.1:" +
                    dying.port() + "}]\n    reliability: {consecutive_5xx: 1, base_ejection_time: 60s}\n" +
                    "  - name: spare\n    quality_score: 0.1\n" +
                    "    backend_refs: [{endpoint: 127.0.0.1:" + stream.port() + "}]\n",
                "  - name: dying\n    modelRefs: [{model: dying}, {model: spare}]\n" +
                    "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}\n"), 5_000, 5_000);
            final HttpResponse<byte[]> response = post("/v1/chat/completions", chat("dying", true));
            assertThat(response.statusCode()).as("the head had reached the client").isEqualTo(200);
            assertThat(response.headers().firstValue("x-selected-model")).as("nothing retried after the first byte")
                .hasValue("dying");
            final String body = text(response);
            assertThat(body).startsWith(TestUpstream.sseEvents(10).get(0) + TestUpstream.sseEvents(10).get(1));
            assertThat(body).endsWith("data: {\"error\":{\"message\":\"backend of model dying failed mid-answer: " +
                "Connection was closed\",\"type\":\"server_error\",\"param\":null,\"code\":" +
                "\"upstream_unavailable\"}}\n\n").doesNotContain("[DONE]");
            poll("dying's lease ended", () -> inflight("dying") == 0);
            assertThat(gateway.engine().ejectedMillisLeft(gateway.engine().modelId("dying")))
                .as("the lease ended with status 0, a failure").isPositive();
            assertNoLeaseLeft();
            assertThat(gateway.registry().scrape()).contains("mf_gateway_upstream_errors_total{cause=\"reset\"} 1.0")
                .contains("mf_gateway_retries_total 0.0");
        }
    }

    @Test
    void shouldRetryARefusedConnectionOnAnotherModel() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final HttpResponse<byte[]> response = post("/v1/chat/completions", chat("retry_refused", true));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-selected-model")).hasValue("fast");
        assertThat(text(response)).isEqualTo(TestUpstream.sse(5));
        assertNoLeaseLeft();
        final String metrics = gateway.registry().scrape();
        assertThat(metrics).contains("mf_gateway_retries_total 1.0")
            .contains("mf_gateway_upstream_errors_total{cause=\"connect\"} 1.0");
    }

    @Test
    void shouldRetryA5xxBeforeTheFirstByteOnAnotherModel() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final HttpResponse<byte[]> response = post("/v1/chat/completions", chat("retry_5xx", false));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-selected-model")).hasValue("plain");
        assertNoLeaseLeft();
        assertThat(gateway.registry().scrape()).contains("mf_gateway_upstream_errors_total{cause=\"status_5xx\"} 1.0");
    }

    @Test
    void shouldAnswer504WhenTheBackendHangsAndCutAStreamThatGoesSilent() throws Exception
    {
        try (TestUpstream hanging = new TestUpstream(upstreams, TestUpstream.Mode.HANG, 0, 0);
             TestUpstream silent = new TestUpstream(upstreams, TestUpstream.Mode.HANG_MID_STREAM, 10, 5))
        {
            start(config("  - name: hanging\n    backend_refs: [{endpoint: 127.0.0.1:" + hanging.port() + "}]\n" +
                    "  - name: silent\n    backend_refs: [{endpoint: 127.0.0.1:" + silent.port() + "}]\n",
                "  - name: hanging\n    modelRefs: [{model: hanging}]\n" +
                    "  - name: silent\n    modelRefs: [{model: silent}]\n"), 300, 400);
            final HttpResponse<byte[]> response = post("/v1/chat/completions", chat("hanging", true));
            assertThat(response.statusCode()).isEqualTo(504);
            assertThat(text(response)).isEqualTo("{\"error\":{\"message\":\"backend of model hanging sent no " +
                "response within 300 ms (first-byte timeout)\",\"type\":\"server_error\",\"param\":null,\"code\":" +
                "\"upstream_timeout\"}}");
            assertThat(response.headers().firstValue("x-mf-attempts")).as("the deadline leaves no retry").hasValue("1");
            assertThat(inflight("hanging")).isZero();
            final HttpResponse<byte[]> cut = post("/v1/chat/completions", chat("silent", true));
            assertThat(text(cut)).endsWith("\"code\":\"upstream_timeout\"}}\n\n").doesNotContain("[DONE]");
            poll("silent's lease ended", () -> inflight("silent") == 0);
            assertThat(gateway.registry().scrape()).contains("mf_gateway_upstream_errors_total{cause=\"timeout\"} 2.0");
        }
    }

    @Test
    void shouldRefuseBadRequestsWithAJson4xxAndAnswer503WhenTheDecisionFails() throws Exception
    {
        start(config("", ""), 5_000, 5_000);
        final HttpResponse<byte[]> large = post("/v1/chat/completions",
            "{\"model\":\"chat\",\"prompt\":\"" + "x".repeat(8 * 1024 * 1024) + "\"}");
        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(text(large)).startsWith("{\"error\":{\"message\":\"request body is larger than 8 MiB");
        final HttpResponse<byte[]> notJson = post("/v1/chat/completions", "{\"model\": chat}");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(text(notJson)).startsWith("{\"error\":{\"message\":\"request body is not valid JSON");
        final HttpResponse<byte[]> array = post("/v1/chat/completions", "[]");
        assertThat(array.statusCode()).isEqualTo(400);
        assertThat(text(notJson)).contains("\"code\":\"invalid_json\"");
        final HttpResponse<byte[]> noDecision = post("/v1/chat/completions", chat("gpt-4o", true));
        assertThat(noDecision.statusCode()).isEqualTo(404);
        assertThat(text(noDecision)).isEqualTo("{\"error\":{\"message\":\"\\\"model\\\": \\\"gpt-4o\\\" names " +
            "neither a decision nor a model (header x-mf-decision is absent); decisions: chat, plain, retry_refused, " +
            "retry_5xx, slow, strict\",\"type\":\"invalid_request_error\",\"param\":\"model\",\"code\":" +
            "\"model_not_found\"}}");
        final HttpResponse<byte[]> unknownHeader = post("/v1/chat/completions", chat("chat", true),
            "x-mf-decision", "nope");
        assertThat(unknownHeader.statusCode()).isEqualTo(404);
        assertThat(text(unknownHeader)).contains("unknown decision \\\"nope\\\" in header x-mf-decision")
            .contains("\"code\":\"decision_not_found\"");
        final HttpResponse<byte[]> noModel = post("/v1/chat/completions", "{\"messages\":[]}");
        assertThat(noModel.statusCode()).isEqualTo(400);
        assertThat(text(noModel)).contains("\"param\":\"model\",\"code\":\"missing_model\"");
        final HttpResponse<byte[]> failed = post("/v1/chat/completions", chat("strict", false));
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(text(failed)).isEqualTo("{\"error\":{\"message\":\"decision strict found no candidate (outcome " +
            "failed)\",\"type\":\"server_error\",\"param\":null,\"code\":\"no_candidate\"}}");
        assertThat(failed.headers().firstValue("x-mf-decision")).hasValue("strict");
        final HttpResponse<String> get = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + gateway.port() + "/v1/chat/completions")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.body()).startsWith("{\"error\":");
        assertNoLeaseLeft();
        final HttpResponse<String> health = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + gateway.port() + "/healthz")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        final HttpResponse<String> ready = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + gateway.port() + "/readyz")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(ready.statusCode()).isEqualTo(200);
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
        System.out.printf("%d concurrent streams through the gateway: %d upstream connections opened%n",
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
