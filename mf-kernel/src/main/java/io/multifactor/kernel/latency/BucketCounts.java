package io.multifactor.kernel.latency;

import org.HdrHistogram.AbstractHistogram;

/**
 * Sample counts per {@link BucketLayout} bucket with the range of buckets that may be non-zero, so that adding,
 * subtracting and clearing cost in proportion to that range rather than to the {@link BucketLayout#LENGTH} buckets.
 * One slice of a {@link LatencyWindow}, one drained interval, or the samples not yet sent to the fleet.
 * <pre>
 *   counts: [0 ... 0 | low: c c 0 c ... c :high | 0 ... 0]      total = sum of counts
 * </pre>
 * The range is a bound, not exact: after {@link #clear()} it is empty again.
 * <p>
 * This class is not threadsafe: one thread at a time (the refresh agent, under the engine's lock).
 */
public final class BucketCounts
{
    private final int[] counts = new int[BucketLayout.LENGTH];
    private int low = Integer.MAX_VALUE;
    private int high = -1;
    private long total;

    /**
     * Adds samples to one bucket, saturating at {@link Integer#MAX_VALUE} samples per bucket. Allocates nothing.
     *
     * @param index a {@link BucketLayout} bucket.
     * @param count samples to add, at least 1.
     * @return the samples added: {@code count}, or fewer when the bucket is full.
     */
    public int add(final int index, final int count)
    {
        final int before = counts[index];
        final int added = before > Integer.MAX_VALUE - count ? Integer.MAX_VALUE - before : count;
        counts[index] = before + added;
        total += added;
        if (index < low)
        {
            low = index;
        }
        if (index > high)
        {
            high = index;
        }
        return added;
    }

    /**
     * Adds the samples of an HdrHistogram (another replica's interval, for example), each at its value's bucket;
     * values above {@link LatencyWindow#MAX_TRACKABLE_MICROS} count as that maximum. Walks the histogram's value ranges
     * from its smallest to its largest recorded value. Allocates nothing.
     *
     * @param histogram samples in microseconds, at any precision.
     * @return the number of samples added (fewer than the histogram holds when a bucket is full).
     */
    public long addAll(final AbstractHistogram histogram)
    {
        if (histogram.getTotalCount() == 0)
        {
            return 0;
        }
        final long max = histogram.getMaxValue();
        long added = 0;
        for (long value = histogram.lowestEquivalentValue(histogram.getMinValue());
            value <= max;
            value = histogram.nextNonEquivalentValue(value))
        {
            final long count = histogram.getCountAtValue(value);
            if (count > 0)
            {
                final long micros = Math.min(histogram.highestEquivalentValue(value), LatencyWindow.MAX_TRACKABLE_MICROS);
                added += add(BucketLayout.index(micros), (int)Math.min(count, Integer.MAX_VALUE));
            }
        }
        return added;
    }

    /**
     * Adds every sample of {@code other} to this (saturating per bucket). Allocates nothing.
     *
     * @param other counts to add.
     */
    public void addAll(final BucketCounts other)
    {
        final int[] from = other.counts;
        for (int i = other.low, last = other.high; i <= last; i++)
        {
            final int count = from[i];
            if (count != 0)
            {
                add(i, count);
            }
        }
    }

    /**
     * Moves this into {@code slice} and {@code sum}: each bucket adds to the slice what the slice can take (see
     * {@link #add}) and exactly that to the sum, so that expiring the slice later takes out of the sum what it put in.
     * Zeroes this. Allocates nothing.
     *
     * @param slice the slice that receives the samples.
     * @param sum the running sum of the live slices ({@link BucketLayout#LENGTH} long).
     * @return the samples moved.
     */
    long moveInto(final BucketCounts slice, final long[] sum)
    {
        final int[] counts = this.counts;
        long moved = 0;
        for (int i = low, last = high; i <= last; i++)
        {
            final int count = counts[i];
            if (count != 0)
            {
                final int added = slice.add(i, count);
                sum[i] += added;
                moved += added;
                counts[i] = 0;
            }
        }
        low = Integer.MAX_VALUE;
        high = -1;
        total = 0;
        return moved;
    }

    /**
     * Subtracts this from the running sum and zeroes this: the slice expires. Allocates nothing.
     *
     * @param sum the running sum of the live slices.
     */
    void expireFrom(final long[] sum)
    {
        final int[] counts = this.counts;
        for (int i = low, last = high; i <= last; i++)
        {
            sum[i] -= counts[i];
            counts[i] = 0;
        }
        low = Integer.MAX_VALUE;
        high = -1;
        total = 0;
    }

    /**
     * Adds this to an HdrHistogram, each bucket at its highest equivalent value, and zeroes this. Allocates nothing.
     *
     * @param histogram receives the samples; its range must cover the buckets' values.
     */
    public void moveInto(final AbstractHistogram histogram)
    {
        final int[] counts = this.counts;
        for (int i = low, last = high; i <= last; i++)
        {
            final int count = counts[i];
            if (count != 0)
            {
                histogram.recordValueWithCount(BucketLayout.highestEquivalentMicros(i), count);
                counts[i] = 0;
            }
        }
        low = Integer.MAX_VALUE;
        high = -1;
        total = 0;
    }

    /** Zeroes every count. Allocates nothing. */
    public void clear()
    {
        final int[] counts = this.counts;
        for (int i = low, last = high; i <= last; i++)
        {
            counts[i] = 0;
        }
        low = Integer.MAX_VALUE;
        high = -1;
        total = 0;
    }

    /**
     * @param index a bucket.
     * @return its count.
     */
    public int count(final int index)
    {
        return counts[index];
    }

    /** @return the number of samples. */
    public long total()
    {
        return total;
    }

    /** @return the lowest bucket that may be non-zero, or {@link Integer#MAX_VALUE} when empty. */
    public int low()
    {
        return low;
    }

    /** @return the highest bucket that may be non-zero, or -1 when empty. */
    public int high()
    {
        return high;
    }

    /** @return bytes held by this object and its array. */
    static long footprintBytes()
    {
        return 16 + 4L * BucketLayout.LENGTH + 32;
    }
}
