package io.multifactor.testkit.reference;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Percentiles of raw samples the plain way: sort, then take the nearest rank, as the Go original does.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferencePercentiles
{
    private ReferencePercentiles()
    {
    }

    /**
     * The nearest-rank percentile: the smallest sample such that at least {@code percentile}% of the samples are less
     * than or equal to it, that is the sample of rank {@code ceil(percentile / 100 * n)} (1-based) in sorted order.
     *
     * @param samples the samples, in any order; not modified.
     * @param percentile 1..100.
     * @return the percentile, or {@code null} when there is no sample.
     */
    public static Long nearestRank(final List<Long> samples, final int percentile)
    {
        if (percentile < 1 || percentile > 100)
        {
            throw new IllegalArgumentException("percentile must be in 1..100: " + percentile);
        }
        if (samples.isEmpty())
        {
            return null;
        }
        final List<Long> sorted = new ArrayList<>(samples);
        Collections.sort(sorted);
        final int n = sorted.size();
        // Integer arithmetic for ceil(percentile * n / 100), so no floating-point rounding can pick the wrong rank.
        final long rank = ((long)percentile * n + 99) / 100;
        return sorted.get((int)Math.max(1, rank) - 1);
    }
}
