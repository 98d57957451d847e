package io.multifactor.bench;

import io.multifactor.api.LatencyRecorder;
import io.multifactor.kernel.latency.LatencyWindow;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.IntCountsHistogram;
import org.HdrHistogram.Recorder;

/**
 * The engine's latency window as it was before the bucket-range design (kept in the benchmarks only, as the baseline of
 * {@link WindowBenchmark}): the rolling latency window of one model and one metric, in microseconds.
 * <p>
 * Samples go into a multi-writer {@link Recorder}. The refresh thread {@linkplain #advance(long) advances} the window:
 * it expires the slices that fell out of the window, drains the recorder into the current slice, and keeps a running
 * sum of the live slices from which percentiles are read.
 * <pre>
 *   recorder --drain--&gt; slices[current] (ring of SLICE_COUNT IntCountsHistograms)
 *                   \--&gt; sum (Histogram) = live slices; expiring a slice subtracts it from sum
 * </pre>
 * A sample counts from the refresh that drains it until the slice it went into expires: between
 * {@code window - window / SLICE_COUNT} and {@code window} later. With no live sample, {@link #percentileMicros(int)}
 * reports "no observation".
 * <p>
 * Precision is two significant digits (relative error below 1%, percentiles reported at the bucket's highest
 * equivalent value); samples above {@link LatencyWindow#MAX_TRACKABLE_MICROS} are clamped to it. Every histogram has a fixed range,
 * so nothing resizes or allocates after construction.
 * <p>
 * {@link #record(long)} is wait-free and threadsafe; every other method belongs to one thread at a time.
 */
public final class HdrSliceWindow
{
    private final Recorder recorder;
    private final IntCountsHistogram[] slices;
    private final Histogram sum;
    private Histogram interval;
    private long sliceIndex;

    /**
     * A window whose first slice has index {@code firstSliceIndex}.
     *
     * @param firstSliceIndex index of the current slice at creation (time since the engine's origin / slice length).
     */
    public HdrSliceWindow(final long firstSliceIndex)
    {
        recorder = new Recorder(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        interval = recorder.getIntervalHistogram();
        slices = new IntCountsHistogram[LatencyWindow.SLICE_COUNT];
        for (int i = 0; i < LatencyWindow.SLICE_COUNT; i++)
        {
            slices[i] = new IntCountsHistogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        }
        sum = new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        sliceIndex = firstSliceIndex;
    }

    /**
     * Records one sample. Wait-free, allocates nothing, never throws.
     *
     * @param micros the sample in microseconds, already checked to be positive.
     * @return {@link LatencyRecorder#RECORDED}, or {@link LatencyRecorder#CLAMPED} when above the trackable maximum.
     */
    public int record(final long micros)
    {
        if (micros > LatencyWindow.MAX_TRACKABLE_MICROS)
        {
            recorder.recordValue(LatencyWindow.MAX_TRACKABLE_MICROS);
            return LatencyRecorder.CLAMPED;
        }
        recorder.recordValue(micros);
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
        final long steps = Math.min(currentSliceIndex - sliceIndex, LatencyWindow.SLICE_COUNT);
        for (long i = 1; i <= steps; i++)
        {
            final IntCountsHistogram expiring = slices[ring(sliceIndex + i)];
            if (expiring.getTotalCount() != 0)
            {
                sum.subtract(expiring);
                expiring.reset();
            }
        }
        if (currentSliceIndex > sliceIndex)
        {
            sliceIndex = currentSliceIndex;
        }
        interval = recorder.getIntervalHistogram(interval);
        if (interval.getTotalCount() != 0)
        {
            slices[ring(sliceIndex)].add(interval);
            sum.add(interval);
        }
    }

    /**
     * The value at a percentile of the live samples, nearest rank, reported at the bucket's highest equivalent value
     * (HdrHistogram's {@code getValueAtPercentile}). Allocates nothing.
     *
     * @param percentile 1..100.
     * @return the value in microseconds, or {@link LatencyWindow#NO_OBSERVATION} when the window holds no sample.
     */
    public long percentileMicros(final int percentile)
    {
        return sum.getTotalCount() == 0 ? LatencyWindow.NO_OBSERVATION : sum.getValueAtPercentile(percentile);
    }

    /** @return the number of live samples in the window (drained ones only). */
    public long sampleCount()
    {
        return sum.getTotalCount();
    }

    /**
     * Estimated memory of this window: the recorder's two histograms (active and the recycled interval), the slices and
     * the sum, by HdrHistogram's (conservatively high) {@code getEstimatedFootprintInBytes}, plus the slice array.
     *
     * @return bytes.
     */
    public long footprintBytes()
    {
        long bytes = 2L * interval.getEstimatedFootprintInBytes() + sum.getEstimatedFootprintInBytes();
        for (final IntCountsHistogram slice : slices)
        {
            bytes += slice.getEstimatedFootprintInBytes();
        }
        // The Recorder, this object and the slice array: headers and a few references.
        return bytes + 256 + 16 + 4L * LatencyWindow.SLICE_COUNT;
    }

    private static int ring(final long sliceIndex)
    {
        return (int)Math.floorMod(sliceIndex, (long)LatencyWindow.SLICE_COUNT);
    }
}
