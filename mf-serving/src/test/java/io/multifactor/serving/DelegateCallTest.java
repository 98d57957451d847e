package io.multifactor.serving;

import io.multifactor.api.Priority;
import io.multifactor.api.Request;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DelegateCallTest
{
    private static final long MS = 1_000_000L;

    /** As an HTTP client's exception that kept the status. */
    static final class StatusException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        private final int status;

        StatusException(final int status)
        {
            super("answered " + status);
            this.status = status;
        }

        public int statusCode()
        {
            return status;
        }
    }

    private final LoadedConfig loaded = Engines.load(Engines.TWO_MODELS);

    private MultiFactorEngine engine(final ManualClock clock)
    {
        return MultiFactorEngine.builder(loaded.plans()).clock(clock).build();
    }

    @Test
    void shouldCallTheChosenDelegateWithItsProviderModelIdAndMeasureTheStream()
    {
        final ManualClock clock = new ManualClock(1_000 * MS);
        try (MultiFactorEngine engine = engine(clock))
        {
            final DelegateCall<String> call = new DelegateCall<>(engine, name -> name.equals("a") ? "acme/a-7b" : null,
                Map.of("a", "client-a", "b", "client-b"), null, 2);
            call.begin(null, "d", DelegateCall.promptTokens(400), 50);
            assertThat(call.delegate()).isEqualTo("client-a");
            assertThat(call.providerModelId()).isEqualTo("acme/a-7b");
            assertThat(call.decisionName()).isEqualTo("d");
            assertThat(engine.inflight(engine.modelId("a"))).isEqualTo(1);
            call.sent();
            clock.advanceMs(30);
            call.chunk();
            clock.advanceMs(10);
            call.chunk();
            clock.advanceMs(10);
            call.chunk();
            assertThat(call.complete()).isTrue();
            assertThat(call.complete()).as("exactly once").isFalse();
            assertThat(call.flow().lifecycle().ttftMicros()).isEqualTo(30_000);
            assertThat(call.flow().lifecycle().tpotMicros()).isEqualTo(10_000);
            assertThat(engine.inflight(engine.modelId("a"))).isZero();
            assertThat(call.explainJson()).contains("\"a\"");
        }
    }

    @Test
    void shouldRetryOnTheNextCandidateBeforeTheFirstTokenOnlyAndReportTheStatus()
    {
        final LoadedConfig ejecting = Engines.load(Engines.TWO_MODELS.replace(
            "    provider_model_id: acme/a-7b\n",
            "    provider_model_id: acme/a-7b\n    reliability: {consecutive_5xx: 1, base_ejection_time: 10s}\n"));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(ejecting.plans()).clock(new ManualClock()).build())
        {
            final DelegateCall<String> call = new DelegateCall<>(engine, null, Map.of("a", "A", "b", "B"), "d", 2);
            call.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(call.delegate()).isEqualTo("A");
            call.sent();
            assertThat(call.retryAfter(new StatusException(503))).isTrue();
            assertThat(engine.ejectedMillisLeft(engine.modelId("a"))).as("the 503 reached the ejection")
                .isGreaterThan(9_000.0);
            assertThat(call.delegate()).isEqualTo("B");
            assertThat(call.providerModelId()).as("no provider ids: the name").isEqualTo("b");
            assertThat(call.attempts()).isEqualTo(2);
            call.sent();
            call.chunk();
            assertThat(call.retryAfter(new StatusException(500))).as("after the first token: never").isFalse();
            assertThat(engine.inflight(engine.modelId("b"))).isZero();
            assertThat(call.flow().lifecycle().endStatus()).isEqualTo(500);
        }
    }

    @Test
    void shouldStopRetryingWhenAttemptsRunOutOrAfterACancel()
    {
        try (MultiFactorEngine engine = engine(new ManualClock()))
        {
            final DelegateCall<String> once = new DelegateCall<>(engine, null, Map.of("a", "A", "b", "B"), "d", 1);
            once.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(once.retryAfter(new UncheckedIOException(new java.io.IOException("refused")))).isFalse();
            assertThat(once.flow().lifecycle().endStatus()).as("no status in the chain").isZero();
            final DelegateCall<String> cancelled = new DelegateCall<>(engine, null, Map.of("a", "A", "b", "B"), "d", 2);
            cancelled.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(cancelled.cancel()).isTrue();
            assertThat(cancelled.retryAfter(new StatusException(502))).as("a cancelled call is not retried").isFalse();
            assertThat(engine.inflight(engine.modelId("a")) + engine.inflight(engine.modelId("b"))).isZero();
        }
    }

    @Test
    void shouldSkipModelsWithoutADelegateAndRefuseWhatTheGatewayRefuses()
    {
        try (MultiFactorEngine engine = engine(new ManualClock()))
        {
            final DelegateCall<String> onlyB = new DelegateCall<>(engine, null, Map.of("b", "B"), "d", 2);
            onlyB.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(onlyB.delegate()).isEqualTo("B");
            assertThat(onlyB.selectedModelName()).isEqualTo("b");
            assertThat(engine.inflight(engine.modelId("a"))).isZero();
            onlyB.complete();
            final DelegateCall<String> noDecision = new DelegateCall<>(engine, null, Map.of("b", "B"), null, 2);
            assertThatThrownBy(() -> noDecision.begin(null, "gpt-4o", Request.NO_TOKENS, Request.NO_TOKENS))
                .isInstanceOfSatisfying(RoutingRefusedException.class, ex ->
                {
                    assertThat(ex.status()).isEqualTo(ServingError.MODEL_NOT_FOUND.status());
                    assertThat(ex.type()).isEqualTo(ServingError.MODEL_NOT_FOUND.type());
                })
                .hasMessageContaining("decisions: d, e");
            final DelegateCall<String> explicit = new DelegateCall<>(engine, null, Map.of("b", "B"), "d", 2);
            explicit.begin("e", "d", Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(explicit.decisionName()).as("the explicit decision wins").isEqualTo("e");
            explicit.complete();
            final DelegateCall<String> none = new DelegateCall<>(engine, null, Map.of("c", "C"), "e", 2);
            assertThatThrownBy(() -> none.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS))
                .isInstanceOf(RoutingRefusedException.class).hasMessageContaining("no delegate");
            assertThat(engine.inflight(engine.modelId("b"))).isZero();
        }
    }

    @Test
    void shouldCheckDelegateAndDecisionNamesWithTheNearestName()
    {
        try (MultiFactorEngine engine = engine(new ManualClock()))
        {
            DelegateCall.check(engine, List.of("a", "b"), "d");
            assertThatThrownBy(() -> DelegateCall.check(engine, List.of("a", "bb"), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delegate for model \"bb\"")
                .hasMessageContaining("it has: a, b");
            assertThatThrownBy(() -> DelegateCall.check(engine, List.of("a"), "dd"))
                .hasMessageContaining("default decision \"dd\"").hasMessageContaining("it has: d, e");
        }
    }

    @Test
    void shouldApplyTheCallsPriorityAndOwnTtftBoundAsTheGatewaysHeaders()
    {
        final LoadedConfig guarded = Engines.load(Engines.TWO_MODELS + String.join("\n",
            "  - name: guarded",
            "    modelRefs: [{model: a}]",
            "    algorithm: {type: multi_factor, multi_factor: {slo: {max_inflight: 2}, admission: {sheddable_above: 0.5}}}",
            ""));
        try (MultiFactorEngine engine = MultiFactorEngine.builder(guarded.plans()).clock(new ManualClock()).build())
        {
            engine.recordTtftMs(engine.modelId("a"), 300.0);
            engine.recordTtftMs(engine.modelId("b"), 50.0);
            engine.refreshNow();
            final Map<String, String> delegates = Map.of("a", "A", "b", "B");
            final DelegateCall<String> unbounded = new DelegateCall<>(engine, null, delegates, "d", 2);
            unbounded.options(null, Priority.STANDARD, Double.NaN, 0.0);
            unbounded.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(unbounded.selectedModelName()).as("the better quality, no bound of the call's own").isEqualTo("a");
            unbounded.complete();
            final DelegateCall<String> bounded = new DelegateCall<>(engine, null, delegates, "d", 2);
            bounded.options(null, Priority.STANDARD, 100.0, 0.0);
            bounded.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(bounded.selectedModelName()).as("a's 300 ms TTFT breaks the call's 100 ms").isEqualTo("b");
            bounded.complete();

            final long held = engine.begin(engine.modelId("a"));
            final DelegateCall<String> sheddable = new DelegateCall<>(engine, null, delegates, "guarded", 2);
            sheddable.options(null, Priority.SHEDDABLE, 0.0, 0.0);
            assertThatThrownBy(() -> sheddable.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS))
                .isInstanceOfSatisfying(RoutingRefusedException.class, ex ->
                {
                    assertThat(ex.status()).isEqualTo(429);
                    assertThat(ex.type()).isEqualTo(ServingError.OVERLOADED.type());
                });
            final DelegateCall<String> standard = new DelegateCall<>(engine, null, delegates, "guarded", 2);
            standard.options("conversation-1", Priority.STANDARD, 0.0, 0.0);
            standard.begin(null, null, Request.NO_TOKENS, Request.NO_TOKENS);
            assertThat(standard.selectedModelName()).as("a standard call is never shed").isEqualTo("a");
            standard.complete();
            engine.end(held);
            assertThat(engine.inflight(engine.modelId("a")) + engine.inflight(engine.modelId("b"))).isZero();

            final DelegateCall<String> unknown = new DelegateCall<>(engine, null, delegates, "d", 2);
            assertThatThrownBy(() -> unknown.options(null, 7, 0.0, 0.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("7");
        }
    }
}
