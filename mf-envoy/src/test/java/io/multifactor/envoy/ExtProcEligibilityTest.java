package io.multifactor.envoy;

import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.ImmediateResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eligibility, request SLOs and shedding in the ext_proc service, in both modes, over its real gRPC transport: a
 * request with {@code tools} skips the model without them; one no candidate can serve is answered with an immediate
 * 400 {@code no_eligible_model} and no lease; a sheddable one under overload with an immediate 429 and
 * {@code Retry-After} while a critical one is routed; a bad {@code x-slo-ttft-ms} is an immediate 400.
 */
@Timeout(60)
class ExtProcEligibilityTest
{
    private static final String CONFIG = EnvoyFixture.CONFIG
        .replace("    pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}\n",
            "    pricing: {prompt_per_1m: 10.0, completion_per_1m: 30.0}\n    capabilities: [vision]\n")
        + String.join("\n",
        "  - name: bounded",
        "    modelRefs: [{model: premium-model}, {model: economy-model}]",
        "    algorithm: {type: multi_factor, multi_factor: {slo: {max_inflight: 2}, admission: {sheddable_above: 0.5}}}",
        "  - name: premium_only",
        "    modelRefs: [{model: premium-model}]",
        "");

    @TempDir
    Path dir;

    private EnvoyFixture fixture;

    @AfterEach
    void tearDown() throws Exception
    {
        if (fixture != null)
        {
            fixture.close();
        }
    }

    private static Map<String, String> headers(final ImmediateResponse response)
    {
        final Map<String, String> headers = new LinkedHashMap<>();
        for (final HeaderValueOption option : response.getHeaders().getSetHeadersList())
        {
            headers.put(option.getHeader().getKey(), utf8(option.getHeader().getRawValue()));
        }
        return headers;
    }

    private static ProcessingResponse route(final FakeEnvoy.Stream stream, final String body, final String... headers)
        throws Exception
    {
        final String[] all = new String[headers.length + 4];
        all[0] = ":method";
        all[1] = "POST";
        all[2] = ":path";
        all[3] = "/v1/chat/completions";
        System.arraycopy(headers, 0, all, 4, headers.length);
        stream.exchange(requestHeaders(false, all));
        return stream.exchange(requestBody(body, true));
    }

    @Test
    void shouldSkipRefuseAndShedInBothModes() throws Exception
    {
        for (final EnvoyMode mode : EnvoyMode.values())
        {
            fixture = new EnvoyFixture(Files.createDirectories(dir.resolve(mode.name())), mode, CONFIG);
            final String tools = "{\"model\": \"quality\", \"tools\": [{\"type\": \"function\"}], " +
                "\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
            final ProcessingResponse skipped = route(fixture.envoy.open(), tools);
            if (mode == EnvoyMode.VSR)
            {
                assertThat(ExtProcRequestPathTest.headers(skipped.getRequestBody().getResponse()))
                    .as(mode + ": premium has no tools").containsEntry("x-selected-model", "economy-model");
            }
            else
            {
                assertThat(skipped.hasImmediateResponse()).as(mode + ": economy has no backend_refs: 503").isTrue();
                assertThat(skipped.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
            }
            final MultiFactorEngine engine = fixture.engine();
            final long before = engine.inflight(engine.requireModelId("premium-model"));

            final ProcessingResponse refused = route(fixture.envoy.open(), tools.replace("quality", "premium_only"));
            assertThat(refused.getImmediateResponse().getStatus().getCodeValue()).as(mode.name()).isEqualTo(400);
            final String body = utf8(refused.getImmediateResponse().getBody());
            assertThat(Json.text(body, "error", "code")).isEqualTo("no_eligible_model");
            assertThat(body).contains("premium-model (capability=tools)");
            assertThat(engine.inflight(engine.requireModelId("premium-model"))).as("no lease").isEqualTo(before);

            final long premium = engine.begin(engine.requireModelId("premium-model"));
            final long economy = engine.begin(engine.requireModelId("economy-model"));
            final String chat = "{\"model\": \"bounded\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
            final long unavailableBefore = fixture.app.context().unavailable();
            final ProcessingResponse shed = route(fixture.envoy.open(), chat, "x-mf-priority", "sheddable");
            assertThat(shed.getImmediateResponse().getStatus().getCodeValue()).as(mode.name()).isEqualTo(429);
            assertThat(headers(shed.getImmediateResponse())).containsEntry("retry-after", "1");
            assertThat(Json.text(utf8(shed.getImmediateResponse().getBody()), "error", "code")).isEqualTo("overloaded");
            // Counted as shed, as the gateway does, not with the 503s.
            assertThat(fixture.app.context().shed()).isEqualTo(1);
            assertThat(fixture.app.context().unavailable()).isEqualTo(unavailableBefore);
            assertThat(fixture.registry.get("mf.envoy.requests").tag("result", "shed").functionCounter().count())
                .isEqualTo(1.0);
            final ProcessingResponse critical = route(fixture.envoy.open(), chat, "x-mf-priority", "critical");
            assertThat(critical.hasImmediateResponse() &&
                critical.getImmediateResponse().getStatus().getCodeValue() == 429).as("critical is never shed")
                .isFalse();
            engine.end(premium);
            engine.end(economy);

            final ProcessingResponse bad = route(fixture.envoy.open(), chat, "x-slo-ttft-ms", "soon");
            assertThat(bad.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(400);
            assertThat(utf8(bad.getImmediateResponse().getBody())).contains("x-slo-ttft-ms");
            fixture.close();
            fixture = null;
        }
    }
}
