package io.multifactor.testkit.reference;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules of one selection with the model-server signals, written for clarity from the documented formulas, not
 * from the kernel: the oracle of the queue and KV-cache factors and ceilings.
 * <ul>
 * <li>drops, the first that applies: excluded; the seed's ceilings (TPOT, TTFT, cost, in-flight, as
 *     {@link ReferenceScorer#sloDropReason}); then {@code queue} when W(m) &gt; {@code max_queue}, {@code kv_cache} when
 *     K(m) &gt; {@code max_kv_cache} (0: off; a missing value never drops), then {@code stale} when
 *     {@code when_stale: saturated}, the decision sets one of the two ceilings, and the model's servers are all
 *     stale;</li>
 * <li>weights: the six clamped at 0 and divided by their sum; all 0: the seed's four 0.25, queue and KV-cache 0;</li>
 * <li>score: the seed's four terms plus {@code wW * (1 - W^) + wK * (1 - K^)}, each factor min-max normalized over the
 *     survivors that have it (inverted for latency, cost, load, queue and KV-cache), 0.5 when they share one value, 0
 *     when missing; the highest wins, ties to the earlier;</li>
 * <li>no survivor: the seed's {@code on_no_candidates}.</li>
 * </ul>
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ServerSignalsReference
{
    private ServerSignalsReference()
    {
    }

    /**
     * @param c the problem.
     * @return the outcome, the choice, every candidate's drop reason, its six normalized factors and score.
     */
    public static ReferenceResult select(final ServerSignalsCase c)
    {
        final ReferenceDecision decision = c.decision();
        final ReferenceRequest request = c.request();
        final double[] weights = effectiveWeights(new double[] {decision.qualityWeight(), decision.latencyWeight(),
            decision.costWeight(), decision.loadWeight(), c.queueWeight(), c.kvCacheWeight()});
        final List<ReferenceModel> models = decision.candidates();
        final List<Integer> reasons = new ArrayList<>();
        final List<Integer> survivors = new ArrayList<>();
        boolean anyNotExcluded = false;
        for (int i = 0; i < models.size(); i++)
        {
            final ReferenceModel model = models.get(i);
            int reason;
            if (request.excluded().contains(model.name()))
            {
                reason = DropReason.EXCLUDED;
            }
            else
            {
                anyNotExcluded = true;
                reason = ReferenceScorer.sloDropReason(decision, model, request.observation(model.name()));
                if (reason == DropReason.NONE)
                {
                    reason = serverDropReason(c, model.name());
                }
            }
            reasons.add(reason);
            if (reason == DropReason.NONE)
            {
                survivors.add(i);
            }
        }
        if (!anyNotExcluded)
        {
            return result(c, Outcome.FAILED, -1, weights, reasons, null, null);
        }
        if (survivors.isEmpty())
        {
            return noSurvivor(c, weights, reasons);
        }
        final List<List<Double>> columns = new ArrayList<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            columns.add(new ArrayList<>());
        }
        for (final int i : survivors)
        {
            final ReferenceModel model = models.get(i);
            final ReferenceObservation observation = request.observation(model.name());
            columns.get(Factor.QUALITY).add(model.quality());
            columns.get(Factor.LATENCY).add(observation.tpotMs() != null ? observation.tpotMs() : observation.ttftMs());
            columns.get(Factor.COST).add(model.promptPer1M());
            columns.get(Factor.LOAD).add((double)observation.inflight());
            columns.get(Factor.QUEUE).add(c.queue().get(model.name()));
            columns.get(Factor.KV_CACHE).add(c.kvCache().get(model.name()));
        }
        final List<List<Double>> normalized = new ArrayList<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            normalized.add(normalize(columns.get(f), f != Factor.QUALITY));
        }
        final Map<Integer, double[]> normalizedByIndex = new LinkedHashMap<>();
        final Map<Integer, Double> scoreByIndex = new LinkedHashMap<>();
        int best = -1;
        for (int s = 0; s < survivors.size(); s++)
        {
            final int i = survivors.get(s);
            final double[] n = new double[Factor.COUNT];
            double score = 0.0;
            for (int f = 0; f < Factor.COUNT; f++)
            {
                n[f] = normalized.get(f).get(s);
                score += weights[f] * n[f];
            }
            normalizedByIndex.put(i, n);
            scoreByIndex.put(i, score);
            if (best < 0 || score > scoreByIndex.get(best))
            {
                best = i;
            }
        }
        return result(c, Outcome.SCORED, best, weights, reasons, normalizedByIndex, scoreByIndex);
    }

    /**
     * @param c the problem.
     * @param model a candidate that broke none of the seed's ceilings.
     * @return {@link DropReason#QUEUE}, {@link DropReason#KV_CACHE}, {@link DropReason#STALE} or
     *     {@link DropReason#NONE}.
     */
    static int serverDropReason(final ServerSignalsCase c, final String model)
    {
        final Double queue = c.queue().get(model);
        final Double kv = c.kvCache().get(model);
        if (c.maxQueue() != 0 && queue != null && queue > c.maxQueue())
        {
            return DropReason.QUEUE;
        }
        if (c.maxKvCache() != 0.0 && kv != null && kv > c.maxKvCache())
        {
            return DropReason.KV_CACHE;
        }
        if (c.whenStaleSaturated() && (c.maxQueue() != 0 || c.maxKvCache() != 0.0) && c.stale().contains(model))
        {
            return DropReason.STALE;
        }
        return DropReason.NONE;
    }

    /**
     * @param configured the six configured weights, in {@link Factor} order.
     * @return clamped at 0 and divided by their sum; all 0: the seed's four 0.25, the others 0.
     */
    static double[] effectiveWeights(final double[] configured)
    {
        final double[] w = new double[Factor.COUNT];
        double sum = 0.0;
        for (int f = 0; f < Factor.COUNT; f++)
        {
            w[f] = configured[f] > 0.0 ? configured[f] : 0.0;
            sum += w[f];
        }
        if (sum == 0.0)
        {
            for (int f = 0; f < Factor.SEED_COUNT; f++)
            {
                w[f] = 0.25;
            }
            return w;
        }
        for (int f = 0; f < Factor.COUNT; f++)
        {
            w[f] /= sum;
        }
        return w;
    }

    private static List<Double> normalize(final List<Double> values, final boolean lowerIsBetter)
    {
        final List<Double> present = new ArrayList<>();
        for (final Double value : values)
        {
            if (value != null)
            {
                present.add(value);
            }
        }
        final List<Double> normalized = new ArrayList<>();
        for (final Double value : values)
        {
            if (value == null)
            {
                normalized.add(0.0);
                continue;
            }
            final double min = Collections.min(present);
            final double max = Collections.max(present);
            if (max == min)
            {
                normalized.add(0.5);
                continue;
            }
            final double t = (value - min) / (max - min);
            normalized.add(lowerIsBetter ? 1.0 - t : t);
        }
        return normalized;
    }

    private static ReferenceResult noSurvivor(final ServerSignalsCase c, final double[] weights,
        final List<Integer> reasons)
    {
        final List<ReferenceModel> models = c.decision().candidates();
        int first = -1;
        int cheapest = -1;
        for (int i = 0; i < models.size(); i++)
        {
            if (reasons.get(i) == DropReason.EXCLUDED)
            {
                continue;
            }
            if (first < 0)
            {
                first = i;
            }
            final Double price = models.get(i).promptPer1M();
            if (price != null && (cheapest < 0 || price < models.get(cheapest).promptPer1M()))
            {
                cheapest = i;
            }
        }
        switch (c.decision().policy())
        {
            case ReferenceDecision.FIRST:
                return result(c, Outcome.FALLBACK_FIRST, first, weights, reasons, null, null);
            case ReferenceDecision.FAIL:
                return result(c, Outcome.FAILED, -1, weights, reasons, null, null);
            default:
                return result(c, Outcome.FALLBACK_CHEAPEST, cheapest >= 0 ? cheapest : first, weights, reasons, null,
                    null);
        }
    }

    private static ReferenceResult result(
        final ServerSignalsCase c,
        final int outcome,
        final int selectedIndex,
        final double[] weights,
        final List<Integer> reasons,
        final Map<Integer, double[]> normalizedByIndex,
        final Map<Integer, Double> scoreByIndex)
    {
        final ReferenceDecision decision = c.decision();
        final List<ReferenceModel> models = decision.candidates();
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        for (int i = 0; i < models.size(); i++)
        {
            final ReferenceModel model = models.get(i);
            final ReferenceObservation observation = c.request().observation(model.name());
            final double[] n = normalizedByIndex == null ? null : normalizedByIndex.get(i);
            candidates.add(new ReferenceCandidate(model.name(), reasons.get(i), model.quality(), observation.tpotMs(),
                observation.ttftMs(), model.promptPer1M(), observation.inflight(), n == null ? Map.of() : factors(n),
                scoreByIndex == null ? null : scoreByIndex.get(i)));
        }
        return new ReferenceResult(decision.name(), outcome, selectedIndex,
            selectedIndex >= 0 ? models.get(selectedIndex).name() : null, factors(weights), candidates);
    }

    /**
     * @param values one value per {@link Factor}.
     * @return the values by factor label, all six.
     */
    static Map<String, Double> factors(final double[] values)
    {
        final Map<String, Double> map = new LinkedHashMap<>();
        for (int f = 0; f < Factor.COUNT; f++)
        {
            map.put(Factor.label(f), values[f]);
        }
        return map;
    }
}
