package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.CostMix;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.TieBreak;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Scores one decision exactly as section 4 of the design says, given the observed signals already in the
 * {@link Selection} (written by {@link Selection#observe}).
 * <ol>
 *   <li>SLO filter, strict ceilings, in the order TPOT, TTFT, cost, in-flight; a missing (NaN) value never drops.</li>
 *   <li>No survivor: the plan's policy ({@code cheapest}, {@code first}, {@code fail}); every candidate excluded fails.</li>
 *   <li>Min-max normalization over the survivors that have each signal: 0.5 when they share one value, 0 for a missing
 *       signal, 0 for a factor no survivor has. Latency, cost and load are inverted.</li>
 *   <li>Weighted sum; the highest score wins and ties go to the earlier candidate.</li>
 * </ol>
 * Normalization is computed as {@code (x - min) * (1 / (max - min))}, a range whose inverse overflows counts as one
 * value, and the score {@code wQ*nq + wL*nl + wC*nc + wN*nn} is capped at 1 (the rounded weights can add up to one ulp
 * more); the reference implementation uses the same expressions so that both agree bit for bit, ties included.
 * <p>
 * This class is stateless and threadsafe. {@link #score} allocates nothing, takes no lock and never throws for an
 * expected outcome.
 */
public final class ScoringKernel
{
    private ScoringKernel()
    {
    }

    /**
     * Filters, normalizes and scores the candidates of {@code plan}, writing drops, normalized factors, scores, weights
     * and the outcome into {@code selection}.
     *
     * @param plan the decision's plan.
     * @param selection reset for {@code plan} and observed for each of its candidates.
     */
    public static void score(final DecisionPlan plan, final Selection selection)
    {
        score(plan, selection, null);
    }

    /**
     * Filters, normalizes and ranks the candidates of {@code plan} for one request, writing drops, costs, normalized
     * factors, scores, eliminating factors and the outcome into {@code selection}. The request's token counts, when it
     * has them, price the candidates instead of the decision's {@code cost_mix}; {@code tie_break: random} draws from its
     * generator (from the thread's {@link ThreadLocalRandom} without a request).
     *
     * @param plan the decision's plan.
     * @param selection reset for {@code plan} and observed for each of its candidates.
     * @param requestOrNull the request, or null for one without token counts.
     */
    public static void score(final DecisionPlan plan, final Selection selection, final Request requestOrNull)
    {
        final int n = plan.candidateCount();
        final boolean qualityFloor = plan.hasQualityFloor();
        final double minQuality = plan.minQuality();
        final int latencyMetric = plan.latencyMetric();
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        final double promptShare = requestMix ? requestOrNull.promptShare() : 0.0;
        final double completionShare = requestMix ? requestOrNull.completionShare() : 0.0;
        selection.ranking(plan.objective(), latencyMetric);
        final double maxTpotMs = plan.effectiveMaxTpotMs();
        final double maxTtftMs = plan.effectiveMaxTtftMs();
        final double maxCost = plan.effectiveMaxCostPer1M();
        final long maxInflight = plan.effectiveMaxInflight();

        double qMin = Double.POSITIVE_INFINITY;
        double qMax = Double.NEGATIVE_INFINITY;
        double lMin = Double.POSITIVE_INFINITY;
        double lMax = Double.NEGATIVE_INFINITY;
        double cMin = Double.POSITIVE_INFINITY;
        double cMax = Double.NEGATIVE_INFINITY;
        double nMin = Double.POSITIVE_INFINITY;
        double nMax = Double.NEGATIVE_INFINITY;
        int survivors = 0;

        for (int i = 0; i < n; i++)
        {
            final double quality = plan.quality(i);
            final double cost = requestMix ?
                CostMix.blend(promptShare, completionShare, plan.promptPer1M(i), plan.completionPer1M(i)) :
                plan.costPer1M(i);
            selection.configured(i, quality, cost);
            if (selection.dropReason(i) == DropReason.EXCLUDED)
            {
                continue;
            }
            final double tpot = selection.tpotMs(i);
            final double ttft = selection.ttftMs(i);
            final long inflight = selection.inflight(i);
            // NaN compares false: a missing observation never breaks a ceiling; an off ceiling is +Infinity.
            // The floor is off for most decisions: one predictable branch; a missing quality fails >= and drops.
            final int reason =
                qualityFloor && !(quality >= minQuality) ? DropReason.QUALITY :
                tpot > maxTpotMs ? DropReason.TPOT :
                ttft > maxTtftMs ? DropReason.TTFT :
                cost > maxCost ? DropReason.COST :
                inflight > maxInflight ? DropReason.INFLIGHT : DropReason.NONE;
            if (reason != DropReason.NONE)
            {
                selection.dropReason(i, reason);
                continue;
            }
            survivors++;
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            final double load = inflight;
            // A NaN fails both comparisons, so a missing signal never moves a bound.
            if (quality < qMin)
            {
                qMin = quality;
            }
            if (quality > qMax)
            {
                qMax = quality;
            }
            if (latency < lMin)
            {
                lMin = latency;
            }
            if (latency > lMax)
            {
                lMax = latency;
            }
            if (cost < cMin)
            {
                cMin = cost;
            }
            if (cost > cMax)
            {
                cMax = cost;
            }
            if (load < nMin)
            {
                nMin = load;
            }
            if (load > nMax)
            {
                nMax = load;
            }
        }

        final double wQ = plan.weight(Factor.QUALITY);
        final double wL = plan.weight(Factor.LATENCY);
        final double wC = plan.weight(Factor.COST);
        final double wN = plan.weight(Factor.LOAD);
        selection.weights(wQ, wL, wC, wN);

        if (survivors == 0)
        {
            noSurvivorSlowPath(plan, selection);
            return;
        }

        // 1 / range, or 0 when every survivor that has the signal shares one value (then the value is 0.5).
        final double qInv = inverseRange(qMin, qMax);
        final double lInv = inverseRange(lMin, lMax);
        final double cInv = inverseRange(cMin, cMax);
        final double nInv = inverseRange(nMin, nMax);
        if (plan.objective() == Objective.LEXICOGRAPHIC)
        {
            lexicographicSlowPath(plan, selection, requestOrNull, qMin, qInv, lMin, lInv, cMin, cInv, nMin, nInv);
            return;
        }

        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (selection.dropReason(i) != DropReason.NONE)
            {
                selection.score(i, Double.NaN);
                selection.normalized(i, Factor.QUALITY, Double.NaN);
                selection.normalized(i, Factor.LATENCY, Double.NaN);
                selection.normalized(i, Factor.COST, Double.NaN);
                selection.normalized(i, Factor.LOAD, Double.NaN);
                continue;
            }
            final double nq = higherIsBetter(selection.quality(i), qMin, qInv);
            final double nl = lowerIsBetter(selection.latencyMs(i), lMin, lInv);
            final double nc = lowerIsBetter(selection.costPer1M(i), cMin, cInv);
            final double nn = lowerIsBetter(selection.inflight(i), nMin, nInv);
            // The rounded weights can add up to one ulp above 1: cap, so a score never leaves [0, 1].
            final double score = Math.min(1.0, wQ * nq + wL * nl + wC * nc + wN * nn);
            selection.normalized(i, Factor.QUALITY, nq);
            selection.normalized(i, Factor.LATENCY, nl);
            selection.normalized(i, Factor.COST, nc);
            selection.normalized(i, Factor.LOAD, nn);
            selection.score(i, score);
            if (score > bestScore)
            {
                bestScore = score;
                best = i;
            }
        }
        if (plan.spreadsTies())
        {
            best = tieSlowPath(plan, selection, requestOrNull, bestScore - plan.tieBand(), best);
        }
        selection.outcome(Outcome.SCORED, best);
    }

    /**
     * Chooses among the survivors whose score is at least {@code threshold} (the best minus the tie band).
     *
     * @return the earliest of them ({@code first}) or one drawn uniformly ({@code random}).
     */
    private static int tieSlowPath(
        final DecisionPlan plan, final Selection selection, final Request requestOrNull, final double threshold,
        final int best)
    {
        final int n = plan.candidateCount();
        int tied = 0;
        int first = -1;
        for (int i = 0; i < n; i++)
        {
            // A dropped candidate's score is NaN and never compares >=.
            if (selection.score(i) >= threshold)
            {
                first = first < 0 ? i : first;
                tied++;
            }
        }
        if (plan.tieBreak() != TieBreak.RANDOM || tied <= 1)
        {
            return first < 0 ? best : first;
        }
        return nthSlowPath(selection, n, draw(requestOrNull, tied), threshold);
    }

    private static int nthSlowPath(final Selection selection, final int n, final int nth, final double threshold)
    {
        int seen = 0;
        for (int i = 0; i < n; i++)
        {
            if (selection.score(i) >= threshold && seen++ == nth)
            {
                return i;
            }
        }
        return -1;
    }

    private static int draw(final Request requestOrNull, final int bound)
    {
        return requestOrNull != null ? requestOrNull.nextIndex(bound) : ThreadLocalRandom.current().nextInt(bound);
    }

    /**
     * The lexicographic objective: normalizes every survivor once, then for each priority factor keeps the candidates
     * within {@code tolerance} of the best remaining value; a survivor left out is marked with that factor. The earliest
     * finalist wins ({@code first}) or one drawn uniformly ({@code random}); a survivor's score is its normalized value
     * of the first priority factor.
     */
    private static void lexicographicSlowPath(
        final DecisionPlan plan,
        final Selection selection,
        final Request requestOrNull,
        final double qMin,
        final double qInv,
        final double lMin,
        final double lInv,
        final double cMin,
        final double cInv,
        final double nMin,
        final double nInv)
    {
        final int n = plan.candidateCount();
        final int firstFactor = plan.priority(0);
        for (int i = 0; i < n; i++)
        {
            if (selection.dropReason(i) != DropReason.NONE)
            {
                selection.score(i, Double.NaN);
                selection.normalized(i, Factor.QUALITY, Double.NaN);
                selection.normalized(i, Factor.LATENCY, Double.NaN);
                selection.normalized(i, Factor.COST, Double.NaN);
                selection.normalized(i, Factor.LOAD, Double.NaN);
                continue;
            }
            selection.normalized(i, Factor.QUALITY, higherIsBetter(selection.quality(i), qMin, qInv));
            selection.normalized(i, Factor.LATENCY, lowerIsBetter(selection.latencyMs(i), lMin, lInv));
            selection.normalized(i, Factor.COST, lowerIsBetter(selection.costPer1M(i), cMin, cInv));
            selection.normalized(i, Factor.LOAD, lowerIsBetter(selection.inflight(i), nMin, nInv));
            selection.score(i, selection.normalized(i, firstFactor));
        }
        final double tolerance = plan.tolerance();
        final int priorityCount = plan.priorityCount();
        for (int rank = 0; rank < priorityCount; rank++)
        {
            final int factor = plan.priority(rank);
            double best = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++)
            {
                if (isFinalist(selection, i) && selection.normalized(i, factor) > best)
                {
                    best = selection.normalized(i, factor);
                }
            }
            final double threshold = best - tolerance;
            for (int i = 0; i < n; i++)
            {
                if (isFinalist(selection, i) && selection.normalized(i, factor) < threshold)
                {
                    selection.eliminatedBy(i, factor);
                }
            }
        }
        int finalists = 0;
        int first = -1;
        for (int i = 0; i < n; i++)
        {
            if (isFinalist(selection, i))
            {
                first = first < 0 ? i : first;
                finalists++;
            }
        }
        if (plan.tieBreak() == TieBreak.RANDOM && finalists > 1)
        {
            int nth = draw(requestOrNull, finalists);
            for (int i = 0; i < n; i++)
            {
                if (isFinalist(selection, i) && nth-- == 0)
                {
                    first = i;
                    break;
                }
            }
        }
        selection.outcome(Outcome.SCORED, first);
    }

    private static boolean isFinalist(final Selection selection, final int index)
    {
        return selection.dropReason(index) == DropReason.NONE && selection.eliminatedBy(index) == Selection.NOT_ELIMINATED;
    }

    /**
     * The factor by which {@code x - min} is multiplied to normalize it.
     *
     * @param min smallest value among survivors that have the signal (+Infinity when none has it).
     * @param max largest value among survivors that have the signal (-Infinity when none has it).
     * @return {@code 1 / (max - min)}, or 0 when the values are one (max == min), absent, or so close that the inverse
     *     overflows (only when both bounds are below about 1e-292, where {@code 0 * Infinity} would otherwise give NaN).
     */
    public static double inverseRange(final double min, final double max)
    {
        final double inverse = 1.0 / (max - min);
        return max > min && inverse < Double.POSITIVE_INFINITY ? inverse : 0.0;
    }

    /**
     * Normalized value of a higher-is-better signal.
     *
     * @param value the candidate's value, NaN when missing.
     * @param min smallest value among survivors that have the signal.
     * @param inverseRange {@code 1 / (max - min)}, or 0 when max == min.
     * @return in [0, 1]: 0 when missing, 0.5 when every survivor shares one value.
     */
    public static double higherIsBetter(final double value, final double min, final double inverseRange)
    {
        if (value != value)
        {
            return 0.0;
        }
        if (inverseRange == 0.0)
        {
            return 0.5;
        }
        return Math.min(1.0, (value - min) * inverseRange);
    }

    /**
     * Normalized, inverted value of a lower-is-better signal.
     *
     * @param value the candidate's value, NaN when missing.
     * @param min smallest value among survivors that have the signal.
     * @param inverseRange {@code 1 / (max - min)}, or 0 when max == min.
     * @return in [0, 1]: 0 when missing, 0.5 when every survivor shares one value, 1 for the lowest value.
     */
    public static double lowerIsBetter(final double value, final double min, final double inverseRange)
    {
        if (value != value)
        {
            return 0.0;
        }
        if (inverseRange == 0.0)
        {
            return 0.5;
        }
        return Math.max(0.0, 1.0 - (value - min) * inverseRange);
    }

    private static void noSurvivorSlowPath(final DecisionPlan plan, final Selection selection)
    {
        final int n = plan.candidateCount();
        int first = -1;
        int cheapest = -1;
        double cheapestPrice = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            selection.score(i, Double.NaN);
            selection.normalized(i, Factor.QUALITY, Double.NaN);
            selection.normalized(i, Factor.LATENCY, Double.NaN);
            selection.normalized(i, Factor.COST, Double.NaN);
            selection.normalized(i, Factor.LOAD, Double.NaN);
            if (selection.dropReason(i) == DropReason.EXCLUDED)
            {
                continue;
            }
            if (first < 0)
            {
                first = i;
            }
            final double price = selection.costPer1M(i);
            // Unpriced (NaN) never wins over priced; strict < keeps the earlier of equal prices.
            if (price < cheapestPrice)
            {
                cheapestPrice = price;
                cheapest = i;
            }
        }

        if (first < 0)
        {
            selection.outcome(Outcome.FAILED, -1);
            return;
        }
        switch (plan.policy())
        {
            case NoCandidatesPolicy.FIRST:
                selection.outcome(Outcome.FALLBACK_FIRST, first);
                break;
            case NoCandidatesPolicy.FAIL:
                selection.outcome(Outcome.FAILED, -1);
                break;
            default:
                selection.outcome(Outcome.FALLBACK_CHEAPEST, cheapest >= 0 ? cheapest : first);
                break;
        }
    }
}
