package io.multifactor.bench.verdict;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The 95% bootstrap interval of a ratio or a difference of two rows' means, each row a set of independent fork means.
 * <p>
 * Each resample draws, with replacement, as many forks of each row as it has, and takes the ratio (or difference)
 * of the two resampled means; the interval is the 2.5th and 97.5th percentiles of {@value #RESAMPLES} resamples. The
 * generator's seed is fixed, so one set of forks always gives one interval.
 * <p>
 * This class is immutable and threadsafe.
 */
public final class PooledInterval
{
    /** Resamples per interval. */
    public static final int RESAMPLES = 20_000;

    private static final long SEED = 0x6d662d7665726469L;

    private final double estimate;
    private final double lower;
    private final double upper;

    private PooledInterval(final double estimate, final double lower, final double upper)
    {
        this.estimate = estimate;
        this.lower = lower;
        this.upper = upper;
    }

    /**
     * @param numerator fork means of the measured row (at least one).
     * @param denominator fork means of the baseline row (at least one).
     * @return mean(numerator) / mean(denominator) and its interval.
     */
    public static PooledInterval ratio(final double[] numerator, final double[] denominator)
    {
        return of(numerator, denominator, true);
    }

    /**
     * @param measured fork means of the measured row (at least one).
     * @param baseline fork means of the baseline row (at least one).
     * @return mean(measured) - mean(baseline) and its interval.
     */
    public static PooledInterval difference(final double[] measured, final double[] baseline)
    {
        return of(measured, baseline, false);
    }

    /**
     * @param forks fork means of one row (at least one).
     * @return the row's mean and the interval of the mean.
     */
    public static PooledInterval mean(final double[] forks)
    {
        return of(forks, new double[] { 0 }, false);
    }

    private static PooledInterval of(final double[] a, final double[] b, final boolean ratio)
    {
        if (a.length == 0 || b.length == 0)
        {
            throw new IllegalArgumentException("a row has no forks");
        }
        final SplittableRandom random = new SplittableRandom(SEED);
        final double[] resampled = new double[RESAMPLES];
        for (int r = 0; r < RESAMPLES; r++)
        {
            final double meanA = resampledMean(a, random);
            final double meanB = resampledMean(b, random);
            resampled[r] = ratio ? meanA / meanB : meanA - meanB;
        }
        Arrays.sort(resampled);
        final double estimate = ratio ? average(a) / average(b) : average(a) - average(b);
        return new PooledInterval(
            estimate, resampled[(int)(0.025 * (RESAMPLES - 1))], resampled[(int)Math.ceil(0.975 * (RESAMPLES - 1))]);
    }

    private static double resampledMean(final double[] forks, final SplittableRandom random)
    {
        double sum = 0;
        for (int i = 0; i < forks.length; i++)
        {
            sum += forks[random.nextInt(forks.length)];
        }
        return sum / forks.length;
    }

    private static double average(final double[] values)
    {
        double sum = 0;
        for (final double v : values)
        {
            sum += v;
        }
        return sum / values.length;
    }

    /**
     * @return the point estimate: the ratio or difference of the two rows' means (or one row's mean).
     */
    public double estimate()
    {
        return estimate;
    }

    /**
     * @return the lower bound of the 95% interval.
     */
    public double lower()
    {
        return lower;
    }

    /**
     * @return the upper bound of the 95% interval.
     */
    public double upper()
    {
        return upper;
    }

    /**
     * The verdict of a goal "at most {@code limit}": met when the whole interval is within it, failed when the whole
     * interval is beyond it, otherwise inconclusive.
     *
     * @param limit the goal's bound.
     * @return {@code "met"}, {@code "failed"} or {@code "inconclusive"}.
     */
    public String verdictAtMost(final double limit)
    {
        if (upper <= limit)
        {
            return "met";
        }
        return lower > limit ? "failed" : "inconclusive";
    }
}
