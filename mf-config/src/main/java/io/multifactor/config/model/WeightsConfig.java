package io.multifactor.config.model;

/**
 * The {@code weights:} of a decision as configured, before clamping and normalization (a key absent from a present
 * block is 0; an absent block is 0.25 each).
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param quality weight of quality.
 * @param latency weight of latency.
 * @param cost weight of cost.
 * @param load weight of load.
 */
public record WeightsConfig(double quality, double latency, double cost, double load)
{
    /** Weights when the block is absent: 0.25 each. */
    public static final WeightsConfig EQUAL = new WeightsConfig(0.25, 0.25, 0.25, 0.25);
}
