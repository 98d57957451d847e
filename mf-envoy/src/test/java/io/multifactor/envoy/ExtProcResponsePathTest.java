package io.multifactor.envoy;

import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingRequest;
import io.envoyproxy.envoy.service.ext_proc.v3.ProcessingResponse;
import io.envoyproxy.envoy.service.ext_proc.v3.HttpTrailers;
import io.grpc.Status;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static io.multifactor.envoy.FakeEnvoy.requestBody;
import static io.multifactor.envoy.FakeEnvoy.requestHeaders;
import static io.multifactor.envoy.FakeEnvoy.responseBody;
import static io.multifactor.envoy.FakeEnvoy.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/** The response path: status, streamed SSE chunks to TTFT and TPOT, and the lease ended once, however the stream ends. */
@Timeout(60)
class ExtProcResponsePathTest
{
    static final int CHUNKS = 16;
    static final long CHUNK_GAP_MS = 3;

    @TempDir
    Path dir;

    private EnvoyFixture fixture;

    @AfterEach
    void tearDown()
    {
        if (fixture != null)
        {
            fixture.close();
        }
    }

    static String contentChunk(final int i)
    {
        return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok" + i + "\"}}]}\n\n";
    }

    /** Routes one streamed chat request to premium-model; returns the stream, waiting for its response headers. */
    private FakeEnvoy.Stream routeStreamedRequest() throws InterruptedException
    {
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(false, ":method", "POST", ":path", "/v1/chat/completions"));
        final ProcessingResponse routed = stream.exchange(requestBody(
            "{\"model\":\"quality\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", true));
        assertThat(routed.getRequestBody().getResponse().getClearRouteCache()).isTrue();
        return stream;
    }

    private static double[] latencyMs(final MultiFactorEngine engine, final String model)
    {
        engine.refreshNow();
        final Selection selection = new Selection();
        engine.select(engine.requireDecisionId("quality"), null, selection);
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            if (selection.modelId(i) == engine.requireModelId(model))
            {
                return new double[] {selection.ttftMs(i), selection.tpotMs(i)};
            }
        }
        throw new AssertionError(model + " is not a candidate");
    }

    @Test
    void shouldRecordTtftAndTpotFromAStreamedResponseOfManyChunks() throws Exception
    {
        // The engine's clock, advanced by the test: the gaps between chunks are measured without sleeping.
        final AtomicLong nowNs = new AtomicLong(1_000_000_000L);
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR, EnvoyFixture.CONFIG, nowNs::get);
        final FakeEnvoy.Stream stream = routeStreamedRequest();
        final long sentNs = nowNs.get();

        final ProcessingResponse headers = stream.exchange(responseHeaders(false,
            ":status", "200", "content-type", "text/event-stream; charset=utf-8"));
        assertThat(headers.hasResponseHeaders()).isTrue();
        assertThat(stream.exchange(responseBody("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            false))).isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_BODY);
        nowNs.addAndGet(CHUNK_GAP_MS * 1_000_000L);
        for (int i = 0; i < CHUNKS; i++)
        {
            // One event cut across two messages, as a proxy may deliver it.
            final String chunk = contentChunk(i);
            assertThat(stream.exchange(responseBody(chunk.substring(0, 20), false)))
                .isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_BODY);
            assertThat(stream.exchange(responseBody(chunk.substring(20), false)))
                .isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_BODY);
            assertThat(fixture.inflight("premium-model")).isEqualTo(1);
            nowNs.addAndGet(CHUNK_GAP_MS * 1_000_000L);
        }
        assertThat(stream.exchange(responseBody("data: [DONE]\n\n", true)))
            .isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_BODY);
        final long elapsedMs = (nowNs.get() - sentNs) / 1_000_000L;

        assertThat(fixture.inflight("premium-model")).isZero();
        assertThat(stream.finish()).isEqualTo(Status.OK);
        final double[] latency = latencyMs(fixture.engine(), "premium-model");
        System.out.printf("streamed %d chunks: ttft %.3f ms, tpot %.3f ms (exchange took %d ms)%n",
            CHUNKS, latency[0], latency[1], elapsedMs);
        assertThat(latency[0]).as("ttft ms").isPositive().isLessThanOrEqualTo(elapsedMs + 1.0);
        // 15 gaps of at least CHUNK_GAP_MS between the first and the last content chunk.
        assertThat(latency[1]).as("tpot ms").isGreaterThanOrEqualTo(CHUNK_GAP_MS * 0.9)
            .isLessThanOrEqualTo(elapsedMs);
        assertThat(fixture.app.context().completed()).isEqualTo(1);
    }

    @Test
    void shouldRecordNeitherForAResponseThatIsNotAnEventStream() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = routeStreamedRequest();
        stream.exchange(responseHeaders(false, ":status", "200", "content-type", "application/json"));
        stream.exchange(responseBody("{\"choices\":[{\"message\":{\"content\":\"hello\"}}]}", true));

        assertThat(fixture.inflight("premium-model")).isZero();
        final double[] latency = latencyMs(fixture.engine(), "premium-model");
        assertThat(latency[0]).isNaN();
        assertThat(latency[1]).isNaN();
    }

    @Test
    void shouldEndTheLeaseOnceWhenEnvoyCancelsMidStream() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = routeStreamedRequest();
        stream.exchange(responseHeaders(false, ":status", "200", "content-type", "text/event-stream"));
        for (int i = 0; i < 3; i++)
        {
            stream.exchange(responseBody(contentChunk(i), false));
        }
        assertThat(fixture.inflight("premium-model")).isEqualTo(1);

        stream.cancel();

        fixture.awaitNothingInFlight();
        assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.CANCELLED);
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (fixture.app.context().cancelled() == 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(5);
        }
        assertThat(fixture.app.context().cancelled()).isEqualTo(1);
        assertThat(fixture.app.context().completed()).isZero();
        // A cancelled stream records no TPOT (the response did not complete).
        assertThat(latencyMs(fixture.engine(), "premium-model")[1]).isNaN();
    }

    @Test
    void shouldEndTheLeaseWhenEnvoyHalfClosesBeforeTheResponse() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(true, "x-mf-decision", "quality"));
        assertThat(fixture.inflight("premium-model")).isEqualTo(1);

        // Envoy configured without response processing closes the stream once the request is done.
        assertThat(stream.finish()).isEqualTo(Status.OK);

        fixture.awaitNothingInFlight();
    }

    @Test
    void shouldEndTheLeaseAtResponseTrailersAndFailItOnAnErrorStatus() throws Exception
    {
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = routeStreamedRequest();
        stream.exchange(responseHeaders(false, ":status", "503", "retry-after", "7"));
        stream.exchange(responseBody("{\"error\":\"overloaded\"}", false));
        assertThat(fixture.inflight("premium-model")).isEqualTo(1);

        final ProcessingResponse answer = stream.exchange(ProcessingRequest.newBuilder()
            .setResponseTrailers(HttpTrailers.getDefaultInstance()).build());

        assertThat(answer).isEqualTo(ExtProcResponses.CONTINUE_RESPONSE_TRAILERS);
        assertThat(fixture.inflight("premium-model")).isZero();
        assertThat(stream.finish()).isEqualTo(Status.OK);
    }

    @Test
    void shouldRefuseASecondRequestOnOneStreamCleanly() throws Exception
    {
        // Envoy opens one Process stream per HTTP request; a second request_headers is a client bug.
        fixture = new EnvoyFixture(dir, EnvoyMode.VSR);
        final FakeEnvoy.Stream stream = fixture.envoy.open();
        stream.exchange(requestHeaders(true, "x-mf-decision", "quality"));
        stream.exchange(responseHeaders(true, ":status", "200"));

        stream.send(requestHeaders(true, "x-mf-decision", "quality"));

        final Status end = stream.awaitEnd();
        assertThat(end.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(end.getDescription()).contains("one Process stream per HTTP request");
        fixture.awaitNothingInFlight();
        assertThat(fixture.app.context().routed()).isEqualTo(1);

        // The same, while the first request's lease is still open: refused, and that lease ends.
        final FakeEnvoy.Stream early = fixture.envoy.open();
        early.exchange(requestHeaders(true, "x-mf-decision", "quality"));
        assertThat(fixture.inflight("premium-model")).isEqualTo(1);
        early.send(requestHeaders(true, "x-mf-decision", "quality"));
        assertThat(early.awaitEnd().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        fixture.awaitNothingInFlight();
    }
}
