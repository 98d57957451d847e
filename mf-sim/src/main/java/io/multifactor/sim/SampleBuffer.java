package io.multifactor.sim;

import java.util.Arrays;

/**
 * A growable buffer of latency samples in microseconds with an exact nearest-rank percentile, for the simulator's
 * per-interval report (the engine's own percentiles come from its HdrHistogram windows).
 * <p>
 * This class is not threadsafe.
 */
final class SampleBuffer
{
    private long[] samples = new long[64];
    private int size;

    void add(final long micros)
    {
        if (size == samples.length)
        {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = micros;
    }

    void clear()
    {
        size = 0;
    }

    int size()
    {
        return size;
    }

    /**
     * Sorts the samples in place and reads a percentile by nearest rank.
     *
     * @param percentile in 1..100.
     * @return the value in microseconds, NaN when the buffer is empty.
     */
    double percentileMicros(final int percentile)
    {
        if (size == 0)
        {
            return Double.NaN;
        }
        Arrays.sort(samples, 0, size);
        final int rank = (int)Math.ceil(percentile / 100.0 * size);
        return samples[Math.max(0, rank - 1)];
    }
}
