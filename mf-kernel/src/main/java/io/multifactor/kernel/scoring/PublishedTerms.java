package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.kernel.plan.DecisionPlan;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a selection of one decision owes to its configuration and to the signals published at the last refresh alone,
 * worked out once per publication ({@link CandidateSignals#seal}) instead of once per call: per candidate the drop
 * reason of the ceilings on published values (quality floor, TPOT, TTFT, cost at the decision's {@code cost_mix},
 * queue, KV-cache, stale), the published latencies, queue and KV-cache use, and the sum of the terms of quality,
 * latency and cost (and, apart, of the queue and the KV-cache) under the bounds over the candidates those ceilings
 * keep. A selection then reads only the in-flight counts live: while none of them breaks {@code max_inflight} on a
 * candidate that holds one of those bounds, the bounds stand and each score is that sum plus the load's term
 * ({@link ScoringKernel}). The sums are computed with the kernel's own expressions in the kernel's order, so a score
 * built from them is the one the full loops compute, to the bit.
 * <p>
 * A decision that is ranked lexicographically, or whose range of a factor is so small that a slope overflows, has no
 * terms ({@link #usable} false): its selections take the full loops.
 * <p>
 * Concurrency: one publisher writes (the one that publishes the signals), any thread reads. A {@link CandidateSignals}
 * keeps two of these and writes the one it did not write last, so a reader of the other is undisturbed; a reader
 * that is still reading one when it is written again (it would have to pause for a whole refresh period) sees its
 * {@link #version} move and takes the full loops instead: an even version is a complete publication, an odd one is
 * being written ({@link #beginRead}, {@link #stillReads}).
 */
final class PublishedTerms
{
    private static final VarHandle VERSION;

    static
    {
        try
        {
            VERSION = MethodHandles.lookup().findVarHandle(PublishedTerms.class, "version", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** What {@link #beginRead} returns while the terms are being written. */
    static final long BEING_WRITTEN = -1L;

    @SuppressWarnings("unused")
    private volatile long version;
    // The plan these terms were worked out for: a selection uses them only with that plan.
    DecisionPlan plan;
    boolean usable;
    // Whether the signals had server values when sealed (then a selection stores the queue and KV-cache use).
    boolean servers;
    final int[] dropReasons;
    // Whether the candidate holds the min or the max of a factor's bound: its live drop would move that bound.
    final boolean[] holdsBound;
    final double[] tpotMs;
    final double[] ttftMs;
    final double[] latencyMs;
    final double[] queue;
    final double[] kvCache;
    // (quality term + latency term) + cost term, per candidate; the queue's and KV-cache's terms apart.
    final double[] seedTerms;
    final double[] queueTerms;
    final double[] kvCacheTerms;
    final double[] boundMin = new double[Factor.COUNT];
    final double[] boundMax = new double[Factor.COUNT];

    PublishedTerms(final int candidateCount)
    {
        final int n = Math.max(1, candidateCount);
        dropReasons = new int[n];
        holdsBound = new boolean[n];
        tpotMs = new double[n];
        ttftMs = new double[n];
        latencyMs = new double[n];
        queue = new double[n];
        kvCache = new double[n];
        seedTerms = new double[n];
        queueTerms = new double[n];
        kvCacheTerms = new double[n];
    }

    /**
     * @return the version to hand to {@link #stillReads} once every read is done, or {@link #BEING_WRITTEN}.
     */
    long beginRead()
    {
        final long v = (long)VERSION.getAcquire(this);
        return (v & 1L) == 0L ? v : BEING_WRITTEN;
    }

    /**
     * @param readVersion what {@link #beginRead} returned.
     * @return whether nothing was written since: every value read in between belongs to one publication.
     */
    boolean stillReads(final long readVersion)
    {
        VarHandle.loadLoadFence();
        return (long)VERSION.getOpaque(this) == readVersion;
    }

    /**
     * Works the terms out for {@code plan} from the values published in {@code signals}. The publisher's thread only.
     */
    void write(final DecisionPlan plan, final CandidateSignals signals)
    {
        final long v = (long)VERSION.getOpaque(this);
        VERSION.setOpaque(this, v + 1L);
        VarHandle.storeStoreFence();
        this.plan = plan;
        this.servers = signals.hasServerSignals();
        this.usable = compute(plan, signals);
        VERSION.setRelease(this, v + 2L);
    }

    private boolean compute(final DecisionPlan plan, final CandidateSignals signals)
    {
        if (plan.objective() == Objective.LEXICOGRAPHIC || plan.candidateCount() != signals.candidateCount())
        {
            return false;
        }
        final int n = plan.candidateCount();
        final int latencyMetric = plan.latencyMetric();
        final boolean dropsStale = plan.dropsStale() && servers;
        for (int f = 0; f < Factor.COUNT; f++)
        {
            boundMin[f] = Double.POSITIVE_INFINITY;
            boundMax[f] = Double.NEGATIVE_INFINITY;
        }
        for (int i = 0; i < n; i++)
        {
            final double quality = plan.quality(i);
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final double cost = plan.costPer1M(i);
            final double w = servers ? signals.queue(i) : Double.NaN;
            final double k = servers ? signals.kvCache(i) : Double.NaN;
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            tpotMs[i] = tpot;
            ttftMs[i] = ttft;
            latencyMs[i] = latency;
            queue[i] = w;
            kvCache[i] = k;
            // In the order of the kernel's reasons; in-flight requests (between cost and queue) are read live.
            final int reason = plan.hasQualityFloor() && !(quality >= plan.minQuality()) ? DropReason.QUALITY :
                tpot > plan.effectiveMaxTpotMs() ? DropReason.TPOT :
                ttft > plan.effectiveMaxTtftMs() ? DropReason.TTFT :
                cost > plan.effectiveMaxCostPer1M() ? DropReason.COST :
                w > plan.effectiveMaxQueue() ? DropReason.QUEUE :
                k > plan.effectiveMaxKvCache() ? DropReason.KV_CACHE :
                dropsStale && signals.stale(i) ? DropReason.STALE : DropReason.NONE;
            dropReasons[i] = reason;
            if (reason == DropReason.NONE)
            {
                widen(Factor.QUALITY, quality);
                widen(Factor.LATENCY, latency);
                widen(Factor.COST, cost);
                widen(Factor.QUEUE, w);
                widen(Factor.KV_CACHE, k);
            }
        }
        final double qWeight = plan.weight(Factor.QUALITY);
        final double lWeight = plan.weight(Factor.LATENCY);
        final double cWeight = plan.weight(Factor.COST);
        final double wWeight = plan.weight(Factor.QUEUE);
        final double kWeight = plan.weight(Factor.KV_CACHE);
        final double qSlope = ScoringKernel.slope(qWeight, boundMin[Factor.QUALITY], boundMax[Factor.QUALITY],
            Factor.QUALITY);
        final double lSlope = ScoringKernel.slope(lWeight, boundMin[Factor.LATENCY], boundMax[Factor.LATENCY],
            Factor.LATENCY);
        final double cSlope = ScoringKernel.slope(cWeight, boundMin[Factor.COST], boundMax[Factor.COST], Factor.COST);
        final double wSlope = ScoringKernel.slope(wWeight, boundMin[Factor.QUEUE], boundMax[Factor.QUEUE],
            Factor.QUEUE);
        final double kSlope = ScoringKernel.slope(kWeight, boundMin[Factor.KV_CACHE], boundMax[Factor.KV_CACHE],
            Factor.KV_CACHE);
        if (Math.abs(qSlope) + Math.abs(lSlope) + Math.abs(cSlope) + Math.abs(wSlope) + Math.abs(kSlope) ==
            Double.POSITIVE_INFINITY)
        {
            return false;
        }
        final double qBase = ScoringKernel.base(qWeight, boundMin[Factor.QUALITY], boundMax[Factor.QUALITY],
            Factor.QUALITY);
        final double lBase = ScoringKernel.base(lWeight, boundMin[Factor.LATENCY], boundMax[Factor.LATENCY],
            Factor.LATENCY);
        final double cBase = ScoringKernel.base(cWeight, boundMin[Factor.COST], boundMax[Factor.COST], Factor.COST);
        final double wBase = ScoringKernel.base(wWeight, boundMin[Factor.QUEUE], boundMax[Factor.QUEUE], Factor.QUEUE);
        final double kBase = ScoringKernel.base(kWeight, boundMin[Factor.KV_CACHE], boundMax[Factor.KV_CACHE],
            Factor.KV_CACHE);
        final double qMin = boundMin[Factor.QUALITY];
        final double lMin = boundMin[Factor.LATENCY];
        final double cMin = boundMin[Factor.COST];
        final double wMin = boundMin[Factor.QUEUE];
        final double kMin = boundMin[Factor.KV_CACHE];
        for (int i = 0; i < n; i++)
        {
            // As the kernel's scoring loops: a factor of weight 0 is read as missing, and a missing value adds 0.
            final double q = qWeight > 0.0 ? plan.quality(i) : Double.NaN;
            final double l = lWeight > 0.0 ? latencyMs[i] : Double.NaN;
            final double c = cWeight > 0.0 ? plan.costPer1M(i) : Double.NaN;
            final double w = wWeight > 0.0 ? queue[i] : Double.NaN;
            final double k = kWeight > 0.0 ? kvCache[i] : Double.NaN;
            seedTerms[i] = (q == q ? qBase + qSlope * (q - qMin) : 0.0) +
                (l == l ? lBase + lSlope * (l - lMin) : 0.0) +
                (c == c ? cBase + cSlope * (c - cMin) : 0.0);
            queueTerms[i] = w == w ? wBase + wSlope * (w - wMin) : 0.0;
            kvCacheTerms[i] = k == k ? kBase + kSlope * (k - kMin) : 0.0;
            holdsBound[i] = dropReasons[i] == DropReason.NONE && (
                holds(Factor.QUALITY, plan.quality(i)) || holds(Factor.LATENCY, latencyMs[i]) ||
                holds(Factor.COST, plan.costPer1M(i)) || holds(Factor.QUEUE, queue[i]) ||
                holds(Factor.KV_CACHE, kvCache[i]));
        }
        return true;
    }

    private void widen(final int factor, final double value)
    {
        // Selects, as the kernel's: a NaN fails both comparisons and never moves a bound.
        boundMin[factor] = value < boundMin[factor] ? value : boundMin[factor];
        boundMax[factor] = value > boundMax[factor] ? value : boundMax[factor];
    }

    private boolean holds(final int factor, final double value)
    {
        return value == boundMin[factor] || value == boundMax[factor];
    }
}
