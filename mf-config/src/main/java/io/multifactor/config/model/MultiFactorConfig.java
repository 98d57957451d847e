package io.multifactor.config.model;

import io.multifactor.kernel.plan.NoCandidatesPolicy;

/**
 * The {@code algorithm.multi_factor:} block of a decision.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param weights configured weights.
 * @param slo ceilings.
 * @param latencyPercentile {@code latency_percentile}, 1..100.
 * @param onNoCandidates {@code on_no_candidates} as a {@link NoCandidatesPolicy} code.
 */
public record MultiFactorConfig(WeightsConfig weights, SloConfig slo, int latencyPercentile, int onNoCandidates)
{
    /** Default percentile. */
    public static final int DEFAULT_PERCENTILE = 95;

    /** Every default: equal weights, no ceiling, p95, {@code cheapest}. */
    public static final MultiFactorConfig DEFAULTS =
        new MultiFactorConfig(WeightsConfig.EQUAL, SloConfig.NONE, DEFAULT_PERCENTILE, NoCandidatesPolicy.CHEAPEST);
}
