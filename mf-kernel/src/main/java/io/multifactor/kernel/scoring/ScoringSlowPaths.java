package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.reliability.EjectionPolicy;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@link ScoringKernel}'s paths off the common case, each taken by a call that needs it only: the ejection cap when
 * a candidate is ejected, the plain formula when a factor's range is too small for a slope, p2c, a tie band or random
 * tie-break, the lexicographic objective, and no survivor. Kept apart so that the kernel's two loops stay small.
 * <p>
 * This class is stateless and threadsafe; its methods allocate nothing and take no lock.
 */
final class ScoringSlowPaths
{
    private ScoringSlowPaths()
    {
    }

    /**
     * The decision's ejection cap (max_ejection_percent): of its n candidates after the request's exclusions (the
     * ineligible ones come in as excluded), ejection drops at most max(1, floor(p / 100 * n)), p the smallest
     * {@code max_ejection_percent} among those n that have {@code reliability} (10 when none has); beyond that, the ejected candidates whose ejection ends soonest (then
     * the earlier in modelRefs order) stay candidates, checked against the other ceilings like any other candidate
     * (they keep their time left in the selection). Counts the drops that stand, and rewrites the bounds when a
     * candidate came back.
     *
     * @return how many candidates came back as survivors.
     */
    static int ejectionCapSlowPath(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Selection out,
        final int ejectedDrops,
        final SingleWriterCounterBlock dropCountsOrNull,
        final Request requestOrNull)
    {
        final int n = plan.candidateCount();
        int candidates = 0;
        int percent = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) != DropReason.EXCLUDED)
            {
                candidates++;
                final int candidatePercent = signals.ejectionPercent(i);
                percent = candidatePercent != CandidateSignals.NO_RELIABILITY && candidatePercent < percent ?
                    candidatePercent : percent;
            }
        }
        int comeBack = ejectedDrops - EjectionPolicy.maxEjected(candidates,
            percent == Integer.MAX_VALUE ? EjectionPolicy.DEFAULT_MAX_EJECTION_PERCENT : percent);
        int back = 0;
        while (comeBack > 0)
        {
            int soonest = -1;
            for (int i = 0; i < n; i++)
            {
                // Strictly less: of equal times left the earlier candidate comes back first.
                if (out.dropReason(i) == DropReason.EJECTED &&
                    (soonest < 0 || out.ejectedMillisLeft(i) < out.ejectedMillisLeft(soonest)))
                {
                    soonest = i;
                }
            }
            final int reason = ceilingReason(plan, signals, out, soonest, requestOrNull);
            SelectionWriter.dropReason(out, soonest, reason);
            if (reason == DropReason.NONE)
            {
                back++;
            }
            else if (dropCountsOrNull != null)
            {
                dropCountsOrNull.increment(signals.dropCounterId(soonest, reason));
            }
            comeBack--;
        }
        if (dropCountsOrNull != null)
        {
            for (int i = 0; i < n; i++)
            {
                if (out.dropReason(i) == DropReason.EJECTED)
                {
                    dropCountsOrNull.increment(signals.dropCounterId(i, DropReason.EJECTED));
                }
            }
        }
        if (back > 0)
        {
            boundsOfSurvivors(out, n);
        }
        return back;
    }

    /**
     * Rewrites the bounds of every factor over the selection's survivors, from the values it holds: when the survivors
     * changed after the gather loop bounded them (candidates came back from ejection, or a live drop on sealed
     * signals took one that held a sealed bound). Selects, as the gather loops': a missing value never moves a bound.
     */
    static void boundsOfSurvivors(final Selection out, final int n)
    {
        final int[] drops = SelectionWriter.dropReasons(out);
        for (int f = 0; f < Factor.COUNT; f++)
        {
            // The column the selection reads the factor from (the all-missing one for a source not gathered).
            final double[] column = SelectionWriter.column(out, f);
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++)
            {
                if (drops[i] == DropReason.NONE)
                {
                    final double value = column[i];
                    min = value < min ? value : min;
                    max = value > max ? value : max;
                }
            }
            SelectionWriter.bounds(out, f, min, max);
        }
    }

    // The first ceiling after ejection that a candidate breaks, from what the selection observed; NONE when none.
    private static int ceilingReason(
        final DecisionPlan plan, final CandidateSignals signals, final Selection out, final int i,
        final Request requestOrNull)
    {
        final double quality = out.quality(i);
        return plan.hasQualityFloor() && !(quality >= plan.minQuality()) ? DropReason.QUALITY :
            out.tpotMs(i) > RequestScreen.maxTpotMs(plan, requestOrNull) ? DropReason.TPOT :
            out.ttftMs(i) > RequestScreen.maxTtftMs(plan, requestOrNull) ? DropReason.TTFT :
            out.costPer1M(i) > plan.effectiveMaxCostPer1M() ? DropReason.COST :
            out.inflight(i) > plan.effectiveMaxInflight() ? DropReason.INFLIGHT :
            out.inflightTokens(i) > plan.effectiveMaxInflightTokens() ? DropReason.INFLIGHT_TOKENS :
            out.queue(i) > plan.effectiveMaxQueue() ? DropReason.QUEUE :
            out.kvCache(i) > plan.effectiveMaxKvCache() ? DropReason.KV_CACHE :
            plan.dropsStale() && signals.stale(i) ? DropReason.STALE : DropReason.NONE;
    }

    /** Ranks with the plain formula, dividing per candidate: for ranges so small that a precomputed slope overflows. */
    static void rankByDivisionSlowPath(
        final DecisionPlan plan, final Selection out, final Request requestOrNull, final int survivors, final long p2cBits)
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
            best = plan.pick() == Pick.P2C ? p2cSlowPath(plan, out, p2cBits, survivors) :
                tieSlowPath(plan, out, requestOrNull, bestScore - plan.tieBand());
        }
        SelectionWriter.outcome(out, Outcome.SCORED, best);
    }

    /**
     * {@code pick: p2c}: the better of two distinct survivors drawn from the request's generator
     * ({@link PowerOfTwoChoices}); the other is left as the selection's runner-up, which reserve-on-select tries next.
     */
    static int p2cSlowPath(final DecisionPlan plan, final Selection out, final long bits, final int survivors)
    {
        final long pair = PowerOfTwoChoices.pick(out, plan.candidateCount(), survivors, bits);
        SelectionWriter.runnerUp(out, PowerOfTwoChoices.loser(pair));
        return PowerOfTwoChoices.winner(pair);
    }

    /**
     * Chooses among the survivors tied with the best: those whose score is at least {@code threshold} (the best score
     * minus the tie band).
     *
     * @return the earliest of them ({@code tie_break: first}) or one drawn uniformly ({@code random}).
     */
    static int tieSlowPath(
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
    static void lexicographicSlowPath(final DecisionPlan plan, final Selection out, final Request requestOrNull)
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

    static void noSurvivorSlowPath(final DecisionPlan plan, final Selection out)
    {
        final int n = plan.candidateCount();
        int first = -1;
        int cheapest = -1;
        double cheapestPrice = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (DropReason.removesCandidate(out.dropReason(i)))
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
            case NoCandidatesPolicy.SHED:
                SelectionWriter.outcome(out, RequestScreen.noCandidates(plan, out), -1);
                break;
            default:
                SelectionWriter.outcome(out, Outcome.FALLBACK_CHEAPEST, cheapest >= 0 ? cheapest : first);
                break;
        }
    }
}
