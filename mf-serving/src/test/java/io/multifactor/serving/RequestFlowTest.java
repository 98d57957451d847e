package io.multifactor.serving;

import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request flow every transport shares: decision resolution, the attempts with exclusions, the errors as HTTP
 * statuses and OpenAI bodies, and time from the engine's clock.
 */
class RequestFlowTest
{
    private static final long MS = 1_000_000L;

    private final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS);

    @Test
    void shouldResolveTheHeaderFirstThenTheBodyAndRefuseAnythingElseWithItsCodeListingTheDecisions()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final RequestFlow flow = new RequestFlow(engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
            assertThat(flow.resolve("e", "d")).isTrue();
            assertThat(flow.decisionName()).isEqualTo("e");
            assertThat(flow.decisionId()).isEqualTo(engine.decisionId("e"));
            assertThat(flow.errorStatus()).isZero();
            assertThat(flow.errorBody()).isNull();
            flow.reset();
            assertThat(flow.resolve(null, "d")).isTrue();
            assertThat(flow.decisionName()).isEqualTo("d");
            flow.reset();
            assertThat(flow.resolve(null, "gpt-4o")).isFalse();
            assertThat(flow.errorStatus()).isEqualTo(404);
            assertThat(flow.errorBody()).isEqualTo("{\"error\":{\"message\":\"\\\"model\\\": \\\"gpt-4o\\\" names " +
                "neither a decision nor a model (header x-mf-decision is absent); decisions: d, e\",\"type\":" +
                "\"invalid_request_error\",\"param\":\"model\",\"code\":\"model_not_found\"}}");
            assertThat(flow.decisionName()).isNull();
            flow.reset();
            assertThat(flow.resolve("nope", "d")).as("the header wins, even when it names nothing").isFalse();
            assertThat(flow.error()).isEqualTo(ServingError.DECISION_NOT_FOUND);
            assertThat(flow.errorStatus()).isEqualTo(404);
            assertThat(flow.errorMessage()).startsWith("unknown decision \"nope\" in header " + ServingHeaders.DECISION);
            flow.reset();
            assertThat(flow.resolve(null, null)).isFalse();
            assertThat(flow.error()).isEqualTo(ServingError.MISSING_MODEL);
            assertThat(flow.errorStatus()).isEqualTo(400);
            flow.reset();
            assertThat(flow.resolve("nope", "a")).as("a model named in the body does not rescue a bad header").isFalse();
            assertThat(flow.direct()).isFalse();
        }
    }

    @Test
    void shouldRetryOnTheNextCandidateWithTheFailedModelExcludedWhileAttemptsRemain()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final RequestFlow flow = new RequestFlow(engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
            assertThat(flow.resolve(null, "d")).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isTrue();
            assertThat(flow.attempts()).isEqualTo(1);
            assertThat(flow.selectedModelName()).isEqualTo("a");
            assertThat(engine.inflight(engine.modelId("a"))).isEqualTo(1);
            assertThat(flow.mayRetry()).isTrue();
            flow.lifecycle().fail(503, 0);

            assertThat(flow.retry("a answered 503")).isTrue();
            assertThat(flow.attempts()).isEqualTo(2);
            assertThat(flow.selectedModelName()).as("a excluded").isEqualTo("b");
            assertThat(engine.inflight(engine.modelId("a"))).isZero();
            assertThat(engine.inflight(engine.modelId("b"))).isEqualTo(1);
            assertThat(flow.mayRetry()).isFalse();
            flow.lifecycle().fail(0, 0);

            assertThat(flow.retry("b reset")).as("no attempt left").isFalse();
            assertThat(flow.errorStatus()).isEqualTo(502);
            assertThat(flow.errorBody()).isEqualTo("{\"error\":{\"message\":\"a answered 503; retry: b reset\"," +
                "\"type\":\"server_error\",\"param\":null,\"code\":\"upstream_unavailable\"}}");
            assertThat(engine.inflight(engine.modelId("b"))).isZero();
        }
    }

    @Test
    void shouldAnswer502WhenNoOtherCandidateIsLeftToRetryOn()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final RequestFlow flow = new RequestFlow(engine, 3);
            assertThat(flow.resolve("e", null)).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isTrue();
            flow.lifecycle().fail(0, 0);
            assertThat(flow.retry("could not connect to b")).isFalse();
            assertThat(flow.errorStatus()).isEqualTo(502);
            assertThat(flow.errorMessage()).isEqualTo("could not connect to b; no other candidate to retry on");
            assertThat(flow.selectedModelName()).isNull();
        }
    }

    @Test
    void shouldAnswer503WithNoCandidatesWhenTheDecisionFails()
    {
        final LoadedConfig strict = Engines.load(Engines.TWO_MODELS.replace("    modelRefs: [{model: b}]\n",
            "    modelRefs: [{model: b}]\n" +
            "    algorithm: {type: multi_factor, multi_factor: {slo: {min_quality: 0.99}, on_no_candidates: fail}}\n"));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(strict.plans()).build())
        {
            final RequestFlow flow = new RequestFlow(engine, 1);
            assertThat(flow.resolve(null, "e")).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isFalse();
            assertThat(flow.errorStatus()).isEqualTo(503);
            assertThat(flow.errorBody()).isEqualTo("{\"error\":{\"message\":\"decision e found no candidate (outcome " +
                "failed)\",\"type\":\"server_error\",\"param\":null,\"code\":\"no_candidate\"}}");
            assertThat(flow.explainJson()).contains("\"outcome\":\"failed\"");
        }
    }

    @Test
    void shouldMeasureTtftAndTpotOnTheEnginesClockWithoutSleeping()
    {
        final AtomicLong nowNs = new AtomicLong(1_000 * MS);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).clock(nowNs::get).build())
        {
            final RequestFlow flow = new RequestFlow(engine, 1);
            assertThat(flow.resolve("d", null)).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isTrue();
            final RequestLifecycle lifecycle = flow.lifecycle();
            lifecycle.onRequestSent(flow.nowNs());
            lifecycle.onResponseStatus(200, true);
            nowNs.addAndGet(40 * MS);
            feed(flow, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n");
            nowNs.addAndGet(10 * MS);
            feed(flow, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n");
            nowNs.addAndGet(20 * MS);
            feed(flow, "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n");
            nowNs.addAndGet(20 * MS);
            feed(flow, "data: {\"choices\":[{\"delta\":{\"content\":\"!\"}}]}\n\ndata: [DONE]\n\n");
            assertThat(lifecycle.complete(200)).isTrue();
            assertThat(lifecycle.ttftMicros()).isEqualTo(50_000L);
            assertThat(lifecycle.tpotMicros()).isEqualTo(20_000L);
        }
    }

    @Test
    void shouldForgetTheRequestOnReset()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final RequestFlow flow = new RequestFlow(engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
            assertThat(flow.resolve(null, "d")).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isTrue();
            flow.lifecycle().fail(500, 0);
            assertThat(flow.retry("a answered 500")).isTrue();
            flow.lifecycle().complete(200);
            flow.reset();
            assertThat(flow.decisionName()).isNull();
            assertThat(flow.attempts()).isZero();
            assertThat(flow.errorStatus()).isZero();
            assertThat(flow.resolve(null, "d")).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isTrue();
            assertThat(flow.selectedModelName()).as("no exclusion left over").isEqualTo("a");
            flow.lifecycle().cancel();
        }
    }

    @Test
    void shouldServeAModelNamedDirectlyWithoutSelectionAndRetryOnlyOnIt()
    {
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).build())
        {
            final int a = engine.modelId("a");
            final RequestFlow flow = new RequestFlow(engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
            assertThat(flow.resolve(null, "a")).isTrue();
            assertThat(flow.direct()).isTrue();
            assertThat(flow.decisionName()).as("no decision").isNull();
            assertThat(flow.start(10, 20)).isTrue();
            assertThat(flow.selectedModelName()).isEqualTo("a");
            assertThat(flow.explainJson()).as("nothing was selected").isNull();
            assertThat(engine.inflight(a)).isEqualTo(1);
            assertThat(engine.inflightTokens(a)).as("the lease weighs the request's tokens").isEqualTo(30);
            flow.lifecycle().fail(503, 0);
            assertThat(engine.inflight(a)).isZero();

            assertThat(flow.retry("a1 answered 503")).as("another lease on the same model").isTrue();
            assertThat(flow.selectedModelName()).isEqualTo("a");
            assertThat(flow.attempts()).isEqualTo(2);
            assertThat(engine.inflight(a)).isEqualTo(1);
            flow.lifecycle().complete(200);
            assertThat(engine.inflight(a)).isZero();
        }
    }

    @Test
    void shouldPreferTheDecisionWhenANameIsBothAndRefuseAnEjectedModelWithItsTimeLeft()
    {
        final LoadedConfig both = Engines.load(Engines.TWO_MODELS + "  - name: a\n    modelRefs: [{model: b}]\n");
        try (MultiFactorEngine engine = MultiFactorEngine.builder(both.plans()).build())
        {
            final RequestFlow flow = new RequestFlow(engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
            assertThat(flow.resolve(null, "a")).isTrue();
            assertThat(flow.direct()).as("decision a wins over model a").isFalse();
            assertThat(flow.decisionName()).isEqualTo("a");
        }
        final AtomicLong nowNs = new AtomicLong(1_000 * MS);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).clock(nowNs::get).build())
        {
            final int b = engine.modelId("b");
            assertThat(engine.ejectForMillis(b, 2_500)).isTrue();
            final RequestFlow flow = new RequestFlow(engine, RequestFlow.DEFAULT_MAX_ATTEMPTS);
            assertThat(flow.resolve(null, "b")).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isFalse();
            assertThat(flow.error()).isEqualTo(ServingError.NO_CANDIDATE);
            assertThat(flow.errorStatus()).isEqualTo(503);
            assertThat(flow.errorRetryAfterMs()).isEqualTo(2_500);
            assertThat(engine.inflight(b)).as("no lease on an ejected model").isZero();

            nowNs.addAndGet(3_000 * MS);
            flow.reset();
            assertThat(flow.resolve(null, "b")).isTrue();
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).as("half-open: this lease is the probe").isTrue();
            assertThat(engine.inflight(b)).isEqualTo(1);
            flow.lifecycle().complete(200);
        }
    }

    @Test
    void shouldNotRetryOnceTheDeadlineHasPassed()
    {
        final AtomicLong nowNs = new AtomicLong(1_000 * MS);
        try (MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans()).clock(nowNs::get).build())
        {
            final RequestFlow flow = new RequestFlow(engine, 3);
            assertThat(flow.resolve(null, "d")).isTrue();
            flow.deadlineNs(flow.nowNs() + 100 * MS);
            assertThat(flow.start(Request.NO_TOKENS, Request.NO_TOKENS)).isTrue();
            assertThat(flow.mayRetry()).isTrue();
            nowNs.addAndGet(100 * MS);
            assertThat(flow.mayRetry()).as("attempts remain, the deadline does not").isFalse();
            flow.lifecycle().fail(0, 0);
            assertThat(flow.retry("a reset")).isFalse();
            assertThat(flow.error()).isEqualTo(ServingError.UPSTREAM_UNAVAILABLE);
        }
    }

    @Test
    void shouldTellWhetherTheExplainHeaderAsks()
    {
        assertThat(RequestFlow.explainAsked("1")).isTrue();
        assertThat(RequestFlow.explainAsked("0")).isFalse();
        assertThat(RequestFlow.explainAsked(null)).isFalse();
    }

    private static void feed(final RequestFlow flow, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        flow.lifecycle().onResponseBytes(bytes, 0, bytes.length, flow.nowNs());
    }
}
