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
 * The rules of one selection (vLLM Semantic Router's {@code multi_factor}, with the load signals of
 * {@link LoadSignalsCase}: token load, the servers' queue and KV-cache use) written for clarity, not speed: the
 * value-level oracle that the kernel is checked against.
 * <p>
 * It is written from the rules, not from the kernel:
 * <ul>
 * <li>drops, the first that applies: excluded; TPOT, TTFT, cost, in-flight requests ({@code max_inflight}), in-flight
 *     tokens ({@code max_inflight_tokens}, whatever {@code load_metric} says), queue W(m) &gt; {@code max_queue},
 *     KV-cache K(m) &gt; {@code max_kv_cache} (each strictly greater, a ceiling of 0 is off, a missing value never
 *     drops), then {@code stale} when {@code when_stale: saturated}, the decision sets {@code max_queue} or
 *     {@code max_kv_cache}, and the model's servers are all stale;</li>
 * <li>weights: the six clamped at 0 and divided by their sum; all 0: the seed's four 0.25, queue and KV-cache 0;</li>
 * <li>load N(m): the in-flight requests, or with {@code load_metric: tokens} the in-flight tokens;</li>
 * <li>min-max normalization is {@code (x - min) / (max - min)} over the survivors that have the signal (inverted as
 *     {@code 1 - that} for latency, cost, load, queue and KV-cache), 0.5 when every survivor that has the signal shares
 *     one value, 0 for a missing signal; the score is the weighted sum, as computed, with no cap; the highest score
 *     wins and ties go to the earlier candidate;</li>
 * <li>no survivor: {@code on_no_candidates}.</li>
 * </ul>
 * The seed problem ({@link #select(ReferenceDecision, ReferenceRequest)}) is the same rules with every load key at its
 * default, reported with the seed's four factors. The kernel computes the same real-valued quantities with other
 * expressions (a slope prepared once per call), so the two are compared with {@link ScoreTolerance}: scores and
 * normalized factors within 1e-9, and either of two candidates whose scores here are that close accepted as the
 * winner.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferenceScorer
{
    private ReferenceScorer()
    {
    }

    /**
     * Runs one selection of the seed's algorithm.
     *
     * @param decision the decision as configured.
     * @param request the request's observations and exclusions.
     * @return the outcome, the choice and every candidate's drop reason, four normalized factors and score.
     */
    public static ReferenceResult select(final ReferenceDecision decision, final ReferenceRequest request)
    {
        return select(LoadSignalsCase.seed(decision, request), Factor.SEED_COUNT);
    }

    /**
     * Runs one selection with the load signals.
     *
     * @param c the problem.
     * @return the outcome, the choice, every candidate's drop reason, its six normalized factors and score.
     */
    public static ReferenceResult select(final LoadSignalsCase c)
    {
        return select(c, Factor.COUNT);
    }

    private static ReferenceResult select(final LoadSignalsCase c, final int factorCount)
    {
        final ReferenceDecision decision = c.decision();
        final ReferenceRequest request = c.request();
        final double[] weights = effectiveWeights(decision.qualityWeight(), decision.latencyWeight(),
            decision.costWeight(), decision.loadWeight(), c.queueWeight(), c.kvCacheWeight());
        final List<ReferenceModel> models = decision.candidates();

        // 1. Exclusions, then the ceilings.
        final List<Integer> dropReasons = new ArrayList<>();
        final List<Integer> survivors = new ArrayList<>();
        boolean anyNotExcluded = false;
        for (int i = 0; i < models.size(); i++)
        {
            final ReferenceModel model = models.get(i);
            final int reason;
            if (request.excluded().contains(model.name()))
            {
                reason = DropReason.EXCLUDED;
            }
            else
            {
                anyNotExcluded = true;
                reason = dropReason(c, model, request.observation(model.name()));
            }
            dropReasons.add(reason);
            if (reason == DropReason.NONE)
            {
                survivors.add(i);
            }
        }

        if (!anyNotExcluded)
        {
            // Nothing left to fall back to, whatever the policy.
            return result(c, factorCount, Outcome.FAILED, -1, weights, dropReasons, null, null);
        }
        if (survivors.isEmpty())
        {
            return noSurvivor(c, factorCount, weights, dropReasons);
        }

        // 2. Min-max normalization over the survivors that have each signal.
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
            columns.get(Factor.LOAD).add((double)(c.tokenLoad() ? observation.inflightTokens() : observation.inflight()));
            columns.get(Factor.QUEUE).add(c.queue().get(model.name()));
            columns.get(Factor.KV_CACHE).add(c.kvCache().get(model.name()));
        }
        final List<List<Double>> normalized = new ArrayList<>();
        for (int f = 0; f < factorCount; f++)
        {
            normalized.add(normalize(columns.get(f), f != Factor.QUALITY));
        }

        // 3. Weighted sum; the first of the highest scores wins.
        final Map<Integer, double[]> normalizedByIndex = new LinkedHashMap<>();
        final Map<Integer, Double> scoreByIndex = new LinkedHashMap<>();
        int best = -1;
        for (int s = 0; s < survivors.size(); s++)
        {
            final int i = survivors.get(s);
            final double[] n = new double[factorCount];
            double score = 0.0;
            for (int f = 0; f < factorCount; f++)
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
        return result(c, factorCount, Outcome.SCORED, best, weights, dropReasons, normalizedByIndex, scoreByIndex);
    }

    /**
     * Clamps negative weights to 0, replaces all-zero weights by the seed's four 0.25 (the others 0) and divides by the
     * sum.
     *
     * @param configured the configured weights in {@link Factor} order: the seed's four, or all six.
     * @return effective weights indexed by {@link Factor}, all six (queue and KV-cache 0 when not given).
     * @throws IllegalArgumentException for a NaN or infinite weight, or weights whose sum overflows.
     */
    public static double[] effectiveWeights(final double... configured)
    {
        final double[] w = new double[Factor.COUNT];
        double sum = 0.0;
        for (int f = 0; f < configured.length; f++)
        {
            w[f] = clampWeight(configured[f]);
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
        if (Double.isInfinite(sum))
        {
            throw new IllegalArgumentException("weights too large to add up");
        }
        for (int f = 0; f < Factor.COUNT; f++)
        {
            w[f] /= sum;
        }
        return w;
    }

    /**
     * The first ceiling a candidate breaks, in the order TPOT, TTFT, cost, in-flight; a ceiling of 0 is off and a missing
     * value never breaks one.
     *
     * @param decision the decision with the ceilings.
     * @param model the candidate.
     * @param observation what was observed about it.
     * @return a {@link DropReason} code, {@link DropReason#NONE} when it breaks none.
     */
    public static int sloDropReason(
        final ReferenceDecision decision, final ReferenceModel model, final ReferenceObservation observation)
    {
        if (breaks(observation.tpotMs(), decision.maxTpotMs()))
        {
            return DropReason.TPOT;
        }
        if (breaks(observation.ttftMs(), decision.maxTtftMs()))
        {
            return DropReason.TTFT;
        }
        if (breaks(model.promptPer1M(), decision.maxCostPer1M()))
        {
            return DropReason.COST;
        }
        if (decision.maxInflight() != 0 && observation.inflight() > decision.maxInflight())
        {
            return DropReason.INFLIGHT;
        }
        return DropReason.NONE;
    }

    /**
     * @param c the problem: the decision's ceilings and the servers' values.
     * @param model a candidate the request does not exclude.
     * @param observation what was observed about it.
     * @return the first ceiling it breaks, in the order of the class comment, {@link DropReason#NONE} when none.
     */
    private static int dropReason(final LoadSignalsCase c, final ReferenceModel model, final ReferenceObservation observation)
    {
        final int seed = sloDropReason(c.decision(), model, observation);
        if (seed != DropReason.NONE)
        {
            return seed;
        }
        if (c.maxInflightTokens() != 0 && observation.inflightTokens() > c.maxInflightTokens())
        {
            return DropReason.INFLIGHT_TOKENS;
        }
        final Double queue = c.queue().get(model.name());
        if (c.maxQueue() != 0 && queue != null && queue > c.maxQueue())
        {
            return DropReason.QUEUE;
        }
        final Double kvCache = c.kvCache().get(model.name());
        if (breaks(kvCache, c.maxKvCache()))
        {
            return DropReason.KV_CACHE;
        }
        if (c.whenStaleSaturated() && (c.maxQueue() != 0 || c.maxKvCache() != 0.0) && c.stale().contains(model.name()))
        {
            return DropReason.STALE;
        }
        return DropReason.NONE;
    }

    private static boolean breaks(final Double value, final double ceiling)
    {
        return ceiling != 0.0 && value != null && value > ceiling;
    }

    private static double clampWeight(final double weight)
    {
        if (Double.isNaN(weight) || Double.isInfinite(weight))
        {
            throw new IllegalArgumentException("weight must be finite: " + weight);
        }
        return weight > 0.0 ? weight : 0.0;
    }

    /**
     * Min-max normalizes one factor over the survivors.
     *
     * @param values the survivors' values, {@code null} when a survivor does not have the signal.
     * @param lowerIsBetter whether to invert (latency, cost, load).
     * @return one normalized value per survivor: 0 when missing, 0.5 when every survivor that has it shares one value.
     */
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

    private static ReferenceResult noSurvivor(
        final LoadSignalsCase c, final int factorCount, final double[] weights, final List<Integer> dropReasons)
    {
        final List<ReferenceModel> models = c.decision().candidates();
        int first = -1;
        int cheapest = -1;
        for (int i = 0; i < models.size(); i++)
        {
            if (dropReasons.get(i) == DropReason.EXCLUDED)
            {
                continue;
            }
            if (first < 0)
            {
                first = i;
            }
            final Double price = models.get(i).promptPer1M();
            // Unpriced never wins over priced; strictly lower keeps the earlier of equal prices.
            if (price != null && (cheapest < 0 || price < models.get(cheapest).promptPer1M()))
            {
                cheapest = i;
            }
        }
        switch (c.decision().policy())
        {
            case ReferenceDecision.FIRST:
                return result(c, factorCount, Outcome.FALLBACK_FIRST, first, weights, dropReasons, null, null);
            case ReferenceDecision.FAIL:
                return result(c, factorCount, Outcome.FAILED, -1, weights, dropReasons, null, null);
            default:
                return result(
                    c, factorCount, Outcome.FALLBACK_CHEAPEST, cheapest >= 0 ? cheapest : first, weights, dropReasons,
                    null, null);
        }
    }

    private static ReferenceResult result(
        final LoadSignalsCase c,
        final int factorCount,
        final int outcome,
        final int selectedIndex,
        final double[] weights,
        final List<Integer> dropReasons,
        final Map<Integer, double[]> normalizedByIndex,
        final Map<Integer, Double> scoreByIndex)
    {
        final ReferenceDecision decision = c.decision();
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        final List<ReferenceModel> models = decision.candidates();
        for (int i = 0; i < models.size(); i++)
        {
            final ReferenceModel model = models.get(i);
            final ReferenceObservation observation = c.request().observation(model.name());
            final double[] n = normalizedByIndex == null ? null : normalizedByIndex.get(i);
            candidates.add(new ReferenceCandidate(
                model.name(),
                dropReasons.get(i),
                model.quality(),
                observation.tpotMs(),
                observation.ttftMs(),
                model.promptPer1M(),
                observation.inflight(),
                n == null ? Map.of() : factorMap(n, factorCount),
                scoreByIndex == null ? null : scoreByIndex.get(i)));
        }
        return new ReferenceResult(
            decision.name(),
            outcome,
            selectedIndex,
            selectedIndex >= 0 ? models.get(selectedIndex).name() : null,
            factorMap(weights, factorCount),
            candidates);
    }

    /**
     * @param values one value per {@link Factor}, at least {@code factorCount}.
     * @param factorCount how many factors to report: {@link Factor#SEED_COUNT} or {@link Factor#COUNT}.
     * @return the first {@code factorCount} values by factor label.
     */
    static Map<String, Double> factorMap(final double[] values, final int factorCount)
    {
        final Map<String, Double> map = new LinkedHashMap<>();
        for (int f = 0; f < factorCount; f++)
        {
            map.put(Factor.label(f), values[f]);
        }
        return map;
    }
}
