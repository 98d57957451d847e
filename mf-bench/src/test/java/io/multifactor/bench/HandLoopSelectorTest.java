package io.multifactor.bench;

import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.Plans;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HandLoopSelectorTest
{
    @Test
    void shouldChooseLikeTheKernelOnEveryFixtureDecision()
    {
        for (final int n : new int[] { 2, 4, 8, 16, 64 })
        {
            final SelectFixture fixture = new SelectFixture(SelectBenchmark.SEED, n);
            final Plans first = fixture.plans(null, null);
            final double[][] ceilings = new double[SelectFixture.SETS][];
            final SelectCase[] noCeilings = new SelectCase[SelectFixture.SETS];
            for (int s = 0; s < SelectFixture.SETS; s++)
            {
                noCeilings[s] = nominalCase(fixture, first, s);
                final double[] cost = new double[n];
                for (int i = 0; i < n; i++)
                {
                    cost[i] = fixture.promptPer1M(fixture.candidate(s, i));
                }
                ceilings[s] = fixture.chooseCeilings(noCeilings[s].tpotMs, noCeilings[s].ttftMs, cost, noCeilings[s].inflight);
            }
            final Plans withCeilings = fixture.plans(first, ceilings);
            final Selection selection = new Selection(n);
            int drops = 0;
            int survivingSets = 0;
            for (int s = 0; s < SelectFixture.SETS; s++)
            {
                final SelectCase c = nominalCase(fixture, withCeilings, s);
                assertThat(HandLoopSelector.select(c)).isEqualTo(SelectBenchmark.kernelSelect(c, selection));
                assertThat(HandLoopSelector.select(noCeilings[s])).isEqualTo(SelectBenchmark.kernelSelect(noCeilings[s], selection));
                int dropped = 0;
                for (int i = 0; i < n; i++)
                {
                    dropped += c.breaksCeiling(i) ? 1 : 0;
                }
                drops += dropped;
                survivingSets += dropped < n ? 1 : 0;
            }
            // The ceilings are active and bite sometimes, but most decisions keep survivors.
            assertThat(drops).as("drops with %d candidates", n).isPositive();
            assertThat(survivingSets).as("sets with survivors, %d candidates", n).isGreaterThan(SelectFixture.SETS * 3 / 4);
        }
    }

    private static SelectCase nominalCase(final SelectFixture fixture, final Plans plans, final int set)
    {
        final int n = fixture.candidatesPerDecision();
        final double[] tpot = new double[n];
        final double[] ttft = new double[n];
        final long[] inflight = new long[n];
        for (int i = 0; i < n; i++)
        {
            final int model = fixture.candidate(set, i);
            tpot[i] = fixture.nominalTpotMs(model);
            ttft[i] = fixture.nominalTtftMs(model);
            inflight[i] = fixture.inflight(model);
        }
        return new SelectCase(plans.decision(plans.decisionId(SelectFixture.decisionName(set))), tpot, ttft, inflight);
    }
}
