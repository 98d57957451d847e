package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.CostMix;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Pick;

/**
 * The {@link ScoringKernel}'s two loops on sealed signals ({@link CandidateSignals#seal}, {@link PublishedTerms}):
 * what a selection owes to configuration and to published values is read from the terms, and only the exclusions, the
 * request's own latency ceilings, cached prompt shares and cost and the in-flight requests and tokens are read live;
 * the result is the full loops', to the bit.
 * A decision of {@value #COPY_PASS_MIN_CANDIDATES} candidates or more first copies the published values into the
 * selection in passes of their own (one for the latencies, one for the queue and KV-cache use when it has them).
 * <p>
 * This class is stateless and threadsafe; it allocates nothing, takes no lock and never throws for an expected outcome.
 */
final class SealedScoring
{
    /**
     * Decisions of at least this many candidates store the published values in passes of their own, which the JIT
     * vectorizes. A one-fork A/B (busy: a direction, not a figure; mf-bench/RESULTS.md, "Run on 3340d7a") set it: the
     * passes were faster at 64 candidates, slower at 16 with drops, and at 4 a pass cost more to enter than it saved.
     */
    static final int COPY_PASS_MIN_CANDIDATES = 32;

    private SealedScoring()
    {
    }

    /**
     * Selects over sealed signals ({@link PublishedTerms}): in a decision of {@value #COPY_PASS_MIN_CANDIDATES}
     * candidates or more, the published values copied into {@code out} first; then one loop that reads live each
     * candidate's in-flight requests and tokens, whether the request excludes it, the request's cached share of it
     * ({@code prefix}) and, for a request with token counts or shares that price it, its cost, the rest from the terms;
     * applies what is live (exclusion, the request's own TPOT and TTFT ceilings, {@code max_cost} on the request's
     * cost, {@code max_inflight}, {@code max_inflight_tokens}) and the drops worked out at the seal, stores what the
     * full gather loop stores, and bounds what is live. Then, while no live drop moved a bound of the terms, one loop
     * that scores each survivor as its sealed terms plus its live terms: those of the part, or, when one live drop took a
     * candidate that held a bound, those of the part's alternate without it ({@link PublishedTerms.Part#alternateFor});
     * else the bounds are worked out over the survivors and the full ranking runs. Drops are counted once the terms are
     * known to have stayed one publication throughout.
     *
     * @return whether it selected; false when the terms are not for {@code plan}, not usable, or were written meanwhile
     *     (then the caller starts the selection again for the full loops).
     */
    static boolean select(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final PublishedTerms terms,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull,
        final long p2cBits)
    {
        final long version = terms.beginRead();
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        // prefix: the request's cached share per model, read live; with cached_prompt_per_1m it prices the prompt too,
        // so the cost is then the request's own as well.
        final boolean prefixes = requestOrNull != null && requestOrNull.hasPrefixMatches();
        final boolean cachedPrices = prefixes && plan.pricesCachedPrompt();
        final boolean costLive = requestMix || cachedPrices;
        final PublishedTerms.Part part = costLive ? terms.perRequestCost : terms.atCostMix;
        if (version == PublishedTerms.BEING_WRITTEN || terms.plan != plan || !part.usable)
        {
            return false;
        }
        final int n = plan.candidateCount();
        final long maxInflight = plan.effectiveMaxInflight();
        final long maxInflightTokens = plan.effectiveMaxInflightTokens();
        final double maxCost = plan.effectiveMaxCostPer1M();
        // The request's own latency ceilings where tighter than the decision's (which the seal applied), read live.
        final double maxTpotMs = RequestScreen.maxTpotMs(plan, requestOrNull);
        final double maxTtftMs = RequestScreen.maxTtftMs(plan, requestOrNull);
        final double mixPrompt = requestMix ? requestOrNull.promptShare() : plan.costMixPrompt();
        final double mixCompletion = requestMix ? requestOrNull.completionShare() : plan.costMixCompletion();
        // The mix's weights, divided once per call.
        final double promptWeight = CostMix.promptWeight(mixPrompt, mixCompletion);
        final double completionWeight = CostMix.completionWeight(mixPrompt, mixCompletion);
        final boolean tokenLoad = plan.tokenLoad();
        final boolean servers = terms.servers;
        final boolean tokens = plan.readsTokens() || signals.hasTokenSignals();
        if (servers)
        {
            SelectionWriter.gathered(out, Factor.QUEUE);
            SelectionWriter.gathered(out, Factor.KV_CACHE);
        }
        if (tokens)
        {
            SelectionWriter.sources(out, true, false);
        }
        if (prefixes)
        {
            SelectionWriter.gathered(out, Factor.PREFIX);
        }
        if (cachedPrices)
        {
            SelectionWriter.gathered(out, Factor.COST);
        }
        final int[] sealedDrops = part.dropReasons;
        final boolean[] holdsBound = part.holdsBound;
        final double[] tpot = terms.tpotMs;
        final double[] ttft = terms.ttftMs;
        final double[] latency = terms.latencyMs;
        final double[] queue = terms.queue;
        final double[] kvCache = terms.kvCache;
        // The factors' columns this loop writes, fetched once.
        final double[] latencyColumn = SelectionWriter.ownColumn(out, Factor.LATENCY);
        final double[] loadColumn = SelectionWriter.ownColumn(out, Factor.LOAD);
        final double[] costColumn = SelectionWriter.ownColumn(out, Factor.COST);
        final double[] queueColumn = SelectionWriter.ownColumn(out, Factor.QUEUE);
        final double[] kvCacheColumn = SelectionWriter.ownColumn(out, Factor.KV_CACHE);
        final double[] prefixColumn = SelectionWriter.ownColumn(out, Factor.PREFIX);
        // The published values: in passes of their own in a large decision, else in the loop.
        final boolean copied = n >= COPY_PASS_MIN_CANDIDATES;
        if (copied)
        {
            SelectionWriter.publishedValues(out, tpot, ttft, latency, n);
            if (servers)
            {
                copyServerValues(queue, kvCache, queueColumn, kvCacheColumn, n);
            }
        }
        double cMin = Double.POSITIVE_INFINITY;
        double cMax = Double.NEGATIVE_INFINITY;
        double nMin = Double.POSITIVE_INFINITY;
        double nMax = Double.NEGATIVE_INFINITY;
        double pMin = Double.POSITIVE_INFINITY;
        double pMax = Double.NEGATIVE_INFINITY;
        int survivors = 0;
        long dropped = 0L;
        boolean boundsMoved = false;
        for (int i = 0; i < n; i++)
        {
            final long inflight = signals.inflight(i);
            final long inflightTokens = tokens ? signals.inflightTokens(i) : 0L;
            final double load = tokenLoad ? inflightTokens : inflight;
            final double prefix = prefixes ? requestOrNull.prefixMatch(plan.candidateModelId(i)) : Double.NaN;
            final double cost = costLive ?
                ScoringKernel.cost(plan, i, requestMix, promptWeight, completionWeight, cachedPrices, prefix) : Double.NaN;
            if (!copied)
            {
                SelectionWriter.publishedValues(out, i, tpot[i], ttft[i]);
                latencyColumn[i] = latency[i];
                if (servers)
                {
                    queueColumn[i] = queue[i];
                    kvCacheColumn[i] = kvCache[i];
                }
            }
            loadColumn[i] = load;
            if (costLive)
            {
                costColumn[i] = cost;
            }
            if (prefixes)
            {
                prefixColumn[i] = prefix;
            }
            if (tokens)
            {
                SelectionWriter.inflightTokens(out, i, inflightTokens);
            }
            final int sealedReason = sealedDrops[i];
            final boolean excluded = exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i));
            // The request's latency ceilings (the decision's where it has none: then a break is a sealed drop too).
            final boolean overTpot = tpot[i] > maxTpotMs;
            final boolean overTtft = ttft[i] > maxTtftMs;
            final boolean overCost = cost > maxCost;
            final boolean overInflight = inflight > maxInflight;
            final boolean overTokens = inflightTokens > maxInflightTokens;
            if (sealedReason != DropReason.NONE | excluded | overTpot | overTtft | overCost | overInflight | overTokens)
            {
                // The first reason in their order. The live ones: excluded first, the request's TPOT and TTFT ceilings
                // and its cost after the quality floor, then in-flight requests and tokens, all before the queue.
                final int liveReason = excluded ? DropReason.EXCLUDED : overTpot ? DropReason.TPOT :
                    overTtft ? DropReason.TTFT : overCost ? DropReason.COST :
                    overInflight ? DropReason.INFLIGHT : overTokens ? DropReason.INFLIGHT_TOKENS : DropReason.NONE;
                final int reason = liveReason != DropReason.NONE &&
                    (sealedReason == DropReason.NONE || sealedReason > liveReason) ? liveReason : sealedReason;
                boundsMoved |= sealedReason == DropReason.NONE && holdsBound[i];
                SelectionWriter.liveValues(out, i, reason, inflight);
                dropped |= i < Long.SIZE ? 1L << i : 0L;
                continue;
            }
            SelectionWriter.liveValues(out, i, DropReason.NONE, inflight);
            survivors++;
            cMin = cost < cMin ? cost : cMin;
            cMax = cost > cMax ? cost : cMax;
            nMin = load < nMin ? load : nMin;
            nMax = load > nMax ? load : nMax;
            pMin = prefix < pMin ? prefix : pMin;
            pMax = prefix > pMax ? prefix : pMax;
        }
        // The sealed bounds stand unless a live drop took a candidate that held one; in a small decision, when one
        // such candidate dropped, the alternate without it holds the survivors' bounds and terms. With those, the
        // scores are the sealed terms plus the live ones, unless a live slope overflows.
        final PublishedTerms.Part scored = boundsMoved ? part.alternateFor(dropped) : part;
        final boolean sealedBoundsStand = survivors != 0 && scored != null;
        if (!costLive && scored != null)
        {
            cMin = scored.boundMin[Factor.COST];
            cMax = scored.boundMax[Factor.COST];
        }
        final double cWeight = costLive ? plan.weight(Factor.COST) : 0.0;
        final double cSlope = ScoringKernel.slope(cWeight, cMin, cMax, Factor.COST);
        final double nWeight = plan.weight(Factor.LOAD);
        final double nSlope = ScoringKernel.slope(nWeight, nMin, nMax, Factor.LOAD);
        final double pWeight = plan.weight(Factor.PREFIX);
        final double pSlope = ScoringKernel.slope(pWeight, pMin, pMax, Factor.PREFIX);
        if (!sealedBoundsStand ||
            Math.abs(cSlope) + Math.abs(nSlope) + Math.abs(pSlope) == Double.POSITIVE_INFINITY)
        {
            // The full ranking over the selection's columns (with no survivor, the decision's policy), once the
            // bounds are those of the survivors.
            if (sealedBoundsStand)
            {
                writeBounds(out, scored, cMin, cMax, nMin, nMax, pMin, pMax);
            }
            else
            {
                ScoringSlowPaths.boundsOfSurvivors(out, n);
            }
            if (!terms.stillReads(version))
            {
                return false;
            }
            countSealedDrops(signals, out, n, dropped, dropCountsOrNull);
            if (survivors == 0)
            {
                ScoringSlowPaths.noSurvivorSlowPath(plan, out);
            }
            else
            {
                ScoringKernel.rank(plan, out, requestOrNull, survivors, p2cBits);
            }
            return true;
        }
        writeBounds(out, scored, cMin, cMax, nMin, nMax, pMin, pMax);
        // The servers' terms are added where the decision weighs them; elsewhere they are 0, whose sum changes no score
        // (a sum of terms is never -0: each starts from a base of +0 or above).
        final boolean serversScored = plan.weight(Factor.QUEUE) > 0.0 || plan.weight(Factor.KV_CACHE) > 0.0;
        final int best = scoreSealed(scored, out, n, serversScored, costLive,
            ScoringKernel.scoredColumn(cWeight, out, Factor.COST), ScoringKernel.base(cWeight, cMin, cMax, Factor.COST),
            cSlope, cMin, ScoringKernel.base(nWeight, nMin, nMax, Factor.LOAD), nSlope, nMin, pWeight > 0.0,
            ScoringKernel.scoredColumn(pWeight, out, Factor.PREFIX), ScoringKernel.base(pWeight, pMin, pMax, Factor.PREFIX),
            pSlope, pMin);
        if (!terms.stillReads(version))
        {
            return false;
        }
        countSealedDrops(signals, out, n, dropped, dropCountsOrNull);
        final int chosen = !plan.spreadsTies() ? best : plan.pick() == Pick.P2C ?
            ScoringSlowPaths.p2cSlowPath(plan, out, p2cBits, survivors) :
            ScoringSlowPaths.tieSlowPath(plan, out, requestOrNull, out.score(best) - plan.tieBand());
        SelectionWriter.outcome(out, Outcome.SCORED, chosen);
        return true;
    }

    /**
     * Scores the survivors as their sealed terms plus their live ones, summed in the table's order as
     * {@link ScoringKernel}'s scoring loops do, so to the same bit: the sealed quality and latency
     * terms (and cost, at the decision's {@code cost_mix}), the request's cost term when it prices the candidates
     * itself (from {@code cost}: its column, or the all-missing one for a cost of weight 0, as in the full loops), the
     * load's term, then for a decision that weighs them the sealed sum of the queue and KV-cache terms, then for a
     * decision that weighs {@code prefix} the term of the request's cached share (from {@code prefix}, as the cost).
     *
     * @return the first survivor of the highest score.
     */
    private static int scoreSealed(
        final PublishedTerms.Part part,
        final Selection out,
        final int n,
        final boolean serversScored,
        final boolean costLive,
        final double[] cost,
        final double cBase,
        final double cSlope,
        final double cMin,
        final double nBase,
        final double nSlope,
        final double nMin,
        final boolean prefixScored,
        final double[] prefix,
        final double pBase,
        final double pSlope,
        final double pMin)
    {
        final double[] seedTerms = part.seedTerms;
        final double[] serverTerms = part.serverTerms;
        final double[] load = SelectionWriter.column(out, Factor.LOAD);
        final double[] scores = SelectionWriter.scores(out);
        final int[] drops = SelectionWriter.dropReasons(out);
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (drops[i] != DropReason.NONE)
            {
                continue;
            }
            double sum = seedTerms[i];
            if (costLive)
            {
                final double c = cost[i];
                sum = sum + (c == c ? cBase + cSlope * (c - cMin) : 0.0);
            }
            // A load is a count, never missing.
            sum = sum + (nBase + nSlope * (load[i] - nMin));
            if (serversScored)
            {
                sum = sum + serverTerms[i];
            }
            if (prefixScored)
            {
                // The request's cached share: live, as the load.
                final double p = prefix[i];
                sum = sum + (p == p ? pBase + pSlope * (p - pMin) : 0.0);
            }
            final double score = ScoringKernel.clampScore(sum);
            scores[i] = score;
            if (score > bestScore)
            {
                bestScore = score;
                best = i;
            }
        }
        return best;
    }

    /**
     * Writes the sealed bounds with the live ones of the cost (a request's own) and the load: the sealed ones of the
     * factors beyond the seed four are the part's, whatever the table holds (none where the terms do not bound it).
     */
    private static void writeBounds(
        final Selection out, final PublishedTerms.Part part, final double cMin, final double cMax, final double nMin,
        final double nMax, final double pMin, final double pMax)
    {
        final double[] bMin = part.boundMin;
        final double[] bMax = part.boundMax;
        SelectionWriter.bounds(out, Factor.QUALITY, bMin[Factor.QUALITY], bMax[Factor.QUALITY]);
        SelectionWriter.bounds(out, Factor.LATENCY, bMin[Factor.LATENCY], bMax[Factor.LATENCY]);
        SelectionWriter.bounds(out, Factor.COST, cMin, cMax);
        SelectionWriter.bounds(out, Factor.LOAD, nMin, nMax);
        for (int f = Factor.SEED_COUNT; f < Factor.COUNT; f++)
        {
            SelectionWriter.bounds(out, f, bMin[f], bMax[f]);
        }
        // The request's cached shares are never sealed: their bounds are live (none without shares, as the seal's).
        SelectionWriter.bounds(out, Factor.PREFIX, pMin, pMax);
    }

    /** Stores the queue and KV-cache use of the first {@code n} candidates in a pass of their own. */
    private static void copyServerValues(
        final double[] queue, final double[] kvCache, final double[] queueColumn, final double[] kvCacheColumn,
        final int n)
    {
        for (int i = 0; i < n; i++)
        {
            queueColumn[i] = queue[i];
            kvCacheColumn[i] = kvCache[i];
        }
    }

    /** Counts a sealed selection's drops: the first 64 candidates' from the mask, the others' from the selection. */
    private static void countSealedDrops(
        final CandidateSignals signals,
        final Selection out,
        final int n,
        final long dropped,
        final SingleWriterCounterBlock dropCountsOrNull)
    {
        if (dropCountsOrNull == null)
        {
            return;
        }
        if (dropped != 0L)
        {
            ScoringKernel.countDrops(signals, out, dropped, dropCountsOrNull);
        }
        for (int i = Long.SIZE; i < n; i++)
        {
            final int reason = out.dropReason(i);
            if (reason != DropReason.NONE)
            {
                dropCountsOrNull.increment(signals.dropCounterId(i, reason));
            }
        }
    }
}
