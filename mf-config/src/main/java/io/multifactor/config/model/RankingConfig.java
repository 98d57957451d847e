package io.multifactor.config.model;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.kernel.plan.CostMix;
import io.multifactor.kernel.plan.LoadMetric;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.TieBreak;

import java.util.List;

/**
 * How a decision measures and ranks its survivors beyond the weights: {@code latency_metric}, {@code cost_mix},
 * {@code objective} with its {@code priority} and {@code tolerance}, {@code tie_band} and {@code tie_break}. Every
 * default reproduces the plain weighted selection.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param latencyMetric a {@link LatencyMetric} code.
 * @param costMixPrompt prompt share of {@code cost_mix}.
 * @param costMixCompletion completion share of {@code cost_mix}.
 * @param objective an {@link Objective} code.
 * @param priority lexicographic priority as {@link Factor} indices, most important first; empty when weighted.
 * @param tolerance lexicographic tolerance, 0..1.
 * @param tieBand weighted tie band, 0..1.
 * @param tieBreak a {@link TieBreak} code.
 * @param pick a {@link Pick} code.
 * @param loadMetric a {@link LoadMetric} code.
 */
public record RankingConfig(
    int latencyMetric,
    double costMixPrompt,
    double costMixCompletion,
    int objective,
    List<Integer> priority,
    double tolerance,
    double tieBand,
    int tieBreak,
    int pick,
    int loadMetric)
{
    /** Every default: {@code auto}, {@code {prompt: 1, completion: 0}}, weighted, no band, {@code first}. */
    public static final RankingConfig DEFAULTS = new RankingConfig(
        LatencyMetric.AUTO, CostMix.DEFAULT_PROMPT, CostMix.DEFAULT_COMPLETION, Objective.WEIGHTED, List.of(), 0.0, 0.0,
        TieBreak.FIRST, Pick.BEST, LoadMetric.REQUESTS);

    /**
     * @param latencyMetric a {@link LatencyMetric} code.
     * @param costMixPrompt prompt share.
     * @param costMixCompletion completion share.
     * @param objective an {@link Objective} code.
     * @param priority priority factors; copied.
     * @param tolerance lexicographic tolerance.
     * @param tieBand weighted tie band.
     * @param tieBreak a {@link TieBreak} code.
     */
    public RankingConfig
    {
        priority = List.copyOf(priority);
    }

    /** @return the priority as an array of {@link Factor} indices. */
    public int[] priorityFactors()
    {
        final int[] factors = new int[priority.size()];
        for (int i = 0; i < factors.length; i++)
        {
            factors[i] = priority.get(i);
        }
        return factors;
    }
}
