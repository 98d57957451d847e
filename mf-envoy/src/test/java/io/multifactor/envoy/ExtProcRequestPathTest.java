package io.multifactor.envoy;

import io.envoyproxy.envoy.config.core.v3.HeaderValueOption;
import io.envoyproxy.envoy.service.ext_proc.v3.CommonResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static io.multifactor.envoy.FakeEnvoy.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/** The request path as Envoy drives it: headers only, headers then a buffered body, in both modes. */
@Timeout(60)
class ExtProcRequestPathTest
{
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

    static Map<String, String> headers(final CommonResponse response)
    {
        final Map<String, String> headers = new LinkedHashMap<>();
        for (final HeaderValueOption option : response.getHeaderMutation().getSetHeadersList())
        {
            headers.put(option.getHeader().getKey(), utf8(option.getHeader().getRawValue()));
        }
        return headers;
    }

    @Test
    void shouldRouteOnTheDecisionHeaderWhenTheRequestHasNoBody() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();

        final ProcessingResponse routed = stream.exchange(requestHeaders(true,
            ":method", "GET", ":path", "/v1/models", "x-mf-decision", "quality"));

        assertThat(routed.hasRequestHeaders()).isTrue();
        final CommonResponse common = routed.getRequestHeaders().getResponse();
        assertThat(common.getClearRouteCache()).isTrue();
        assertThat(headers(common)).containsEntry("x-selected-model", "premium-model")
            .doesNotContainKey("x-gateway-destination-endpoint");
        assertThat(common.hasBodyMutation()).isFalse();
        assertThat(fixture.inflight("premium-model")).isEqualTo(1);

