package io.multifactor.kernel.latency;

import io.multifactor.api.LatencyRecorder;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Peak-EWMA's rules, one per test: the first sample is the estimate, a slow sample counts at once, a fast one decays
 * the estimate by {@code w = exp(-gap / tau)}, a read decays it to the reading time, and it is missing after the
 * window without samples.
 */
class PeakEwmaTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long TAU_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long WINDOW_NS = TimeUnit.SECONDS.toNanos(60);

    private final CachedNanoClock clock = new CachedNanoClock();
    private final PeakEwma ewma = new PeakEwma(clock, 0L, TAU_NS, WINDOW_NS);

    @Test
    void shouldStartAtTheFirstSampleAndBeMissingBefore()
    {
        assertThat(ewma.estimateMicros(95, 0)).isEqualTo(LatencyEstimator.NO_OBSERVATION);
        assertThat(ewma.record(40_000, 1_000 * MS)).isEqualTo(LatencyRecorder.RECORDED);
        assertThat(ewma.estimateMicros(95, 1_000 * MS)).isEqualTo(40_000);
    }

    @Test
    void shouldCountASlowSampleAtOnce()
    {
        ewma.record(40_000, 1_000 * MS);
        ewma.record(400_000, 1_001 * MS);
        assertThat(ewma.estimateMicros(50, 1_001 * MS)).isEqualTo(400_000);
    }

    @Test
    void shouldDecayTowardAFastSampleByTheGap()
    {
        ewma.record(400_000, 0);
        ewma.record(40_000, 5_000 * MS);
        final double w = Math.exp(-0.5);
        assertThat(ewma.estimateMicrosExact(5_000 * MS)).isCloseTo(400_000 * w + 40_000 * (1 - w), within(0.1));
    }

    @Test
    void shouldDecayWhenReadLaterWithoutSamples()
    {
        ewma.record(300_000, 0);
        assertThat(ewma.estimateMicrosExact(10_000 * MS)).isCloseTo(300_000 * Math.exp(-1), within(0.1));
        assertThat(ewma.estimateMicros(95, 10_000 * MS)).isEqualTo(Math.round(300_000 * Math.exp(-1)));
    }

    @Test
    void shouldBeMissingAfterTheWindowAndStartAgainAtTheNextSample()
    {
        ewma.record(300_000, 0);
        assertThat(ewma.estimateMicros(95, 59_999 * MS)).isPositive();
        assertThat(ewma.estimateMicros(95, 60_000 * MS)).isEqualTo(LatencyEstimator.NO_OBSERVATION);
        ewma.refresh(0, 60_000 * MS);
        ewma.record(20_000, 70_000 * MS);
        assertThat(ewma.estimateMicros(95, 70_000 * MS)).isEqualTo(20_000);
    }

    @Test
    void shouldStartAgainWhenASampleComesAWindowAfterTheLast()
    {
        ewma.record(300_000, 0);
        ewma.record(20_000, 61_000 * MS);
        assertThat(ewma.estimateMicros(95, 61_000 * MS)).isEqualTo(20_000);
    }

    @Test
    void shouldClampAboveTheTrackableMaximumAndReadTheClock()
    {
        clock.update(2_000 * MS);
        assertThat(ewma.record(LatencyWindow.MAX_TRACKABLE_MICROS + 1)).isEqualTo(LatencyRecorder.CLAMPED);
        assertThat(ewma.estimateMicros(95, 2_000 * MS)).isEqualTo(LatencyWindow.MAX_TRACKABLE_MICROS);
        clock.update(12_000 * MS);
        assertThat(ewma.estimateMicrosExact(clock.nanoTime()))
            .isCloseTo(LatencyWindow.MAX_TRACKABLE_MICROS * Math.exp(-1), within(LatencyWindow.MAX_TRACKABLE_MICROS * 1e-6));
    }

    @Test
    void shouldTreatASampleStampedBeforeTheLastAsSimultaneous()
    {
        ewma.record(50_000, 5_000 * MS);
        ewma.record(80_000, 4_000 * MS);
        ewma.record(60_000, 4_500 * MS);
        assertThat(ewma.estimateMicros(95, 5_000 * MS)).isEqualTo(80_000);
    }
}
