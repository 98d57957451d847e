package io.multifactor.testkit.reference;

import io.multifactor.api.Factor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A decision as configured, every key that shapes a selection: its candidates in {@code modelRefs} order, the weight of
 * each {@link Factor} as written (before clamping and normalization), the seed's four SLO ceilings (0 = off), the
 * latency percentile, the {@code on_no_candidates} policy, and the keys beyond the seed's.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name decision name.
 * @param candidates candidate models in order; non-empty, no duplicate name.
 * @param weights configured weight of each factor, indexed by {@link Factor}, {@link Factor#COUNT} of them.
 * @param maxTpotMs TPOT ceiling in milliseconds, 0 when off.
 * @param maxTtftMs TTFT ceiling in milliseconds, 0 when off.
 * @param maxCostPer1M cost ceiling in USD per 1M tokens, 0 when off.
 * @param maxInflight in-flight ceiling, 0 when off.
 * @param percentile latency percentile, 1..100.
 * @param policy {@code cheapest}, {@code first} or {@code fail}.
 * @param extensions the keys beyond the seed's.
 */
public record ReferenceDecision(
    String name,
    List<ReferenceModel> candidates,
    List<Double> weights,
    double maxTpotMs,
    double maxTtftMs,
    double maxCostPer1M,
    long maxInflight,
    int percentile,
    String policy,
    ReferenceExtensions extensions)
{
    /** Policy label: pick the cheapest candidate when none survives. */
    public static final String CHEAPEST = "cheapest";

    /** Policy label: pick the first candidate when none survives. */
    public static final String FIRST = "first";

    /** Policy label: select nothing when no candidate survives. */
    public static final String FAIL = "fail";

    /** {@code on_no_candidates: shed}: shed when every eligible candidate was dropped for load, else as fail. */
    public static final String SHED = "shed";

    /**
     * Copies the lists and checks them.
     *
     * @throws IllegalArgumentException for an empty or duplicated candidate list, weights not one finite value per
     *     factor, a negative ceiling, a percentile out of 1..100 or an unknown policy.
     */
    public ReferenceDecision
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(extensions, "extensions");
        candidates = List.copyOf(candidates);
        weights = List.copyOf(weights);
        if (candidates.isEmpty())
        {
            throw new IllegalArgumentException("decision " + name + ": modelRefs must be non-empty");
        }
        final Set<String> names = new HashSet<>();
        for (final ReferenceModel candidate : candidates)
        {
            if (!names.add(candidate.name()))
            {
                throw new IllegalArgumentException("decision " + name + ": duplicate model " + candidate.name());
            }
        }
        if (weights.size() != Factor.COUNT)
        {
            throw new IllegalArgumentException("decision " + name + ": one weight per factor: " + weights);
        }
        for (final double weight : weights)
        {
            if (Double.isNaN(weight) || Double.isInfinite(weight))
            {
                throw new IllegalArgumentException("decision " + name + ": weight must be finite: " + weight);
            }
        }
        if (!(maxTpotMs >= 0.0) || !(maxTtftMs >= 0.0) || !(maxCostPer1M >= 0.0) || maxInflight < 0)
        {
            throw new IllegalArgumentException("decision " + name + ": ceilings must be >= 0");
        }
        if (percentile < 1 || percentile > 100)
        {
            throw new IllegalArgumentException("decision " + name + ": percentile must be in 1..100: " + percentile);
        }
        if (!CHEAPEST.equals(policy) && !FIRST.equals(policy) && !FAIL.equals(policy) && !SHED.equals(policy))
        {
            throw new IllegalArgumentException("decision " + name + ": unknown policy " + policy);
        }
    }

    /**
     * A decision of the seed's keys: these four weights (the other factors' 0) and every key beyond the seed's absent.
     *
     * @param name decision name.
     * @param candidates candidate models in order.
     * @param qualityWeight configured weight of quality.
     * @param latencyWeight configured weight of latency.
     * @param costWeight configured weight of cost.
     * @param loadWeight configured weight of load.
     * @param maxTpotMs TPOT ceiling in milliseconds, 0 when off.
     * @param maxTtftMs TTFT ceiling in milliseconds, 0 when off.
     * @param maxCostPer1M cost ceiling in USD per 1M tokens, 0 when off.
     * @param maxInflight in-flight ceiling, 0 when off.
     * @param percentile latency percentile, 1..100.
     * @param policy {@code cheapest}, {@code first} or {@code fail}.
     */
    public ReferenceDecision(
        final String name,
        final List<ReferenceModel> candidates,
        final double qualityWeight,
        final double latencyWeight,
        final double costWeight,
        final double loadWeight,
        final double maxTpotMs,
        final double maxTtftMs,
        final double maxCostPer1M,
        final long maxInflight,
        final int percentile,
        final String policy)
    {
        this(name, candidates, seedWeights(qualityWeight, latencyWeight, costWeight, loadWeight), maxTpotMs, maxTtftMs,
            maxCostPer1M, maxInflight, percentile, policy, ReferenceExtensions.NONE);
    }

    /**
     * A decision with equal weights, no ceiling, percentile 95 and the {@code cheapest} policy.
     *
     * @param name decision name.
     * @param candidates candidate models in order.
     * @return the decision.
     */
    public static ReferenceDecision withDefaults(final String name, final List<ReferenceModel> candidates)
    {
        return new ReferenceDecision(name, candidates, 0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0, 0L, 95, CHEAPEST);
    }

    /**
     * @param factor a {@link Factor} index.
     * @return its configured weight.
     */
    public double weight(final int factor)
    {
        return weights.get(factor);
    }

    /**
     * @param quality configured weight of quality.
     * @param latency configured weight of latency.
     * @param cost configured weight of cost.
     * @param load configured weight of load.
     * @return a copy with these weights of the seed's four factors (the others' kept).
     */
    public ReferenceDecision withWeights(final double quality, final double latency, final double cost, final double load)
    {
        final List<Double> next = new ArrayList<>(weights);
        next.set(Factor.QUALITY, quality);
        next.set(Factor.LATENCY, latency);
        next.set(Factor.COST, cost);
        next.set(Factor.LOAD, load);
        return withWeights(next);
    }

    /**
     * @param factor a {@link Factor} index.
     * @param weight its configured weight.
     * @return a copy with this weight of the factor (the others' kept).
     */
    public ReferenceDecision withWeight(final int factor, final double weight)
    {
        final List<Double> next = new ArrayList<>(weights);
        next.set(factor, weight);
        return withWeights(next);
    }

    /**
     * @param configured the configured weight of each factor, indexed by {@link Factor}.
     * @return a copy with these weights.
     */
    public ReferenceDecision withWeights(final List<Double> configured)
    {
        return new ReferenceDecision(name, candidates, configured, maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight,
            percentile, policy, extensions);
    }

    /**
     * @param tpotMs TPOT ceiling in milliseconds, 0 = off.
     * @param ttftMs TTFT ceiling in milliseconds, 0 = off.
     * @param costPer1M cost ceiling, 0 = off.
     * @param inflight in-flight ceiling, 0 = off.
     * @return a copy with these ceilings.
     */
    public ReferenceDecision withCeilings(final double tpotMs, final double ttftMs, final double costPer1M, final long inflight)
    {
        return new ReferenceDecision(name, candidates, weights, tpotMs, ttftMs, costPer1M, inflight, percentile, policy,
            extensions);
    }

    /**
     * @param policyLabel {@code cheapest}, {@code first} or {@code fail}.
     * @return a copy with this policy.
     */
    public ReferenceDecision withPolicy(final String policyLabel)
    {
        return new ReferenceDecision(name, candidates, weights, maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight,
            percentile, policyLabel, extensions);
    }

    /**
     * @param candidatesInOrder the same or other candidates, in a new order.
     * @return a copy with these candidates.
     */
    public ReferenceDecision withCandidates(final List<ReferenceModel> candidatesInOrder)
    {
        return new ReferenceDecision(name, candidatesInOrder, weights, maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight,
            percentile, policy, extensions);
    }

    /**
     * @param keys the keys beyond the seed's.
     * @return a copy with these keys.
     */
    public ReferenceDecision withExtensions(final ReferenceExtensions keys)
    {
        return new ReferenceDecision(name, candidates, weights, maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight,
            percentile, policy, keys);
    }

    /** @return whether it weighs a factor beyond the seed's, or a key beyond the seed's reads such a signal. */
    public boolean beyondSeed()
    {
        for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
        {
            if (weights.get(f) > 0.0)
            {
                return true;
            }
        }
        return extensions.beyondSeed();
    }

    private static List<Double> seedWeights(final double quality, final double latency, final double cost,
        final double load)
    {
        final List<Double> weights = new ArrayList<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            weights.add(0.0);
        }
        weights.set(Factor.QUALITY, quality);
        weights.set(Factor.LATENCY, latency);
        weights.set(Factor.COST, cost);
        weights.set(Factor.LOAD, load);
        return weights;
    }
}
