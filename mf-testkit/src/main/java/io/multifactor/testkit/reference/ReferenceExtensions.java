package io.multifactor.testkit.reference;

import io.multifactor.api.Factor;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The keys of a decision beyond the seed's, as written in the YAML: the quality floor, the latency
 * metric, the cost mix, the objective with its priority and tolerance, the tie band and tie break, the pick, the load
 * metric with {@code max_inflight_tokens}, and the servers' ceilings {@code max_queue}, {@code max_kv_cache} with
 * {@code when_stale}. {@link #NONE} is every default, under which a selection is the seed's. (The weights of every
 * factor, the seed's and the others, are the decision's.)
 * <p>
 * Instances are immutable and threadsafe.
 *
 * @param minQuality {@code slo.min_quality}, 0 when off.
 * @param latencyMetric {@code auto}, {@code tpot} or {@code ttft}.
 * @param costMixPrompt {@code cost_mix.prompt}.
 * @param costMixCompletion {@code cost_mix.completion}.
 * @param objective {@code weighted} or {@code lexicographic}.
 * @param priority factor labels ({@link Factor}), most important first; empty when weighted.
 * @param tolerance lexicographic tolerance, 0..1.
 * @param tieBand weighted tie band, 0..1.
 * @param tieBreak {@code first} or {@code random}.
 * @param pick {@code best} or {@code p2c}.
 * @param tokenLoad {@code load_metric: tokens}: the load N(m) is the in-flight tokens, not the in-flight requests.
 * @param maxInflightTokens {@code max_inflight_tokens}, 0 when off.
 * @param maxQueue {@code max_queue}, 0 when off.
 * @param maxKvCache {@code max_kv_cache}, 0 when off.
 * @param whenStaleSaturated {@code when_stale: saturated}.
 */
