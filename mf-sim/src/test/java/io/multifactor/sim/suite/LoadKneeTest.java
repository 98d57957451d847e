package io.multifactor.sim.suite;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The knee's bisection against a plain model of it, on synthetic attainment functions whose crossing is known. */
class LoadKneeTest
{
    // The plain model of 12's knee: the lowest rate of a fine geometric grid over [1, 2000] whose attainment is below
    // 90% (1 when already below at 1; 2000 when never below).
    private static double plainKnee(final LoadKnee.Attainment attainment)
    {
        for (double rate = 1.0; rate < 2000.0; rate *= 1.001)
        {
            if (attainment.at(rate) < 0.90)
            {
                return rate;
            }
        }
        return 2000.0;
    }

    @Test
    void shouldFindEveryStepWithinFivePercentAboveThePlainModel()
    {
        for (double threshold = 1.01; threshold < 1990.0; threshold *= 1.37)
        {
            final double at = threshold;
            final LoadKnee.Attainment step = rate -> rate < at ? 0.99 : 0.5;
            final List<double[]> brackets = new ArrayList<>();
            final List<Double> probes = new ArrayList<>();
            final LoadKnee.Knee knee = LoadKnee.find(rate ->
            {
                probes.add(rate);
                return step.at(rate);
            });
            final double plain = plainKnee(step);
            assertThat(knee.bound()).isEqualTo(LoadKnee.FOUND);
            assertThat(knee.ratePerS()).isBetween(1.0, 2000.0);
            assertThat(knee.ratePerS()).isGreaterThanOrEqualTo(at);
            assertThat(knee.ratePerS()).isLessThanOrEqualTo(plain * 1.05);
            assertThat(knee.probes()).isEqualTo(probes.size());
            // Monotone bisection: after the two bounds, each probe lies strictly inside the bracket the earlier ones
            // left, and the bracket only shrinks.
            double low = 1.0;
            double high = 2000.0;
            for (final double probe : probes.subList(2, probes.size()))
            {
                assertThat(probe).isGreaterThan(low).isLessThan(high);
                if (step.at(probe) < 0.90)
                {
                    high = probe;
                }
                else
                {
                    low = probe;
                }
                brackets.add(new double[] { low, high });
            }
            assertThat(high).isLessThanOrEqualTo(low * LoadKnee.WITHIN);
            assertThat(knee.ratePerS()).isEqualTo(high);
        }
    }

    @Test
    void shouldFindTheCrossingOfASmoothDecline()
    {
        for (double k = 3.0; k < 1500.0; k *= 2.9)
        {
            final double scale = k;
            // 1 / (1 + (r/k)^4) crosses 0.9 at r = k * (1/9)^(1/4).
            final LoadKnee.Attainment decline = rate -> 1.0 / (1.0 + Math.pow(rate / scale, 4));
            final double crossing = scale * Math.pow(1.0 / 9.0, 0.25);
            final LoadKnee.Knee knee = LoadKnee.find(decline);
            assertThat(knee.ratePerS()).isBetween(crossing, crossing * 1.05);
            assertThat(plainKnee(decline)).isBetween(crossing, crossing * 1.001);
        }
    }

    @Test
    void shouldSayWhichBoundItHit()
    {
        final LoadKnee.Knee low = LoadKnee.find(rate -> 0.5);
        assertThat(low.ratePerS()).isEqualTo(LoadKnee.LOWEST_PER_S);
        assertThat(low.bound()).isEqualTo(LoadKnee.AT_LOWEST);
        assertThat(low.boundNote()).contains("lowest bound");
        final LoadKnee.Knee high = LoadKnee.find(rate -> 1.0);
        assertThat(high.ratePerS()).isEqualTo(LoadKnee.HIGHEST_PER_S);
        assertThat(high.bound()).isEqualTo(LoadKnee.AT_HIGHEST);
        assertThat(high.boundNote()).contains("highest bound");
        assertThat(LoadKnee.find(rate -> rate < 100 ? 1.0 : 0.0).boundNote()).isEmpty();
    }
}
