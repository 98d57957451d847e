package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Outcome;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * docs/semantics.md with every optional extension (quality floor, latency metric, cost mix and request tokens,
 * lexicographic objective, near ties), written from the formulas for clarity: one object per candidate, lists and maps,
 * the real-number expressions as the design writes them ({@code (x - min) / (max - min)},
 * {@code (a*P + b*K) / (a + b)}). It shares no code or expression with the kernel nor with {@link ReferenceScorer}, so
 * an agreement between them means something; they agree to 1e-9 in scores, not bit for bit, and a tie set or a
 * finalist set is comparable only when {@link ReferenceRanking#boundaryMargin()} says no value sat on a threshold.
 * <p>
 * This class is stateless and threadsafe (the caller's {@link Random} is used by one thread at a time).
 */
public final class ExtendedReferenceScorer
{
    private ExtendedReferenceScorer()
    {
    }

    /**
     * Runs one selection.
     *
     * @param decision the decision: candidates, weights, ceilings, percentile and policy.
     * @param extensions the extension keys of the decision.
     * @param request observations, exclusions and token counts.
     * @param random draws the winner among tied candidates under {@code tie_break: random}; unused otherwise (may then
     *     be {@code null}).
     * @return the selection and its boundary margin.
     */
    public static ReferenceRanking select(
        final ReferenceDecision decision,
        final ReferenceExtensions extensions,
        final ReferenceRequest request,
        final Random random)
    {
        final List<Row> rows = new ArrayList<>();
        for (final ReferenceModel model : decision.candidates())
        {
            rows.add(new Row(model, request.observation(model.name()), decision, extensions, request));
        }
        final Map<String, Double> weights = weights(decision);

        boolean anyNotExcluded = false;
        final List<Row> survivors = new ArrayList<>();
        for (final Row row : rows)
        {
            if (!row.excluded)
            {
                anyNotExcluded = true;
                row.dropReason = dropReason(row, decision, extensions);
            }
            if (row.dropReason == DropReason.NONE)
            {
                survivors.add(row);
            }
        }
        if (!anyNotExcluded)
        {
            return finish(decision, rows, weights, Outcome.FAILED, null, Double.POSITIVE_INFINITY);
        }
        if (survivors.isEmpty())
        {
            return fallback(decision, rows, weights);
        }

        for (final String factor : ReferenceExtensions.FACTORS)
        {
            normalize(survivors, factor);
        }

        final List<Row> tied = new ArrayList<>();
        double margin = Double.POSITIVE_INFINITY;
        if (extensions.lexicographic())
        {
            List<Row> remaining = new ArrayList<>(survivors);
            for (final String factor : extensions.priority())
            {
                double best = Double.NEGATIVE_INFINITY;
                for (final Row row : remaining)
                {
                    best = Math.max(best, row.normalized.get(factor));
                }
                final double threshold = best - extensions.tolerance();
                final List<Row> kept = new ArrayList<>();
                for (final Row row : remaining)
                {
                    final double value = row.normalized.get(factor);
                    if (value != best)
                    {
                        margin = Math.min(margin, Math.abs(value - threshold));
                    }
                    if (value >= threshold)
                    {
                        kept.add(row);
                    }
                    else
                    {
                        row.eliminatedBy = factor;
                    }
                }
                remaining = kept;
            }
            for (final Row row : survivors)
            {
                row.score = row.normalized.get(extensions.priority().get(0));
            }
            tied.addAll(remaining);
        }
        else
        {
            double best = Double.NEGATIVE_INFINITY;
            for (final Row row : survivors)
            {
                double sum = 0.0;
                for (final String factor : ReferenceExtensions.FACTORS)
                {
                    sum += weights.get(factor) * row.normalized.get(factor);
                }
                row.score = sum;
                best = Math.max(best, sum);
            }
            final double threshold = best - extensions.tieBand();
            for (final Row row : survivors)
            {
                if (row.score != best)
                {
                    margin = Math.min(margin, Math.abs(row.score - threshold));
                }
                if (row.score >= threshold)
                {
                    tied.add(row);
                }
            }
        }
        for (final Row row : tied)
        {
            row.tied = true;
        }
        final Row winner = "random".equals(extensions.tieBreak()) ? tied.get(random.nextInt(tied.size())) : tied.get(0);
        return finish(decision, rows, weights, Outcome.SCORED, winner, margin);
    }

    /**
     * The cost per 1M tokens of a model under a mix: {@code (a*P + b*K) / (a + b)}, missing when a price with a non-zero
     * share is missing.
     *
     * @param model the model.
     * @param promptShare a.
     * @param completionShare b.
     * @return the cost, {@code null} when missing.
     */
    public static Double cost(final ReferenceModel model, final double promptShare, final double completionShare)
    {
        if ((promptShare > 0 && model.promptPer1M() == null) || (completionShare > 0 && model.completionPer1M() == null))
        {
            return null;
        }
        final double p = promptShare > 0 ? promptShare * model.promptPer1M() : 0.0;
        final double k = completionShare > 0 ? completionShare * model.completionPer1M() : 0.0;
        return (p + k) / (promptShare + completionShare);
    }

    private static int dropReason(final Row row, final ReferenceDecision decision, final ReferenceExtensions extensions)
    {
        final double floor = extensions.minQuality();
        if (floor > 0 && (row.model.quality() == null || row.model.quality() < floor))
        {
            return DropReason.QUALITY;
        }
        if (above(row.observation.tpotMs(), decision.maxTpotMs()))
        {
            return DropReason.TPOT;
        }
        if (above(row.observation.ttftMs(), decision.maxTtftMs()))
        {
            return DropReason.TTFT;
        }
        if (above(row.cost, decision.maxCostPer1M()))
        {
            return DropReason.COST;
        }
        if (decision.maxInflight() > 0 && row.observation.inflight() > decision.maxInflight())
        {
            return DropReason.INFLIGHT;
        }
        return DropReason.NONE;
    }

    private static boolean above(final Double value, final double ceiling)
    {
        return ceiling > 0 && value != null && value > ceiling;
    }

    private static Map<String, Double> weights(final ReferenceDecision decision)
    {
        final double[] configured =
            { decision.qualityWeight(), decision.latencyWeight(), decision.costWeight(), decision.loadWeight() };
        double total = 0;
        for (final double w : configured)
        {
            total += Math.max(0.0, w);
        }
        final Map<String, Double> weights = new LinkedHashMap<>();
        for (int f = 0; f < configured.length; f++)
        {
            weights.put(ReferenceExtensions.FACTORS.get(f), total == 0 ? 0.25 : Math.max(0.0, configured[f]) / total);
        }
        return weights;
    }

    /** Min-max over the survivors that have the signal; latency, cost and load inverted. */
    private static void normalize(final List<Row> survivors, final String factor)
    {
        final boolean higherIsBetter = "quality".equals(factor);
        Double min = null;
        Double max = null;
        for (final Row row : survivors)
        {
            final Double value = row.raw(factor);
            if (value != null)
            {
                min = min == null || value < min ? value : min;
                max = max == null || value > max ? value : max;
            }
        }
        for (final Row row : survivors)
        {
            final Double value = row.raw(factor);
            final double normalized;
            if (value == null)
            {
                normalized = 0.0;
            }
            else if (max.equals(min))
            {
                normalized = 0.5;
            }
            else
            {
                final double fraction = (value - min) / (max - min);
                normalized = higherIsBetter ? fraction : 1.0 - fraction;
            }
            row.normalized.put(factor, normalized);
        }
    }

    private static ReferenceRanking fallback(
        final ReferenceDecision decision, final List<Row> rows, final Map<String, Double> weights)
    {
        Row first = null;
        Row cheapest = null;
        for (final Row row : rows)
        {
            if (row.excluded)
            {
                continue;
            }
            if (first == null)
            {
                first = row;
            }
            if (row.cost != null && (cheapest == null || row.cost < cheapest.cost))
            {
                cheapest = row;
            }
        }
        switch (decision.policy())
        {
            case ReferenceDecision.FIRST:
                return finish(decision, rows, weights, Outcome.FALLBACK_FIRST, first, Double.POSITIVE_INFINITY);
            case ReferenceDecision.FAIL:
                return finish(decision, rows, weights, Outcome.FAILED, null, Double.POSITIVE_INFINITY);
            default:
                return finish(decision, rows, weights, Outcome.FALLBACK_CHEAPEST, cheapest != null ? cheapest : first,
                    Double.POSITIVE_INFINITY);
        }
    }

    private static ReferenceRanking finish(
        final ReferenceDecision decision,
        final List<Row> rows,
        final Map<String, Double> weights,
        final int outcome,
        final Row winner,
        final double margin)
    {
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        for (final Row row : rows)
        {
            final boolean scored = row.score != null;
            candidates.add(new ReferenceCandidate(
                row.model.name(),
                row.dropReason,
                row.model.quality(),
                row.observation.tpotMs(),
                row.observation.ttftMs(),
                row.cost,
                row.observation.inflight(),
                scored ? row.normalized : Map.of(),
                row.score,
                row.eliminatedBy,
                row.tied));
        }
        final int index = winner == null ? -1 : rows.indexOf(winner);
        return new ReferenceRanking(
            new ReferenceResult(decision.name(), outcome, index, winner == null ? null : winner.model.name(), weights,
                candidates),
            margin);
    }

    /** One candidate while it is being ranked. */
    private static final class Row
    {
        final ReferenceModel model;
        final ReferenceObservation observation;
        final boolean excluded;
        final Double latency;
        final Double cost;
        final Map<String, Double> normalized = new HashMap<>();
        int dropReason;
        Double score;
        String eliminatedBy;
        boolean tied;

        Row(
            final ReferenceModel model,
            final ReferenceObservation observation,
            final ReferenceDecision decision,
            final ReferenceExtensions extensions,
            final ReferenceRequest request)
        {
            this.model = model;
            this.observation = observation;
            this.excluded = request.excluded().contains(model.name());
            this.dropReason = excluded ? DropReason.EXCLUDED : DropReason.NONE;
            switch (extensions.latencyMetric())
            {
                case "tpot":
                    latency = observation.tpotMs();
                    break;
                case "ttft":
                    latency = observation.ttftMs();
                    break;
                default:
                    latency = observation.tpotMs() != null ? observation.tpotMs() : observation.ttftMs();
                    break;
            }
            final long promptTokens = request.promptTokens() == null ? 0 : request.promptTokens();
            final long outputTokens = request.maxOutputTokens() == null ? 0 : request.maxOutputTokens();
            // A request's token counts replace the decision's mix when it carries any.
            cost = promptTokens + outputTokens > 0 ?
                cost(model, promptTokens, outputTokens) :
                cost(model, extensions.costMixPrompt(), extensions.costMixCompletion());
        }

        Double raw(final String factor)
        {
            switch (factor)
            {
                case "quality":
                    return model.quality();
                case "latency":
                    return latency;
                case "cost":
                    return cost;
                default:
                    return (double)observation.inflight();
            }
        }
    }
}
