package io.multifactor.kernel.plan;

import io.multifactor.api.Factor;
import io.multifactor.api.Selection;

import java.util.Arrays;

/**
 * One decision compiled into flat primitive arrays: its candidates in {@code modelRefs} order, their configured quality
 * and prompt price (NaN when absent), the effective weights, the four SLO ceilings, the percentile and its slot, and the
 * no-candidates policy.
 * <p>
 * A ceiling that is off (absent or 0 in the YAML) is stored as an effective ceiling no value can exceed
 * ({@code +Infinity}, or {@code Long.MAX_VALUE} for in-flight), so the scoring loop never branches on "off"; the
 * configured values stay available for explanations.
 * <p>
 * Instances are immutable and threadsafe: no array is written after construction; the candidate arrays are shared only
 * with a {@link Selection}, which reads them and never writes them ({@link #shareWith}).
 */
public final class DecisionPlan
{
    private final int id;
    private final String name;
    private final int[] candidateModelIds;
    private final double[] quality;
    private final double[] promptPer1M;
    private final double[] weights;
    private final double maxTpotMs;
    private final double maxTtftMs;
    private final double maxCostPer1M;
    private final long maxInflight;
    private final double effectiveMaxTpotMs;
    private final double effectiveMaxTtftMs;
    private final double effectiveMaxCostPer1M;
    private final long effectiveMaxInflight;
    private final int percentile;
    private final int percentileSlot;
    private final int policy;

    /**
     * @param id handle of this decision.
     * @param name name of this decision.
     * @param candidateModelIds model handles of the candidates, in order; copied.
     * @param quality quality score per candidate, NaN when absent; copied.
     * @param promptPer1M prompt price per candidate in USD per 1M tokens, NaN when absent; copied.
     * @param weights effective weights indexed by {@link Factor}, as from {@link Weights#normalize}; copied.
     * @param maxTpotMs TPOT ceiling in milliseconds, 0 when off.
     * @param maxTtftMs TTFT ceiling in milliseconds, 0 when off.
     * @param maxCostPer1M prompt price ceiling in USD per 1M tokens, 0 when off.
     * @param maxInflight in-flight ceiling, 0 when off.
     * @param percentile latency percentile to read, 1..100.
     * @param percentileSlot index of that percentile among the distinct percentiles of the snapshot.
     * @param policy a {@link NoCandidatesPolicy} code.
     * @throws IllegalArgumentException when the arrays disagree in length, are empty, or a value is out of range.
     */
    public DecisionPlan(
        final int id,
        final String name,
        final int[] candidateModelIds,
        final double[] quality,
        final double[] promptPer1M,
        final double[] weights,
        final double maxTpotMs,
        final double maxTtftMs,
        final double maxCostPer1M,
        final long maxInflight,
        final int percentile,
        final int percentileSlot,
        final int policy)
    {
        final int n = candidateModelIds.length;
        if (n == 0 || quality.length != n || promptPer1M.length != n || weights.length != Factor.COUNT)
        {
            throw new IllegalArgumentException("decision " + name + ": candidate arrays must be non-empty and of one length");
        }
        if (percentile < 1 || percentile > 100)
        {
            throw new IllegalArgumentException("decision " + name + ": percentile must be in 1..100: " + percentile);
        }
        NoCandidatesPolicy.label(policy);
        this.id = id;
        this.name = name;
        this.candidateModelIds = candidateModelIds.clone();
        this.quality = quality.clone();
        this.promptPer1M = promptPer1M.clone();
        this.weights = weights.clone();
        this.maxTpotMs = requireCeiling(name, "max_tpot_ms", maxTpotMs);
        this.maxTtftMs = requireCeiling(name, "max_ttft_ms", maxTtftMs);
        this.maxCostPer1M = requireCeiling(name, "max_cost_per_1m", maxCostPer1M);
        if (maxInflight < 0)
        {
            throw new IllegalArgumentException("decision " + name + ": max_inflight must be >= 0: " + maxInflight);
        }
        this.maxInflight = maxInflight;
        this.effectiveMaxTpotMs = maxTpotMs == 0.0 ? Double.POSITIVE_INFINITY : maxTpotMs;
        this.effectiveMaxTtftMs = maxTtftMs == 0.0 ? Double.POSITIVE_INFINITY : maxTtftMs;
        this.effectiveMaxCostPer1M = maxCostPer1M == 0.0 ? Double.POSITIVE_INFINITY : maxCostPer1M;
        this.effectiveMaxInflight = maxInflight == 0 ? Long.MAX_VALUE : maxInflight;
        this.percentile = percentile;
        this.percentileSlot = percentileSlot;
        this.policy = policy;
    }

