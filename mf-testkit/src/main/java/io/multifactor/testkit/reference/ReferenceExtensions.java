package io.multifactor.testkit.reference;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The extension keys of a decision, as written in the YAML: the quality floor, the latency metric, the cost mix, the
 * objective with its priority and tolerance, the tie band and the tie break. {@link #NONE} is every default, under
 * which a selection is the plain weighted one.
 * <p>
 * Instances are immutable and threadsafe.
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
public record ReferenceExtensions(
    double minQuality,
    String latencyMetric,
    double costMixPrompt,
    double costMixCompletion,
    String objective,
    List<String> priority,
    double tolerance,
    double tieBand,
    String tieBreak)
{
    /** Every key absent. */
    public static final ReferenceExtensions NONE =
        new ReferenceExtensions(0.0, "auto", 1.0, 0.0, "weighted", List.of(), 0.0, 0.0, "first");

    /** The factor labels, in the order of {@code weights}. */
    public static final List<String> FACTORS = List.of("quality", "latency", "cost", "load");

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
            if (!FACTORS.contains(factor) || !seen.add(factor))
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
    }

    /** @return whether the objective is lexicographic. */
    public boolean lexicographic()
    {
        return "lexicographic".equals(objective);
    }

    /**
     * @param floor quality floor, 0 = off.
     * @return a copy with this floor.
     */
    public ReferenceExtensions withMinQuality(final double floor)
    {
        return new ReferenceExtensions(
            floor, latencyMetric, costMixPrompt, costMixCompletion, objective, priority, tolerance, tieBand, tieBreak);
    }

    /**
     * @param metric {@code auto}, {@code tpot} or {@code ttft}.
     * @return a copy with this latency metric.
     */
    public ReferenceExtensions withLatencyMetric(final String metric)
    {
        return new ReferenceExtensions(
            minQuality, metric, costMixPrompt, costMixCompletion, objective, priority, tolerance, tieBand, tieBreak);
    }

    /**
     * @param prompt prompt share.
     * @param completion completion share.
     * @return a copy with this cost mix.
     */
    public ReferenceExtensions withCostMix(final double prompt, final double completion)
    {
        return new ReferenceExtensions(
            minQuality, latencyMetric, prompt, completion, objective, priority, tolerance, tieBand, tieBreak);
    }

    /**
     * @param tolerancePerFactor lexicographic tolerance.
     * @param priorityFactors factor labels, most important first.
     * @return a copy with the lexicographic objective (and no tie band).
     */
    public ReferenceExtensions withLexicographic(final double tolerancePerFactor, final List<String> priorityFactors)
    {
        return new ReferenceExtensions(
            minQuality, latencyMetric, costMixPrompt, costMixCompletion, "lexicographic", priorityFactors,
            tolerancePerFactor, 0.0, tieBreak);
    }

    /**
     * @param band weighted tie band.
     * @param breakRule {@code first} or {@code random}.
     * @return a copy with these tie settings.
     */
    public ReferenceExtensions withTies(final double band, final String breakRule)
    {
        return new ReferenceExtensions(
            minQuality, latencyMetric, costMixPrompt, costMixCompletion, objective, priority, tolerance, band, breakRule);
    }
}
