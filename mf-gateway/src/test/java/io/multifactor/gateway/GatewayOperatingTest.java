package io.multifactor.gateway;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway as an operator runs it, over real sockets: the models list, a model named directly, the Responses and
 * embeddings routes, the fallback budget (503 then 200, a 429 before the first byte, the last attempt's answer), the
 * request timeout of a non-streamed answer, a hang-up counted {@code aborted}, and HELP and TYPE on every meter.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayOperatingTest extends GatewayTestBase
{
    static TestUpstream stream;
    static TestUpstream json;
    static TestUpstream limited;
    static TestUpstream slowJson;
    static TestUpstream slowStream;

    @BeforeAll
    static void startUpstreams() throws Exception
    {
        stream = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 5, 2);
        json = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 0);
        limited = new TestUpstream(upstreams, TestUpstream.Mode.STATUS_429, 0, 0);
        slowJson = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 600);
        slowStream = new TestUpstream(upstreams, TestUpstream.Mode.STREAM, 40, 20);
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
            "    quality_score: 0.5",
            "    backend_refs: [{endpoint: 127.0.0.1:" + json.port() + "}]",
            "  - name: limited",
            "    quality_score: 1.0",
            "    backend_refs: [{endpoint: 127.0.0.1:" + limited.port() + "}]",
            "    reliability: {consecutive_5xx: 3, base_ejection_time: 30s}",
            "  - name: halfway",
            "    quality_score: 0.7",
            "    backend_refs:",
            "      - {name: dead, endpoint: 127.0.0.1:" + refusedPort + "}",
            "      - {name: alive, endpoint: 127.0.0.1:" + json.port() + "}",
            "  - name: lingering",
            "    quality_score: 0.7",
            "    backend_refs: [{endpoint: 127.0.0.1:" + slowJson.port() + "}]",
            "  - name: slow",
            "    quality_score: 0.1",
            "    backend_refs: [{endpoint: 127.0.0.1:" + slowStream.port() + "}]",
            extraModels + "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: fast}, {model: plain}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
            "  - name: polite",
            "    modelRefs: [{model: limited}, {model: plain}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}",
            "  - name: only_limited",
            "    modelRefs: [{model: limited}]",
            "  - name: slow",
            "    modelRefs: [{model: slow}]",
            extraDecisions);
    }

    HttpResponse<String> post(final String path, final String body, final String... headers) throws Exception
    {
        return http.send(request(path, body, headers), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(final String path) throws Exception
    {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    }

    long inflight(final String model)
    {
        final MultiFactorEngine engine = gateway.engine();
        return engine.inflight(engine.modelId(model));
    }

    void assertNoLeaseLeft() throws InterruptedException
    {
        final MultiFactorEngine engine = gateway.engine();
        for (int id = 0; id < engine.plans().modelCapacity(); id++)
        {
            final int model = id;
            if (engine.plans().hasModel(model))
            {
                GatewayProxyTest.poll("in-flight of " + engine.plans().modelName(model) + " back to 0",
                    () -> engine.inflight(model) == 0);
            }
        }
    }

    @Test
    void shouldListTheDecisionsAsOpenAiModels() throws Exception
    {
        start(config("", ""), GatewayOptions.defaults());
        final HttpResponse<String> models = get("/v1/models");
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(models.headers().firstValue("content-type")).hasValue("application/json");
        final JsonObject list = new JsonObject(models.body());
        assertThat(list.getString("object")).isEqualTo("list");
        assertThat(list.getJsonArray("data").stream().map(o -> ((JsonObject)o).getString("id")))
            .containsExactly("chat", "polite", "only_limited", "slow");
        assertThat(list.getJsonArray("data").getJsonObject(0).getString("owned_by")).isEqualTo("multi-factor");
        assertThat(list.getJsonArray("data").getJsonObject(0).getString("object")).isEqualTo("model");
    }

    @Test
    void shouldServeAModelNamedDirectlyWithoutADecisionAndFallBackOnlyToAnotherOfItsBackends() throws Exception
    {
        start(config("", ""), GatewayOptions.defaults());
        final HttpResponse<String> direct = post("/v1/chat/completions", GatewayProxyTest.chat("fast", true),
            "x-mf-explain", "1");
        assertThat(direct.statusCode()).isEqualTo(200);
        assertThat(direct.body()).isEqualTo(TestUpstream.sse(5));
        assertThat(direct.headers().firstValue("x-selected-model")).hasValue("fast");
        assertThat(direct.headers().firstValue("x-mf-decision")).as("no decision").isEmpty();
        assertThat(direct.headers().firstValue("x-mf-explain")).as("nothing was selected").isEmpty();
        assertThat(direct.headers().firstValue("x-mf-attempts")).hasValue("1");
        assertThat(stream.bodies).anyMatch(b -> b.contains("\"model\": \"acme/fast-7b\""));

        // halfway's first backend refuses connections: each request that tries it moves to the other backend.
        int retried = 0;
        for (int i = 0; i < 6; i++)
        {
            final HttpResponse<String> response = post("/v1/chat/completions", GatewayProxyTest.chat("halfway", false));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("x-selected-model")).hasValue("halfway");
            final int attempts = Integer.parseInt(response.headers().firstValue("x-mf-attempts").orElseThrow());
            assertThat(attempts).isBetween(1, 2);
            retried += attempts - 1;
        }
        assertThat(retried).as("the weighted choice sends some to the dead backend").isPositive();
        final PrometheusText metrics = PrometheusText.parse(gateway.registry().scrape());
        assertThat(metrics.value("mf_gateway_retries_total")).isEqualTo(retried);

        // Ejected: refused at once with the time left, nothing sent.
        final int requestsBefore = limited.requests.get();
        assertThat(gateway.engine().ejectForMillis(gateway.engine().modelId("limited"), 30_000)).isTrue();
        final HttpResponse<String> ejected = post("/v1/chat/completions", GatewayProxyTest.chat("limited", false));
        assertThat(ejected.statusCode()).isEqualTo(503);
        assertThat(ejected.headers().firstValue("retry-after")).hasValueSatisfying(v ->
            assertThat(Long.parseLong(v)).isBetween(29L, 30L));
        assertThat(new JsonObject(ejected.body()).getJsonObject("error").getString("code")).isEqualTo("no_candidate");
        assertThat(limited.requests.get()).isEqualTo(requestsBefore);
        assertNoLeaseLeft();
    }

    @Test
    void shouldServeOnTheSecondAttemptAfterA503AndSayHowManyWereMade() throws Exception
    {
        try (TestUpstream warming = new TestUpstream(upstreams, TestUpstream.Mode.FIRST_503, 5, 2))
        {
            start(config("  - name: warming\n    quality_score: 0.95\n    backend_refs:\n" +
                    "      - {name: w1, endpoint: 127.0.0.1:" + warming.port() + "}\n" +
                    "      - {name: w2, endpoint: 127.0.0.1:" + warming.port() + "}\n",
                ""), GatewayOptions.defaults());
            final HttpResponse<String> response = post("/v1/chat/completions", GatewayProxyTest.chat("warming", true));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(TestUpstream.sse(5));
            assertThat(response.headers().firstValue("x-mf-attempts")).hasValue("2");
            assertThat(warming.requests.get()).isEqualTo(2);
            final PrometheusText metrics = PrometheusText.parse(gateway.registry().scrape());
            assertThat(metrics.value("mf_gateway_retries_total")).isEqualTo(1.0);
            assertThat(metrics.value("mf_gateway_upstream_errors_total", "cause", "status_5xx")).isEqualTo(1.0);
            assertNoLeaseLeft();
        }
    }

    @Test
    void shouldMoveA429BeforeTheFirstByteToTheNextCandidateAndPassTheLastOneThrough() throws Exception
    {
        start(config("", ""), GatewayOptions.defaults());
        final HttpResponse<String> moved = post("/v1/chat/completions", GatewayProxyTest.chat("polite", false));
        assertThat(moved.statusCode()).isEqualTo(200);
        assertThat(moved.headers().firstValue("x-selected-model")).hasValue("plain");
        assertThat(moved.headers().firstValue("x-mf-decision")).hasValue("polite");
        assertThat(moved.headers().firstValue("x-mf-attempts")).hasValue("2");

        // limited's Retry-After ejected it for 7 s (it has reliability): the next request goes to plain at once.
        final int before = limited.requests.get();
        assertThat(post("/v1/chat/completions", GatewayProxyTest.chat("polite", false)).headers()
            .firstValue("x-mf-attempts")).hasValue("1");
        assertThat(limited.requests.get()).isEqualTo(before);

        // Every attempt failed: the client gets the last one's status, Retry-After and body.
        try (TestUpstream second = new TestUpstream(upstreams, TestUpstream.Mode.STATUS_429, 0, 0))
        {
            gateway.close();
            start(config("  - name: limited2\n    quality_score: 0.9\n    backend_refs: [{endpoint: 127.0.0.1:" +
                second.port() + "}]\n", "  - name: all_limited\n    modelRefs: [{model: limited}, {model: limited2}]\n" +
                "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}\n"),
                GatewayOptions.defaults());
            final HttpResponse<String> refused = post("/v1/chat/completions", GatewayProxyTest.chat("all_limited", true));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("retry-after")).hasValue("7");
            assertThat(refused.headers().firstValue("x-mf-attempts")).hasValue("2");
            assertThat(refused.headers().firstValue("x-selected-model")).hasValue("limited2");
            assertThat(refused.body()).isEqualTo("{\"error\":{\"message\":\"slow down\",\"code\":429}}");
            assertThat(second.requests.get()).isEqualTo(1);
            final PrometheusText metrics = PrometheusText.parse(gateway.registry().scrape());
            assertThat(metrics.value("mf_gateway_retries_total")).isEqualTo(1.0);
            assertThat(metrics.value("mf_gateway_upstream_errors_total", "cause", "status_429")).isEqualTo(2.0);
            assertNoLeaseLeft();
        }
    }

    @Test
    void shouldAnswer502UpstreamUnavailableWhenTheLastAttemptGotNoAnswer() throws Exception
    {
        start(config("  - name: gone\n    quality_score: 1.0\n    backend_refs: [{endpoint: 127.0.0.1:" + refusedPort +
            "}]\n", "  - name: nowhere\n    modelRefs: [{model: gone}]\n"), GatewayOptions.defaults());
        final HttpResponse<String> response = post("/v1/chat/completions", GatewayProxyTest.chat("nowhere", false));
        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(new JsonObject(response.body()).getJsonObject("error").getString("code"))
            .isEqualTo("upstream_unavailable");
        assertThat(response.headers().firstValue("x-mf-attempts")).hasValue("1");
        assertThat(PrometheusText.parse(gateway.registry().scrape()).value("mf_gateway_retries_total"))
            .as("no other candidate: no retry made, none counted").isEqualTo(0.0);
    }

    @Test
    void shouldGiveANonStreamedAnswerTheRequestTimeoutNotTheFirstByteTimeout() throws Exception
    {
        // lingering answers after 600 ms: beyond the 300 ms first-byte timeout, within the request timeout.
        start(config("", ""), GatewayOptions.defaults().withTimeouts(300, 5_000).withRequestBudget(5_000, 2));
        final HttpResponse<String> served = post("/v1/chat/completions", GatewayProxyTest.chat("lingering", false));
        assertThat(served.statusCode()).isEqualTo(200);
        gateway.close();
        start(config("", ""), GatewayOptions.defaults().withTimeouts(5_000, 5_000).withRequestBudget(300, 2));
        final HttpResponse<String> late = post("/v1/chat/completions", GatewayProxyTest.chat("lingering", false));
        assertThat(late.statusCode()).isEqualTo(504);
        assertThat(late.body()).isEqualTo("{\"error\":{\"message\":\"backend of model lingering did not answer within " +
            "300 ms (request timeout)\",\"type\":\"server_error\",\"param\":null,\"code\":\"upstream_timeout\"}}");
        assertNoLeaseLeft();
    }

    @Test
    void shouldProxyResponsesAndEmbeddingsToTheFakeServers() throws Exception
    {
        try (FakeBackends fakes = FakeBackends.start(new BackendsProfile(7, List.of(FakeModelProfile.steady("r", 5, 1, 4, 3)))))
        {
            start("models:\n  - name: r\n    quality_score: 0.9\n    backend_refs: [{endpoint: 127.0.0.1:" +
                fakes.server("r").port() + "}]\ndecisions:\n  - name: answers\n    modelRefs: [{model: r}]\n",
                GatewayOptions.defaults());
            final HttpResponse<String> streamed = post("/v1/responses",
                "{\"model\":\"answers\",\"stream\":true,\"input\":\"hello\"}");
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.headers().firstValue("x-mf-decision")).hasValue("answers");
            assertThat(streamed.body()).contains("event: response.output_text.delta").contains("\"delta\":\"the \"")
                .contains("event: response.completed");
            final HttpResponse<String> whole = post("/v1/responses", "{\"model\":\"r\",\"input\":\"hello\"}");
            assertThat(whole.statusCode()).isEqualTo(200);
            assertThat(new JsonObject(whole.body()).getString("object")).isEqualTo("response");
            final HttpResponse<String> embeddings = post("/v1/embeddings",
                "{\"model\":\"answers\",\"input\":[\"a\",\"b\",\"c\"]}");
            assertThat(embeddings.statusCode()).isEqualTo(200);
            assertThat(new JsonObject(embeddings.body()).getJsonArray("data")).hasSize(3);
            assertThat(fakes.server("r").completed()).isEqualTo(3);
            // The gateway counts a request once its response has ended, which the client may see first.
            GatewayProxyTest.poll("three requests counted", () -> gateway.registry().get("http.server.requests")
                .tag("status", "2xx").timers().stream().mapToLong(t -> t.count()).sum() == 3);
            final PrometheusText metrics = PrometheusText.parse(gateway.registry().scrape());
            assertThat(metrics.value("http_server_requests_seconds_count", "method", "POST", "status", "2xx", "uri",
                "/v1/responses")).isEqualTo(2.0);
            assertThat(metrics.value("http_server_requests_seconds_count", "method", "POST", "status", "2xx", "uri",
                "/v1/embeddings")).isEqualTo(1.0);
            assertNoLeaseLeft();
        }
    }

    @Test
    void shouldCountAClientThatHangsUpAsAbortedNeverAs2xx() throws Exception
    {
        start(config("", ""), GatewayOptions.defaults());
        final String body = GatewayProxyTest.chat("slow", true);
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
        }
        assertNoLeaseLeft();
        GatewayProxyTest.poll("the request recorded", () -> PrometheusText.parse(gateway.registry().scrape())
            .value("http_server_requests_seconds_count", "method", "POST", "status", "aborted", "uri",
                "/v1/chat/completions") == 1.0);
        assertThat(PrometheusText.parse(gateway.registry().scrape()).value("http_server_requests_seconds_count",
            "method", "POST", "status", "2xx", "uri", "/v1/chat/completions")).isZero();
    }

    @Test
    void shouldGiveEveryMeterFamilyHelpAndTypeAndExportJvmAndProcessMeters() throws Exception
    {
        start(config("", ""), GatewayOptions.defaults());
        assertThat(post("/v1/chat/completions", GatewayProxyTest.chat("chat", false)).statusCode()).isEqualTo(200);
        final HttpResponse<String> page = get("/metrics");
        final PrometheusText metrics = PrometheusText.parse(page.body());
        assertThat(metrics.types).isNotEmpty();
        for (final Map.Entry<String, String> family : metrics.types.entrySet())
        {
            assertThat(metrics.helps.get(family.getKey())).as("HELP of " + family.getKey()).isNotBlank();
        }
        assertThat(metrics.helps.keySet()).as("no HELP without its TYPE").isSubsetOf(metrics.types.keySet());
        assertThat(metrics.types).containsKeys("jvm_memory_used_bytes", "jvm_threads_live_threads",
            "process_cpu_usage", "process_uptime_seconds", "mf_gateway_active", "mf_selections_total");
        assertThat(metrics.types).as("names promtool's lint refuses").doesNotContainKeys("process_cpu_time_ns_total",
            "system_cpu_count");
    }
}
