package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.api.SelectionWriter;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.CostMix;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.TieBreak;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Selects one candidate of a decision as the semantics (section 4.1 of the user docs) define it, in two loops over the
 * candidates and nothing else (a dropped candidate is counted where it is dropped, into the calling thread's counter
 * block, when the engine passes one):
 * <ol>
 *   <li><b>Gather, filter, bound</b> (every candidate): read its published signals ({@link CandidateSignals}) and its
 *       configured values (the plan; its cost under the request's token counts when the request has them), record
 *       what was observed in the {@link Selection}, drop it at the quality floor or the first broken ceiling (quality,
 *       TPOT, TTFT, cost, in-flight; a missing value never breaks a ceiling, a missing quality breaks a floor) or when
 *       the request excludes it, and widen the bounds of each factor over the survivors that have it.</li>
 *   <li>No survivor: the plan's policy ({@code cheapest}, {@code first}, {@code fail}), off the common path; every
 *       candidate excluded fails.</li>
 *   <li><b>Rank</b> (survivors): the weighted score and the first highest; the normalized factors are not stored, the
 *       selection computes them from the bounds when read. A decision with a tie band or a random tie-break then
 *       chooses among the scores within the band ({@link #tieSlowPath}); a lexicographic decision is ranked factor by
 *       factor instead ({@link #lexicographicSlowPath}).</li>
 * </ol>
 * The score is {@code sum over factors of w * n}, with {@code n = (x - min) / (max - min)} (inverted as {@code 1 - n}
 * for latency, cost and load), 0.5 when every survivor that has the signal shares one value, 0 when the candidate
 * lacks it. The loop computes each term as {@code base + slope * (x - min)} with {@code slope = +-w / (max - min)}
 * prepared once per call: no division, clamp or shared-value branch per candidate. It agrees with the plain formula
 * within a few ulps (the reference implementation checks 1e-9); a range so small that {@code w / (max - min)}
 * overflows (values below about 1e-292) takes {@link #rankByDivisionSlowPath}, which uses the plain formula.
 * <p>
 * A decision that uses none of the extensions pays for them one predictable branch each: the floor test at the head of
 * the drop chain, the request-mix test on the cost line, the latency-metric test, and one test of the objective and one
 * of the tie settings per call.
 * <p>
 * This class is stateless and threadsafe. {@link #select} allocates nothing, takes no lock and never throws for an
 * expected outcome.
 */
public final class ScoringKernel
{
    private ScoringKernel()
    {
    }

    /**
     * Filters, bounds and scores the candidates of {@code plan}, writing what was observed, the drops, scores, bounds
     * and the outcome into {@code out}.
     *
     * @param plan the decision's plan.
     * @param signals the live signals of the same decision's candidates, in candidate order.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param out the caller's reusable result.
     */
    public static void select(
        final DecisionPlan plan, final CandidateSignals signals, final Exclusions exclusionsOrNull, final Selection out)
    {
        select(plan, signals, exclusionsOrNull, null, out);
    }

    /**
     * Filters, bounds and ranks the candidates of {@code plan} for one request, writing what was observed, the drops,
     * costs, scores, bounds, eliminating factors and the outcome into {@code out}. The request's token counts, when it
     * has them, price the candidates instead of the decision's {@code cost_mix}; {@code tie_break: random} draws from
     * its generator (from the thread's {@link ThreadLocalRandom} without a request).
     *
     * @param plan the decision's plan.
     * @param signals the live signals of the same decision's candidates, in candidate order.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param requestOrNull the request, or null for one without token counts.
     * @param out the caller's reusable result.
     */
    public static void select(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out)
    {
        select(plan, signals, exclusionsOrNull, requestOrNull, out, null);
    }

    /**
     * As {@link #select(DecisionPlan, CandidateSignals, Exclusions, Request, Selection)}, counting each dropped
     * candidate, where it is dropped, in {@code dropCountsOrNull} under the signals' drop counter of its model and
     * reason ({@link CandidateSignals#dropCounterId}).
     *
     * @param plan the decision's plan.
     * @param signals the live signals of the same decision's candidates, in candidate order.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param requestOrNull the request, or null for one without token counts.
     * @param out the caller's reusable result.
     * @param dropCountsOrNull the calling thread's counter block, or null to count nothing.
     */
    public static void select(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull)
    {
        final int n = plan.candidateCount();
        plan.startSelection(out);
        final int latencyMetric = plan.latencyMetric();
        final boolean qualityFloor = plan.hasQualityFloor();
        final double minQuality = plan.minQuality();
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        final double promptShare = requestMix ? requestOrNull.promptShare() : 0.0;
        final double completionShare = requestMix ? requestOrNull.completionShare() : 0.0;
        if (requestMix)
        {
            SelectionWriter.ownCosts(out);
        }
        final double maxTpotMs = plan.effectiveMaxTpotMs();
        final double maxTtftMs = plan.effectiveMaxTtftMs();
        final double maxCost = plan.effectiveMaxCostPer1M();
        final long maxInflight = plan.effectiveMaxInflight();
        final boolean anyExcluded = exclusionsOrNull != null && !exclusionsOrNull.isEmpty();

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
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final long inflight = signals.inflight(i);
            final double quality = plan.quality(i);
            final double cost;
            if (requestMix)
            {
                cost = CostMix.blend(promptShare, completionShare, plan.promptPer1M(i), plan.completionPer1M(i));
                SelectionWriter.costPer1M(out, i, cost);
            }
            else
            {
                cost = plan.costPer1M(i);
            }
            // NaN compares false: a missing observation never breaks a ceiling; an off ceiling is +Infinity. A floor is
            // off for most decisions; a missing quality fails >= and breaks it. Non-short-circuit ORs: one branch for
            // the common case, the reason is worked out only for a drop.
            final boolean broken = qualityFloor & !(quality >= minQuality) | tpot > maxTpotMs | ttft > maxTtftMs |
                cost > maxCost | inflight > maxInflight;
            if (broken || anyExcluded && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                final int reason = dropReason(plan, exclusionsOrNull, i, tpot, ttft, cost, inflight);
                SelectionWriter.observed(out, i, reason, tpot, ttft, inflight);
                if (dropCountsOrNull != null)
                {
                    // Counted here, in the drop branch: no other pass over the candidates looks for drops.
                    dropCountsOrNull.increment(signals.dropCounterId(i, reason));
                }
                continue;
            }
            SelectionWriter.observed(out, i, DropReason.NONE, tpot, ttft, inflight);
            survivors++;
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            final double load = inflight;
            // Selects, not Math.min/max: a NaN fails both comparisons, so a missing signal never moves a bound.
            qMin = quality < qMin ? quality : qMin;
            qMax = quality > qMax ? quality : qMax;
            lMin = latency < lMin ? latency : lMin;
            lMax = latency > lMax ? latency : lMax;
            cMin = cost < cMin ? cost : cMin;
            cMax = cost > cMax ? cost : cMax;
            nMin = load < nMin ? load : nMin;
            nMax = load > nMax ? load : nMax;
        }
        SelectionWriter.bounds(out, qMin, qMax, lMin, lMax, cMin, cMax, nMin, nMax);

        if (survivors == 0)
        {
            noSurvivorSlowPath(plan, out);
            return;
        }
        if (plan.objective() == Objective.LEXICOGRAPHIC)
        {
            lexicographicSlowPath(plan, out, requestOrNull);
            return;
        }
        rank(plan, out, requestOrNull, qMin, qMax, lMin, lMax, cMin, cMax, nMin, nMax);
    }

    /** The first broken limit, in the order quality floor, TPOT, TTFT, cost, in-flight; {@code EXCLUDED} first of all. */
    private static int dropReason(
        final DecisionPlan plan,
        final Exclusions exclusionsOrNull,
        final int i,
        final double tpot,
        final double ttft,
        final double cost,
        final long inflight)
    {
        if (exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i)))
        {
            return DropReason.EXCLUDED;
        }
        return plan.hasQualityFloor() && !(plan.quality(i) >= plan.minQuality()) ? DropReason.QUALITY :
            tpot > plan.effectiveMaxTpotMs() ? DropReason.TPOT :
            ttft > plan.effectiveMaxTtftMs() ? DropReason.TTFT :
            cost > plan.effectiveMaxCostPer1M() ? DropReason.COST : DropReason.INFLIGHT;
    }

    private static void rank(
        final DecisionPlan plan,
        final Selection out,
        final Request requestOrNull,
        final double qMin,
        final double qMax,
        final double lMin,
        final double lMax,
        final double cMin,
        final double cMax,
        final double nMin,
        final double nMax)
    {
        final double wQ = plan.weight(Factor.QUALITY);
        final double wL = plan.weight(Factor.LATENCY);
        final double wC = plan.weight(Factor.COST);
        final double wN = plan.weight(Factor.LOAD);
        // Term of a factor: base + slope * (x - min); one shared value: slope 0, base w / 2.
        final boolean qSpread = qMax > qMin;
        final boolean lSpread = lMax > lMin;
        final boolean cSpread = cMax > cMin;
        final boolean nSpread = nMax > nMin;
        final double qSlope = qSpread ? wQ / (qMax - qMin) : 0.0;
        final double lSlope = lSpread ? -wL / (lMax - lMin) : 0.0;
        final double cSlope = cSpread ? -wC / (cMax - cMin) : 0.0;
        final double nSlope = nSpread ? -wN / (nMax - nMin) : 0.0;
        if (Math.abs(qSlope) + Math.abs(lSlope) + Math.abs(cSlope) + Math.abs(nSlope) == Double.POSITIVE_INFINITY)
        {
            rankByDivisionSlowPath(plan, out, requestOrNull);
            return;
        }
        final double qBase = qSpread ? 0.0 : 0.5 * wQ;
        final double lBase = lSpread ? wL : 0.5 * wL;
        final double cBase = cSpread ? wC : 0.5 * wC;
        final double nBase = nSpread ? wN : 0.5 * wN;

        final int n = plan.candidateCount();
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) != DropReason.NONE)
            {
                continue;
            }
            final double quality = out.quality(i);
            final double latency = out.latencyMs(i);
            final double cost = out.costPer1M(i);
            final double load = out.inflight(i);
            double score = nBase + nSlope * (load - nMin);
            score += quality == quality ? qBase + qSlope * (quality - qMin) : 0.0;
            score += latency == latency ? lBase + lSlope * (latency - lMin) : 0.0;
            score += cost == cost ? cBase + cSlope * (cost - cMin) : 0.0;
            // Rounding can leave a hair outside [0, 1] (the weights themselves can add up to one ulp more than 1).
            score = score < 0.0 ? 0.0 : score > 1.0 ? 1.0 : score;
            SelectionWriter.score(out, i, score);
            if (score > bestScore)
            {
                bestScore = score;
                best = i;
            }
        }
        if (plan.spreadsTies())
        {
            best = tieSlowPath(plan, out, requestOrNull, bestScore - plan.tieBand());
        }
        SelectionWriter.outcome(out, Outcome.SCORED, best);
    }

    /** Ranks with the plain formula, dividing per candidate: for ranges so small that a precomputed slope overflows. */
    private static void rankByDivisionSlowPath(final DecisionPlan plan, final Selection out, final Request requestOrNull)
    {
        final int n = plan.candidateCount();
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) != DropReason.NONE)
            {
                continue;
            }
            double score = 0.0;
            for (int f = 0; f < Factor.COUNT; f++)
            {
                score += plan.weight(f) * out.normalized(i, f);
            }
            score = score > 1.0 ? 1.0 : score;
            SelectionWriter.score(out, i, score);
            if (score > bestScore)
            {
                bestScore = score;
                best = i;
            }
        }
        if (plan.spreadsTies())
        {
            best = tieSlowPath(plan, out, requestOrNull, bestScore - plan.tieBand());
        }
        SelectionWriter.outcome(out, Outcome.SCORED, best);
    }

    /**
     * Chooses among the survivors tied with the best: those whose score is at least {@code threshold} (the best score
     * minus the tie band).
     *
     * @return the earliest of them ({@code tie_break: first}) or one drawn uniformly ({@code random}).
     */
    private static int tieSlowPath(
        final DecisionPlan plan, final Selection out, final Request requestOrNull, final double threshold)
    {
        final int n = plan.candidateCount();
        int tied = 0;
        int first = -1;
        for (int i = 0; i < n; i++)
        {
            // A dropped candidate's score reads NaN, which never compares >=.
            if (out.score(i) >= threshold)
            {
                first = first < 0 ? i : first;
                tied++;
            }
        }
        if (plan.tieBreak() != TieBreak.RANDOM || tied <= 1)
        {
            return first;
        }
        int nth = draw(requestOrNull, tied);
        for (int i = 0; i < n; i++)
        {
            if (out.score(i) >= threshold && nth-- == 0)
            {
                return i;
            }
        }
        return first;
    }

    /**
     * The lexicographic objective over the survivors, normalized once (the bounds of the first loop): for each priority
     * factor in turn, the candidates still in whose normalized value is below the best remaining value minus
     * {@code tolerance} leave, marked with that factor. The earliest finalist wins ({@code tie_break: first}) or one
     * drawn uniformly ({@code random}); a survivor's score is its normalized value of the first priority factor.
     */
    private static void lexicographicSlowPath(final DecisionPlan plan, final Selection out, final Request requestOrNull)
    {
        final int n = plan.candidateCount();
        final int firstFactor = plan.priority(0);
        for (int i = 0; i < n; i++)
        {
            SelectionWriter.eliminatedBy(out, i, Selection.NOT_ELIMINATED);
            if (out.dropReason(i) == DropReason.NONE)
            {
                SelectionWriter.score(out, i, out.normalized(i, firstFactor));
            }
        }
        final double tolerance = plan.tolerance();
        final int priorityCount = plan.priorityCount();
        for (int rank = 0; rank < priorityCount; rank++)
        {
            final int factor = plan.priority(rank);
            double best = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++)
            {
                if (isFinalist(out, i))
                {
                    final double value = out.normalized(i, factor);
                    best = value > best ? value : best;
                }
            }
            final double threshold = best - tolerance;
            for (int i = 0; i < n; i++)
            {
                if (isFinalist(out, i) && out.normalized(i, factor) < threshold)
                {
                    SelectionWriter.eliminatedBy(out, i, factor);
                }
            }
        }
        int finalists = 0;
        int first = -1;
        for (int i = 0; i < n; i++)
        {
            if (isFinalist(out, i))
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
                if (isFinalist(out, i) && nth-- == 0)
                {
                    first = i;
                    break;
                }
            }
        }
        SelectionWriter.outcome(out, Outcome.SCORED, first);
    }

    private static boolean isFinalist(final Selection out, final int index)
    {
        return out.dropReason(index) == DropReason.NONE && out.eliminatedBy(index) == Selection.NOT_ELIMINATED;
    }

    private static int draw(final Request requestOrNull, final int bound)
    {
        return requestOrNull != null ? requestOrNull.nextIndex(bound) : ThreadLocalRandom.current().nextInt(bound);
    }

    private static void noSurvivorSlowPath(final DecisionPlan plan, final Selection out)
    {
        final int n = plan.candidateCount();
        int first = -1;
        int cheapest = -1;
        double cheapestPrice = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) == DropReason.EXCLUDED)
            {
                continue;
            }
            if (first < 0)
            {
                first = i;
            }
            final double price = out.costPer1M(i);
            // Unpriced (NaN) never wins over priced; strict < keeps the earlier of equal prices.
            if (price < cheapestPrice)
            {
                cheapestPrice = price;
                cheapest = i;
            }
        }

        if (first < 0)
        {
            SelectionWriter.outcome(out, Outcome.FAILED, -1);
            return;
        }
        switch (plan.policy())
        {
            case NoCandidatesPolicy.FIRST:
                SelectionWriter.outcome(out, Outcome.FALLBACK_FIRST, first);
                break;
            case NoCandidatesPolicy.FAIL:
                SelectionWriter.outcome(out, Outcome.FAILED, -1);
                break;
            default:
                SelectionWriter.outcome(out, Outcome.FALLBACK_CHEAPEST, cheapest >= 0 ? cheapest : first);
                break;
        }
    }
}
