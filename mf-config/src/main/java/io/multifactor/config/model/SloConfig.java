package io.multifactor.config.model;

/**
 * The {@code slo:} block of a decision: the quality floor and the ceilings; 0 means no floor or no ceiling.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param maxTpotMs {@code max_tpot_ms}, TPOT percentile ceiling in milliseconds.
 * @param maxTtftMs {@code max_ttft_ms}, TTFT percentile ceiling in milliseconds.
 * @param maxCostPer1M {@code max_cost_per_1m}, cost ceiling in USD per 1M tokens (under the decision's cost mix).
 * @param maxInflight {@code max_inflight}, in-flight ceiling.
 * @param minQuality {@code min_quality}, quality floor in {@code quality_score}'s units.
 * @param maxInflightTokens {@code max_inflight_tokens}, ceiling on the tokens in flight (0 = none).
 */
public record SloConfig(
    double maxTpotMs, double maxTtftMs, double maxCostPer1M, long maxInflight, double minQuality, long maxInflightTokens)
{
    /** No floor and no ceiling at all. */
    public static final SloConfig NONE = new SloConfig(0.0, 0.0, 0.0, 0L, 0.0, 0L);

    /**
     * Ceilings and floor without a token ceiling.
     *
     * @param maxTpotMs {@code max_tpot_ms}.
     * @param maxTtftMs {@code max_ttft_ms}.
     * @param maxCostPer1M {@code max_cost_per_1m}.
     * @param maxInflight {@code max_inflight}.
     * @param minQuality {@code min_quality}.
     */
    public SloConfig(
        final double maxTpotMs, final double maxTtftMs, final double maxCostPer1M, final long maxInflight,
        final double minQuality)
    {
        this(maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight, minQuality, 0L);
    }

    /**
     * Ceilings without a quality floor.
     *
     * @param maxTpotMs {@code max_tpot_ms}.
     * @param maxTtftMs {@code max_ttft_ms}.
     * @param maxCostPer1M {@code max_cost_per_1m}.
     * @param maxInflight {@code max_inflight}.
     */
    public SloConfig(final double maxTpotMs, final double maxTtftMs, final double maxCostPer1M, final long maxInflight)
    {
        this(maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight, 0.0);
    }
}
