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
import io.multifactor.kernel.plan.Pick;
import io.multifactor.kernel.plan.TieBreak;
import io.multifactor.kernel.reliability.EjectionPolicy;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Selects one candidate of a decision as the semantics (section 4.1 of the user docs, with the extensions of 4.2-4.5)
 * define it, over the signal table ({@link Factor}: quality, latency, cost, load, queue, KV-cache). A dropped candidate
 * is counted where it is dropped, into the calling thread's counter block, when the engine passes one.
 * <ol>
 *   <li><b>Gather, filter, bound</b> (one loop over every candidate): read each factor's value from its source - the
 *       plan for quality and cost (its cost under the request's token counts when the request has them), the
 *       {@link CandidateSignals} for latency, load, the servers' queue and KV-cache use, in-flight tokens and
 *       ejection - and write them into the {@link Selection}'s factor columns; drop the candidate when the request
 *       excludes it or at the first limit that applies (ejected, quality floor, TPOT, TTFT, cost, in-flight, in-flight
 *       tokens, queue, KV-cache, stale; a missing value never breaks a ceiling, a missing quality breaks a floor); and
 *       widen the bounds of each factor over the survivors that have it.</li>
 *   <li>No survivor: the plan's policy ({@code cheapest}, {@code first}, {@code fail}), off the common path; every
 *       candidate excluded fails.</li>
 *   <li><b>Rank</b>: for each factor whose weight is above 0, one pass over that factor's column adding its term to
 *       each candidate's score; then one pass that keeps the first highest survivor. The normalized factors are not
 *       stored: the selection computes them from the bounds when read. A decision with a tie band or a random
 *       tie-break then chooses among the scores within the band ({@link #tieSlowPath}); a lexicographic decision is
 *       ranked factor by factor instead ({@link #lexicographicSlowPath}).</li>
 * </ol>
 * The score is {@code sum over factors of w * n}, with {@code n = (x - min) / (max - min)} (inverted as {@code 1 - n}
 * for a factor where lower is better), 0.5 when every survivor that has the signal shares one value, 0 when the
 * candidate lacks it. Each term is computed as {@code base + slope * (x - min)} with {@code slope = +-w / (max - min)}
 * prepared once per factor and call: no division, clamp or shared-value branch per candidate. It agrees with the plain
 * formula within a few ulps (the reference implementation checks 1e-9); a range so small that {@code w / (max - min)}
 * overflows (values below about 1e-292) takes {@link #rankByDivisionSlowPath}, which uses the plain formula.
 * <p>
 * A decision that uses none of the extensions pays for them with the ceilings' comparisons (an off ceiling is
 * {@code +Infinity}), one store per factor column per candidate, and one test of the objective and one of the tie
 * settings per call; a factor with weight 0 costs no ranking pass.
 * <p>
 * This class is stateless and threadsafe. {@link #select} allocates nothing, takes no lock and never throws for an
 * expected outcome.
 */
public final class ScoringKernel
{
    // What a scoring pass returns when a factor's range is so small that w / (max - min) overflows.
    private static final int SLOPE_OVERFLOW = -2;

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
        plan.startSelection(out);
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        if (requestMix)
        {
            SelectionWriter.ownCosts(out);
        }
        final Exclusions exclusions = exclusionsOrNull != null && !exclusionsOrNull.isEmpty() ? exclusionsOrNull : null;
        // Signals beyond latency and in-flight requests are read only once one was published, or when the decision
        // counts tokens (load_metric: tokens, max_inflight_tokens): a decision without them runs the seed loop, which
        // loads none of them.
        final int survivors;
        if (signals.hasExtendedSignals() || plan.readsTokens())
        {
            SelectionWriter.extendedSignals(out);
            survivors = gatherAll(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull);
        }
        else
        {
            survivors = gatherSeed(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull);
        }
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
        rank(plan, out, requestOrNull);
    }

    /**
     * Gather, filter and bound over the seed signals only (quality, latency, cost, in-flight requests): for a decision
     * whose candidates have none of the others (no server signals, token counts or ejections were ever published for
     * them); their columns read missing.
     *
     * @return how many candidates survive.
     */
    private static int gatherSeed(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull)
    {
        final int n = plan.candidateCount();
        final int latencyMetric = plan.latencyMetric();
        final boolean qualityFloor = plan.hasQualityFloor();
        final double minQuality = plan.minQuality();
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        final double promptShare = requestMix ? requestOrNull.promptShare() : 0.0;
        final double completionShare = requestMix ? requestOrNull.completionShare() : 0.0;
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
        long dropped = 0L;
        for (int i = 0; i < n; i++)
        {
            final double quality = plan.quality(i);
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final double cost = requestMix ?
                CostMix.blend(promptShare, completionShare, plan.promptPer1M(i), plan.completionPer1M(i)) :
                plan.costPer1M(i);
            final long inflight = signals.inflight(i);
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            final double load = inflight;
            SelectionWriter.seedValues(out, i, latency, load);
            if (requestMix)
            {
                SelectionWriter.costPer1M(out, i, cost);
            }
            // NaN compares false: a missing observation never breaks a ceiling; an off ceiling is +Infinity. A floor is
            // off for most decisions; a missing quality fails >= and breaks it. Non-short-circuit ORs: one branch for
            // the common case, the reason is worked out only for a drop.
            final boolean broken = qualityFloor & !(quality >= minQuality) | tpot > maxTpotMs | ttft > maxTtftMs |
                cost > maxCost | inflight > maxInflight;
            if (broken || exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                final int reason = dropReason(plan, signals, exclusionsOrNull, i, false, quality, tpot, ttft, cost);
                SelectionWriter.observed(out, i, reason, tpot, ttft, inflight);
                // Noted here, in the drop branch (one bit per candidate, the first 64), and counted after the loop: a
                // counter store inside the loop would order the loop's other memory accesses around it.
                if (i < Long.SIZE)
                {
                    dropped |= 1L << i;
                }
                else if (i < Long.SIZE)
                {
                    dropped |= 1L << i;
                }
                else if (dropCountsOrNull != null)
                {
                    dropCountsOrNull.increment(signals.dropCounterId(i, reason));
                }
                continue;
            }
            SelectionWriter.observed(out, i, DropReason.NONE, tpot, ttft, inflight);
            survivors++;
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
        FactorBounds.write(out, qMin, qMax, lMin, lMax, cMin, cMax, nMin, nMax,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
        if (dropped != 0L && dropCountsOrNull != null)
        {
            countDrops(signals, out, dropped, dropCountsOrNull);
        }
        return survivors;
    }

    /**
     * Gather, filter and bound over every signal of the table: the seed signals and the servers' queue and KV-cache
     * use, in-flight tokens, staleness and ejection; then the decision's ejection cap.
     *
     * @return how many candidates survive.
     */
    private static int gatherAll(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull)
    {
        final int n = plan.candidateCount();
        final int latencyMetric = plan.latencyMetric();
        final boolean qualityFloor = plan.hasQualityFloor();
        final double minQuality = plan.minQuality();
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        final double promptShare = requestMix ? requestOrNull.promptShare() : 0.0;
        final double completionShare = requestMix ? requestOrNull.completionShare() : 0.0;
        final double maxTpotMs = plan.effectiveMaxTpotMs();
        final double maxTtftMs = plan.effectiveMaxTtftMs();
        final double maxCost = plan.effectiveMaxCostPer1M();
        final long maxInflight = plan.effectiveMaxInflight();
        final long maxInflightTokens = plan.effectiveMaxInflightTokens();
        final double maxQueue = plan.effectiveMaxQueue();
        final double maxKvCache = plan.effectiveMaxKvCache();
        final boolean tokenLoad = plan.tokenLoad();
        final boolean servers = signals.hasServerSignals();
        final boolean dropsStale = plan.dropsStale() && servers;
        final boolean ejecting = signals.hasEjectionSignals();

        double qMin = Double.POSITIVE_INFINITY;
        double qMax = Double.NEGATIVE_INFINITY;
        double lMin = Double.POSITIVE_INFINITY;
        double lMax = Double.NEGATIVE_INFINITY;
        double cMin = Double.POSITIVE_INFINITY;
        double cMax = Double.NEGATIVE_INFINITY;
        double nMin = Double.POSITIVE_INFINITY;
        double nMax = Double.NEGATIVE_INFINITY;
        double wMin = Double.POSITIVE_INFINITY;
        double wMax = Double.NEGATIVE_INFINITY;
        double kMin = Double.POSITIVE_INFINITY;
        double kMax = Double.NEGATIVE_INFINITY;
        int survivors = 0;
        int ejectedDrops = 0;
        long dropped = 0L;
        for (int i = 0; i < n; i++)
        {
            // One source per signal of the table: configuration, the latency estimator, the leases, the servers.
            final double quality = plan.quality(i);
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final double cost = requestMix ?
                CostMix.blend(promptShare, completionShare, plan.promptPer1M(i), plan.completionPer1M(i)) :
                plan.costPer1M(i);
            final long inflight = signals.inflight(i);
            final long inflightTokens = signals.inflightTokens(i);
            // A source never published is not read (a loop-invariant test): missing, not ejected.
            final double queue = servers ? signals.queue(i) : Double.NaN;
            final double kvCache = servers ? signals.kvCache(i) : Double.NaN;
            // ejection: one plain load of the model's word (the clock is read only when it is not healthy); ejected
            // exactly when it has time left (0 while its probe is out).
            final double ejectedLeft = ejecting ? signals.ejectedMillisLeft(i) : Double.NaN;
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            // load_metric: requests (the default) or tokens.
            final double load = tokenLoad ? inflightTokens : inflight;
            SelectionWriter.seedValues(out, i, latency, load);
            if (requestMix)
            {
                SelectionWriter.costPer1M(out, i, cost);
            }
            SelectionWriter.extendedValues(out, i, queue, kvCache, inflightTokens, ejectedLeft);
            // As the seed loop's test, with the extended ceilings; the decision's ejection percent cap is applied after
            // the loop.
            final boolean broken = ejectedLeft == ejectedLeft | qualityFloor & !(quality >= minQuality) |
                tpot > maxTpotMs | ttft > maxTtftMs | cost > maxCost | inflight > maxInflight |
                inflightTokens > maxInflightTokens | queue > maxQueue | kvCache > maxKvCache |
                (dropsStale && signals.stale(i));
            if (broken || exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                final int reason =
                    dropReason(plan, signals, exclusionsOrNull, i, ejectedLeft == ejectedLeft, quality, tpot, ttft, cost);
                SelectionWriter.observed(out, i, reason, tpot, ttft, inflight);
                if (reason == DropReason.EJECTED)
                {
                    // Counted once the cap is applied: max_ejection_percent may keep it a candidate.
                    ejectedDrops++;
                }
                else if (dropCountsOrNull != null)
                {
                    dropCountsOrNull.increment(signals.dropCounterId(i, reason));
                }
                continue;
            }
            SelectionWriter.observed(out, i, DropReason.NONE, tpot, ttft, inflight);
            survivors++;
            qMin = quality < qMin ? quality : qMin;
            qMax = quality > qMax ? quality : qMax;
            lMin = latency < lMin ? latency : lMin;
            lMax = latency > lMax ? latency : lMax;
            cMin = cost < cMin ? cost : cMin;
            cMax = cost > cMax ? cost : cMax;
            nMin = load < nMin ? load : nMin;
            nMax = load > nMax ? load : nMax;
            wMin = queue < wMin ? queue : wMin;
            wMax = queue > wMax ? queue : wMax;
            kMin = kvCache < kMin ? kvCache : kMin;
            kMax = kvCache > kMax ? kvCache : kMax;
        }
        FactorBounds.write(out, qMin, qMax, lMin, lMax, cMin, cMax, nMin, nMax, wMin, wMax, kMin, kMax);
        if (dropped != 0L && dropCountsOrNull != null)
        {
            countDrops(signals, out, dropped, dropCountsOrNull);
        }
        if (ejectedDrops != 0)
        {
            survivors += ejectionCapSlowPath(plan, signals, out, ejectedDrops, dropCountsOrNull);
        }
        return survivors;
    }

    /**
     * Counts the drops the gather loop noted: one counter per (model, reason) of each candidate whose bit is set, in
     * the calling thread's block; a pass over the dropped candidates only.
     */
    private static void countDrops(
        final CandidateSignals signals, final Selection out, final long dropped, final SingleWriterCounterBlock counts)
    {
        long left = dropped;
        while (left != 0L)
        {
            final int i = Long.numberOfTrailingZeros(left);
            counts.increment(signals.dropCounterId(i, out.dropReason(i)));
            left &= left - 1;
        }
    }

    /**
     * The decision's ejection cap (max_ejection_percent): of its n candidates after the request's exclusions, ejection
     * drops at most max(1, floor(p / 100 * n)); beyond that, the ejected candidates whose ejection ends soonest (then
     * the earlier in modelRefs order) stay candidates, checked against the other ceilings like any other candidate
     * (they keep their time left in the selection). Counts the drops that stand, and rewrites the bounds when a
     * candidate came back.
     *
     * @return how many candidates came back as survivors.
     */
    private static int ejectionCapSlowPath(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Selection out,
        final int ejectedDrops,
        final SingleWriterCounterBlock dropCountsOrNull)
    {
        final int n = plan.candidateCount();
        int candidates = 0;
        for (int i = 0; i < n; i++)
        {
            candidates += out.dropReason(i) == DropReason.EXCLUDED ? 0 : 1;
        }
        int comeBack = ejectedDrops - EjectionPolicy.maxEjected(candidates, signals.maxEjectionPercent());
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
            final int reason = ceilingReason(plan, signals, out, soonest);
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
            for (int f = 0; f < Factor.COUNT; f++)
            {
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < n; i++)
                {
                    if (out.dropReason(i) == DropReason.NONE)
                    {
                        final double value = out.value(i, f);
                        min = value < min ? value : min;
                        max = value > max ? value : max;
                    }
                }
                SelectionWriter.bounds(out, f, min, max);
            }
        }
        return back;
    }

    // The first ceiling after ejection that a candidate breaks, from what the selection observed; NONE when none.
    private static int ceilingReason(
        final DecisionPlan plan, final CandidateSignals signals, final Selection out, final int i)
    {
        final double quality = out.quality(i);
        return plan.hasQualityFloor() && !(quality >= plan.minQuality()) ? DropReason.QUALITY :
            out.tpotMs(i) > plan.effectiveMaxTpotMs() ? DropReason.TPOT :
            out.ttftMs(i) > plan.effectiveMaxTtftMs() ? DropReason.TTFT :
            out.costPer1M(i) > plan.effectiveMaxCostPer1M() ? DropReason.COST :
            out.inflight(i) > plan.effectiveMaxInflight() ? DropReason.INFLIGHT :
            out.inflightTokens(i) > plan.effectiveMaxInflightTokens() ? DropReason.INFLIGHT_TOKENS :
            out.queue(i) > plan.effectiveMaxQueue() ? DropReason.QUEUE :
            out.kvCache(i) > plan.effectiveMaxKvCache() ? DropReason.KV_CACHE :
            plan.dropsStale() && signals.stale(i) ? DropReason.STALE : DropReason.NONE;
    }

    /**
     * The first reason that applies, in the order excluded, ejected, quality floor, TPOT, TTFT, cost, in-flight,
     * in-flight tokens, queue, KV-cache, stale.
     */
    private static int dropReason(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final int i,
        final boolean ejected,
        final double quality,
        final double tpot,
        final double ttft,
        final double cost)
    {
        if (exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i)))
        {
            return DropReason.EXCLUDED;
        }
        return ejected ? DropReason.EJECTED :
            plan.hasQualityFloor() && !(quality >= plan.minQuality()) ? DropReason.QUALITY :
            tpot > plan.effectiveMaxTpotMs() ? DropReason.TPOT :
            ttft > plan.effectiveMaxTtftMs() ? DropReason.TTFT :
            cost > plan.effectiveMaxCostPer1M() ? DropReason.COST :
            signals.inflight(i) > plan.effectiveMaxInflight() ? DropReason.INFLIGHT :
            signals.inflightTokens(i) > plan.effectiveMaxInflightTokens() ? DropReason.INFLIGHT_TOKENS :
            signals.queue(i) > plan.effectiveMaxQueue() ? DropReason.QUEUE :
            signals.kvCache(i) > plan.effectiveMaxKvCache() ? DropReason.KV_CACHE : DropReason.STALE;
    }

    /**
     * The weighted score and the first highest survivor, in one pass over the candidates ({@link #scoreSeedFactors}, or
     * {@link #scoreAllFactors} for a decision that weighs a factor beyond the seed four); then, for a decision that
     * spreads ties, the choice among those within the band.
     */
    private static void rank(final DecisionPlan plan, final Selection out, final Request requestOrNull)
    {
        int best = plan.scoresBeyondSeed() ? scoreAllFactors(plan, out) : scoreSeedFactors(plan, out);
        if (best == SLOPE_OVERFLOW)
        {
            rankByDivisionSlowPath(plan, out, requestOrNull);
            return;
        }
        if (plan.spreadsTies())
        {
            best = plan.pick() == Pick.P2C ? p2cSlowPath(plan, out, requestOrNull) :
                tieSlowPath(plan, out, requestOrNull, out.score(best) - plan.tieBand());
        }
        SelectionWriter.outcome(out, Outcome.SCORED, best);
    }

    /**
     * Scores the survivors over quality, latency, cost and load, each term {@code base + slope * (x - min)} prepared
     * once per call ({@link #slope}, {@link #base}); a factor with weight 0 is read from the all-missing column, so it
     * adds exactly 0 (as a missing value does), whatever its values.
     *
     * @return the first survivor of the highest score, or {@link #SLOPE_OVERFLOW}.
     */
    private static int scoreSeedFactors(final DecisionPlan plan, final Selection out)
    {
        final double qWeight = plan.weight(Factor.QUALITY);
        final double qSlope = slope(qWeight, out, Factor.QUALITY);
        final double lWeight = plan.weight(Factor.LATENCY);
        final double lSlope = slope(lWeight, out, Factor.LATENCY);
        final double cWeight = plan.weight(Factor.COST);
        final double cSlope = slope(cWeight, out, Factor.COST);
        final double nWeight = plan.weight(Factor.LOAD);
        final double nSlope = slope(nWeight, out, Factor.LOAD);
        if (Math.abs(qSlope) + Math.abs(lSlope) + Math.abs(cSlope) + Math.abs(nSlope) == Double.POSITIVE_INFINITY)
        {
            return SLOPE_OVERFLOW;
        }
        final double qBase = base(qWeight, out, Factor.QUALITY);
        final double lBase = base(lWeight, out, Factor.LATENCY);
        final double cBase = base(cWeight, out, Factor.COST);
        final double nBase = base(nWeight, out, Factor.LOAD);
        final double qMin = out.boundMin(Factor.QUALITY);
        final double lMin = out.boundMin(Factor.LATENCY);
        final double cMin = out.boundMin(Factor.COST);
        final double nMin = out.boundMin(Factor.LOAD);
        final double[] quality = scoredColumn(qWeight, out, Factor.QUALITY);
        final double[] latency = scoredColumn(lWeight, out, Factor.LATENCY);
        final double[] cost = scoredColumn(cWeight, out, Factor.COST);
        final double[] load = scoredColumn(nWeight, out, Factor.LOAD);
        final double[] scores = SelectionWriter.scores(out);
        final int[] drops = SelectionWriter.dropReasons(out);
        final int n = plan.candidateCount();
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            // A dropped candidate's score is never read.
            if (drops[i] != DropReason.NONE)
            {
                continue;
            }
            final double q = quality[i];
            final double l = latency[i];
            final double c = cost[i];
            final double m = load[i];
            // Summed in the table's order; a missing value (NaN) adds 0.
            final double sum = (q == q ? qBase + qSlope * (q - qMin) : 0.0) +
                (l == l ? lBase + lSlope * (l - lMin) : 0.0) +
                (c == c ? cBase + cSlope * (c - cMin) : 0.0) +
                (m == m ? nBase + nSlope * (m - nMin) : 0.0);
            // Rounding can leave a hair outside [0, 1] (the weights themselves can add up to one ulp more than 1).
            final double score = sum < 0.0 ? 0.0 : sum > 1.0 ? 1.0 : sum;
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
     * As {@link #scoreSeedFactors}, over every factor of the table: quality, latency, cost, load, the servers' queue
     * and KV-cache use.
     *
     * @return the first survivor of the highest score, or {@link #SLOPE_OVERFLOW}.
     */
    private static int scoreAllFactors(final DecisionPlan plan, final Selection out)
    {
        final double qWeight = plan.weight(Factor.QUALITY);
        final double qSlope = slope(qWeight, out, Factor.QUALITY);
        final double lWeight = plan.weight(Factor.LATENCY);
        final double lSlope = slope(lWeight, out, Factor.LATENCY);
        final double cWeight = plan.weight(Factor.COST);
        final double cSlope = slope(cWeight, out, Factor.COST);
        final double nWeight = plan.weight(Factor.LOAD);
        final double nSlope = slope(nWeight, out, Factor.LOAD);
        final double wWeight = plan.weight(Factor.QUEUE);
        final double wSlope = slope(wWeight, out, Factor.QUEUE);
        final double kWeight = plan.weight(Factor.KV_CACHE);
        final double kSlope = slope(kWeight, out, Factor.KV_CACHE);
        if (Math.abs(qSlope) + Math.abs(lSlope) + Math.abs(cSlope) + Math.abs(nSlope) + Math.abs(wSlope) +
            Math.abs(kSlope) == Double.POSITIVE_INFINITY)
        {
            return SLOPE_OVERFLOW;
        }
        final double qBase = base(qWeight, out, Factor.QUALITY);
        final double lBase = base(lWeight, out, Factor.LATENCY);
        final double cBase = base(cWeight, out, Factor.COST);
        final double nBase = base(nWeight, out, Factor.LOAD);
        final double wBase = base(wWeight, out, Factor.QUEUE);
        final double kBase = base(kWeight, out, Factor.KV_CACHE);
        final double qMin = out.boundMin(Factor.QUALITY);
        final double lMin = out.boundMin(Factor.LATENCY);
        final double cMin = out.boundMin(Factor.COST);
        final double nMin = out.boundMin(Factor.LOAD);
        final double wMin = out.boundMin(Factor.QUEUE);
        final double kMin = out.boundMin(Factor.KV_CACHE);
        final double[] quality = scoredColumn(qWeight, out, Factor.QUALITY);
        final double[] latency = scoredColumn(lWeight, out, Factor.LATENCY);
        final double[] cost = scoredColumn(cWeight, out, Factor.COST);
        final double[] load = scoredColumn(nWeight, out, Factor.LOAD);
        final double[] queue = scoredColumn(wWeight, out, Factor.QUEUE);
        final double[] kvCache = scoredColumn(kWeight, out, Factor.KV_CACHE);
        final double[] scores = SelectionWriter.scores(out);
        final int[] drops = SelectionWriter.dropReasons(out);
        final int n = plan.candidateCount();
        int best = -1;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++)
        {
            if (drops[i] != DropReason.NONE)
            {
                continue;
            }
            final double q = quality[i];
            final double l = latency[i];
            final double c = cost[i];
            final double m = load[i];
            final double w = queue[i];
            final double k = kvCache[i];
            final double sum = (q == q ? qBase + qSlope * (q - qMin) : 0.0) +
                (l == l ? lBase + lSlope * (l - lMin) : 0.0) +
                (c == c ? cBase + cSlope * (c - cMin) : 0.0) +
                (m == m ? nBase + nSlope * (m - nMin) : 0.0) +
                (w == w ? wBase + wSlope * (w - wMin) : 0.0) +
                (k == k ? kBase + kSlope * (k - kMin) : 0.0);
            final double score = sum < 0.0 ? 0.0 : sum > 1.0 ? 1.0 : sum;
            scores[i] = score;
            if (score > bestScore)
            {
                bestScore = score;
                best = i;
            }
        }
        return best;
    }

    /** @return the column a factor's term reads: its values when it has a weight above 0, else all missing. */
    private static double[] scoredColumn(final double w, final Selection out, final int factor)
    {
        return w > 0.0 ? SelectionWriter.column(out, factor) : SelectionWriter.missingColumn(out);
    }

    /**
     * @return the slope of a factor's term: {@code +-w / (max - min)} over a spread of values (negative where lower is
     *     better), 0 when every survivor that has the value shares it, or when the factor has weight 0.
     */
    private static double slope(final double w, final Selection out, final int factor)
    {
        final double min = out.boundMin(factor);
        final double max = out.boundMax(factor);
        return w > 0.0 && max > min ? (Factor.lowerIsBetter(factor) ? -w : w) / (max - min) : 0.0;
    }

    /**
     * @return the base of a factor's term: its value at the bound {@code min} ({@code w} where lower is better, else
     *     0), {@code w / 2} when every survivor that has the value shares it, 0 when the factor has weight 0.
     */
    private static double base(final double w, final Selection out, final int factor)
    {
        if (!(w > 0.0))
        {
            return 0.0;
        }
        return out.boundMax(factor) > out.boundMin(factor) ? (Factor.lowerIsBetter(factor) ? w : 0.0) : 0.5 * w;
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
            best = plan.pick() == Pick.P2C ? p2cSlowPath(plan, out, requestOrNull) :
                tieSlowPath(plan, out, requestOrNull, bestScore - plan.tieBand());
        }
        SelectionWriter.outcome(out, Outcome.SCORED, best);
    }

    /**
     * {@code pick: p2c}: the better of two distinct survivors drawn from the request's generator
     * ({@link PowerOfTwoChoices}); the other is left as the selection's runner-up, which reserve-on-select tries next.
     */
    private static int p2cSlowPath(final DecisionPlan plan, final Selection out, final Request requestOrNull)
    {
        final long pair = PowerOfTwoChoices.pick(out, plan.candidateCount(), requestOrNull);
        SelectionWriter.runnerUp(out, PowerOfTwoChoices.loser(pair));
        return PowerOfTwoChoices.winner(pair);
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
