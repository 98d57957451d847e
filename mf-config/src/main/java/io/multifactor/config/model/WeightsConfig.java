package io.multifactor.config.model;

/**
 * The {@code weights:} of a decision as configured, before clamping and normalization (a key absent from a present
 * block is 0; an absent block is 0.25 for each of the four seed factors and 0 for queue and KV-cache).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param quality weight of quality.
 * @param latency weight of latency.
 * @param cost weight of cost.
 * @param load weight of load.
 * @param queue weight of the model servers' queue.
 * @param kvCache weight of the model servers' KV-cache use.
 */
public record WeightsConfig(double quality, double latency, double cost, double load, double queue, double kvCache)
{
    /** Weights when the block is absent: 0.25 for each seed factor, 0 for the server signals. */
    public static final WeightsConfig EQUAL = new WeightsConfig(0.25, 0.25, 0.25, 0.25);

    /**
     * The four seed factors, the server signals' weights 0.
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
}
