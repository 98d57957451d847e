package io.multifactor.kernel.scoring;

import io.multifactor.api.Factor;
import io.multifactor.api.FactorSource;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.SignalCeilings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A selection's factor columns and bounds, kept by factor: what a factor reads before and after it is gathered. */
class SelectionColumnsTest
{
    private static DecisionPlan plan(final double[] weights)
    {
        final Plans plans = new PlansBuilder().model("a", 0.7, 2.0).model("b", 0.4, 1.0)
            .decision("d").candidates("a", "b").weights(weights).signalCeilings(SignalCeilings.NONE).add().build();
        return plans.decision(plans.decisionId("d"));
    }

    @Test
    void shouldReadTheConfiguredColumnOrMissingUntilTheKernelGathersAFactor()
    {
        // The selection keeps one bit per factor of what was gathered.
        assertThat(Factor.COUNT).isLessThan(Integer.SIZE);
        final DecisionPlan plan = plan(new double[] { 1, 1, 1, 1, 0, 0 });
        final Selection out = new Selection();
        SelectionWriter.start(out, plan);
        for (int f = 0; f < Factor.COUNT; f++)
        {
            final int source = Factor.source(f);
            final double[] own = SelectionWriter.ownColumn(out, f);
            own[0] = 42.0;
            own[1] = 43.0;
            final boolean observedEveryCall =
                source == FactorSource.LATENCY_ESTIMATOR || source == FactorSource.LEASES;
            if (observedEveryCall)
            {
                assertThat(out.value(0, f)).isEqualTo(42.0);
            }
            else if (source == FactorSource.CONFIGURATION)
            {
                assertThat(out.value(1, f)).isEqualTo(f == Factor.QUALITY ? 0.4 : 1.0);
            }
            else
            {
                assertThat(out.value(0, f)).isNaN();
            }
            SelectionWriter.gathered(out, f);
            assertThat(out.value(1, f)).isEqualTo(43.0);
        }
        assertThat(out.costPer1M(0)).isEqualTo(42.0);
        assertThat(out.queue(1)).isEqualTo(43.0);

        // The next call starts over: what was gathered is forgotten.
        SelectionWriter.start(out, plan);
        assertThat(out.quality(0)).isEqualTo(0.7);
        assertThat(out.costPer1M(0)).isEqualTo(2.0);
        assertThat(out.queue(1)).isNaN();
        assertThat(out.kvCache(1)).isNaN();
        assertThat(out.latencyMs(1)).isEqualTo(43.0);
    }

    @Test
    void shouldClearTheBoundsOfEveryFactorFromTheFirstOneALoopDoesNotBound()
    {
        final Selection out = new Selection();
        SelectionWriter.start(out, plan(new double[] { 1, 1, 1, 1, 0, 0 }));
        for (int f = 0; f < Factor.COUNT; f++)
        {
            SelectionWriter.bounds(out, f, 1.0, 2.0);
        }
        SelectionWriter.noBounds(out, Factor.SEED_COUNT);
        for (int f = 0; f < Factor.COUNT; f++)
        {
            assertThat(out.boundMin(f)).isEqualTo(f < Factor.SEED_COUNT ? 1.0 : Double.POSITIVE_INFINITY);
            assertThat(out.boundMax(f)).isEqualTo(f < Factor.SEED_COUNT ? 2.0 : Double.NEGATIVE_INFINITY);
        }
    }

    @Test
    void shouldReadQueueAndKvCacheAsMissingOnASeedCallAfterACallThatGatheredThem()
    {
        final DecisionPlan plan = plan(new double[] { 1, 1, 1, 1, 1, 1 });
        final CandidateSignals signals = CandidateSignals.standalone(2);
        signals.publishServerLoad(0, 3, 0.5, false);
        signals.publishServerLoad(1, 1, 0.25, false);
        final Selection out = new Selection();
        ScoringKernel.select(plan, signals, null, out);
        assertThat(out.queue(0)).isEqualTo(3.0);
        assertThat(out.boundMax(Factor.KV_CACHE)).isEqualTo(0.5);

        ScoringKernel.select(plan, CandidateSignals.standalone(2), null, out);
        assertThat(out.queue(0)).isNaN();
        assertThat(out.kvCache(1)).isNaN();
        assertThat(out.boundMin(Factor.QUEUE)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(out.boundMax(Factor.KV_CACHE)).isEqualTo(Double.NEGATIVE_INFINITY);
    }
}
