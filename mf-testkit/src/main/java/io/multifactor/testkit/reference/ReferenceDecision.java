package io.multifactor.testkit.reference;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A decision as configured: its candidates in {@code modelRefs} order, the weights as written (before clamping and
 * normalization), the four SLO ceilings (0 = off), the latency percentile and the {@code on_no_candidates} policy.
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param name decision name.
 * @param candidates candidate models in order; non-empty, no duplicate name.
 * @param qualityWeight configured weight of quality.
 * @param latencyWeight configured weight of latency.
 * @param costWeight configured weight of cost.
 * @param loadWeight configured weight of load.
 * @param maxTpotMs TPOT ceiling in milliseconds, 0 when off.
 * @param maxTtftMs TTFT ceiling in milliseconds, 0 when off.
 * @param maxCostPer1M prompt price ceiling in USD per 1M tokens, 0 when off.
 * @param maxInflight in-flight ceiling, 0 when off.
 * @param percentile latency percentile, 1..100.
 * @param policy {@code cheapest}, {@code first} or {@code fail}.
 */
public record ReferenceDecision(
    String name,
    List<ReferenceModel> candidates,
    double qualityWeight,
    double latencyWeight,
    double costWeight,
    double loadWeight,
    double maxTpotMs,
    double maxTtftMs,
    double maxCostPer1M,
    long maxInflight,
    int percentile,
    String policy)
{
    /** Policy label: pick the cheapest candidate when none survives. */
    public static final String CHEAPEST = "cheapest";

    /** Policy label: pick the first candidate when none survives. */
    public static final String FIRST = "first";

    /** Policy label: select nothing when no candidate survives. */
    public static final String FAIL = "fail";

    /**
     * Copies the candidate list and checks it.
     *
     * @throws IllegalArgumentException for an empty or duplicated candidate list, a negative ceiling, a percentile out
     *     of 1..100 or an unknown policy.
     */
    public ReferenceDecision
    {
        Objects.requireNonNull(name, "name");
        candidates = List.copyOf(candidates);
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
        if (!(maxTpotMs >= 0.0) || !(maxTtftMs >= 0.0) || !(maxCostPer1M >= 0.0) || maxInflight < 0)
        {
            throw new IllegalArgumentException("decision " + name + ": ceilings must be >= 0");
        }
        if (percentile < 1 || percentile > 100)
        {
            throw new IllegalArgumentException("decision " + name + ": percentile must be in 1..100: " + percentile);
        }
        if (!CHEAPEST.equals(policy) && !FIRST.equals(policy) && !FAIL.equals(policy))
        {
            throw new IllegalArgumentException("decision " + name + ": unknown policy " + policy);
        }
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
     * @param quality configured weight of quality.
     * @param latency configured weight of latency.
     * @param cost configured weight of cost.
     * @param load configured weight of load.
     * @return a copy with these weights.
     */
    public ReferenceDecision withWeights(final double quality, final double latency, final double cost, final double load)
    {
        return new ReferenceDecision(
            name, candidates, quality, latency, cost, load, maxTpotMs, maxTtftMs, maxCostPer1M, maxInflight, percentile,
            policy);
    }

    /**
     * @param tpotMs TPOT ceiling in milliseconds, 0 = off.
     * @param ttftMs TTFT ceiling in milliseconds, 0 = off.
     * @param costPer1M prompt price ceiling, 0 = off.
     * @param inflight in-flight ceiling, 0 = off.
     * @return a copy with these ceilings.
     */
    public ReferenceDecision withCeilings(final double tpotMs, final double ttftMs, final double costPer1M, final long inflight)
    {
        return new ReferenceDecision(
            name, candidates, qualityWeight, latencyWeight, costWeight, loadWeight, tpotMs, ttftMs, costPer1M, inflight,
            percentile, policy);
    }

    /**
     * @param policyLabel {@code cheapest}, {@code first} or {@code fail}.
     * @return a copy with this policy.
     */
    public ReferenceDecision withPolicy(final String policyLabel)
    {
        return new ReferenceDecision(
            name, candidates, qualityWeight, latencyWeight, costWeight, loadWeight, maxTpotMs, maxTtftMs, maxCostPer1M,
            maxInflight, percentile, policyLabel);
    }

    /**
     * @param candidatesInOrder the same or other candidates, in a new order.
     * @return a copy with these candidates.
     */
    public ReferenceDecision withCandidates(final List<ReferenceModel> candidatesInOrder)
    {
        return new ReferenceDecision(
            name, candidatesInOrder, qualityWeight, latencyWeight, costWeight, loadWeight, maxTpotMs, maxTtftMs,
            maxCostPer1M, maxInflight, percentile, policy);
    }
}