public record ReferenceExtensions(
    double minQuality,
    String latencyMetric,
    double costMixPrompt,
    double costMixCompletion,
    String objective,
    List<String> priority,
    double tolerance,
    double tieBand,
    String tieBreak,
    String pick,
    boolean tokenLoad,
    long maxInflightTokens,
    long maxQueue,
    double maxKvCache,
    boolean whenStaleSaturated)
{
    /** Every key absent. */
    public static final ReferenceExtensions NONE = new ReferenceExtensions(
        0.0, "auto", 1.0, 0.0, "weighted", List.of(), 0.0, 0.0, "first");

    /**
     * Copies the priority and checks every value as the configuration does.
     *
     * @throws IllegalArgumentException for a value the configuration would refuse.
     */
    public ReferenceExtensions
    {
        Objects.requireNonNull(latencyMetric, "latencyMetric");
        Objects.requireNonNull(objective, "objective");
        Objects.requireNonNull(tieBreak, "tieBreak");
        Objects.requireNonNull(pick, "pick");
        priority = List.copyOf(priority);
        if (!(minQuality >= 0.0) || Double.isInfinite(minQuality))
        {
            throw new IllegalArgumentException("min_quality must be finite and >= 0: " + minQuality);
        }
        if (!List.of("auto", "tpot", "ttft").contains(latencyMetric))
        {
            throw new IllegalArgumentException("unknown latency_metric " + latencyMetric);
        }
        if (!(costMixPrompt >= 0.0) || !(costMixCompletion >= 0.0) || Double.isInfinite(costMixPrompt + costMixCompletion) ||
            costMixPrompt + costMixCompletion == 0.0)
        {
            throw new IllegalArgumentException("cost_mix must be finite, >= 0, not both 0: " + costMixPrompt + ", " +
                costMixCompletion);
        }
        final boolean lexicographic = "lexicographic".equals(objective);
        if (!lexicographic && !"weighted".equals(objective))
        {
            throw new IllegalArgumentException("unknown objective " + objective);
        }
        if (lexicographic == priority.isEmpty())
        {
            throw new IllegalArgumentException("priority is required by, and only by, the lexicographic objective");
        }
        final Set<String> seen = new HashSet<>();
        for (final String factor : priority)
        {
            if (Factor.parse(factor) < 0 || !seen.add(factor))
            {
                throw new IllegalArgumentException("unknown or duplicate priority factor " + factor);
            }
        }
        if (!(tolerance >= 0.0 && tolerance <= 1.0) || !(tieBand >= 0.0 && tieBand <= 1.0))
        {
            throw new IllegalArgumentException("tolerance and tie_band must be in 0..1");
        }
        if (lexicographic && tieBand != 0.0)
        {
            throw new IllegalArgumentException("tie_band is for the weighted objective only");
        }
        if (!"first".equals(tieBreak) && !"random".equals(tieBreak))
        {
            throw new IllegalArgumentException("unknown tie_break " + tieBreak);
        }
        if (!"best".equals(pick) && !"p2c".equals(pick))
        {
            throw new IllegalArgumentException("unknown pick " + pick);
        }
        if ("p2c".equals(pick) && (lexicographic || tieBand != 0.0 || "random".equals(tieBreak)))
        {
            throw new IllegalArgumentException("pick: p2c is refused with lexicographic, tie_band > 0, tie_break random");
        }
        if (maxInflightTokens < 0 || maxQueue < 0 || !(maxKvCache >= 0.0))
        {
            throw new IllegalArgumentException("ceilings must be >= 0: " + maxInflightTokens + ", " + maxQueue + ", " +
                maxKvCache);
        }
    }

    /**
     * The extension keys, with the pick, load and server keys at their defaults ({@code pick: best}, {@code load_metric: requests},
     * no ceiling, {@code when_stale: ignore}).
     *
     * @param minQuality {@code slo.min_quality}, 0 when off.
     * @param latencyMetric {@code auto}, {@code tpot} or {@code ttft}.
     * @param costMixPrompt {@code cost_mix.prompt}.
     * @param costMixCompletion {@code cost_mix.completion}.
     * @param objective {@code weighted} or {@code lexicographic}.
     * @param priority factor labels, most important first; empty when weighted.
     * @param tolerance lexicographic tolerance, 0..1.
     * @param tieBand weighted tie band, 0..1.
     * @param tieBreak {@code first} or {@code random}.
     */
    public ReferenceExtensions(
        final double minQuality,
        final String latencyMetric,
        final double costMixPrompt,
        final double costMixCompletion,
        final String objective,
        final List<String> priority,
        final double tolerance,
        final double tieBand,
        final String tieBreak)
    {
        this(minQuality, latencyMetric, costMixPrompt, costMixCompletion, objective, priority, tolerance, tieBand,
            tieBreak, "best", false, 0L, 0L, 0.0, false);
    }

    /** @return whether the objective is lexicographic. */
    public boolean lexicographic()
    {
        return "lexicographic".equals(objective);
    }

    /** @return whether the pick is the power of two choices. */
    public boolean p2c()
    {
        return "p2c".equals(pick);
    }

    /**
     * @param floor quality floor, 0 = off.
     * @return a copy with this floor.
     */
    public ReferenceExtensions withMinQuality(final double floor)
    {
        return new ReferenceExtensions(floor, latencyMetric, costMixPrompt, costMixCompletion, objective, priority,
            tolerance, tieBand, tieBreak, pick, tokenLoad, maxInflightTokens, maxQueue, maxKvCache, whenStaleSaturated);
    }

    /**
     * @param prompt prompt share.
     * @param completion completion share.
     * @return a copy with this cost mix.
     */
    public ReferenceExtensions withCostMix(final double prompt, final double completion)
    {
        return new ReferenceExtensions(minQuality, latencyMetric, prompt, completion, objective, priority, tolerance,
            tieBand, tieBreak, pick, tokenLoad, maxInflightTokens, maxQueue, maxKvCache, whenStaleSaturated);
    }

    /**
     * @param tolerancePerFactor lexicographic tolerance.
     * @param priorityFactors factor labels, most important first.
     * @return a copy with the lexicographic objective (and no tie band).
     */
    public ReferenceExtensions withLexicographic(final double tolerancePerFactor, final List<String> priorityFactors)
    {
        return new ReferenceExtensions(minQuality, latencyMetric, costMixPrompt, costMixCompletion, "lexicographic",
            priorityFactors, tolerancePerFactor, 0.0, tieBreak, pick, tokenLoad, maxInflightTokens, maxQueue, maxKvCache,
            whenStaleSaturated);
    }

    /**
     * @param band weighted tie band.
     * @param breakRule {@code first} or {@code random}.
     * @return a copy with these tie settings.
     */
    public ReferenceExtensions withTies(final double band, final String breakRule)
    {
        return new ReferenceExtensions(minQuality, latencyMetric, costMixPrompt, costMixCompletion, objective, priority,
            tolerance, band, breakRule, pick, tokenLoad, maxInflightTokens, maxQueue, maxKvCache, whenStaleSaturated);
    }

    /**
     * @param pickRule {@code best} or {@code p2c}.
     * @return a copy with this pick.
     */
    public ReferenceExtensions withPick(final String pickRule)
    {
        return new ReferenceExtensions(minQuality, latencyMetric, costMixPrompt, costMixCompletion, objective, priority,
            tolerance, tieBand, tieBreak, pickRule, tokenLoad, maxInflightTokens, maxQueue, maxKvCache,
            whenStaleSaturated);
    }

    /**
     * @param tokens {@code load_metric: tokens}.
     * @param ceiling {@code max_inflight_tokens}, 0 = off.
     * @return a copy with these token-load keys.
     */
    public ReferenceExtensions withTokenLoad(final boolean tokens, final long ceiling)
    {
        return new ReferenceExtensions(minQuality, latencyMetric, costMixPrompt, costMixCompletion, objective, priority,
            tolerance, tieBand, tieBreak, pick, tokens, ceiling, maxQueue, maxKvCache, whenStaleSaturated);
    }

    /**
     * @param queueCeiling {@code max_queue}, 0 = off.
     * @param kvCacheCeiling {@code max_kv_cache}, 0 = off.
     * @param saturated {@code when_stale: saturated}.
     * @return a copy with these server keys.
     */
    public ReferenceExtensions withServerCeilings(final long queueCeiling, final double kvCacheCeiling,
        final boolean saturated)
    {
        return new ReferenceExtensions(minQuality, latencyMetric, costMixPrompt, costMixCompletion, objective, priority,
            tolerance, tieBand, tieBreak, pick, tokenLoad, maxInflightTokens, queueCeiling, kvCacheCeiling, saturated);
    }

    /** @return whether a key reads a signal beyond the seed's: token load, a token, queue or KV-cache ceiling, stale. */
    public boolean beyondSeed()
    {
        return tokenLoad || maxInflightTokens != 0 || maxQueue != 0 || maxKvCache != 0.0 || whenStaleSaturated;
    }
}
