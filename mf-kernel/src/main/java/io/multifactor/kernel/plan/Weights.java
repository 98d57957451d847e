package io.multifactor.kernel.plan;

import io.multifactor.api.Factor;

/**
 * Turns configured weights into effective ones, one per factor of the signal table ({@link Factor}): negative weights
 * become 0, all-zero weights give each of the seed's four factors ({@link Factor#SEED_COUNT}) an equal share, and the
 * result is divided by its sum so it adds up to 1. Without {@code weights} the seed's factors get 0.25 each and the
 * others 0 ({@link #defaults()}).
 * <p>
 * This class is stateless and threadsafe.
 */
public final class Weights
{
    /** The weight of each seed factor when none is configured, and the recoverable default when all are 0. */
    public static final double EQUAL = 1.0 / Factor.SEED_COUNT;

    private Weights()
    {
    }

    /** @return the effective weights of a decision without {@code weights}: 0.25 per seed factor, 0 for the others. */
    public static double[] defaults()
    {
        final double[] w = new double[Factor.COUNT];
        for (int f = 0; f < Factor.SEED_COUNT; f++)
        {
            w[f] = EQUAL;
        }
        return w;
    }

    /**
     * Normalizes the seed's four configured weights (the other factors 0).
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
        return normalize(new double[] { quality, latency, cost, load });
    }

    /**
     * Normalizes configured weights, one per factor: an array shorter than the table (written before the table grew)
     * leaves the factors beyond it at 0, as an absent key does.
     *
     * @param configured configured weight per {@link Factor} index (0 where a key is absent), at most one per factor;
     *     not modified.
     * @return the effective weights indexed by {@link Factor}, each in [0, 1], summing to 1.
     * @throws IllegalArgumentException when a weight is NaN or infinite, or there are more than the table's factors.
     */
    public static double[] normalize(final double[] configured)
    {
        if (configured.length > Factor.COUNT)
        {
            throw new IllegalArgumentException("weights: " + configured.length + " for " + Factor.COUNT + " factors");
        }
        final double[] w = new double[Factor.COUNT];
        double sum = 0.0;
        for (int f = 0; f < configured.length; f++)
        {
            w[f] = clamp(configured[f]);
            sum += w[f];
        }
        if (sum == 0.0)
        {
            return defaults();
        }
        if (sum == Double.POSITIVE_INFINITY)
        {
            throw new IllegalArgumentException("weights too large to add up: " + java.util.Arrays.toString(configured));
        }
        for (int f = 0; f < Factor.COUNT; f++)
        {
            w[f] = w[f] / sum;
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
