package io.multifactor.kernel.latency;

import org.HdrHistogram.Histogram;

/**
 * The buckets every latency count array of the engine uses: HdrHistogram's log-linear layout for values 1 to
 * {@link LatencyWindow#MAX_TRACKABLE_MICROS} microseconds at {@link LatencyWindow#SIGNIFICANT_DIGITS} significant
 * digits, so that a percentile read from these arrays is exactly what {@code Histogram.getValueAtPercentile} reports
 * for the same samples.
 * <pre>
 *   index:   0 .. 255            256 .. 383              ...   (b + 1) * 128 .. (b + 2) * 128 - 1
 *   values:  0 .. 255 (step 1)   256 .. 511 (step 2)     ...   2^(b + 7) .. 2^(b + 8) - 1 (step 2^b)
 * </pre>
 * The bucket of a value is computed with shifts ({@link #index(long)}); the value reported for a bucket (its highest
 * equivalent value) comes from a table that HdrHistogram itself fills once, at class initialization, and a unit test
 * checks that both agree with HdrHistogram for every bucket boundary.
 * <p>
 * This class is immutable and threadsafe.
 */
public final class BucketLayout
{
    /** Sub-buckets of the first bucket: 2 significant digits need 256 distinct values (2 * 10^2 rounded up). */
    private static final int SUB_BUCKET_COUNT_MAGNITUDE = 8;
    private static final int SUB_BUCKET_HALF_COUNT_MAGNITUDE = SUB_BUCKET_COUNT_MAGNITUDE - 1;
    private static final int SUB_BUCKET_HALF_COUNT = 1 << SUB_BUCKET_HALF_COUNT_MAGNITUDE;
    private static final long SUB_BUCKET_MASK = (1L << SUB_BUCKET_COUNT_MAGNITUDE) - 1;
    private static final int LEADING_ZERO_COUNT_BASE = 64 - SUB_BUCKET_COUNT_MAGNITUDE;

    private static final long[] HIGHEST_EQUIVALENT_MICROS = highestEquivalentValues();

    /** Number of buckets: enough for {@link LatencyWindow#MAX_TRACKABLE_MICROS}. */
    public static final int LENGTH = HIGHEST_EQUIVALENT_MICROS.length;

    private BucketLayout()
    {
    }

    /**
     * @param micros a value in 0..{@link LatencyWindow#MAX_TRACKABLE_MICROS}.
     * @return its bucket, in 0..{@link #LENGTH}{@code - 1}.
     */
    public static int index(final long micros)
    {
        final int bucket = LEADING_ZERO_COUNT_BASE - Long.numberOfLeadingZeros(micros | SUB_BUCKET_MASK);
        final int subBucket = (int)(micros >>> bucket);
        return ((bucket + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + subBucket - SUB_BUCKET_HALF_COUNT;
    }

    /**
     * @param index a bucket.
     * @return the largest value that falls into it (what HdrHistogram reports for a percentile in this bucket).
     */
    public static long highestEquivalentMicros(final int index)
    {
        return HIGHEST_EQUIVALENT_MICROS[index];
    }

    private static long[] highestEquivalentValues()
    {
        // Walk HdrHistogram's own equivalence ranges from 0: the i-th range is bucket i.
        final Histogram layout =
            new Histogram(1, LatencyWindow.MAX_TRACKABLE_MICROS, LatencyWindow.SIGNIFICANT_DIGITS);
        final long last = layout.highestEquivalentValue(LatencyWindow.MAX_TRACKABLE_MICROS);
        int length = 0;
        for (long value = 0; value <= last; value = layout.nextNonEquivalentValue(value))
        {
            length++;
        }
        final long[] highest = new long[length];
        int index = 0;
        for (long value = 0; value <= last; value = layout.nextNonEquivalentValue(value))
        {
            highest[index++] = layout.highestEquivalentValue(value);
        }
        return highest;
    }
}