    /** @return handle of this decision. */
    public int id()
    {
        return id;
    }

    /** @return name of this decision. */
    public String name()
    {
        return name;
    }

    /** @return number of candidates. */
    public int candidateCount()
    {
        return candidateModelIds.length;
    }

    /**
     * @param index candidate position.
     * @return model handle of that candidate.
     */
    public int candidateModelId(final int index)
    {
        return candidateModelIds[index];
    }

    /**
     * @param index candidate position.
     * @return configured quality score, NaN when absent.
     */
    public double quality(final int index)
    {
        return quality[index];
    }

    /**
     * @param index candidate position.
     * @return configured prompt price in USD per 1M tokens, NaN when absent.
     */
    public double promptPer1M(final int index)
    {
        return promptPer1M[index];
    }

    /**
     * @param factor a {@link Factor} index.
     * @return effective weight of that factor.
     */
    public double weight(final int factor)
    {
        return weights[factor];
    }

    /**
     * Lets a selection of this decision read the configured arrays (model handles, quality, price, weights) instead of
     * copying them. Allocates nothing.
     *
     * @param selection reset for this decision.
     */
    public void shareWith(final Selection selection)
    {
        selection.candidates(candidateModelIds, quality, promptPer1M, weights);
    }

    /** @return configured TPOT ceiling in milliseconds, 0 when off. */
    public double maxTpotMs()
    {
        return maxTpotMs;
    }

    /** @return configured TTFT ceiling in milliseconds, 0 when off. */
    public double maxTtftMs()
    {
        return maxTtftMs;
    }

    /** @return configured prompt price ceiling in USD per 1M tokens, 0 when off. */
    public double maxCostPer1M()
    {
        return maxCostPer1M;
    }

    /** @return configured in-flight ceiling, 0 when off. */
    public long maxInflight()
    {
        return maxInflight;
    }

    /** @return TPOT ceiling the kernel compares against: +Infinity when off. */
    public double effectiveMaxTpotMs()
    {
        return effectiveMaxTpotMs;
    }

    /** @return TTFT ceiling the kernel compares against: +Infinity when off. */
    public double effectiveMaxTtftMs()
    {
        return effectiveMaxTtftMs;
    }

    /** @return price ceiling the kernel compares against: +Infinity when off. */
    public double effectiveMaxCostPer1M()
    {
        return effectiveMaxCostPer1M;
    }

    /** @return in-flight ceiling the kernel compares against: {@code Long.MAX_VALUE} when off. */
    public long effectiveMaxInflight()
    {
        return effectiveMaxInflight;
    }

    /** @return latency percentile read for this decision, 1..100. */
    public int percentile()
    {
        return percentile;
    }

    /** @return index of {@link #percentile()} among the distinct percentiles of the snapshot. */
    public int percentileSlot()
    {
        return percentileSlot;
    }

    /** @return the {@link NoCandidatesPolicy} code. */
    public int policy()
    {
        return policy;
    }

    @Override
    public String toString()
    {
        return "DecisionPlan{id=" + id + ", name=" + name + ", candidates=" + Arrays.toString(candidateModelIds) +
            ", weights=" + Arrays.toString(weights) + ", p" + percentile + ", policy=" +
            NoCandidatesPolicy.label(policy) + '}';
    }

    private static double requireCeiling(final String decision, final String key, final double value)
    {
        if (!(value >= 0.0) || value == Double.POSITIVE_INFINITY)
        {
            throw new IllegalArgumentException("decision " + decision + ": " + key + " must be finite and >= 0: " + value);
        }
        return value;
    }
}
