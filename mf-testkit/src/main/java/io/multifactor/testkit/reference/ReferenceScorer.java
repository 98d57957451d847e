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
 * The rules of one selection (vLLM Semantic Router's {@code multi_factor}, without extensions) written for clarity,
 * not speed: the value-level oracle that the kernel is checked against.
 * <p>
 * It is written from the rules, not from the kernel: min-max normalization is {@code (x - min) / (max - min)} (inverted
 * as {@code 1 - that} for latency, cost and load), 0.5 when every survivor that has the signal shares one value, 0 for
 * a missing signal; the score is the weighted sum, as computed, with no cap; the highest score wins and ties go to the
 * earlier candidate. The kernel computes the same real-valued quantities with other expressions (a slope prepared once
 * per call), so the two are compared with {@link ScoreTolerance}: scores and normalized factors within 1e-9, and
 * either of two candidates whose scores here are that close accepted as the winner.
 * <p>
 * This class is stateless and threadsafe.
 */
public final class ReferenceScorer
{
    private ReferenceScorer()
    {
    }

    /**
     * Runs one selection.
     *
     * @param decision the decision as configured.
     * @param request the request's observations and exclusions.
     * @return the outcome, the choice and every candidate's drop reason, normalized factors and score.
     */
    public static ReferenceResult select(final ReferenceDecision decision, final ReferenceRequest request)
    {
        final double[] weights = effectiveWeights(
            decision.qualityWeight(), decision.latencyWeight(), decision.costWeight(), decision.loadWeight());
        final List<ReferenceModel> models = decision.candidates();

        // 1. Exclusions, then the SLO filter.
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
                reason = sloDropReason(decision, model, request.observation(model.name()));
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
            return result(decision, request, Outcome.FAILED, -1, weights, dropReasons, null, null);
        }
        if (survivors.isEmpty())
        {
            return noSurvivor(decision, request, weights, dropReasons);
        }

        // 2. Min-max normalization over the survivors that have each signal.
        final List<Double> quality = new ArrayList<>();
        final List<Double> latency = new ArrayList<>();
        final List<Double> cost = new ArrayList<>();
        final List<Double> load = new ArrayList<>();
        for (final int i : survivors)
        {
            final ReferenceModel model = models.get(i);
            final ReferenceObservation observation = request.observation(model.name());
            quality.add(model.quality());
            latency.add(observation.tpotMs() != null ? observation.tpotMs() : observation.ttftMs());
            cost.add(model.promptPer1M());
            load.add((double)observation.inflight());
        }
        final List<Double> nq = normalize(quality, false);
        final List<Double> nl = normalize(latency, true);
        final List<Double> nc = normalize(cost, true);
        final List<Double> nn = normalize(load, true);

        // 3. Weighted sum; the first of the highest scores wins.
        final Map<Integer, double[]> normalizedByIndex = new LinkedHashMap<>();
        final Map<Integer, Double> scoreByIndex = new LinkedHashMap<>();
        int best = -1;
        for (int s = 0; s < survivors.size(); s++)
        {
            final int i = survivors.get(s);
            final double[] n = { nq.get(s), nl.get(s), nc.get(s), nn.get(s) };
            double score = 0.0;
            for (int f = 0; f < Factor.SEED_COUNT; f++)
            {
                score += weights[f] * n[f];
            }
            normalizedByIndex.put(i, n);
            scoreByIndex.put(i, score);
            if (best < 0 || score > scoreByIndex.get(best))
            {
                best = i;
            }
        }
        return result(decision, request, Outcome.SCORED, best, weights, dropReasons, normalizedByIndex, scoreByIndex);
    }

    /**
     * Clamps negative weights to 0, replaces all-zero weights by equal ones and divides by the sum.
     *
     * @param quality configured weight of quality.
     * @param latency configured weight of latency.
     * @param cost configured weight of cost.
     * @param load configured weight of load.
     * @return effective weights indexed by {@link Factor}.
     * @throws IllegalArgumentException for a NaN or infinite weight, or weights whose sum overflows.
     */
    public static double[] effectiveWeights(final double quality, final double latency, final double cost, final double load)
    {
        final double[] w = { clampWeight(quality), clampWeight(latency), clampWeight(cost), clampWeight(load) };
        final double sum = w[0] + w[1] + w[2] + w[3];
        if (sum == 0.0)
        {
            return new double[] { 0.25, 0.25, 0.25, 0.25 };
        }
        if (Double.isInfinite(sum))
        {
            throw new IllegalArgumentException("weights too large to add up");
        }
        return new double[] { w[0] / sum, w[1] / sum, w[2] / sum, w[3] / sum };
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
        final ReferenceDecision decision,
        final ReferenceRequest request,
        final double[] weights,
        final List<Integer> dropReasons)
    {
        final List<ReferenceModel> models = decision.candidates();
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
        switch (decision.policy())
        {
            case ReferenceDecision.FIRST:
                return result(decision, request, Outcome.FALLBACK_FIRST, first, weights, dropReasons, null, null);
            case ReferenceDecision.FAIL:
                return result(decision, request, Outcome.FAILED, -1, weights, dropReasons, null, null);
            default:
                return result(
                    decision, request, Outcome.FALLBACK_CHEAPEST, cheapest >= 0 ? cheapest : first, weights, dropReasons,
                    null, null);
        }
    }

    private static ReferenceResult result(
        final ReferenceDecision decision,
        final ReferenceRequest request,
        final int outcome,
        final int selectedIndex,
        final double[] weights,
        final List<Integer> dropReasons,
        final Map<Integer, double[]> normalizedByIndex,
        final Map<Integer, Double> scoreByIndex)
    {
        final List<ReferenceCandidate> candidates = new ArrayList<>();
        final List<ReferenceModel> models = decision.candidates();
        for (int i = 0; i < models.size(); i++)
        {
            final ReferenceModel model = models.get(i);
            final ReferenceObservation observation = request.observation(model.name());
            final double[] n = normalizedByIndex == null ? null : normalizedByIndex.get(i);
            candidates.add(new ReferenceCandidate(
                model.name(),
                dropReasons.get(i),
                model.quality(),
                observation.tpotMs(),
                observation.ttftMs(),
                model.promptPer1M(),
                observation.inflight(),
                n == null ? Map.of() : factorMap(n),
                scoreByIndex == null ? null : scoreByIndex.get(i)));
        }
        return new ReferenceResult(
            decision.name(),
            outcome,
            selectedIndex,
            selectedIndex >= 0 ? models.get(selectedIndex).name() : null,
            factorMap(weights),
            candidates);
    }

    static Map<String, Double> factorMap(final double[] values)
    {
        final Map<String, Double> map = new LinkedHashMap<>();
        for (int f = 0; f < Factor.SEED_COUNT; f++)
        {
            map.put(Factor.label(f), values[f]);
        }
        return map;
    }
}
