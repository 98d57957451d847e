package io.multifactor.sim;

import java.util.SplittableRandom;

/**
 * Random draws of the simulator, written out here (not taken from JDK defaults) so that the same seed gives the same
 * numbers on every JDK: exponential inter-arrival gaps, standard normals by Box-Muller, and lognormals given their mean.
 * <p>
 * This class is stateless and threadsafe; each {@link SplittableRandom} passed in belongs to one thread.
 */
final class Draws
{
    private Draws()
    {
    }

    /**
     * @param random source of uniform draws.
     * @param ratePerS events per second.
     * @return the gap to the next event of a Poisson process, in nanoseconds, at least 1.
     */
    static long exponentialGapNs(final SplittableRandom random, final double ratePerS)
    {
        final double u = random.nextDouble();
        return Math.max(1L, Math.round(-Math.log1p(-u) / ratePerS * 1e9));
    }

    /**
     * @param random source of uniform draws.
     * @return a standard normal value.
     */
    static double standardNormal(final SplittableRandom random)
    {
        final double u1 = 1.0 - random.nextDouble();
        final double u2 = random.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    }

    /**
     * @param random source of uniform draws.
     * @param mean mean of the distribution, positive.
     * @param sigma standard deviation of the log, at least 0.
     * @return a lognormal value with that mean.
     */
    static double lognormal(final SplittableRandom random, final double mean, final double sigma)
    {
        if (sigma == 0.0)
        {
            return mean;
        }
        final double mu = Math.log(mean) - 0.5 * sigma * sigma;
        return Math.exp(mu + sigma * standardNormal(random));
    }
}
