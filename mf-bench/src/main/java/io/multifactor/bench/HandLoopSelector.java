package io.multifactor.bench;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;

/**
 * The practical limit of a selection: a minimal hand-written loop over the pre-filled primitive arrays of a
 * {@link SelectCase}, computing the same choice as the kernel (filter, min-max normalization, weighted score, first
 * highest wins, cheapest when nothing survives) and nothing else: no per-candidate output, no missing-signal
 * handling (every signal is present in the benchmark data), no exclusions. At most 64 candidates (a bit mask of
 * survivors).
 * <p>
 * {@link #selectStoring} is the same loop made to leave what a selection must leave: it stores into a
 * {@link HandResult} every field a {@code Selection} holds after a call and, given a counts array, counts the selection
 * and each drop (in the drop branch) with plain increments, as the engine's per-thread blocks do: the controls of
 * what the result contract and counting cost a loop with no engine around it.
 * <p>
 * This class is stateless and threadsafe; {@link #select} allocates nothing.
 */
public final class HandLoopSelector
{
    private HandLoopSelector()
    {
    }

    /**
     * @param c the input.
     * @return position of the chosen candidate.
     */
    public static int select(final SelectCase c)
    {
        final int n = c.candidateCount;
        final double[] quality = c.quality;
        final double[] cost = c.costPer1M;
        final double[] tpot = c.tpotMs;
        final double[] ttft = c.ttftMs;
        final long[] inflight = c.inflight;
        final double maxTpot = c.maxTpotMs;
        final double maxTtft = c.maxTtftMs;
        final double maxCost = c.maxCostPer1M;
        final long maxInflight = c.maxInflight;

        double qMin = Double.POSITIVE_INFINITY;
        double qMax = Double.NEGATIVE_INFINITY;
        double lMin = Double.POSITIVE_INFINITY;
        double lMax = Double.NEGATIVE_INFINITY;
        double cMin = Double.POSITIVE_INFINITY;
        double cMax = Double.NEGATIVE_INFINITY;
        double nMin = Double.POSITIVE_INFINITY;
        double nMax = Double.NEGATIVE_INFINITY;
        long alive = 0;
        for (int i = 0; i < n; i++)
        {
            final double t = tpot[i];
            if (t > maxTpot || ttft[i] > maxTtft || cost[i] > maxCost || inflight[i] > maxInflight)
            {
                continue;
            }
            alive |= 1L << i;
            final double q = quality[i];
            final double k = cost[i];
            final double l = inflight[i];
            // Plain comparisons, not Math.min/max: no signal is NaN here, and they compile to branch-free selects.
            qMin = q < qMin ? q : qMin;
            qMax = q > qMax ? q : qMax;
            lMin = t < lMin ? t : lMin;
            lMax = t > lMax ? t : lMax;
            cMin = k < cMin ? k : cMin;
            cMax = k > cMax ? k : cMax;
            nMin = l < nMin ? l : nMin;
            nMax = l > nMax ? l : nMax;
        }
        if (alive == 0)
        {
            return cheapest(cost, n);
        }
        return score(c, null, alive, qMin, qMax, lMin, lMax, cMin, cMax, nMin, nMax);
    }

