package io.multifactor.config.model;

import io.multifactor.api.Factor;

import java.util.Arrays;

/**
 * The {@code weights:} of a decision as configured, before clamping and normalization, one per factor of the signal
 * table ({@link Factor}): a key absent from a present block is 0; an absent block is 0.25 for each of the seed's four
 * factors and 0 for the others.
 * <p>
 * Instances are immutable and threadsafe.
 */
public final class WeightsConfig
{
    /** Weights when the block is absent: 0.25 for each seed factor, 0 for the others. */
    public static final WeightsConfig EQUAL = new WeightsConfig(0.25, 0.25, 0.25, 0.25);

    private final double[] byFactor;

    /**
     * Weights of the seed's four factors, the others 0.
     *
     * @param quality weight of quality.
     * @param latency weight of latency.
     * @param cost weight of cost.
     * @param load weight of load.
     */
    public WeightsConfig(final double quality, final double latency, final double cost, final double load)
    {
        byFactor = new double[Factor.COUNT];
        byFactor[Factor.QUALITY] = quality;
        byFactor[Factor.LATENCY] = latency;
        byFactor[Factor.COST] = cost;
        byFactor[Factor.LOAD] = load;
    }

    private WeightsConfig(final double[] byFactor)
    {
        this.byFactor = byFactor;
    }

    /**
     * @param byFactor one weight per {@link Factor} index, in table order; copied.
     * @return the weights.
     * @throws IllegalArgumentException when there is not one per factor.
     */
    public static WeightsConfig of(final double[] byFactor)
    {
        if (byFactor.length != Factor.COUNT)
        {
            throw new IllegalArgumentException("weights: " + byFactor.length + " for " + Factor.COUNT + " factors");
        }
        return new WeightsConfig(byFactor.clone());
    }

    /**
     * @param factor a {@link Factor} index.
     * @return its configured weight.
     */
    public double weight(final int factor)
    {
        return byFactor[factor];
    }

    /** @return one weight per {@link Factor} index, in table order (a new array). */
    public double[] byFactor()
    {
        return byFactor.clone();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof WeightsConfig && Arrays.equals(byFactor, ((WeightsConfig)other).byFactor);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(byFactor);
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("WeightsConfig[");
        for (int f = 0; f < Factor.COUNT; f++)
        {
            sb.append(f == 0 ? "" : ", ").append(Factor.label(f)).append('=').append(byFactor[f]);
        }
        return sb.append(']').toString();
    }
}
