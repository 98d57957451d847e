package io.multifactor.fakes;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class CallOverheadTest
{
    @Test
    void shouldInterpolateQuantilesBetweenTheClosestRanks()
    {
        final double[] values = {40.0, 10.0, 30.0, 20.0};
        assertThat(CallOverhead.quantile(values, 0.5)).isEqualTo(25.0);
        assertThat(CallOverhead.quantile(values, 0.25)).isEqualTo(17.5);
        assertThat(CallOverhead.quantile(values, 0.0)).isEqualTo(10.0);
        assertThat(CallOverhead.quantile(values, 1.0)).isEqualTo(40.0);
        assertThat(values).as("the input is not sorted in place").containsExactly(40.0, 10.0, 30.0, 20.0);
    }

    static CallOverhead figures(final double load, final double... routedThreadMicros)
    {
        final double[] direct = new double[routedThreadMicros.length];
        java.util.Arrays.fill(direct, 100.0);
        final double[] routed = new double[routedThreadMicros.length];
        for (int i = 0; i < routed.length; i++)
        {
            routed[i] = 100.0 + routedThreadMicros[i];
        }
        return new CallOverhead("x", 10, load, direct, routed, direct.clone(), routed.clone());
    }

    @Test
    void shouldSayMetOnlyWhenTheUpperQuartileIsWithinTheGoalAndFailedOnlyWhenTheLowerIsAbove()
    {
        assertThat(figures(0.1, 5, 10, 15, 18, 19).verdict()).contains(": met: ").contains("overhead 15.0 us");
        assertThat(figures(0.1, 21, 25, 30, 40, 50).verdict()).contains(": failed: ");
        assertThat(figures(0.1, 5, 10, 15, 25, 30).verdict()).contains(": inconclusive: ");
        assertThat(figures(0.1, 5, 10, 15, 18, 19).threadOverheadMicros()).isCloseTo(15.0, within(1e-9));
        assertThat(figures(64.0, 5, 10, 15, 18, 19).verdict()).contains("BUSY machine");
    }

    @Test
    void shouldWarmUpThenRunBothSidesTheSameNumberOfTimesInAlternatingOrder()
    {
        final AtomicInteger direct = new AtomicInteger();
        final AtomicInteger routed = new AtomicInteger();
        final StringBuilder order = new StringBuilder();
        final CallOverhead figures = CallOverhead.measure("counting", () ->
        {
            if (direct.getAndIncrement() % 10 == 0)
            {
                order.append('d');
            }
        }, () ->
        {
            if (routed.getAndIncrement() % 10 == 0)
            {
                order.append('r');
            }
        }, 10, 20, 4);
        assertThat(direct.get()).isEqualTo(20 + 40);
        assertThat(routed.get()).isEqualTo(20 + 40);
        assertThat(order.toString()).as("two warm-up pairs, then pairs in alternating order").isEqualTo("drdr" + "drrddrrd");
        assertThat(figures.report()).startsWith("counting: 4 pairs of 10-call blocks");
        assertThat(CallOverhead.processCpuNs()).isPositive();
        assertThat(CallOverhead.argument(new String[] {"7"}, 0)).isEqualTo(7);
        assertThat(CallOverhead.argument(new String[] {"7"}, 2)).as("the default").isEqualTo(15_000);
        assertThatThrownBy(() -> CallOverhead.measure("x", () -> { }, () -> { }, 0, 0, 1))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
