package io.multifactor.config.model;

import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.SessionPolicy;

/**
 * The {@code algorithm.multi_factor:} block of a decision.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param weights configured weights.
 * @param slo quality floor and ceilings.
 * @param latencyPercentile {@code latency_percentile}, 1..100.
 * @param onNoCandidates {@code on_no_candidates} as a {@link NoCandidatesPolicy} code.
 * @param ranking latency metric, cost mix, objective and tie settings.
 * @param session the {@code session:} block, or {@code null} when absent (a session key is then ignored).
 * @param sheddableAbove {@code admission.sheddable_above}, in (0, 1]; 0 when the block has no {@code admission}.
 */
public record MultiFactorConfig(
    WeightsConfig weights, SloConfig slo, int latencyPercentile, int onNoCandidates, RankingConfig ranking,
    SessionPolicy session, double sheddableAbove)
{
    /** Default percentile. */
    public static final int DEFAULT_PERCENTILE = 95;

    /** Every default: equal weights, no floor or ceiling, p95, {@code cheapest}, default ranking. */
    public static final MultiFactorConfig DEFAULTS =
        new MultiFactorConfig(WeightsConfig.EQUAL, SloConfig.NONE, DEFAULT_PERCENTILE, NoCandidatesPolicy.CHEAPEST);

    /**
     * A block with the default ranking settings.
     *
     * @param weights configured weights.
     * @param slo quality floor and ceilings.
     * @param latencyPercentile {@code latency_percentile}.
     * @param onNoCandidates a {@link NoCandidatesPolicy} code.
     */
    public MultiFactorConfig(
        final WeightsConfig weights, final SloConfig slo, final int latencyPercentile, final int onNoCandidates)
    {
        this(weights, slo, latencyPercentile, onNoCandidates, RankingConfig.DEFAULTS);
    }

    /**
     * A block without {@code session:} and without {@code admission}.
     *
     * @param weights configured weights.
     * @param slo quality floor and ceilings.
     * @param latencyPercentile {@code latency_percentile}.
     * @param onNoCandidates a {@link NoCandidatesPolicy} code.
     * @param ranking latency metric, cost mix, objective and tie settings.
     */
    public MultiFactorConfig(
        final WeightsConfig weights, final SloConfig slo, final int latencyPercentile, final int onNoCandidates,
        final RankingConfig ranking)
    {
        this(weights, slo, latencyPercentile, onNoCandidates, ranking, null, 0.0);
    }

    /**
     * A block without {@code admission}.
     *
     * @param weights configured weights.
     * @param slo quality floor and ceilings.
     * @param latencyPercentile {@code latency_percentile}.
     * @param onNoCandidates a {@link NoCandidatesPolicy} code.
     * @param ranking latency metric, cost mix, objective and tie settings.
     * @param session the {@code session:} block, or {@code null}.
     */
    public MultiFactorConfig(
        final WeightsConfig weights, final SloConfig slo, final int latencyPercentile, final int onNoCandidates,
        final RankingConfig ranking, final SessionPolicy session)
    {
        this(weights, slo, latencyPercentile, onNoCandidates, ranking, session, 0.0);
    }

    /**
     * A block without {@code session:}.
     *
     * @param weights configured weights.
     * @param slo quality floor and ceilings.
     * @param latencyPercentile {@code latency_percentile}.
     * @param onNoCandidates a {@link NoCandidatesPolicy} code.
     * @param ranking latency metric, cost mix, objective and tie settings.
     * @param sheddableAbove {@code admission.sheddable_above}, or 0 without {@code admission}.
     */
    public MultiFactorConfig(
        final WeightsConfig weights, final SloConfig slo, final int latencyPercentile, final int onNoCandidates,
        final RankingConfig ranking, final double sheddableAbove)
    {
        this(weights, slo, latencyPercentile, onNoCandidates, ranking, null, sheddableAbove);
    }
}
