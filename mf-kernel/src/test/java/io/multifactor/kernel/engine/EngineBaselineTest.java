package io.multifactor.kernel.engine;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The baselines through the engine's {@code select}, {@code selectAndBegin} and {@code explain}, over its live leases and
 * published latencies; the peers' counting policies over its leases; and the {@code multi_factor} path unchanged by
 * the dispatch.
 */
class EngineBaselineTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private MultiFactorEngine engine;

    @AfterEach
    void close()
    {
        if (engine != null)
        {
            engine.close();
        }
    }

    private MultiFactorEngine engine(final int type)
    {
        final Plans plans = new PlansBuilder()
            .model("a", 0.9, 10.0)
            .model("b", 0.5, 1.0)
            .model("c", 0.1, 0.1)
            .decision("d").candidates("a", "b", "c").algorithmType(type).weights(1.0, 0.0, 0.0, 0.0)
            .slo(0.0, 100.0, 0.0, 1).add()
            .build();
        clock.update(1_000_000_000_000L);
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        return engine;
    }

    @Test
    void shouldLeaseInTurnWithRoundRobinBeyondTheIgnoredCeiling()
    {
        final MultiFactorEngine e = engine(AlgorithmType.ROUND_ROBIN);
        final Selection out = new Selection();
        final String[] expected = { "a", "b", "c", "a", "b", "c" };
        for (final String model : expected)
        {
            final long lease = e.selectAndBegin(e.decisionId("d"), null, out);
            assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
            assertThat(out.outcome()).isEqualTo(Outcome.SCORED);
            assertThat(out.selectedModel()).isEqualTo(e.modelId(model));
        }
        // max_inflight: 1 was compiled away: every model holds two leases.
        assertThat(e.inflight(e.modelId("a"))).isEqualTo(2);
        assertThat(e.inflight(e.modelId("c"))).isEqualTo(2);
    }

    @Test
    void shouldSendTheNextRequestToTheModelWithFewestLeases()
    {
        final MultiFactorEngine e = engine(AlgorithmType.LEAST_INFLIGHT);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("a"));
        e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("b"));
        final long onC = e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("c"));
        e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("a"));
        e.end(onC);
        e.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("c"));
    }

    @Test
    void shouldTryUnobservedModelsFirstThenTheLowestPublishedLatency()
    {
        final MultiFactorEngine e = engine(AlgorithmType.LOWEST_LATENCY);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        e.recordTtftMs(e.modelId("a"), 900.0);
        e.recordTtftMs(e.modelId("b"), 300.0);
        e.refreshNow();
        e.select(d, null, out);
        assertThat(out.selectedModel()).as("c has no observation").isEqualTo(e.modelId("c"));
        e.recordTtftMs(e.modelId("c"), 600.0);
        e.refreshNow();
        e.select(d, null, out);
        // b: 300 ms, above the ignored 100 ms TTFT ceiling, still the lowest.
        assertThat(out.selectedModel()).isEqualTo(e.modelId("b"));
        assertThat(out.droppedCount()).isZero();
        final Explanation explained = e.explain(d, null);
        assertThat(explained.toString()).contains("b");
    }

    @Test
    void shouldDrawReproduciblyWithRandomFromTheRequestsSeed()
    {
        final MultiFactorEngine e = engine(AlgorithmType.RANDOM);
        final Selection out = new Selection();
        final int[] first = new int[30];
        final Request request = new Request().decision(e.decisionId("d")).seed(5);
        for (int i = 0; i < first.length; i++)
        {
            e.select(request, out);
            first[i] = out.selectedModel();
        }
        final Request again = new Request().decision(e.decisionId("d")).seed(5);
        boolean sawAll = true;
        for (int i = 0; i < first.length; i++)
        {
            e.select(again, out);
            assertThat(out.selectedModel()).isEqualTo(first[i]);
        }
        for (final String model : new String[] { "a", "b", "c" })
        {
            boolean seen = false;
            for (final int id : first)
            {
                seen |= id == e.modelId(model);
            }
            sawAll &= seen;
        }
        assertThat(sawAll).as("30 uniform draws over 3 models reach each one").isTrue();
    }

    @Test
    void shouldKeepTheMultiFactorPathAsItWas()
    {
        final MultiFactorEngine e = engine(AlgorithmType.MULTI_FACTOR);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        // Quality only: a (0.9) wins; its 150 ms TTFT breaks the 100 ms ceiling and drops it; then max_inflight 1.
        e.select(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("a"));
        assertThat(out.selectedScore()).isEqualTo(1.0);
        e.recordTtftMs(e.modelId("a"), 150.0);
        e.refreshNow();
        final long lease = e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("b"));
        e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).as("b is full at max_inflight 1").isEqualTo(e.modelId("c"));
        e.end(lease);
    }

    // The peers' counting policies over the engine's own leases, taken by each selection and given back at the end.

    @Test
    void leastBusyShouldSpreadRequestsStartedOneAfterAnotherAndRefillTheOneThatEnded()
    {
        // LiteLLM test_least_busy_routing.py, test_router_completion_streaming: three calls in sequence, one each.
        final MultiFactorEngine e = engine(AlgorithmType.LITELLM_LEAST_BUSY);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        final long[] leases = new long[3];
        for (int call = 0; call < 3; call++)
        {
            leases[call] = e.selectAndBegin(d, null, out);
            assertThat(out.selectedModel()).isEqualTo(e.modelId(new String[] { "a", "b", "c" }[call]));
        }
        e.end(leases[1], 200, 0L);
        e.selectAndBegin(d, null, out);
        assertThat(out.selectedModel()).isEqualTo(e.modelId("b"));
    }

    @Test
    void leastRequestShouldNeverSendToABusierModelAndReachEveryTiedOne()
    {
        final MultiFactorEngine e = engine(AlgorithmType.AIBRIX_LEAST_REQUEST);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        final int[] seen = new int[3];
        // Rounds of three: after each round every model holds the same number of leases, so each round's three
        // selections take three different models, in an order the request seeds draw.
        for (int round = 0; round < 20; round++)
        {
            final boolean[] taken = new boolean[3];
            for (int call = 0; call < 3; call++)
            {
                e.selectAndBegin(new Request().decision(d).seed(round * 3L + call), out);
                final int index = out.selectedIndex();
                assertThat(taken[index]).isFalse();
                taken[index] = true;
                if (call == 0)
                {
                    seen[index]++;
                }
            }
        }
        assertThat(seen[0]).isPositive();
        assertThat(seen[1]).isPositive();
        assertThat(seen[2]).isPositive();
        assertThat(e.inflight(e.modelId("a"))).isEqualTo(20);
    }

    @Test
    void shouldStayOnTheCachedModelWithLlmdStickyUntilItsTokensBreakTheGate()
    {
        // llm-d's "sticky until saturated": the leases raise the model's in-flight tokens, which the load gate reads.
        final MultiFactorEngine e = engine(AlgorithmType.LLMD_STICKY);
        final int d = e.decisionId("d");
        final int a = e.modelId("a");
        final Selection out = new Selection();
        final Request request = new Request();
        // Each request weighs 100,000 prompt + 100,000 output tokens on its model (4.4); a holds 90% of its prefix, c
        // half of it (below the 0.80 threshold), b none.
        final String[] expected = { "a", "a", "c" };
        for (final String model : expected)
        {
            request.clear().decision(d).promptTokens(100_000).maxOutputTokens(100_000).prefixMatch(a, 0.9)
                .prefixMatch(e.modelId("c"), 0.5);
            assertThat(e.selectAndBegin(request, out)).isNotEqualTo(InflightTracker.NO_LEASE);
            assertThat(out.selectedModel()).as("after %d tokens on a", e.inflightTokens(a)).isEqualTo(e.modelId(model));
        }
        // 0, then 200,000 tokens (12.6 s at 15,928 tokens/s) are within the 18 s gate; 400,000 (25.1 s) are not, and
        // the token load then takes c (100,000 x 0.5 uncached) over b (100,000).
        assertThat(e.inflightTokens(a)).isEqualTo(400_000L);
        final Explanation explained = e.explain(request);
        assertThat(explained.toString()).contains("400000");
    }

    @Test
    void litellmLatencyShouldRouteByTheMeanOfTheSamplesTheEngineRecorded()
    {
        final MultiFactorEngine e = engine(AlgorithmType.LITELLM_LATENCY);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        // No sample: every model is tried (LiteLLM's latency 0), whatever the seed draws.
        final java.util.Set<String> first = new java.util.HashSet<>();
        for (int seed = 0; seed < 30; seed++)
        {
            e.select(new Request().decision(d).seed(seed), out);
            first.add(e.plans().modelName(out.selectedModel()));
        }
        assertThat(first).containsExactlyInAnyOrder("a", "b", "c");
        // Recorded TTFTs feed the rings with no refresh: a 300 ms, b 100 ms, c 200 ms.
        e.recordTtftMs(e.modelId("a"), 300.0);
        e.recordTtftMs(e.modelId("b"), 100.0);
        e.recordTtftMs(e.modelId("c"), 200.0);
        for (int seed = 0; seed < 20; seed++)
        {
            e.select(new Request().decision(d).seed(seed), out);
            assertThat(e.plans().modelName(out.selectedModel())).isEqualTo("b");
        }
        assertThat(out.latencyMs(out.selectedIndex())).isEqualTo(100.0);
        // Past ttl (3600 s) the samples no longer count: b's 500 ms now is the only one, and b is never chosen.
        clock.update(clock.nanoTime() + 3_601_000_000_000L);
        e.recordTtftMs(e.modelId("b"), 500.0);
        for (int seed = 0; seed < 20; seed++)
        {
            e.select(new Request().decision(d).seed(seed), out);
            assertThat(e.plans().modelName(out.selectedModel())).isNotEqualTo("b");
        }
    }

    @Test
    void prodstackSessionShouldHashKeysAndSpreadKeylessRequestsByTheirRate()
    {
        final MultiFactorEngine e = engine(AlgorithmType.PRODSTACK_SESSION);
        final Selection out = new Selection();
        final int d = e.decisionId("d");
        // Keyless: each model that never had a request comes first, in order; then the lowest rate, which spreads
        // requests begun one after another evenly (every selection counts, leased or not).
        final int[] counts = new int[3];
        for (int i = 0; i < 30; i++)
        {
            final long lease = e.selectAndBegin(new Request().decision(d), out);
            assertThat(lease).isNotEqualTo(InflightTracker.NO_LEASE);
            counts[out.selectedIndex()]++;
        }
        assertThat(counts).containsExactly(10, 10, 10);
        // A key stays on one model, request after request, whatever the rates.
        e.select(new Request().decision(d).session(42L), out);
        final int home = out.selectedModel();
        for (int i = 0; i < 10; i++)
        {
            e.select(new Request().decision(d).session(42L), out);
            assertThat(out.selectedModel()).isEqualTo(home);
        }
        // The keyed requests counted on the home model (21 now, the others 10): a keyless one goes to the first other.
        // explain counts nothing: fifteen explanations of that choice leave it the lowest.
        final int homeIndex = home == e.modelId("a") ? 0 : home == e.modelId("b") ? 1 : 2;
        final int firstOther = homeIndex == 0 ? 1 : 0;
        for (int i = 0; i < 15; i++)
        {
            e.explain(d, null);
        }
        e.select(new Request().decision(d), out);
        assertThat(out.selectedIndex()).isEqualTo(firstOther);
    }
}
