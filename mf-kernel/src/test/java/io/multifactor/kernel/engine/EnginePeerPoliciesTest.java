package io.multifactor.kernel.engine;

import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The peers' policies through the engine's {@code selectAndBegin}, over its live leases: the in-flight count they read is
 * the engine's own, taken by each selection and given back when its lease ends.
 */
class EnginePeerPoliciesTest
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
            .decision("d").candidates("a", "b", "c").algorithmType(type).slo(0.0, 100.0, 0.0, 1).add()
            .build();
        clock.update(1_000_000_000_000L);
        engine = MultiFactorEngine.builder(plans).clock(clock).build();
        return engine;
    }

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
}
