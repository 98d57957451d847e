package io.multifactor.sim;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TrafficModelTest
{
    private static final int DRAWS = 200_000;

    @Test
    void shouldDrawLognormalsWithTheRequestedMean()
    {
        final SplittableRandom random = new SplittableRandom(3);
        double sum = 0.0;
        double min = Double.POSITIVE_INFINITY;
        for (int i = 0; i < DRAWS; i++)
        {
            final double x = Draws.lognormal(random, 40.0, 0.5);
            sum += x;
            min = Math.min(min, x);
        }
        assertThat(sum / DRAWS).isCloseTo(40.0, within(0.8));
        assertThat(min).isPositive();
        assertThat(Draws.lognormal(random, 40.0, 0.0)).isEqualTo(40.0);
    }

    @Test
    void shouldDrawPoissonGapsWithTheRequestedRate()
    {
        final SplittableRandom random = new SplittableRandom(4);
        long totalNs = 0;
        for (int i = 0; i < DRAWS; i++)
        {
            totalNs += Draws.exponentialGapNs(random, 12.0);
        }
        assertThat(DRAWS / (totalNs / 1e9)).isCloseTo(12.0, within(0.12));
    }

    @Test
    void shouldSlowDownOnlyBeyondCapacityAndInsideTheDegradedWindow()
    {
        final ModelBehaviour model = ModelBehaviour.steady("m", 100.0, 10.0, 0.2, 4, 0.5).degraded(10, 20, 6.0, 2.0);

        assertThat(model.meanTtftMs(0L, 4)).isEqualTo(100.0);
        assertThat(model.meanTtftMs(0L, 6)).isEqualTo(200.0);
        assertThat(model.meanTpotMs(0L, 6)).isEqualTo(20.0);
        assertThat(model.meanTtftMs(10_000_000_000L, 1)).isEqualTo(600.0);
        assertThat(model.meanTpotMs(19_999_999_999L, 1)).isEqualTo(20.0);
        assertThat(model.meanTtftMs(20_000_000_000L, 1)).as("recovered at until_s").isEqualTo(100.0);
    }

    @Test
    void shouldRefuseADegradedWindowThatEndsBeforeItStarts()
    {
        assertThatThrownBy(() -> ModelBehaviour.steady("m", 100.0, 10.0, 0.2, 4, 0.5).degraded(20, 10, 2.0, 2.0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("degraded window");
    }
}
