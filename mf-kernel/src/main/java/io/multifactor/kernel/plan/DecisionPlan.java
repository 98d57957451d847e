package io.multifactor.kernel.plan;

import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Selection;

import java.util.Arrays;

/**
 * One decision compiled into flat primitive arrays: its candidates in {@code modelRefs} order, their configured quality,
 * prompt and completion prices and their cost under the decision's {@code cost_mix} (NaN when absent), the effective
 * weights, the quality floor and the four SLO ceilings, the percentile and its slot, the no-candidates policy, and the
 * ranking settings: latency metric, objective (with its priority and tolerance), tie band and tie break.
 * <p>
 * A ceiling that is off (absent or 0 in the YAML) is stored as an effective ceiling no value can exceed
 * ({@code +Infinity}, or {@code Long.MAX_VALUE} for in-flight), so the scoring loop never branches on "off"; the
 * configured values stay available for explanations.
 * <p>
 * Instances are immutable and threadsafe: no array is written after construction; the candidate arrays are shared only
 * with a {@link Selection}, which reads them and never writes them ({@link #configured}).
 */
public final class DecisionPlan
{
    private final int id;
    private final String name;
    private final int[] candidateModelIds;
    // candidateModelIds.length, kept apart so that a selection reads no array header for it (one cache line less).
    private final int candidateCount;
    private final double[] quality;
    private final double[] promptPer1M;
    private final double[] completionPer1M;
    private final double[] costPer1M;
    private final double[] weights;
    private final double minQuality;
    private final boolean qualityFloor;
    private final int latencyMetric;
    private final double costMixPrompt;
    private final double costMixCompletion;
    private final int objective;
    private final Selection.Configured configured;
    private final int[] priority;
    private final double tolerance;
    private final double tieBand;
    private final int tieBreak;
    private final boolean spreadsTies;
    private final int pick;
    private final int loadMetric;
    private final boolean tokenLoad;
    private final boolean readsTokens;
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
    private final int algorithmType;
    private final SignalCeilings signalCeilings;
    private final long effectiveMaxInflightTokens;
    private final double effectiveMaxQueue;
    private final double effectiveMaxKvCache;
    private final boolean dropsStale;
    private final boolean scoresBeyondSeed;
    private final SessionPolicy sessionOrNull;
    private final double[] cachedPromptPer1M;
    private final boolean pricesCachedPrompt;
    private final RequestRules requestRules;
    private final PeerParameters peerParameters;

    /**
     * Compiles one decision's specification: its settings from {@code spec} (with every default of the configuration
     * docs), its candidates resolved to model handles and configured values by the {@link PlansBuilder}.
     *
     * @param spec the decision's settings (a baseline's floor and ceilings already dropped by the builder).
     * @param id handle of this decision.
     * @param percentileSlot index of its percentile among the distinct percentiles of the snapshot.
     * @param candidateModelIds model handles of the candidates, in order; copied.
     * @param quality quality score per candidate, NaN when absent; copied.
     * @param promptPer1M prompt price per candidate in USD per 1M tokens, NaN when absent; copied.
     * @param completionPer1M completion price per candidate in USD per 1M tokens, NaN when absent; copied.
     * @throws IllegalArgumentException when the arrays disagree in length, are empty, or a value is out of range.
     */
    public DecisionPlan(
        final PlansBuilder.DecisionSpec spec,
        final int id,
        final int percentileSlot,
        final int[] candidateModelIds,
        final double[] quality,
        final double[] promptPer1M,
        final double[] completionPer1M)
    {
        this(spec, id, percentileSlot, candidateModelIds, quality, promptPer1M, completionPer1M,
            nanArray(candidateModelIds.length));
    }

