package io.multifactor.bench;

import io.multifactor.api.Selection;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class SelectWorldTest
{
    @Test
    void shouldMakeEveryImplementationChooseAlikeOnEveryDataSet()
    {
        for (final int n : new int[] { 2, 4, 8, 16, 64 })
        {
            for (final boolean ceilingsOn : new boolean[] { true, false })
            {
                final SelectWorld world = new SelectWorld(SelectBenchmark.SEED, n, ceilingsOn);
                assertThatCode(() -> world.checkAgreement(new Selection(n)))
                    .as("%d candidates, ceilings %s", n, ceilingsOn)
                    .doesNotThrowAnyException();
                // Exact percentiles against histogram buckets: the router may differ on a near tie, not on most sets.
                assertThat(world.routerAgreement(new Selection(n))).isGreaterThan(SelectFixture.SETS * 3 / 4);
                world.close();
            }
        }
    }

    @Test
    void shouldDropSomeCandidatesButKeepSurvivorsInMostDecisions()
    {
        for (final int n : new int[] { 2, 4, 8, 16, 64 })
        {
            final SelectCase[] cases = new SelectWorld(SelectBenchmark.SEED, n, true).cases();
            int drops = 0;
            int setsWithSurvivors = 0;
            for (final SelectCase c : cases)
            {
                int dropped = 0;
                for (int i = 0; i < n; i++)
                {
                    dropped += c.breaksCeiling(i) ? 1 : 0;
                }
                drops += dropped;
                setsWithSurvivors += dropped < n ? 1 : 0;
            }
            assertThat(drops).as("drops with %d candidates", n).isPositive();
            assertThat(setsWithSurvivors).as("sets with survivors, %d candidates", n)
                .isGreaterThan(SelectFixture.SETS * 3 / 4);
        }
    }

    @Test
    void shouldLeaveEveryCeilingOffWhenAsked()
    {
        for (final SelectCase c : new SelectWorld(SelectBenchmark.SEED, 16, false).cases())
        {
            assertThat(c.plan().maxTpotMs()).isZero();
            assertThat(c.plan().maxTtftMs()).isZero();
            assertThat(c.plan().maxCostPer1M()).isZero();
            assertThat(c.plan().maxInflight()).isZero();
        }
    }
}
