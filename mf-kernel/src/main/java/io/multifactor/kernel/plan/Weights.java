package io.multifactor.kernel.plan;

import io.multifactor.api.Factor;

/**
 * Turns configured weights into effective ones: negative weights become 0, all-zero weights become equal, and the
 * result is divided by its sum so it adds up to 1.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Weights
{
    /** The weight of each factor when none is configured, and the recoverable default when all are 0. */
    public static final double EQUAL = 1.0 / Factor.COUNT;

    private Weights()
    {
    }

    /**
     * Normalizes four configured weights.
     *
     * @param quality configured weight of quality.
     * @param latency configured weight of latency.
     * @param cost configured weight of cost.
     * @param load configured weight of load.
     * @return the effective weights indexed by {@link Factor}, each in [0, 1], summing to 1.
     * @throws IllegalArgumentException when a weight is NaN or infinite.
     */
    public static double[] normalize(final double quality, final double latency, final double cost, final double load)
    {
        final double[] w = { clamp(quality), clamp(latency), clamp(cost), clamp(load) };
        final double sum = w[0] + w[1] + w[2] + w[3];
        if (sum == 0.0)
        {
            return new double[] { EQUAL, EQUAL, EQUAL, EQUAL };
        }
        if (sum == Double.POSITIVE_INFINITY)
        {
            throw new IllegalArgumentException("weights too large to add up: " + quality + ", " + latency + ", " +
                cost + ", " + load);
        }
        for (int i = 0; i < w.length; i++)
        {
            w[i] = w[i] / sum;
        }
        return w;
    }

    private static double clamp(final double weight)
    {
        if (Double.isNaN(weight) || Double.isInfinite(weight))
        {
            throw new IllegalArgumentException("weight must be finite: " + weight);
        }
        return weight > 0.0 ? weight : 0.0;
    }
}
