package io.multifactor.kernel.latency;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class BucketLayoutTest
{
    private final Histogram hdr = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);

    @Test
    void shouldPutEveryBucketBoundaryWhereHdrHistogramDoes()
    {
        long lowest = 0;
        for (int i = 0; i < BucketLayout.LENGTH; i++)
        {
            final long highest = BucketLayout.highestEquivalentMicros(i);
            assertThat(hdr.lowestEquivalentValue(lowest)).as("bucket %d", i).isEqualTo(lowest);
            assertThat(hdr.highestEquivalentValue(lowest)).as("bucket %d", i).isEqualTo(highest);
            assertThat(BucketLayout.index(lowest)).as("lowest of bucket %d", i).isEqualTo(i);
            assertThat(BucketLayout.index(highest)).as("highest of bucket %d", i).isEqualTo(i);
            lowest = highest + 1;
        }
        assertThat(BucketLayout.index(LatencyWindow.MAX_TRACKABLE_MICROS)).isEqualTo(BucketLayout.LENGTH - 1);
    }

    @Test
    void shouldReportPercentilesAsHdrHistogramForAnyValue()
    {
        final SplittableRandom random = new SplittableRandom(3);
        for (int k = 0; k < 100_000; k++)
        {
            final long micros = 1 + random.nextLong(LatencyWindow.MAX_TRACKABLE_MICROS);
            assertThat(BucketLayout.highestEquivalentMicros(BucketLayout.index(micros)))
                .as("%d us", micros)
                .isEqualTo(hdr.highestEquivalentValue(micros));
        }
    }
}
