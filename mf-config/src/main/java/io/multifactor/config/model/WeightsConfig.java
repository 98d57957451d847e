package io.multifactor.config.model;

import io.multifactor.api.Factor;

/**
 * The {@code weights:} of a decision as configured, before clamping and normalization, one per factor of the signal
 * table ({@link Factor}): a key absent from a present block is 0; an absent block is 0.25 for each of the seed's four
 * factors and 0 for the servers' queue and KV-cache.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param quality weight of quality.
 * @param latency weight of latency.
 * @param cost weight of cost.
 * @param load weight of load.
 * @param queue weight of the servers' queue.
 * @param kvCache weight of the servers' KV-cache use.
 */
public record WeightsConfig(double quality, double latency, double cost, double load, double queue, double kvCache)
{
    /** Weights when the block is absent: 0.25 for each seed factor, 0 for queue and KV-cache. */
    public static final WeightsConfig EQUAL = new WeightsConfig(0.25, 0.25, 0.25, 0.25);

    /**
     * Weights of the seed's four factors, queue and KV-cache 0.
     *
     * @param quality weight of quality.
     * @param latency weight of latency.
     * @param cost weight of cost.
     * @param load weight of load.
     */
    public WeightsConfig(final double quality, final double latency, final double cost, final double load)
    {
        this(quality, latency, cost, load, 0.0, 0.0);
    }

    /**
     * @param byFactor one weight per {@link Factor} index, in table order.
     * @return the weights.
     * @throws IllegalArgumentException when there is not one per factor.
     */
    public static WeightsConfig of(final double[] byFactor)
    {
        if (byFactor.length != Factor.COUNT)
        {
            throw new IllegalArgumentException("weights: " + byFactor.length + " for " + Factor.COUNT + " factors");
        }
        return new WeightsConfig(byFactor[Factor.QUALITY], byFactor[Factor.LATENCY], byFactor[Factor.COST],
            byFactor[Factor.LOAD], byFactor[Factor.QUEUE], byFactor[Factor.KV_CACHE]);
    }

    /** @return one weight per {@link Factor} index, in table order (a new array). */
    public double[] byFactor()
    {
        final double[] w = new double[Factor.COUNT];
        w[Factor.QUALITY] = quality;
        w[Factor.LATENCY] = latency;
        w[Factor.COST] = cost;
        w[Factor.LOAD] = load;
        w[Factor.QUEUE] = queue;
        w[Factor.KV_CACHE] = kvCache;
        return w;
    }
}