    /**
     * As {@link #select}, storing the result: the header of a selection, per candidate its drop reason (the first
     * broken ceiling, in the order TPOT, TTFT, cost, in-flight), TPOT, TTFT, ranked latency (the TPOT here), load,
     * in-flight count and, for a survivor, its score; the bounds of each factor; the outcome. With {@code countsOrNull},
     * each dropped candidate is counted in the drop branch on {@link SelectCase#dropCounterIds} and the choice on
     * {@link SelectCase#selectionCounterIds}.
     *
     * @param c the input.
     * @param out where the result goes, of at least {@code c}'s candidates.
     * @param countsOrNull counts indexed by counter id ({@link SelectCase#counterIdLimit}), or null to count nothing.
     * @return position of the chosen candidate.
     */
    public static int selectStoring(final SelectCase c, final HandResult out, final long[] countsOrNull)
    {
        final int n = c.candidateCount;
        final double[] quality = c.quality;
        final double[] cost = c.costPer1M;
        final double[] tpot = c.tpotMs;
        final double[] ttft = c.ttftMs;
        final long[] inflight = c.inflight;
        final double maxTpot = c.maxTpotMs;
        final double maxTtft = c.maxTtftMs;
        final double maxCost = c.maxCostPer1M;
        final long maxInflight = c.maxInflight;
        final int[] dropIds = c.dropCounterIds;
        // The header, as a selection's start stores it.
        out.decisionId = c.decisionId;
        out.candidateCount = n;
        out.outcome = Outcome.FAILED;
        out.selectedIndex = -1;
        out.runnerUp = -1;
        out.lease = 0L;
        final int[] outReasons = out.dropReasons;
        final double[] outTpot = out.tpotMs;
        final double[] outTtft = out.ttftMs;
        final double[] outLatency = out.latencyMs;
        final double[] outLoad = out.load;
        final long[] outInflight = out.inflight;

        double qMin = Double.POSITIVE_INFINITY;
        double qMax = Double.NEGATIVE_INFINITY;
        double lMin = Double.POSITIVE_INFINITY;
        double lMax = Double.NEGATIVE_INFINITY;
        double cMin = Double.POSITIVE_INFINITY;
        double cMax = Double.NEGATIVE_INFINITY;
        double nMin = Double.POSITIVE_INFINITY;
        double nMax = Double.NEGATIVE_INFINITY;
        long alive = 0;
        for (int i = 0; i < n; i++)
        {
            final double t = tpot[i];
            final double f = ttft[i];
            final double k = cost[i];
            final long inf = inflight[i];
            final double l = inf;
            outTpot[i] = t;
            outTtft[i] = f;
            outLatency[i] = t;
            outLoad[i] = l;
            outInflight[i] = inf;
            final int reason = t > maxTpot ? DropReason.TPOT : f > maxTtft ? DropReason.TTFT :
                k > maxCost ? DropReason.COST : inf > maxInflight ? DropReason.INFLIGHT : DropReason.NONE;
            outReasons[i] = reason;
            if (reason != DropReason.NONE)
            {
                if (countsOrNull != null)
                {
                    countsOrNull[dropIds[i * DropReason.COUNT + reason]]++;
                }
                continue;
            }
            alive |= 1L << i;
            final double q = quality[i];
            qMin = q < qMin ? q : qMin;
            qMax = q > qMax ? q : qMax;
            lMin = t < lMin ? t : lMin;
            lMax = t > lMax ? t : lMax;
            cMin = k < cMin ? k : cMin;
            cMax = k > cMax ? k : cMax;
            nMin = l < nMin ? l : nMin;
            nMax = l > nMax ? l : nMax;
        }
        final double[] boundMin = out.boundMin;
        final double[] boundMax = out.boundMax;
        boundMin[Factor.QUALITY] = qMin;
        boundMax[Factor.QUALITY] = qMax;
        boundMin[Factor.LATENCY] = lMin;
        boundMax[Factor.LATENCY] = lMax;
        boundMin[Factor.COST] = cMin;
        boundMax[Factor.COST] = cMax;
        boundMin[Factor.LOAD] = nMin;
        boundMax[Factor.LOAD] = nMax;
        boundMin[Factor.QUEUE] = Double.NaN;
        boundMax[Factor.QUEUE] = Double.NaN;
        boundMin[Factor.KV_CACHE] = Double.NaN;
        boundMax[Factor.KV_CACHE] = Double.NaN;
        final int best;
        final int outcome;
        if (alive == 0)
        {
            best = cheapest(cost, n);
            outcome = Outcome.FALLBACK_CHEAPEST;
        }
        else
        {
            best = score(c, out.scores, alive, qMin, qMax, lMin, lMax, cMin, cMax, nMin, nMax);
            outcome = Outcome.SCORED;
        }
        out.outcome = outcome;
        out.selectedIndex = best;
        if (countsOrNull != null)
        {
            countsOrNull[c.selectionCounterIds[best]]++;
        }
        return best;
    }

    // The scoring loop of both: the survivors' scores over the bounds, stored when scoresOrNull is given (the bare
    // loop passes null, a constant once inlined, so it stores nothing).
    private static int score(
        final SelectCase c,
        final double[] scoresOrNull,
        final long alive,
        final double qMin,
        final double qMax,
        final double lMin,
        final double lMax,
        final double cMin,
        final double cMax,
        final double nMin,
        final double nMax)
    {
        final int n = c.candidateCount;
        final double[] quality = c.quality;
        final double[] cost = c.costPer1M;
        final double[] tpot = c.tpotMs;
        final long[] inflight = c.inflight;
        final double qInv = qMax > qMin ? 1.0 / (qMax - qMin) : 0.0;
        final double lInv = lMax > lMin ? 1.0 / (lMax - lMin) : 0.0;
        final double cInv = cMax > cMin ? 1.0 / (cMax - cMin) : 0.0;
        final double nInv = nMax > nMin ? 1.0 / (nMax - nMin) : 0.0;
        final double wQ = c.weightQuality;
        final double wL = c.weightLatency;
        final double wC = c.weightCost;
        final double wN = c.weightLoad;
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if ((alive & (1L << i)) == 0)
            {
                continue;
            }
            final double nq = qInv == 0.0 ? 0.5 : Math.min(1.0, (quality[i] - qMin) * qInv);
            final double nl = lInv == 0.0 ? 0.5 : Math.max(0.0, 1.0 - (tpot[i] - lMin) * lInv);
            final double nc = cInv == 0.0 ? 0.5 : Math.max(0.0, 1.0 - (cost[i] - cMin) * cInv);
            final double nn = nInv == 0.0 ? 0.5 : Math.max(0.0, 1.0 - ((double)inflight[i] - nMin) * nInv);
            final double score = wQ * nq + wL * nl + wC * nc + wN * nn;
            if (scoresOrNull != null)
            {
                scoresOrNull[i] = score;
            }
            if (score > bestScore)
            {
                bestScore = score;
                best = i;
            }
        }
        return best;
    }

    private static int cheapest(final double[] cost, final int n)
    {
        int best = 0;
        for (int i = 1; i < n; i++)
        {
            if (cost[i] < cost[best])
            {
                best = i;
            }
        }
        return best;
    }
}
