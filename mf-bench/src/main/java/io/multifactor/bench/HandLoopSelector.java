package io.multifactor.bench;

/**
 * The practical limit of a selection: a minimal hand-written loop over the pre-filled primitive arrays of a
 * {@link SelectCase}, computing the same choice as the kernel (filter, min-max normalization, weighted score, first
 * highest wins, cheapest when nothing survives) and nothing else: no per-candidate output, no missing-signal
 * handling (every signal is present in the benchmark data), no exclusions. At most 64 candidates (a bit mask of
 * survivors).
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
