package io.multifactor.kernel.latency;

import io.multifactor.api.LatencyRecorder;
import org.HdrHistogram.AbstractHistogram;

/**
 * The rolling latency window of one model and one metric, in microseconds.
 * <p>
 * Samples go into a {@link MultiWriterRecorder}. The refresh thread {@linkplain #advance(long) advances} the window: it
 * expires the slices that fell out of the window, drains the recorder into the current slice, and keeps a running sum
 * of the live slices from which percentiles are read.
 * <pre>
 *   recorder --drain--&gt; interval --+--&gt; slices[current]   (ring of SLICE_COUNT BucketCounts, each window/SLICE_COUNT long)
 *                                  +--&gt; sum (long[])       = live slices; expiring a slice subtracts it from sum
 *                                  +--&gt; unsent            (only with {@link #keepUnsent()}: for the fleet exchange)
 *   merge(another replica's interval) --&gt; slices[current] and sum, like a local interval drained now
 * </pre>
 * Every array uses the {@link BucketLayout} buckets and every step visits only the buckets its counts span (each
 * {@link BucketCounts} tracks its range), so a refresh costs in proportion to how spread the samples are, not to the
 * number of buckets; a percentile walks the sum from the lowest live bucket.
 * <p>
 * A sample counts from the refresh that drains it until the slice it went into expires: between
 * {@code window - window / SLICE_COUNT} and {@code window} later. With no live sample, {@link #percentileMicros(int)}
 * reports "no observation".
 * <p>
 * Percentiles are exactly HdrHistogram's {@code getValueAtPercentile} over the live samples at two significant
 * digits (nearest rank, reported at the bucket's highest equivalent value, relative error below 1%); samples above
 * {@link #MAX_TRACKABLE_MICROS} are clamped to it. Every array is allocated at construction.
 * <p>
 * It is the {@link LatencyEstimator} of {@code latency_estimator: window} (the default): {@link #refresh} is
 * {@link #advance}, {@link #estimateMicros} is {@link #percentileMicros}.
 * <p>
 * {@link #record(long)} is wait-free and threadsafe; every other method belongs to one thread at a time.
 */
public final class LatencyWindow implements LatencyEstimator
{
    /** Largest sample kept as given: 60 s; larger samples are recorded at this value. */
    public static final long MAX_TRACKABLE_MICROS = 60_000_000L;

    /** Significant decimal digits of every histogram: relative error below 1%. */
    public static final int SIGNIFICANT_DIGITS = 2;

    /** Number of slices the window is kept in (5 keeps a model's two windows well inside 256 KB). */
    public static final int SLICE_COUNT = 5;

    /** {@link #percentileMicros(int)} of a window without live samples. */
    public static final long NO_OBSERVATION = 0L;

    private final MultiWriterRecorder recorder = new MultiWriterRecorder();
    private final BucketCounts interval = new BucketCounts();
    private final BucketCounts[] slices = new BucketCounts[SLICE_COUNT];
    private final long[] sum = new long[BucketLayout.LENGTH];
    private long sumTotal;
    private BucketCounts unsent;
    private long sliceIndex;

    /**
     * A window whose first slice has index {@code firstSliceIndex}.
     *
     * @param firstSliceIndex index of the current slice at creation (time since the engine's origin / slice length).
     */
    public LatencyWindow(final long firstSliceIndex)
    {
        for (int i = 0; i < SLICE_COUNT; i++)
        {
            slices[i] = new BucketCounts();
        }
        sliceIndex = firstSliceIndex;
    }

    /**
     * Records one sample. Wait-free, allocates nothing, never throws.
     *
     * @param micros the sample in microseconds, already checked to be positive.
     * @return {@link LatencyRecorder#RECORDED}, or {@link LatencyRecorder#CLAMPED} when above the trackable maximum.
     */
    @Override
    public int record(final long micros)
    {
        if (micros > MAX_TRACKABLE_MICROS)
        {
            recorder.record(BucketLayout.index(MAX_TRACKABLE_MICROS));
            return LatencyRecorder.CLAMPED;
        }
        recorder.record(BucketLayout.index(micros));
        return LatencyRecorder.RECORDED;
    }

    /**
     * Moves the window to slice {@code currentSliceIndex}, expiring the slices that left it, then drains the recorder
     * into the current slice. A slice index lower than the current one (a clock going back) expires nothing.
     * Allocates nothing.
     *
     * @param currentSliceIndex index of the slice the current time falls in.
     */
    public void advance(final long currentSliceIndex)
    {
        final long steps = Math.min(currentSliceIndex - sliceIndex, SLICE_COUNT);
        for (long i = 1; i <= steps; i++)
        {
            final BucketCounts expiring = slices[ring(sliceIndex + i)];
            sumTotal -= expiring.total();
            expiring.expireFrom(sum);
        }
        if (currentSliceIndex > sliceIndex)
        {
            sliceIndex = currentSliceIndex;
        }
        if (recorder.drain(interval) != 0)
        {
            if (unsent != null)
            {
                unsent.addAll(interval);
            }
            addToCurrentSlice(interval);
        }
    }