        final ProcessingResponse answered = stream.exchange(responseHeaders(true, ":status", "200"));
        assertThat(answered.hasResponseHeaders()).isTrue();
        assertThat(headers(answered.getResponseHeaders().getResponse()))
            .containsEntry("x-mf-decision", "quality").containsEntry("x-selected-model", "premium-model");
        assertThat(fixture.inflight("premium-model")).isZero();
        assertThat(stream.finish()).isEqualTo(Status.OK);
        assertThat(fixture.app.context().completed()).isEqualTo(1);
    }

    @Test
    void shouldRewriteTheBodysModelToTheProviderModelIdAndSetItsLength() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();

        final ProcessingResponse first = stream.exchange(requestHeaders(false,
            ":method", "POST", ":path", "/v1/chat/completions", "content-type", "application/json"));
        assertThat(first).isEqualTo(ExtProcResponses.CONTINUE_REQUEST_HEADERS);
        assertThat(fixture.inflight("premium-model")).isZero();

        final String body = "{\"model\": \"quality\", \"stream\": true, \"max_tokens\": 64, " +
            "\"messages\": [{\"role\": \"user\", \"content\": \"hello there\"}]}";
        final ProcessingResponse routed = stream.exchange(requestBody(body, true));

        assertThat(routed.hasRequestBody()).isTrue();
        final CommonResponse common = routed.getRequestBody().getResponse();
        assertThat(common.getClearRouteCache()).isTrue();
        final String rewritten = utf8(common.getBodyMutation().getBody());
        assertThat(Json.text(rewritten, "model")).isEqualTo("acme/premium-v2");
        assertThat(Json.text(rewritten, "messages", "0", "content")).isEqualTo("hello there");
        assertThat(Json.text(rewritten, "max_tokens")).isEqualTo("64");
        assertThat(headers(common))
            .containsEntry("x-selected-model", "premium-model")
            .containsEntry("content-length", Integer.toString(common.getBodyMutation().getBody().size()));
        assertThat(fixture.inflight("premium-model")).isEqualTo(1);

        stream.exchange(responseHeaders(true, ":status", "200"));
        assertThat(fixture.inflight("premium-model")).isZero();
        assertThat(stream.finish()).isEqualTo(Status.OK);
    }

    @Test
    void shouldPreferTheHeaderOverTheBodysModelAndLeaveAnUnchangedModelAlone() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST", "x-mf-decision", "cheap"));

        final ProcessingResponse routed = stream.exchange(requestBody(
            "{\"model\":\"economy-model\",\"prompt\":\"hi\"}", true));

        final CommonResponse common = routed.getRequestBody().getResponse();
        assertThat(headers(common)).containsEntry("x-selected-model", "economy-model");
        assertThat(common.hasBodyMutation()).as("the body already names the provider model id").isFalse();
        assertThat(fixture.inflight("economy-model")).isEqualTo(1);
        stream.exchange(responseHeaders(true, ":status", "200"));
        fixture.awaitNothingInFlight();
    }

    @Test
    void shouldNameOneBackendAndItsMetadataInEndpointMode() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.ENDPOINT);
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST"));

        final ProcessingResponse routed = stream.exchange(requestBody(
            "{\"model\":\"quality\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", true));

        final CommonResponse common = routed.getRequestBody().getResponse();
        assertThat(common.getClearRouteCache()).isTrue();
        assertThat(headers(common)).containsEntry("x-gateway-destination-endpoint", "127.0.0.1:9001")
            .doesNotContainKey("x-selected-model");
        assertThat(routed.getDynamicMetadata().getFieldsOrThrow("envoy.lb").getStructValue()
            .getFieldsOrThrow("x-gateway-destination-endpoint").getStringValue()).isEqualTo("127.0.0.1:9001");
        assertThat(Json.text(utf8(common.getBodyMutation().getBody()), "model")).isEqualTo("acme/premium-v2");
        stream.exchange(responseHeaders(true, ":status", "200"));
        fixture.awaitNothingInFlight();
        assertThat(stream.finish()).isEqualTo(Status.OK);
    }

    @Test
    void shouldAnswer503WithoutALeaseWhenTheModelHasNoBackendInEndpointMode() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.ENDPOINT);
        final FakeEnvoy.Stream stream = fixture.envoy.open();

        final ProcessingResponse answer = stream.exchange(requestHeaders(true, "x-mf-decision", "cheap"));

        assertThat(answer.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
        assertThat(utf8(answer.getImmediateResponse().getBody())).contains("economy-model").contains("backend_refs");
        fixture.awaitNothingInFlight();
        assertThat(stream.finish()).isEqualTo(Status.OK);
    }

    @Test
    void shouldAnswer503WithAJsonBodyWhenTheDecisionFails() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();

        final ProcessingResponse answer = stream.exchange(requestHeaders(true,
            "x-mf-decision", "unreachable", "x-mf-explain", "1"));

        assertThat(answer.hasImmediateResponse()).isTrue();
        assertThat(answer.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(503);
        assertThat(Json.text(utf8(answer.getImmediateResponse().getBody()), "error", "message"))
            .contains("unreachable").contains("failed");
        final Map<String, String> headers = new LinkedHashMap<>();
        for (final HeaderValueOption option : answer.getImmediateResponse().getHeaders().getSetHeadersList())
        {
            headers.put(option.getHeader().getKey(), utf8(option.getHeader().getRawValue()));
        }
        assertThat(headers).containsEntry("content-type", "application/json");
        assertThat(Json.text(headers.get("x-mf-explain"), "outcome")).isEqualTo("failed");
        fixture.awaitNothingInFlight();
        assertThat(fixture.app.context().unavailable()).isEqualTo(1);
    }

    @Test
    void shouldRefuseANameThatIsNoDecisionListingTheDecisions() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream noHeader = fixture.envoy.open();
        final ProcessingResponse headersOnly = noHeader.exchange(requestHeaders(true, ":method", "GET"));
        assertThat(headersOnly.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(400);
        assertThat(utf8(headersOnly.getImmediateResponse().getBody()))
            .contains("quality").contains("cheap").contains("unreachable");

        final FakeEnvoy.Stream unknownModel = fixture.envoy.open();
        unknownModel.exchange(requestHeaders(false, ":method", "POST"));
        final ProcessingResponse unknown = unknownModel.exchange(requestBody("{\"model\":\"gpt-9\"}", true));
        // A body model that names neither a decision nor a model: 404 model_not_found (the gateway's code table).
        assertThat(unknown.getImmediateResponse().getStatus().getCodeValue()).isEqualTo(404);
        assertThat(Json.text(utf8(unknown.getImmediateResponse().getBody()), "error", "message"))
            .contains("gpt-9").contains("quality");
        assertThat(Json.text(utf8(unknown.getImmediateResponse().getBody()), "error", "code")).isEqualTo("model_not_found");
        fixture.awaitNothingInFlight();
        assertThat(fixture.app.context().badRequests()).isEqualTo(2);
    }

    @Test
    void shouldAddTheExplainJsonOfTheSelectionThatChoseToTheResponse() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(true, "x-mf-decision", "quality", "x-mf-explain", "1"));

        final ProcessingResponse answered = stream.exchange(responseHeaders(true, ":status", "200"));

        final String explain = headers(answered.getResponseHeaders().getResponse()).get("x-mf-explain");
        assertThat(Json.text(explain, "decision")).isEqualTo("quality");
        assertThat(Json.text(explain, "selected")).isEqualTo("premium-model");
        assertThat(Json.text(explain, "candidates")).isEqualTo("[2]");
    }
}
