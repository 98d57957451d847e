package io.multifactor.config.model;

/**
 * The {@code slo:} ceilings of a decision; 0 means no ceiling.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param maxTpotMs {@code max_tpot_ms}, TPOT percentile ceiling in milliseconds.
 * @param maxTtftMs {@code max_ttft_ms}, TTFT percentile ceiling in milliseconds.
 * @param maxCostPer1M {@code max_cost_per_1m}, prompt price ceiling in USD per 1M tokens.
 * @param maxInflight {@code max_inflight}, in-flight ceiling.
 */
public record SloConfig(double maxTpotMs, double maxTtftMs, double maxCostPer1M, long maxInflight)
{
    /** No ceiling at all. */
    public static final SloConfig NONE = new SloConfig(0.0, 0.0, 0.0, 0L);
}
