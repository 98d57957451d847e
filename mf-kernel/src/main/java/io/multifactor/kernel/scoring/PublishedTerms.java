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
 * latency and cost (and, apart, the sum of the queue's and the KV-cache's) under the bounds over the candidates those
 * ceilings keep. A selection then reads live only what depends on the request or changes between publications (exclusions, a
 * request's own latency ceilings, cached prompt shares and cost, in-flight requests and tokens): while none of them drops a candidate that holds one of those
 * bounds, the bounds stand and each score is that sum plus the live terms ({@link ScoringKernel}). The sums are computed with the kernel's own expressions in the kernel's order, so a score
 * built from them is the one the full loops compute, to the bit.
 * <p>
 * The terms come in two {@link Part}s: one for a selection at the decision's {@code cost_mix}, whose cost is published
 * with the rest, and one for a request that prices the candidates itself (its token counts), whose cost the selection
 * reads live, as it reads the in-flight counts. A decision that is ranked lexicographically, that weighs a factor the
 * terms do not know (one added to the table since), or whose range of a factor is so small that a slope overflows, has
 * no usable part ({@link Part#usable} false): its selections take the full loops.
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

    /**
     * Decisions of at most this many candidates keep, per candidate, the terms without it
     * ({@link Part#alternateFor}): a live drop of one candidate that holds a bound (at 4 candidates, almost any)
     * then costs no full ranking. 16 candidates take about 21 KB of heap in alternates per decision, 4 candidates about
     * 3 KB (mf-bench's {@code MemoryFootprint}).
     */
    static final int ALTERNATES_MAX_CANDIDATES = 16;

    @SuppressWarnings("unused")
    private volatile long version;
    // The plan these terms were worked out for: a selection uses them only with that plan.
    DecisionPlan plan;
    // Whether the signals had server values when sealed (then a selection stores the queue and KV-cache use).
    boolean servers;
    final double[] tpotMs;
    final double[] ttftMs;
    final double[] latencyMs;
    final double[] queue;
    final double[] kvCache;
    final boolean[] stale;
    /** For a selection that prices the candidates at the decision's {@code cost_mix}: cost is published too. */
    final Part atCostMix;
    /** For a request that prices the candidates itself: cost is left to the selection, read live. */
    final Part perRequestCost;

    /**
     * The drops, bounds and terms of one way of pricing the candidates. Written and read as its {@link PublishedTerms}.
     */
    static final class Part
    {
        final boolean costPublished;
        boolean usable;
        // Shared with the part's alternates, which drop what it drops.
        final int[] dropReasons;
        // Whether the candidate holds the min or the max of a sealed bound: its live drop would move that bound.
        final boolean[] holdsBound;
        // The same of the first 64 candidates as a bit mask, and which of them the sealed ceilings drop (of the two
        // parts only: an alternate drops what its part drops).
        long holdsBoundMask;
        long sealedDropMask;
        // Per candidate: quality term + latency term (+ cost term when the cost is published); apart, the queue's term
        // + the KV-cache's term, added to the rest as one (as the full loops group them).
        final double[] seedTerms;
        final double[] serverTerms;
        // The sealed bounds (the cost's only when it is published).
        final double[] boundMin = new double[Factor.COUNT];
        final double[] boundMax = new double[Factor.COUNT];
        // For a decision of at most ALTERNATES_MAX_CANDIDATES candidates (else null, and null in an alternate): at
        // index j, the bounds and terms over the sealed survivors but j, for a selection that drops j live while it
        // holds a bound (written for the candidates that hold one, unusable for the others). Allocated by the first
        // write, after whatever was allocated with the signals, so that what every selection reads stays together in
        // memory (mf-bench/RESULTS.md, "Run on ac09f58", has the A/B that showed it).
        Part[] withoutOne;

        Part(final int n, final boolean costPublished)
        {
            this(n, costPublished, new int[n]);
        }

        private Part(final int n, final boolean costPublished, final int[] dropReasons)
        {
            this.costPublished = costPublished;
            this.dropReasons = dropReasons;
            holdsBound = new boolean[n];
            seedTerms = new double[n];
            serverTerms = new double[n];
        }

        // Once, by the publisher's first write; called on the two parts of the terms, never on an alternate.
        void allocateAlternates()
        {
            if (withoutOne == null && dropReasons.length <= ALTERNATES_MAX_CANDIDATES)
            {
                final int n = dropReasons.length;
                final Part[] alternates = new Part[n];
                for (int j = 0; j < n; j++)
                {
                    alternates[j] = new Part(n, costPublished, dropReasons);
                }
                withoutOne = alternates;
            }
        }

        /**
         * For a selection whose live checks dropped a candidate that held one of this part's bounds: the alternate
         * without it, when exactly one such candidate was dropped and no other live drop holds a bound of the
         * alternate; else null (the bounds moved: the full ranking).
         *
         * @param dropped bit i set when candidate i is dropped (the sealed drops among them too).
         * @return the part whose bounds and terms are those of the survivors, or null.
         */
        Part alternateFor(final long dropped)
        {
            if (withoutOne == null)
            {
                return null;
            }
            // Alternates exist only for decisions of at most 16 candidates, so the masks hold every candidate.
            final long liveDrops = dropped & ~sealedDropMask;
            final long holders = liveDrops & holdsBoundMask;
            if (holders == 0L || (holders & (holders - 1L)) != 0L)
            {
                return null;
            }
            final Part alternate = withoutOne[Long.numberOfTrailingZeros(holders)];
            return alternate.usable && (liveDrops & alternate.holdsBoundMask) == 0L ? alternate : null;
        }
    }

    PublishedTerms(final int candidateCount)
    {
        final int n = Math.max(1, candidateCount);
        tpotMs = new double[n];
        ttftMs = new double[n];
        latencyMs = new double[n];
        queue = new double[n];
        kvCache = new double[n];
        stale = new boolean[n];
        atCostMix = new Part(n, true);
        perRequestCost = new Part(n, false);
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
        atCostMix.allocateAlternates();
        perRequestCost.allocateAlternates();
        final boolean valuesCopied = copyValues(plan, signals);
        atCostMix.usable = valuesCopied && compute(plan, atCostMix);
        perRequestCost.usable = valuesCopied && compute(plan, perRequestCost);
        VERSION.setRelease(this, v + 2L);
    }

    // The published values, as a selection stores them; false when the terms cannot serve the plan.
    private boolean copyValues(final DecisionPlan plan, final CandidateSignals signals)
    {
        if (plan.objective() == Objective.LEXICOGRAPHIC || plan.candidateCount() != signals.candidateCount() ||
            !weighsOnlyKnownFactors(plan))
        {
            return false;
        }
        final int latencyMetric = plan.latencyMetric();
        for (int i = 0; i < plan.candidateCount(); i++)
        {
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            tpotMs[i] = tpot;
            ttftMs[i] = ttft;
            latencyMs[i] = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            queue[i] = servers ? signals.queue(i) : Double.NaN;
            kvCache[i] = servers ? signals.kvCache(i) : Double.NaN;
            stale[i] = servers && signals.stale(i);
        }
        return true;
    }

    // The drops of the sealed ceilings, then the bounds and terms over the candidates they keep, then each alternate's.
    private boolean compute(final DecisionPlan plan, final Part part)
    {
        final int n = plan.candidateCount();
        final boolean costPublished = part.costPublished;
        final boolean dropsStale = plan.dropsStale() && servers;
        long sealedDropMask = 0L;
        for (int i = 0; i < n; i++)
        {
            final double quality = plan.quality(i);
            final double cost = costPublished ? plan.costPer1M(i) : Double.NaN;
            // In the order of the kernel's reasons; what is read live (exclusions, a request's cost, in-flight
            // requests and tokens) is the selection's.
            final int reason = plan.hasQualityFloor() && !(quality >= plan.minQuality()) ? DropReason.QUALITY :
                tpotMs[i] > plan.effectiveMaxTpotMs() ? DropReason.TPOT :
                ttftMs[i] > plan.effectiveMaxTtftMs() ? DropReason.TTFT :
                cost > plan.effectiveMaxCostPer1M() ? DropReason.COST :
                queue[i] > plan.effectiveMaxQueue() ? DropReason.QUEUE :
                kvCache[i] > plan.effectiveMaxKvCache() ? DropReason.KV_CACHE :
                dropsStale && stale[i] ? DropReason.STALE : DropReason.NONE;
            part.dropReasons[i] = reason;
            sealedDropMask |= reason != DropReason.NONE && i < Long.SIZE ? 1L << i : 0L;
        }
        part.sealedDropMask = sealedDropMask;
        if (!computeTerms(plan, part, -1))
        {
            return false;
        }
        if (part.withoutOne != null)
        {
            for (int j = 0; j < n; j++)
            {
                final Part alternate = part.withoutOne[j];
                alternate.usable = part.holdsBound[j] && computeTerms(plan, alternate, j);
            }
        }
        return true;
    }

    // The bounds over the candidates the part's drops keep but `without` (-1: none), and the terms under them.
    private boolean computeTerms(final DecisionPlan plan, final Part part, final int without)
    {
        final int n = plan.candidateCount();
        final boolean costPublished = part.costPublished;
        final double[] boundMin = part.boundMin;
        final double[] boundMax = part.boundMax;
        for (int f = 0; f < Factor.COUNT; f++)
        {
            boundMin[f] = Double.POSITIVE_INFINITY;
            boundMax[f] = Double.NEGATIVE_INFINITY;
        }
        for (int i = 0; i < n; i++)
        {
            if (part.dropReasons[i] == DropReason.NONE && i != without)
            {
                widen(part, Factor.QUALITY, plan.quality(i));
                widen(part, Factor.LATENCY, latencyMs[i]);
                widen(part, Factor.COST, costPublished ? plan.costPer1M(i) : Double.NaN);
                widen(part, Factor.QUEUE, queue[i]);
                widen(part, Factor.KV_CACHE, kvCache[i]);
            }
        }
        final double qWeight = plan.weight(Factor.QUALITY);
        final double lWeight = plan.weight(Factor.LATENCY);
        final double cWeight = costPublished ? plan.weight(Factor.COST) : 0.0;
        final double wWeight = plan.weight(Factor.QUEUE);
        final double kWeight = plan.weight(Factor.KV_CACHE);
        final double qSlope = slope(part, qWeight, Factor.QUALITY);
        final double lSlope = slope(part, lWeight, Factor.LATENCY);
        final double cSlope = slope(part, cWeight, Factor.COST);
        final double wSlope = slope(part, wWeight, Factor.QUEUE);
        final double kSlope = slope(part, kWeight, Factor.KV_CACHE);
        if (Math.abs(qSlope) + Math.abs(lSlope) + Math.abs(cSlope) + Math.abs(wSlope) + Math.abs(kSlope) ==
            Double.POSITIVE_INFINITY)
        {
            return false;
        }
        final double qBase = base(part, qWeight, Factor.QUALITY);
        final double lBase = base(part, lWeight, Factor.LATENCY);
        final double cBase = base(part, cWeight, Factor.COST);
        final double wBase = base(part, wWeight, Factor.QUEUE);
        final double kBase = base(part, kWeight, Factor.KV_CACHE);
        final double qMin = boundMin[Factor.QUALITY];
        final double lMin = boundMin[Factor.LATENCY];
        final double cMin = boundMin[Factor.COST];
        final double wMin = boundMin[Factor.QUEUE];
        final double kMin = boundMin[Factor.KV_CACHE];
        long holdsBoundMask = 0L;
        for (int i = 0; i < n; i++)
        {
            // As the kernel's scoring loops: a factor of weight 0 is read as missing, and a missing value adds 0.
            final double q = qWeight > 0.0 ? plan.quality(i) : Double.NaN;
            final double l = lWeight > 0.0 ? latencyMs[i] : Double.NaN;
            final double c = cWeight > 0.0 ? plan.costPer1M(i) : Double.NaN;
            final double w = wWeight > 0.0 ? queue[i] : Double.NaN;
            final double k = kWeight > 0.0 ? kvCache[i] : Double.NaN;
            final double qualityAndLatency = (q == q ? qBase + qSlope * (q - qMin) : 0.0) +
                (l == l ? lBase + lSlope * (l - lMin) : 0.0);
            part.seedTerms[i] = costPublished ? qualityAndLatency + (c == c ? cBase + cSlope * (c - cMin) : 0.0) :
                qualityAndLatency;
            part.serverTerms[i] = (w == w ? wBase + wSlope * (w - wMin) : 0.0) +
                (k == k ? kBase + kSlope * (k - kMin) : 0.0);
            final boolean holds = part.dropReasons[i] == DropReason.NONE && i != without && (
                holds(part, Factor.QUALITY, plan.quality(i)) || holds(part, Factor.LATENCY, latencyMs[i]) ||
                costPublished && holds(part, Factor.COST, plan.costPer1M(i)) || holds(part, Factor.QUEUE, queue[i]) ||
                holds(part, Factor.KV_CACHE, kvCache[i]));
            part.holdsBound[i] = holds;
            holdsBoundMask |= holds && i < Long.SIZE ? 1L << i : 0L;
        }
        part.holdsBoundMask = holdsBoundMask;
        return true;
    }

    // Whether every factor the plan weighs is one the seal works out or a sealed selection reads live (the load, and
    // the request's cached prompt share): a factor added to the table since is scored by the full loops, so its
    // decisions are never sealed.
    private static boolean weighsOnlyKnownFactors(final DecisionPlan plan)
    {
        for (int f = 0; f < Factor.COUNT; f++)
        {
            if (plan.weight(f) > 0.0 && !known(f))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean known(final int factor)
    {
        switch (factor)
        {
            case Factor.QUALITY:
            case Factor.LATENCY:
            case Factor.COST:
            case Factor.LOAD:
            case Factor.QUEUE:
            case Factor.KV_CACHE:
            case Factor.PREFIX:
                return true;
            default:
                return false;
        }
    }

    private static double slope(final Part part, final double w, final int factor)
    {
        return ScoringKernel.slope(w, part.boundMin[factor], part.boundMax[factor], factor);
    }

    private static double base(final Part part, final double w, final int factor)
    {
        return ScoringKernel.base(w, part.boundMin[factor], part.boundMax[factor], factor);
    }

    private static void widen(final Part part, final int factor, final double value)
    {
        // Selects, as the kernel's: a NaN fails both comparisons and never moves a bound.
        part.boundMin[factor] = value < part.boundMin[factor] ? value : part.boundMin[factor];
        part.boundMax[factor] = value > part.boundMax[factor] ? value : part.boundMax[factor];
    }

    private static boolean holds(final Part part, final int factor, final double value)
    {
        return value == part.boundMin[factor] || value == part.boundMax[factor];
    }
}
