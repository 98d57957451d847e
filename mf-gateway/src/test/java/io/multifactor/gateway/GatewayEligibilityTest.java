package io.multifactor.gateway;

import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eligibility, request SLOs and shedding through the gateway, over real sockets to real upstream servers: a
 * 9,000-token prompt skips the 8k-context model; a request with {@code tools} skips the model without them; a request
 * no candidate can serve is a 400 {@code no_eligible_model} and no upstream sees it; a sheddable request under overload
 * is a 429 with {@code Retry-After} while a critical one is served; {@code x-slo-ttft-ms} tighter than the decision's
 * drops the slow model; bad header values are 400s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GatewayEligibilityTest extends GatewayTestBase
{
    static TestUpstream smallServer;
    static TestUpstream bigServer;

    @BeforeAll
    static void startUpstreams() throws Exception
    {
        smallServer = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 0);
        bigServer = new TestUpstream(upstreams, TestUpstream.Mode.JSON, 0, 0);
    }

    private Gateway start() throws Exception
    {
        final String yaml = String.join("\n",
            "models:",
            "  - name: small",
            "    quality_score: 0.9",
            "    context_window: 8192",
            "    capabilities: [vision]",
            "    backend_refs: [{endpoint: 127.0.0.1:" + smallServer.port() + "}]",
            "  - name: big",
            "    quality_score: 0.5",
            "    backend_refs: [{endpoint: 127.0.0.1:" + bigServer.port() + "}]",
            "decisions:",
            "  - name: chat",
            "    modelRefs: [{model: small}, {model: big}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}, slo: {max_ttft_ms: 1000}}}",
            "  - name: small_only",
            "    modelRefs: [{model: small}]",
            "  - name: bounded",
            "    modelRefs: [{model: small}, {model: big}]",
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}, slo: {max_inflight: 2},",
            "      admission: {sheddable_above: 0.5}}}",
            "");
        return start(yaml, GatewayOptions.defaults());
    }

    private HttpResponse<String> post(final String body, final String... headers) throws Exception
    {
        return http.send(request("/v1/chat/completions", body, headers), HttpResponse.BodyHandlers.ofString());
    }

    private static String chat(final String decision, final String content, final String extra)
    {
        return "{\"model\": \"" + decision + "\"" + extra + ", \"messages\": [{\"role\": \"user\", \"content\": \"" +
            content + "\"}]}";
    }

    @Test
    void shouldSkipTheSmallContextModelForALongPrompt() throws Exception
    {
        start();
        final HttpResponse<String> short1 = post(chat("chat", "hello", ""));
        assertThat(short1.statusCode()).isEqualTo(200);
        assertThat(short1.headers().firstValue("x-selected-model")).hasValue("small");
        // 36,000 bytes: about 9,000 tokens, and no max_tokens: 9,000 + 512 > 8,192.
        final HttpResponse<String> long1 = post(chat("chat", "abcd".repeat(9_000), ""), "x-mf-explain", "1");
        assertThat(long1.statusCode()).isEqualTo(200);
        assertThat(long1.headers().firstValue("x-selected-model")).hasValue("big");
        assertThat(long1.headers().firstValue("x-mf-explain").orElseThrow()).contains("context=9512>8192");
    }

    @Test
    void shouldSkipTheModelWithoutToolsForARequestWithTools() throws Exception
    {
        start();
        final HttpResponse<String> tools = post(chat("chat", "weather?",
            ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"weather\"}}]"));
        assertThat(tools.statusCode()).isEqualTo(200);
        assertThat(tools.headers().firstValue("x-selected-model")).hasValue("big");
        final HttpResponse<String> image = post("{\"model\": \"chat\", \"messages\": [{\"role\": \"user\", " +
            "\"content\": [{\"type\": \"text\", \"text\": \"what is this\"}, {\"type\": \"image_url\", " +
            "\"image_url\": {\"url\": \"data:image/png;base64,AAAA\"}}]}]}");
        assertThat(image.headers().firstValue("x-selected-model")).as("small has vision").hasValue("small");
    }

    @Test
    void shouldRefuseARequestNoCandidateCanServeWithoutSendingIt() throws Exception
    {
        start();
        final int before = smallServer.requests.get();
        final HttpResponse<String> refused = post(chat("small_only", "hi",
            ", \"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\"}}"));
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("\"type\":\"invalid_request_error\"")
            .contains("\"code\":\"no_eligible_model\"").contains("small (capability=json_schema)");
        assertThat(smallServer.requests.get()).as("nothing sent upstream").isEqualTo(before);
        final MultiFactorEngine engine = gateway.engine();
        assertThat(engine.inflight(engine.modelId("small"))).as("no lease").isZero();
    }

    @Test
    void shouldCheckTheEligibilityOfAModelNamedDirectly() throws Exception
    {
        start();
        final int before = smallServer.requests.get();
        final HttpResponse<String> tools = post(chat("small", "weather?",
            ", \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"weather\"}}]"));
        assertThat(tools.statusCode()).isEqualTo(400);
        assertThat(tools.body()).contains("\"code\":\"no_eligible_model\"").contains("model small")
            .contains("capability=tools");
        final HttpResponse<String> tooLong = post(chat("small", "abcd".repeat(9_000), ""));
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(tooLong.body()).contains("context=9512>8192");
        assertThat(smallServer.requests.get()).as("nothing sent upstream").isEqualTo(before);
        final MultiFactorEngine engine = gateway.engine();
        assertThat(engine.inflight(engine.modelId("small"))).as("no lease").isZero();
        final HttpResponse<String> fits = post(chat("small", "hello", ""));
        assertThat(fits.statusCode()).isEqualTo(200);
        assertThat(smallServer.requests.get()).isEqualTo(before + 1);
    }

    @Test
    void shouldShedASheddableRequestUnderOverloadAndServeACriticalOne() throws Exception
    {
        start();
        final MultiFactorEngine engine = gateway.engine();
        final long small = engine.begin(engine.modelId("small"));
        final long big = engine.begin(engine.modelId("big"));
        final int before = smallServer.requests.get() + bigServer.requests.get();
        final HttpResponse<String> shed = post(chat("bounded", "hi", ""), "x-mf-priority", "sheddable");
        assertThat(shed.statusCode()).isEqualTo(429);
        assertThat(shed.headers().firstValue("retry-after")).hasValue("1");
        assertThat(shed.body()).contains("\"code\":\"overloaded\"");
        assertThat(smallServer.requests.get() + bigServer.requests.get()).isEqualTo(before);
        final HttpResponse<String> critical = post(chat("bounded", "hi", ""), "x-mf-priority", "critical");
        assertThat(critical.statusCode()).isEqualTo(200);
        assertThat(post(chat("bounded", "hi", "")).statusCode()).as("standard is never shed").isEqualTo(200);
        engine.end(small);
        engine.end(big);
        // The served requests' leases end as their responses complete: wait for them, then there is room.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while ((engine.inflight(engine.modelId("small")) != 0 || engine.inflight(engine.modelId("big")) != 0) &&
            System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertThat(post(chat("bounded", "hi", ""), "x-mf-priority", "sheddable").statusCode())
            .as("room again").isEqualTo(200);
    }

    @Test
    void shouldDropASlowModelUnderARequestsTighterTtft() throws Exception
    {
        start();
        final MultiFactorEngine engine = gateway.engine();
        engine.recordTtftMs(engine.modelId("small"), 300.0);
        engine.recordTtftMs(engine.modelId("big"), 50.0);
        engine.refreshNow();
        assertThat(post(chat("chat", "hi", "")).headers().firstValue("x-selected-model")).hasValue("small");
        final HttpResponse<String> tight = post(chat("chat", "hi", ""), "x-slo-ttft-ms", "100");
        assertThat(tight.statusCode()).isEqualTo(200);
        assertThat(tight.headers().firstValue("x-selected-model")).hasValue("big");
        assertThat(post(chat("chat", "hi", ""), "x-slo-ttft-ms", "5000").headers().firstValue("x-selected-model"))
            .as("a looser header changes nothing").hasValue("small");
    }

    @Test
    void shouldRefuseBadHeaderValues() throws Exception
    {
        start();
        final HttpResponse<String> ttft = post(chat("chat", "hi", ""), "x-slo-ttft-ms", "fast");
        assertThat(ttft.statusCode()).isEqualTo(400);
        assertThat(ttft.body()).contains("invalid_request_error").contains("x-slo-ttft-ms").contains("fast");
        assertThat(post(chat("chat", "hi", ""), "x-slo-tpot-ms", "0").statusCode()).isEqualTo(400);
        assertThat(post(chat("chat", "hi", ""), "x-slo-tpot-ms", "-3").statusCode()).isEqualTo(400);
        final HttpResponse<String> priority = post(chat("chat", "hi", ""), "x-mf-priority", "urgent");
        assertThat(priority.statusCode()).isEqualTo(400);
        assertThat(priority.body()).contains("x-mf-priority").contains("urgent");
    }
}
