package io.multifactor.kernel.latency;

import io.multifactor.api.LatencyRecorder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyWindowTest
{
    private static long nearestRank(final long[] sorted, final int percentile)
    {
        // Exact integer ceil(p * n / 100): no floating point rounding at whole ranks.
        final int rank = (int)(((long)percentile * sorted.length + 99) / 100);
        return sorted[Math.max(1, rank) - 1];
    }

    @Test
    void shouldMatchNearestRankWithinOnePercent()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (final int n : new int[] { 1, 2, 3, 10, 99, 1_000, 20_000 })
        {
            final LatencyWindow window = new LatencyWindow(0);
            final Histogram hdr = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
            final long[] samples = new long[n];
            for (int i = 0; i < n; i++)
            {
                // Log-uniform from 50 us to 20 s: every bucket magnitude the router will see.
                samples[i] = Math.max(1, (long)Math.exp(Math.log(50) + random.nextDouble() * Math.log(20_000_000 / 50.0)));
                assertThat(window.record(samples[i])).isEqualTo(LatencyRecorder.RECORDED);
                hdr.recordValue(samples[i]);
            }
            window.advance(0);
            Arrays.sort(samples);
            assertThat(window.sampleCount()).isEqualTo(n);
            for (int p = 1; p <= 100; p++)
            {
                final long expected = nearestRank(samples, p);
                assertThat((double)window.percentileMicros(p))
                    .as("n=%d p%d", n, p)
                    .isBetween((double)expected, expected * 1.01);
                assertThat(window.percentileMicros(p)).as("n=%d p%d vs HdrHistogram", n, p).isEqualTo(hdr.getValueAtPercentile(p));
            }
        }
    }

    @Test
    void shouldReportNoObservationUntilDrainedAndAfterExpiry()
    {
        final LatencyWindow window = new LatencyWindow(10);
        assertThat(window.percentileMicros(95)).isEqualTo(LatencyWindow.NO_OBSERVATION);
        window.record(1_000);
        assertThat(window.percentileMicros(95)).isEqualTo(LatencyWindow.NO_OBSERVATION);
        window.advance(10);
        assertThat(window.percentileMicros(95)).isBetween(1_000L, 1_010L);

        window.advance(11);
        window.record(5_000);
        window.advance(12);
        assertThat(window.sampleCount()).isEqualTo(2);
        assertThat(window.percentileMicros(100)).isBetween(5_000L, 5_050L);

        // Slice 10 expires when slice 10 + SLICE_COUNT starts; slice 12 one later... two later.
        window.advance(10 + LatencyWindow.SLICE_COUNT - 1);
        assertThat(window.sampleCount()).isEqualTo(2);
        window.advance(10 + LatencyWindow.SLICE_COUNT);
        assertThat(window.sampleCount()).isEqualTo(1);
        assertThat(window.percentileMicros(1)).isBetween(5_000L, 5_050L);
        window.advance(12 + LatencyWindow.SLICE_COUNT);
        assertThat(window.sampleCount()).isZero();
        assertThat(window.percentileMicros(50)).isEqualTo(LatencyWindow.NO_OBSERVATION);
    }

    @Test
    void shouldClearEverythingAfterLongGapAndIgnoreClockGoingBack()
    {
        final LatencyWindow window = new LatencyWindow(0);
        for (int i = 0; i < LatencyWindow.SLICE_COUNT; i++)
        {
            window.record(100 + i);
            window.advance(i);
        }
        assertThat(window.sampleCount()).isEqualTo(LatencyWindow.SLICE_COUNT);
        window.advance(2);
        assertThat(window.sampleCount()).isEqualTo(LatencyWindow.SLICE_COUNT);
        window.advance(1_000_000);
        assertThat(window.sampleCount()).isZero();
        window.record(7);
        window.advance(1_000_001);
        assertThat(window.percentileMicros(50)).isEqualTo(7);
    }

    @Test
    void shouldHoldExactlyTheSamplesOfTheLastSlicesWhateverTheSequenceOfAdvances()
    {
        // Reference model: each drained sample and the slice it went into; pending ones wait for the next advance.
        final SplittableRandom random = new SplittableRandom(11);
        final LatencyWindow window = new LatencyWindow(0);
        final java.util.ArrayList<long[]> live = new java.util.ArrayList<>();
        final java.util.ArrayList<Long> pending = new java.util.ArrayList<>();
        long sliceIndex = 0;
        for (int step = 0; step < 20_000; step++)
        {
            if (random.nextInt(3) != 0)
            {
                final long micros = 1 + random.nextLong(random.nextBoolean() ? 300 : 3_000_000);
                assertThat(window.record(micros)).isEqualTo(LatencyRecorder.RECORDED);
                pending.add(micros);
                continue;
            }
            final int kind = random.nextInt(10);
            final long next = kind < 4 ? sliceIndex :                          // same slice
                kind < 8 ? sliceIndex + 1 + random.nextInt(LatencyWindow.SLICE_COUNT) :   // a few slices on
                kind < 9 ? sliceIndex + LatencyWindow.SLICE_COUNT + random.nextInt(50) :  // a gap of a window or more
                sliceIndex - 1 - random.nextInt(3);                            // a clock behind the window's slice
            window.advance(next);
            sliceIndex = Math.max(sliceIndex, next);
            final long oldestLive = sliceIndex - LatencyWindow.SLICE_COUNT + 1;
            live.removeIf(sample -> sample[1] < oldestLive);
            for (final long micros : pending)
            {
                live.add(new long[] { micros, sliceIndex });
            }
            pending.clear();

            assertThat(window.sampleCount()).as("step %d", step).isEqualTo(live.size());
            if (live.isEmpty())
            {
                assertThat(window.percentileMicros(95)).as("step %d", step).isEqualTo(LatencyWindow.NO_OBSERVATION);
                continue;
            }
            final long[] sorted = new long[live.size()];
            final Histogram hdr = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
            for (int i = 0; i < sorted.length; i++)
            {
                sorted[i] = live.get(i)[0];
                hdr.recordValue(sorted[i]);
            }
            Arrays.sort(sorted);
            for (final int p : new int[] { 1, 50, 95, 99, 100 })
            {
                final long expected = nearestRank(sorted, p);
                final long micros = window.percentileMicros(p);
                assertThat((double)micros).as("step %d p%d", step, p).isBetween((double)expected, expected * 1.01);
                // Same accuracy as before the window kept its own counts: exactly HdrHistogram's answer.
                assertThat(micros).as("step %d p%d vs HdrHistogram", step, p).isEqualTo(hdr.getValueAtPercentile(p));
            }
        }
    }

    @Test
    void shouldClampAboveTrackableMaximum()
    {
        final LatencyWindow window = new LatencyWindow(0);
        assertThat(window.record(LatencyWindow.MAX_TRACKABLE_MICROS)).isEqualTo(LatencyRecorder.RECORDED);
        assertThat(window.record(LatencyWindow.MAX_TRACKABLE_MICROS + 1)).isEqualTo(LatencyRecorder.CLAMPED);
        assertThat(window.record(Long.MAX_VALUE)).isEqualTo(LatencyRecorder.CLAMPED);
        window.advance(0);
        assertThat(window.sampleCount()).isEqualTo(3);
        assertThat((double)window.percentileMicros(1))
            .isBetween((double)LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.MAX_TRACKABLE_MICROS * 1.01);
    }

    @Test
    void shouldFitBothMetricsOfOneModelIn256KB()
    {
        final LatencyWindow window = new LatencyWindow(0);
        final long perModel = 2 * window.footprintBytes();
        System.out.println("latency windows per model (TTFT + TPOT): " + perModel + " bytes");
        assertThat(perModel).isLessThanOrEqualTo(256 * 1024);
    }

    @Test
    void shouldAgeMergedRemoteIntervalsLikeLocalSamples()
    {
        final LatencyWindow window = new LatencyWindow(0);
        final Histogram remote = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        remote.recordValueWithCount(40_000, 3);
        remote.recordValue(90_000);
        window.record(50_000);
        window.advance(0);
        window.merge(remote);
        assertThat(window.sampleCount()).isEqualTo(5);
        assertThat(window.percentileMicros(100)).isEqualTo(remote.highestEquivalentValue(90_000));
        assertThat(window.percentileMicros(60)).isEqualTo(remote.highestEquivalentValue(40_000));

        window.advance(LatencyWindow.SLICE_COUNT - 1);
        assertThat(window.sampleCount()).isEqualTo(5);
        window.advance(LatencyWindow.SLICE_COUNT);
        assertThat(window.sampleCount()).isZero();
    }

    @Test
    void shouldHandOverEachDrainedSampleOnceToTheFleetButNeverMergedOnes()
    {
        final LatencyWindow window = new LatencyWindow(0);
        final Histogram into = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        window.record(1_000);
        window.advance(0);
        window.takeUnsent(into);
        assertThat(into.getTotalCount()).as("not kept before keepUnsent").isZero();

        window.keepUnsent();
        window.record(2_000);
        window.record(2_000);
        window.record(70_000_000);
        window.advance(1);
        final Histogram remote = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        remote.recordValue(3_000);
        window.merge(remote);
        window.takeUnsent(into);
        assertThat(into.getTotalCount()).isEqualTo(3);
        assertThat(into.getCountAtValue(2_000)).isEqualTo(2);
        assertThat(into.getMaxValue()).isEqualTo(into.highestEquivalentValue(LatencyWindow.MAX_TRACKABLE_MICROS));
        window.takeUnsent(into);
        assertThat(into.getTotalCount()).as("taken once").isEqualTo(3);
        assertThat(window.sampleCount()).isEqualTo(5);
    }

    @Test
    void shouldSaturateABucketRatherThanCorruptTheWindowWhenARemoteIntervalIsHuge()
    {
        final LatencyWindow window = new LatencyWindow(0);
        final Histogram remote = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        remote.recordValueWithCount(1_000, Long.MAX_VALUE / 4);
        window.merge(remote);
        window.merge(remote);
        window.record(2_000);
        window.advance(0);
        assertThat(window.sampleCount()).isEqualTo(Integer.MAX_VALUE + 1L);
        assertThat(window.percentileMicros(100)).isEqualTo(remote.highestEquivalentValue(2_000));

        window.advance(LatencyWindow.SLICE_COUNT);
        assertThat(window.sampleCount()).isZero();
        assertThat(window.percentileMicros(50)).isEqualTo(LatencyWindow.NO_OBSERVATION);
        window.record(3_000);
        window.advance(LatencyWindow.SLICE_COUNT + 1);
        assertThat(window.percentileMicros(1)).isEqualTo(remote.highestEquivalentValue(3_000));
    }
}