    /**
     * As {@link #DecisionPlan(PlansBuilder.DecisionSpec, int, int, int[], double[], double[], double[])}, with the
     * candidates' cached prompt prices ({@code pricing.cached_prompt_per_1m}): the prompt price of a candidate for a
     * request that supplies its cached share P is {@code (1 - P) * prompt_per_1m + P * cached_prompt_per_1m}.
     *
     * @param spec the decision's settings.
     * @param id handle of this decision.
     * @param percentileSlot index of its percentile among the distinct percentiles of the snapshot.
     * @param candidateModelIds model handles of the candidates, in order; copied.
     * @param quality quality score per candidate, NaN when absent; copied.
     * @param promptPer1M prompt price per candidate in USD per 1M tokens, NaN when absent; copied.
     * @param completionPer1M completion price per candidate in USD per 1M tokens, NaN when absent; copied.
     * @param cachedPromptPer1M cached prompt price per candidate in USD per 1M tokens, NaN when absent; copied.
     * @throws IllegalArgumentException when the arrays disagree in length, are empty, or a value is out of range.
     */
    public DecisionPlan(
        final PlansBuilder.DecisionSpec spec,
        final int id,
        final int percentileSlot,
        final int[] candidateModelIds,
        final double[] quality,
        final double[] promptPer1M,
        final double[] completionPer1M,
        final double[] cachedPromptPer1M)
    {
        final String name = spec.name;
        final double[] weights = spec.weights;
        final double minQuality = spec.minQuality;
        final double maxTpotMs = spec.maxTpotMs;
        final double maxTtftMs = spec.maxTtftMs;
        final double maxCostPer1M = spec.maxCostPer1M;
        final long maxInflight = spec.maxInflight;
        final int percentile = spec.percentile;
        final int policy = spec.policy;
        final int latencyMetric = spec.latencyMetric;
        final double costMixPrompt = spec.costMixPrompt;
        final double costMixCompletion = spec.costMixCompletion;
        final int objective = spec.objective;
        final int[] priority = spec.priority;
        final double tolerance = spec.tolerance;
        final double tieBand = spec.tieBand;
        final int tieBreak = spec.tieBreak;
        final int algorithmType = spec.algorithmType;
        final SignalCeilings signalCeilings = spec.signalCeilings;
        final int pick = spec.pick;
        final int loadMetric = spec.loadMetric;
        final int n = candidateModelIds.length;
        if (n == 0 || quality.length != n || promptPer1M.length != n || completionPer1M.length != n ||
            cachedPromptPer1M.length != n || weights.length != Factor.COUNT)
        {
            throw new IllegalArgumentException("decision " + name + ": candidate arrays must be non-empty and of one length");
        }
        if (percentile < 1 || percentile > 100)
        {
            throw new IllegalArgumentException("decision " + name + ": percentile must be in 1..100: " + percentile);
        }
        NoCandidatesPolicy.label(policy);
        LatencyMetric.label(latencyMetric);
        Objective.label(objective);
        TieBreak.label(tieBreak);
        AlgorithmType.label(algorithmType);
        if (AlgorithmType.isBaseline(algorithmType) &&
            (minQuality != 0.0 || maxTpotMs != 0.0 || maxTtftMs != 0.0 || maxCostPer1M != 0.0 || maxInflight != 0))
        {
            throw new IllegalArgumentException("decision " + name + ": a " + AlgorithmType.label(algorithmType) +
                " decision takes no floor or ceiling");
        }
        if (!CostMix.isValid(costMixPrompt, costMixCompletion))
        {
            throw new IllegalArgumentException("decision " + name + ": cost_mix must be finite, >= 0 and not both 0: " +
                costMixPrompt + ", " + costMixCompletion);
        }
        requirePriority(name, objective, priority);
        requireUnit(name, "tolerance", tolerance);
        requireUnit(name, "tie_band", tieBand);
        if (objective == Objective.LEXICOGRAPHIC && tieBand != 0.0)
        {
            throw new IllegalArgumentException("decision " + name + ": tie_band applies to the weighted objective only");
        }
        Pick.label(pick);
        LoadMetric.label(loadMetric);
        if (spec.session != null && objective != Objective.WEIGHTED)
        {
            throw new IllegalArgumentException("decision " + name + ": session applies to the weighted objective only");
        }
        this.sessionOrNull = spec.session;
        this.peerParameters = spec.peerParameters;
        if (pick == Pick.P2C && (objective != Objective.WEIGHTED || tieBand != 0.0 || tieBreak != TieBreak.FIRST))
        {
            throw new IllegalArgumentException("decision " + name + ": pick p2c takes the weighted objective, no " +
                "tie_band and tie_break first");
        }
        this.id = id;
        this.name = name;
        this.candidateModelIds = candidateModelIds.clone();
        this.candidateCount = this.candidateModelIds.length;
        this.quality = quality.clone();
        this.promptPer1M = promptPer1M.clone();
        this.completionPer1M = completionPer1M.clone();
        this.costPer1M = new double[n];
        for (int i = 0; i < n; i++)
        {
            costPer1M[i] = CostMix.blend(costMixPrompt, costMixCompletion, promptPer1M[i], completionPer1M[i]);
        }
        this.weights = weights.clone();
        this.minQuality = requireCeiling(name, "min_quality", minQuality);
        this.qualityFloor = minQuality > 0.0;
        this.latencyMetric = latencyMetric;
        this.costMixPrompt = costMixPrompt;
        this.costMixCompletion = costMixCompletion;
        this.objective = objective;
        this.priority = priority.clone();
        this.tolerance = tolerance;
        this.tieBand = tieBand;
        this.tieBreak = tieBreak;
        this.pick = pick;
        this.loadMetric = loadMetric;
        this.tokenLoad = loadMetric == LoadMetric.TOKENS;
        // p2c takes the same one branch off the default path as a tie band: the rank step's cost is unchanged.
        this.spreadsTies = tieBand > 0.0 || tieBreak == TieBreak.RANDOM || pick == Pick.P2C;
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
        this.algorithmType = algorithmType;
        this.signalCeilings = signalCeilings;
        this.effectiveMaxInflightTokens = signalCeilings.effectiveMaxInflightTokens();
        this.effectiveMaxQueue = signalCeilings.effectiveMaxQueue();
        this.effectiveMaxKvCache = signalCeilings.effectiveMaxKvCache();
        this.dropsStale = signalCeilings.dropsStale();
        this.readsTokens = tokenLoad || effectiveMaxInflightTokens != Long.MAX_VALUE;
        boolean beyondSeed = false;
        for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
        {
            beyondSeed |= this.weights[f] > 0.0;
        }
        this.scoresBeyondSeed = beyondSeed;
        this.cachedPromptPer1M = cachedPromptPer1M.clone();
        boolean cached = false;
        for (int i = 0; i < n; i++)
        {
            final double price = cachedPromptPer1M[i];
            if (price == price && !(price >= 0.0 && price < Double.POSITIVE_INFINITY))
            {
                throw new IllegalArgumentException("decision " + name + ": cached_prompt_per_1m must be finite and >= 0: " +
                    price);
            }
            // Only a candidate with both prices has a cache-aware price: without prompt_per_1m its cost is missing.
            cached |= price == price && promptPer1M[i] == promptPer1M[i];
        }
        this.pricesCachedPrompt = cached;
        this.configured = new Selection.Configured(this.candidateModelIds, this.quality, this.costPer1M, this.weights);
        this.requestRules = spec.requestRules != null ? spec.requestRules :
            RequestRules.unrestricted(n, RequestRules.DEFAULT_OUTPUT_TOKENS, 0.0);
        if (this.requestRules.contextWindowCount() != n)
        {
            throw new IllegalArgumentException("decision " + name + ": request rules for " +
                this.requestRules.contextWindowCount() + " candidates, not " + n);
        }
    }