    /** {@inheritDoc} As {@link #advance(long)}: the time is the slice's. */
    @Override
    public void refresh(final long sliceIndex, final long nowNs)
    {
        advance(sliceIndex);
    }

    /** {@inheritDoc} As {@link #percentileMicros(int)}: the window does not decay between refreshes. */
    @Override
    public long estimateMicros(final int percentile, final long nowNs)
    {
        return percentileMicros(percentile);
    }

    /**
     * Merges another replica's interval into the current slice, where it ages like a local sample drained now; it is
     * not kept for {@link #takeUnsent}. Allocates nothing.
     *
     * @param remote samples in microseconds (values above {@link #MAX_TRACKABLE_MICROS} count as that maximum).
     */
    public void merge(final AbstractHistogram remote)
    {
        if (remote.getTotalCount() != 0)
        {
            interval.addAll(remote);
            addToCurrentSlice(interval);
        }
    }

    /**
     * From now on, keeps a copy of every drained interval until {@link #takeUnsent} (for the fleet exchange).
     * Allocates one count array the first time.
     */
    public void keepUnsent()
    {
        if (unsent == null)
        {
            unsent = new BucketCounts();
        }
    }

    /**
     * Adds the samples drained since the previous call into {@code into} (each at its bucket's highest equivalent
     * value) and forgets them here. Allocates nothing.
     *
     * @param into a histogram whose range covers {@link #MAX_TRACKABLE_MICROS}.
     */
    public void takeUnsent(final AbstractHistogram into)
    {
        if (unsent != null && unsent.total() != 0)
        {
            unsent.moveInto(into);
        }
    }

    /**
     * The value at a percentile of the live samples, nearest rank, reported at the bucket's highest equivalent value
     * (HdrHistogram's {@code getValueAtPercentile}). Allocates nothing.
     *
     * @param percentile 1..100.
     * @return the value in microseconds, or {@link #NO_OBSERVATION} when the window holds no sample.
     */
    public long percentileMicros(final int percentile)
    {
        final long total = sumTotal;
        if (total == 0)
        {
            return NO_OBSERVATION;
        }
        // HdrHistogram's rank: one ulp below the percentile, so that a whole rank is not rounded up into the next.
        final double requested = Math.min(Math.max(Math.nextAfter((double)percentile, Double.NEGATIVE_INFINITY), 0.0), 100.0);
        final long rank = Math.max(1L, (long)Math.ceil((requested * total) / 100.0));
        int low = Integer.MAX_VALUE;
        int high = -1;
        for (final BucketCounts slice : slices)
        {
            low = Math.min(low, slice.low());
            high = Math.max(high, slice.high());
        }
        // The bucket is the first whose cumulative count reaches the rank; walk from the nearer end of the live range.
        final long[] sum = this.sum;
        if (rank <= total / 2)
        {
            long atOrBelow = 0;
            for (int i = low; i < high; i++)
            {
                atOrBelow += sum[i];
                if (atOrBelow >= rank)
                {
                    return BucketLayout.highestEquivalentMicros(i);
                }
            }
            return BucketLayout.highestEquivalentMicros(high);
        }
        long atOrBelow = total;
        for (int i = high; i > low; i--)
        {
            final long below = atOrBelow - sum[i];
            if (below < rank)
            {
                return BucketLayout.highestEquivalentMicros(i);
            }
            atOrBelow = below;
        }
        return BucketLayout.highestEquivalentMicros(low);
    }

    /** @return the number of live samples in the window (drained ones only). */
    public long sampleCount()
    {
        return sumTotal;
    }

    /**
     * Memory of this window: the recorder's two count arrays, the interval, the slices, the sum, and the unsent counts
     * when kept, plus object headers.
     *
     * @return bytes.
     */
    @Override
    public long footprintBytes()
    {
        final long counts = (1L + SLICE_COUNT + (unsent == null ? 0 : 1)) * BucketCounts.footprintBytes();
        return MultiWriterRecorder.footprintBytes() + counts + 16 + 8L * BucketLayout.LENGTH + 64 + 16 + 4L * SLICE_COUNT;
    }

    private void addToCurrentSlice(final BucketCounts drained)
    {
        sumTotal += drained.moveInto(slices[ring(sliceIndex)], sum);
    }

    private static int ring(final long sliceIndex)
    {
        return (int)Math.floorMod(sliceIndex, (long)SLICE_COUNT);
    }
}