    /** @return the rules that depend on the request: context windows, capabilities, admission. */
    public RequestRules requestRules()
    {
        return requestRules;
    }

    /**
     * @return whether every request of this decision is checked before scoring: a candidate has a context window (the
     *     requests that carry needs, their own ceilings or the {@code sheddable} priority are checked anyway).
     */
    public boolean screensRequests()
    {
        return requestRules.hasContextWindow();
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
        return candidateCount;
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
     * @param index candidate position.
     * @return configured completion price in USD per 1M tokens, NaN when absent.
     */
    public double completionPer1M(final int index)
    {
        return completionPer1M[index];
    }

    /**
     * @param index candidate position.
     * @return cost in USD per 1M tokens under the decision's {@code cost_mix} (the prompt price by default), NaN when a
     *     price with a non-zero share is absent: what the cost factor, the cost ceiling and {@code cheapest} use for a
     *     request without token counts.
     */
    public double costPer1M(final int index)
    {
        return costPer1M[index];
    }

    /**
     * @param index candidate position.
     * @return configured cached prompt price ({@code cached_prompt_per_1m}) in USD per 1M tokens, NaN when absent.
     */
    public double cachedPromptPer1M(final int index)
    {
        return cachedPromptPer1M[index];
    }

    /**
     * @return whether a candidate has both {@code prompt_per_1m} and {@code cached_prompt_per_1m}: then a request that
     *     supplies cached shares prices that candidate itself.
     */
    public boolean pricesCachedPrompt()
    {
        return pricesCachedPrompt;
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
     * The configured arrays a selection of this decision shares rather than copies (model handles, quality, cost under
     * the cost mix, weights), behind one reference that the selection stores only when it last held another
     * decision's: what the kernel starts a selection with.
     *
     * @return this decision's configured arrays, built once.
     */
    public Selection.Configured configured()
    {
        return configured;
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

    /** @return the decision's ceilings on in-flight tokens and the servers' signals. */
    public SignalCeilings signalCeilings()
    {
        return signalCeilings;
    }

    /** @return the in-flight token ceiling, {@code Long.MAX_VALUE} when off. */
    public long effectiveMaxInflightTokens()
    {
        return effectiveMaxInflightTokens;
    }

    /** @return the queue ceiling (waiting requests), {@code +Infinity} when off. */
    public double effectiveMaxQueue()
    {
        return effectiveMaxQueue;
    }

    /** @return the KV-cache use ceiling, {@code +Infinity} when off. */
    public double effectiveMaxKvCache()
    {
        return effectiveMaxKvCache;
    }

    /** @return whether a model whose servers are all stale is dropped with reason {@code stale}. */
    public boolean dropsStale()
    {
        return dropsStale;
    }

    /** @return whether {@code when_stale: saturated} is set (it drops only with a server ceiling: {@link #dropsStale}). */
    public boolean whenStaleSaturated()
    {
        return signalCeilings.whenStaleSaturated();
    }

    /**
     * @return whether a factor beyond the seed four (quality, latency, cost, load) has a weight above 0: the servers'
     *     queue, KV-cache use or the cached prompt share.
     */
    public boolean scoresBeyondSeed()
    {
        return scoresBeyondSeed;
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

    /** @return the {@link AlgorithmType} code: {@code multi_factor} or a baseline. */
    public int algorithmType()
    {
        return algorithmType;
    }

    /** @return configured quality floor ({@code slo.min_quality}), 0 when off. */
    public double minQuality()
    {
        return minQuality;
    }

    /** @return whether the decision has a quality floor (then a candidate without quality score is dropped). */
    public boolean hasQualityFloor()
    {
        return qualityFloor;
    }

    /** @return the {@link LatencyMetric} code. */
    public int latencyMetric()
    {
        return latencyMetric;
    }

    /** @return prompt share of {@code cost_mix} (1 by default). */
    public double costMixPrompt()
    {
        return costMixPrompt;
    }

    /** @return completion share of {@code cost_mix} (0 by default). */
    public double costMixCompletion()
    {
        return costMixCompletion;
    }

    /** @return the {@link Objective} code. */
    public int objective()
    {
        return objective;
    }

    /** @return number of lexicographic priority factors (0 for the weighted objective). */
    public int priorityCount()
    {
        return priority.length;
    }

    /**
     * @param rank position in {@code priority}, from 0.
     * @return the {@link Factor} at that position.
     */
    public int priority(final int rank)
    {
        return priority[rank];
    }

    /** @return lexicographic tolerance, 0..1. */
    public double tolerance()
    {
        return tolerance;
    }

    /** @return weighted tie band, 0..1. */
    public double tieBand()
    {
        return tieBand;
    }

    /** @return the parameters of its peer policy ({@link PeerParameters#DEFAULTS} for any other type). */
    public PeerParameters peerParameters()
    {
        return peerParameters;
    }

    /** @return the decision's {@code session:} block, or null when it has none (a session key is then ignored). */
    public SessionPolicy sessionOrNull()
    {
        return sessionOrNull;
    }

    /** @return the {@link TieBreak} code. */
    public int tieBreak()
    {
        return tieBreak;
    }

    /**
     * @return whether choosing the winner needs more than "the first best": a tie band, a random break or
     *     {@code pick: p2c}.
     */
    public boolean spreadsTies()
    {
        return spreadsTies;
    }

    /** @return the {@link Pick} code. */
    public int pick()
    {
        return pick;
    }

    /** @return the {@link LoadMetric} code. */
    public int loadMetric()
    {
        return loadMetric;
    }

    /**
     * @return whether the decision reads the tokens in flight: {@code load_metric: tokens} or a
     *     {@code max_inflight_tokens} ceiling.
     */
    public boolean readsTokens()
    {
        return readsTokens;
    }

    /** @return whether the load factor counts tokens in flight ({@code load_metric: tokens}) rather than requests. */
    public boolean tokenLoad()
    {
        return tokenLoad;
    }

    @Override
    public String toString()
    {
        return "DecisionPlan{id=" + id + ", name=" + name + ", type=" + AlgorithmType.label(algorithmType) +
            ", candidates=" + Arrays.toString(candidateModelIds) +
            ", weights=" + Arrays.toString(weights) + ", p" + percentile + ", policy=" +
            NoCandidatesPolicy.label(policy) + ", " + Objective.label(objective) +
            (objective == Objective.LEXICOGRAPHIC ? Arrays.toString(priority) + " tolerance=" + tolerance : "") +
            (tieBand > 0.0 ? ", tie_band=" + tieBand : "") + ", tie_break=" + TieBreak.label(tieBreak) +
            (pick != Pick.BEST ? ", pick=" + Pick.label(pick) : "") +
            (loadMetric != LoadMetric.REQUESTS ? ", load_metric=" + LoadMetric.label(loadMetric) : "") +
            (qualityFloor ? ", min_quality=" + minQuality : "") + ", latency=" + LatencyMetric.label(latencyMetric) +
            ", cost_mix=" + costMixPrompt + '/' + costMixCompletion + '}';
    }

    private static void requirePriority(final String decision, final int objective, final int[] priority)
    {
        if (objective == Objective.LEXICOGRAPHIC && priority.length == 0)
        {
            throw new IllegalArgumentException("decision " + decision + ": lexicographic objective needs a priority");
        }
        if (objective == Objective.WEIGHTED && priority.length != 0)
        {
            throw new IllegalArgumentException("decision " + decision + ": priority needs the lexicographic objective");
        }
        final boolean[] seen = new boolean[Factor.COUNT];
        for (final int factor : priority)
        {
            Factor.label(factor);
            if (seen[factor])
            {
                throw new IllegalArgumentException("decision " + decision + ": duplicate priority factor " +
                    Factor.label(factor));
            }
            seen[factor] = true;
        }
    }

    private static double requireUnit(final String decision, final String key, final double value)
    {
        if (!(value >= 0.0 && value <= 1.0))
        {
            throw new IllegalArgumentException("decision " + decision + ": " + key + " must be in 0..1: " + value);
        }
        return value;
    }

    private static double requireCeiling(final String decision, final String key, final double value)
    {
        if (!(value >= 0.0) || value == Double.POSITIVE_INFINITY)
        {
            throw new IllegalArgumentException("decision " + decision + ": " + key + " must be finite and >= 0: " + value);
        }
        return value;
    }

    private static double[] nanArray(final int n)
    {
        final double[] array = new double[n];
        Arrays.fill(array, Double.NaN);
        return array;
    }

    /** @return the parameters of llm-d's profiles, which {@code llmd_weighted} and {@code llmd_sticky} read. */
    public LlmdParameters llmd()
    {
        return peerParameters.llmd();
    }
}
