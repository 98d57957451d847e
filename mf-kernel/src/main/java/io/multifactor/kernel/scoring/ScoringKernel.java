package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Objective;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.metrics.SingleWriterCounterBlock;
import io.multifactor.kernel.plan.CostMix;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Pick;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Selects one candidate of a decision as the semantics (section 4.1 of the user docs, with the extensions of 4.2-4.5)
 * define it, over the signal table ({@link Factor}: quality, latency, cost, load, queue, KV-cache, prefix), in two
 * loops over the candidates. Dropped candidates are counted, into the calling thread's counter block when the engine
 * passes one, once the first loop is over.
 * <ol>
 *   <li><b>Gather, filter, bound</b> (one loop over every candidate): read each factor's value from its source - the
 *       plan for quality and cost (its cost under the request's token counts when the request has them), the
 *       {@link CandidateSignals} for latency, load, the servers' queue and KV-cache use, in-flight tokens and
 *       ejection - and write them into the {@link Selection}'s factor columns; drop the candidate when the request
 *       excludes it or at the first limit that applies (ejected, quality floor, TPOT, TTFT, cost, in-flight, in-flight
 *       tokens, queue, KV-cache, stale; a missing value never breaks a ceiling, a missing quality breaks a floor),
 *       noting it in a bit mask; and widen the bounds of each factor over the survivors that have it. Until a
 *       decision's signals have a source beyond latency and in-flight requests (a server load, tokens, an ejection;
 *       ejection only while a model of the engine is out of the healthy phase, {@link CandidateSignals#readsBeyondSeed}),
 *       the loop is {@link #gatherSeed}, which reads none of them; then {@link #gatherAll}, which reads the sources
 *       published (the tokens when the decision weighs or bounds them), and applies the ejection cap. A request that
 *       supplies cached prompt shares ({@link Request#prefixMatch(int, double)}) takes {@link #gatherAll} too, which
 *       reads each candidate's share (the {@code prefix} factor) and, where the candidate has a cached prompt price,
 *       prices its prompt at {@code (1 - P) * prompt + P * cached} under the request's or the decision's mix
 *       ({@link #cost}). After the loop, one increment per drop noted.</li>
 *   <li>No survivor: the plan's policy ({@code cheapest}, {@code first}, {@code fail}), off the common path; every
 *       candidate excluded fails.</li>
 *   <li><b>Rank</b> (one loop over the candidates): each survivor's score, the sum of its factors' terms (the seed
 *       four, or all six when the decision weighs the queue or the KV-cache), and the first highest survivor. The
 *       normalized factors are not stored: the selection computes them from the bounds when read. A decision with a
 *       tie band, a random tie-break or {@code pick: p2c} then chooses among the survivors
 *       ({@link ScoringSlowPaths#tieSlowPath}, {@link PowerOfTwoChoices}); a lexicographic decision is ranked factor by
 *       factor instead ({@link ScoringSlowPaths#lexicographicSlowPath}).</li>
 * </ol>
 * The score is {@code sum over factors of w * n}, with {@code n = (x - min) / (max - min)} (inverted as {@code 1 - n}
 * for a factor where lower is better), 0.5 when every survivor that has the signal shares one value, 0 when the
 * candidate lacks it. Each term is computed as {@code base + slope * (x - min)} with {@code slope = +-w / (max - min)}
 * prepared once per factor and call: no division, clamp or shared-value branch per candidate; a factor of weight 0 is
 * read from an all-missing column, so it adds exactly 0. It agrees with the plain formula within a few ulps (the
 * reference implementation checks 1e-9); a range so small that {@code w / (max - min)} overflows (values below about
 * 1e-292) takes {@link ScoringSlowPaths#rankByDivisionSlowPath}, which uses the plain formula.
 * <p>
 * <b>Sealed signals.</b> After a publication the engine seals each decision's signals ({@link CandidateSignals#seal}):
 * what a selection owes to configuration and to published values alone - the drops of the ceilings on them, the
 * bounds over the candidates they keep, each candidate's terms of quality, latency, cost, queue and KV-cache
 * ({@link PublishedTerms}) - is worked out once per publication. A selection on sealed signals, while no model of the
 * decision is ejected, makes the same two loops with less in them ({@link SealedScoring}): the first reads live the
 * exclusions, the request's own latency ceilings, its cached prompt shares and its own cost (when its token counts or
 * its shares price the candidates) and the in-flight requests and tokens, applies them, stores what the full loop
 * stores and bounds what is live; the second adds each survivor's live terms (load, and the request's cached share)
 * to its sealed ones, in the order the full loop sums them, so to the same bit. In a decision of 32 candidates
 * or more, the published values the first loop would store are copied before it, in passes of their own (two: the
 * latencies, and with server signals the queue and KV-cache use). A live drop of a candidate that held a sealed bound
 * scores with the terms without it, kept by the seal for a decision of at most 16 candidates, when it is the only one;
 * otherwise the bounds are worked out over the survivors and the full ranking runs.
 * <p>
 * <b>Where the factors are written out.</b> The selection's storage, the writer and the ranking's slow paths
 * iterate the signal table; only this class's loops (and {@link SealedScoring}'s, {@link BaselineKernel}'s over the
 * seed factors) name the factors, for speed: each loop fetches once the selection's column of every factor it
 * gathers ({@link SelectionWriter#ownColumn}), marks those beyond latency and load it read this call
 * ({@link SelectionWriter#gathered}), keeps their bounds in locals and writes them after the loop, and clears the
 * bounds of the table's other factors ({@link SelectionWriter#noBounds}), which then read missing. A decision that
 * weighs a factor the seal does not know is never sealed ({@link PublishedTerms}), so a new factor is read and scored
 * here alone.
 * <p>
 * A decision that uses none of the extensions pays for them with one test per call of whether its signals have any,
 * one test of its pick, one of the objective and one of the tie settings.
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
        SelectionWriter.start(out, plan);
        // pick: p2c draws its pair's bits now, so that the generator's arithmetic overlaps the loops.
        final long p2cBits = plan.pick() == Pick.P2C ? PowerOfTwoChoices.draw(requestOrNull) : 0L;
        final boolean requestMix = requestOrNull != null && requestOrNull.hasTokens();
        if (requestMix)
        {
            SelectionWriter.gathered(out, Factor.COST);
        }
        final Exclusions exclusions = exclusionsOrNull != null && !exclusionsOrNull.isEmpty() ? exclusionsOrNull : null;
        // Eligibility, the request's own ceilings and admission (RequestScreen): one test for the requests without them.
        if (RequestScreen.screens(plan, requestOrNull))
        {
            RequestScreen.select(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull, p2cBits);
            return;
        }
        selectPublished(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull, p2cBits);
    }

    /**
     * The selection after the request's screen: on sealed signals when they are sealed for the plan, else (or when
     * the sealed path declines) the full loops; on a selection started for the plan, with the cost column marked
     * gathered when the request prices the candidates. {@link RequestScreen} comes here too when its screen left
     * every candidate in and the request has no latency ceiling of its own.
     */
    static void selectPublished(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusions,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull,
        final long p2cBits)
    {
        // Sealed signals (CandidateSignals#seal): what the selection owes to configuration and to published values is
        // worked out already; only exclusions, the request's own cost and the in-flight counts are read live.
        final PublishedTerms terms = signals.sealedTerms();
        if (terms != null)
        {
            if (SealedScoring.select(plan, signals, terms, exclusions, requestOrNull, out, dropCountsOrNull, p2cBits))
            {
                return;
            }
            // Not for this plan, or written again meanwhile: the full loops, from the start.
            SelectionWriter.start(out, plan);
            if (requestOrNull != null && requestOrNull.hasTokens())
            {
                SelectionWriter.gathered(out, Factor.COST);
            }
        }
        selectUnsealed(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull, p2cBits);
    }

    /**
     * The full loops of {@link #select}, without sealed signals, on a selection started for the plan (with the cost
     * column marked gathered when the request prices the candidates): for {@link RequestScreen}, and after the sealed
     * path declined.
     */
    static void selectUnsealed(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusions,
        final Request requestOrNull,
        final Selection out,
        final SingleWriterCounterBlock dropCountsOrNull,
        final long p2cBits)
    {
        // Signals beyond latency and in-flight requests are read only once one was published (ejection: while a model
        // of the engine is out of the healthy phase), or when the decision counts tokens (load_metric: tokens,
        // max_inflight_tokens): a decision without them runs the seed loop, which loads none of them.
        final int survivors;
        if (signals.readsBeyondSeed() || plan.readsTokens() || requestOrNull != null && requestOrNull.hasPrefixMatches())
        {
            survivors = gatherAll(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull);
        }
        else
        {
            survivors = gatherSeed(plan, signals, exclusions, requestOrNull, out, dropCountsOrNull);
        }
        if (survivors == 0)
        {
            ScoringSlowPaths.noSurvivorSlowPath(plan, out);
            return;
        }
        if (plan.objective() == Objective.LEXICOGRAPHIC)
        {
            ScoringSlowPaths.lexicographicSlowPath(plan, out, requestOrNull);
            return;
        }
        rank(plan, out, requestOrNull, survivors, p2cBits);
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
        // The request's mix weights, divided once per call.
        final double promptWeight = requestMix ?
            CostMix.promptWeight(requestOrNull.promptShare(), requestOrNull.completionShare()) : 0.0;
        final double completionWeight = requestMix ?
            CostMix.completionWeight(requestOrNull.promptShare(), requestOrNull.completionShare()) : 0.0;
        final double maxTpotMs = RequestScreen.maxTpotMs(plan, requestOrNull);
        final double maxTtftMs = RequestScreen.maxTtftMs(plan, requestOrNull);
        final double maxCost = plan.effectiveMaxCostPer1M();
        final long maxInflight = plan.effectiveMaxInflight();
        // The factors' columns this loop writes, fetched once.
        final double[] latencyColumn = SelectionWriter.ownColumn(out, Factor.LATENCY);
        final double[] loadColumn = SelectionWriter.ownColumn(out, Factor.LOAD);
        final double[] costColumn = SelectionWriter.ownColumn(out, Factor.COST);

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
                CostMix.blendByWeights(promptWeight, completionWeight, plan.promptPer1M(i), plan.completionPer1M(i)) :
                plan.costPer1M(i);
            final long inflight = signals.inflight(i);
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            final double load = inflight;
            SelectionWriter.publishedValues(out, i, tpot, ttft);
            latencyColumn[i] = latency;
            loadColumn[i] = load;
            if (requestMix)
            {
                costColumn[i] = cost;
            }
            // NaN compares false: a missing observation never breaks a ceiling; an off ceiling is +Infinity. A floor is
            // off for most decisions; a missing quality fails >= and breaks it. Non-short-circuit ORs: one branch for
            // the common case, the reason is worked out only for a drop.
            final boolean broken = qualityFloor & !(quality >= minQuality) | tpot > maxTpotMs | ttft > maxTtftMs |
                cost > maxCost | inflight > maxInflight;
            if (broken || exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                final int reason = dropReason(plan, signals, exclusionsOrNull, requestOrNull, i, false, quality, tpot, ttft, cost);
                SelectionWriter.liveValues(out, i, reason, inflight);
                dropped = noteDrop(dropped, i, reason, signals, dropCountsOrNull);
                continue;
            }
            SelectionWriter.liveValues(out, i, DropReason.NONE, inflight);
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
        SelectionWriter.bounds(out, Factor.QUALITY, qMin, qMax);
        SelectionWriter.bounds(out, Factor.LATENCY, lMin, lMax);
        SelectionWriter.bounds(out, Factor.COST, cMin, cMax);
        SelectionWriter.bounds(out, Factor.LOAD, nMin, nMax);
        SelectionWriter.noBounds(out, Factor.SEED_COUNT);
        if (dropped != 0L && dropCountsOrNull != null)
        {
            countDrops(signals, out, dropped, dropCountsOrNull);
        }
        return survivors;
    }

    /**
     * Gather, filter and bound over every signal of the table: the seed signals and the servers' queue and KV-cache
     * use, in-flight tokens, staleness and ejection, the request's cached prompt shares (and the cache-aware prompt
     * price they give); then the decision's ejection cap.
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
        final double maxTpotMs = RequestScreen.maxTpotMs(plan, requestOrNull);
        final double maxTtftMs = RequestScreen.maxTtftMs(plan, requestOrNull);
        final double maxCost = plan.effectiveMaxCostPer1M();
        final long maxInflight = plan.effectiveMaxInflight();
        final long maxInflightTokens = plan.effectiveMaxInflightTokens();
        final double maxQueue = plan.effectiveMaxQueue();
        final double maxKvCache = plan.effectiveMaxKvCache();
        final boolean tokenLoad = plan.tokenLoad();
        final boolean tokens = plan.readsTokens() || signals.hasTokenSignals();
        final boolean servers = signals.hasServerSignals();
        final boolean dropsStale = plan.dropsStale() && servers;
        final boolean ejecting = signals.readsEjections();
        // prefix: the request's cached share per model; with cached_prompt_per_1m it prices the prompt as well.
        final boolean prefixes = requestOrNull != null && requestOrNull.hasPrefixMatches();
        final boolean cachedPrices = prefixes && plan.pricesCachedPrompt();
        final double mixPrompt = requestMix ? requestOrNull.promptShare() : plan.costMixPrompt();
        final double mixCompletion = requestMix ? requestOrNull.completionShare() : plan.costMixCompletion();
        // The mix's weights, divided once per call.
        final double promptWeight = CostMix.promptWeight(mixPrompt, mixCompletion);
        final double completionWeight = CostMix.completionWeight(mixPrompt, mixCompletion);
        SelectionWriter.sources(out, tokens, ejecting);
        if (servers)
        {
            SelectionWriter.gathered(out, Factor.QUEUE);
            SelectionWriter.gathered(out, Factor.KV_CACHE);
        }
        if (prefixes)
        {
            SelectionWriter.gathered(out, Factor.PREFIX);
        }
        if (cachedPrices)
        {
            SelectionWriter.gathered(out, Factor.COST);
        }
        // The factors' columns this loop writes, fetched once.
        final double[] latencyColumn = SelectionWriter.ownColumn(out, Factor.LATENCY);
        final double[] loadColumn = SelectionWriter.ownColumn(out, Factor.LOAD);
        final double[] costColumn = SelectionWriter.ownColumn(out, Factor.COST);
        final double[] queueColumn = SelectionWriter.ownColumn(out, Factor.QUEUE);
        final double[] kvCacheColumn = SelectionWriter.ownColumn(out, Factor.KV_CACHE);
        final double[] prefixColumn = SelectionWriter.ownColumn(out, Factor.PREFIX);

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
        double pMin = Double.POSITIVE_INFINITY;
        double pMax = Double.NEGATIVE_INFINITY;
        int survivors = 0;
        int ejectedDrops = 0;
        long dropped = 0L;
        for (int i = 0; i < n; i++)
        {
            // One source per signal of the table: configuration, the latency estimator, the leases, the servers.
            final double quality = plan.quality(i);
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final double prefix = prefixes ? requestOrNull.prefixMatch(plan.candidateModelId(i)) : Double.NaN;
            final double cost = cost(plan, i, requestMix, promptWeight, completionWeight, cachedPrices, prefix);
            final long inflight = signals.inflight(i);
            // A source never published is not read (a loop-invariant test): no tokens, missing, not ejected.
            final long inflightTokens = tokens ? signals.inflightTokens(i) : 0L;
            final double queue = servers ? signals.queue(i) : Double.NaN;
            final double kvCache = servers ? signals.kvCache(i) : Double.NaN;
            // ejection: one plain load of the model's word (the clock is read only when it is not healthy); ejected
            // exactly when it has time left (0 while its probe is out).
            final double ejectedLeft = ejecting ? signals.ejectedMillisLeft(i) : Double.NaN;
            final double latency = latencyMetric == LatencyMetric.AUTO ? (tpot == tpot ? tpot : ttft) :
                latencyMetric == LatencyMetric.TPOT ? tpot : ttft;
            // load_metric: requests (the default) or tokens.
            final double load = tokenLoad ? inflightTokens : inflight;
            SelectionWriter.publishedValues(out, i, tpot, ttft);
            latencyColumn[i] = latency;
            loadColumn[i] = load;
            if (requestMix || cachedPrices)
            {
                costColumn[i] = cost;
            }
            if (servers)
            {
                queueColumn[i] = queue;
                kvCacheColumn[i] = kvCache;
            }
            if (prefixes)
            {
                prefixColumn[i] = prefix;
            }
            if (tokens)
            {
                SelectionWriter.inflightTokens(out, i, inflightTokens);
            }
            if (ejecting)
            {
                SelectionWriter.ejectedMillisLeft(out, i, ejectedLeft);
            }
            // As the seed loop's test, with the extended ceilings; the decision's ejection percent cap is applied after
            // the loop.
            final boolean broken = ejectedLeft == ejectedLeft | qualityFloor & !(quality >= minQuality) |
                tpot > maxTpotMs | ttft > maxTtftMs | cost > maxCost | inflight > maxInflight |
                inflightTokens > maxInflightTokens | queue > maxQueue | kvCache > maxKvCache |
                (dropsStale && signals.stale(i));
            if (broken || exclusionsOrNull != null && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                final int reason =
                    dropReason(plan, signals, exclusionsOrNull, requestOrNull, i, ejectedLeft == ejectedLeft, quality, tpot, ttft,
                        cost);
                SelectionWriter.liveValues(out, i, reason, inflight);
                if (reason == DropReason.EJECTED)
                {
                    // Counted once the cap is applied: max_ejection_percent may keep it a candidate.
                    ejectedDrops++;
                }
                else
                {
                    dropped = noteDrop(dropped, i, reason, signals, dropCountsOrNull);
                }
                continue;
            }
            SelectionWriter.liveValues(out, i, DropReason.NONE, inflight);
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
            pMin = prefix < pMin ? prefix : pMin;
            pMax = prefix > pMax ? prefix : pMax;
        }
        SelectionWriter.bounds(out, Factor.QUALITY, qMin, qMax);
        SelectionWriter.bounds(out, Factor.LATENCY, lMin, lMax);
        SelectionWriter.bounds(out, Factor.COST, cMin, cMax);
        SelectionWriter.bounds(out, Factor.LOAD, nMin, nMax);
        SelectionWriter.bounds(out, Factor.QUEUE, wMin, wMax);
        SelectionWriter.bounds(out, Factor.KV_CACHE, kMin, kMax);
        SelectionWriter.bounds(out, Factor.PREFIX, pMin, pMax);
        SelectionWriter.noBounds(out, Factor.PREFIX + 1);
        if (dropped != 0L && dropCountsOrNull != null)
        {
            countDrops(signals, out, dropped, dropCountsOrNull);
        }
        if (ejectedDrops != 0)
        {
            survivors += ScoringSlowPaths.ejectionCapSlowPath(plan, signals, out, ejectedDrops, dropCountsOrNull,
                requestOrNull);
        }
        return survivors;
    }

    /**
     * A candidate's cost for one selection: the cache-aware prompt price ({@code (1 - P) * prompt + P * cached}) under
     * the mix where the request supplies the candidate's cached share P and the model a cached prompt price, else its
     * cost under the request's token counts when it has them, else its cost at the decision's {@code cost_mix}. The
     * one expression of the full loops and the sealed ones ({@link SealedScoring}).
     *
     * @param plan the decision's plan.
     * @param i candidate position.
     * @param requestMix whether the request's token counts price the candidates.
     * @param promptWeight {@link CostMix#promptWeight} of the mix: the request's when it prices the candidates, else
     *     the decision's.
     * @param completionWeight {@link CostMix#completionWeight} of the same mix.
     * @param cachedPrices whether the request supplies cached shares and the decision has a cached prompt price.
     * @param prefix the request's cached share of the candidate's model, NaN when not supplied.
     * @return the cost per 1M tokens, NaN when missing.
     */
    static double cost(
        final DecisionPlan plan,
        final int i,
        final boolean requestMix,
        final double promptWeight,
        final double completionWeight,
        final boolean cachedPrices,
        final double prefix)
    {
        final double cachedPrice = cachedPrices ? plan.cachedPromptPer1M(i) : Double.NaN;
        return prefix == prefix && cachedPrice == cachedPrice ?
            CostMix.blendByWeights(promptWeight, completionWeight,
                CostMix.cachedPrompt(plan.promptPer1M(i), cachedPrice, prefix), plan.completionPer1M(i)) :
            requestMix ? CostMix.blendByWeights(promptWeight, completionWeight, plan.promptPer1M(i),
                plan.completionPer1M(i)) :
            plan.costPer1M(i);
    }

    /**
     * Notes a drop in the gather loop's mask (one bit per candidate, the first 64), to be counted after the loop by
     * {@link #countDrops}: a counter store inside the loop would order the loop's other memory accesses around it. A
     * candidate beyond the first 64 is counted at once.
     *
     * @return the mask with the drop noted.
     */
    private static long noteDrop(
        final long dropped,
        final int i,
        final int reason,
        final CandidateSignals signals,
        final SingleWriterCounterBlock dropCountsOrNull)
    {
        if (i < Long.SIZE)
        {
            return dropped | 1L << i;
        }
        if (dropCountsOrNull != null)
        {
            dropCountsOrNull.increment(signals.dropCounterId(i, reason));
        }
        return dropped;
    }

    /**
     * Counts the drops the gather loop noted: one counter per (model, reason) of each candidate whose bit is set, in
     * the calling thread's block; a pass over the dropped candidates only.
     */
    static void countDrops(
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
     * The first reason that applies, in the order excluded, ejected, quality floor, TPOT, TTFT, cost, in-flight,
     * in-flight tokens, queue, KV-cache, stale.
     */
    private static int dropReason(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
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
            tpot > RequestScreen.maxTpotMs(plan, requestOrNull) ? DropReason.TPOT :
            ttft > RequestScreen.maxTtftMs(plan, requestOrNull) ? DropReason.TTFT :
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
    static void rank(
        final DecisionPlan plan, final Selection out, final Request requestOrNull, final int survivors,
        final long p2cBits)
    {
        int best = plan.scoresBeyondSeed() ? scoreAllFactors(plan, out) : scoreSeedFactors(plan, out);
        if (best == SLOPE_OVERFLOW)
        {
            ScoringSlowPaths.rankByDivisionSlowPath(plan, out, requestOrNull, survivors, p2cBits);
            return;
        }
        if (plan.spreadsTies())
        {
            best = plan.pick() == Pick.P2C ? ScoringSlowPaths.p2cSlowPath(plan, out, p2cBits, survivors) :
                ScoringSlowPaths.tieSlowPath(plan, out, requestOrNull, out.score(best) - plan.tieBand());
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
            final double score = clampScore(sum);
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
     * and KV-cache use, the request's cached prompt share.
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
        final double pWeight = plan.weight(Factor.PREFIX);
        final double pSlope = slope(pWeight, out, Factor.PREFIX);
        if (Math.abs(qSlope) + Math.abs(lSlope) + Math.abs(cSlope) + Math.abs(nSlope) + Math.abs(wSlope) +
            Math.abs(kSlope) + Math.abs(pSlope) == Double.POSITIVE_INFINITY)
        {
            return SLOPE_OVERFLOW;
        }
        final double qBase = base(qWeight, out, Factor.QUALITY);
        final double lBase = base(lWeight, out, Factor.LATENCY);
        final double cBase = base(cWeight, out, Factor.COST);
        final double nBase = base(nWeight, out, Factor.LOAD);
        final double wBase = base(wWeight, out, Factor.QUEUE);
        final double kBase = base(kWeight, out, Factor.KV_CACHE);
        final double pBase = base(pWeight, out, Factor.PREFIX);
        final double qMin = out.boundMin(Factor.QUALITY);
        final double lMin = out.boundMin(Factor.LATENCY);
        final double cMin = out.boundMin(Factor.COST);
        final double nMin = out.boundMin(Factor.LOAD);
        final double wMin = out.boundMin(Factor.QUEUE);
        final double kMin = out.boundMin(Factor.KV_CACHE);
        final double pMin = out.boundMin(Factor.PREFIX);
        final double[] quality = scoredColumn(qWeight, out, Factor.QUALITY);
        final double[] latency = scoredColumn(lWeight, out, Factor.LATENCY);
        final double[] cost = scoredColumn(cWeight, out, Factor.COST);
        final double[] load = scoredColumn(nWeight, out, Factor.LOAD);
        final double[] queue = scoredColumn(wWeight, out, Factor.QUEUE);
        final double[] kvCache = scoredColumn(kWeight, out, Factor.KV_CACHE);
        final double[] prefix = scoredColumn(pWeight, out, Factor.PREFIX);
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
            final double p = prefix[i];
            // The seed's four terms in the table's order, then the servers' two added to them as one sum (so that a
            // sealed selection keeps one term for both), then the request's prefix (never sealed).
            final double sum = (q == q ? qBase + qSlope * (q - qMin) : 0.0) +
                (l == l ? lBase + lSlope * (l - lMin) : 0.0) +
                (c == c ? cBase + cSlope * (c - cMin) : 0.0) +
                (m == m ? nBase + nSlope * (m - nMin) : 0.0) +
                ((w == w ? wBase + wSlope * (w - wMin) : 0.0) + (k == k ? kBase + kSlope * (k - kMin) : 0.0)) +
                (p == p ? pBase + pSlope * (p - pMin) : 0.0);
            final double score = clampScore(sum);
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
     * @return a survivor's score from the sum of its terms, clamped to [0, 1]: rounding can leave a hair outside (the
     *     weights themselves can add up to one ulp more than 1).
     */
    static double clampScore(final double sum)
    {
        return sum < 0.0 ? 0.0 : sum > 1.0 ? 1.0 : sum;
    }

    /** @return the column a factor's term reads: its values when it has a weight above 0, else all missing. */
    static double[] scoredColumn(final double w, final Selection out, final int factor)
    {
        return w > 0.0 ? SelectionWriter.column(out, factor) : SelectionWriter.missingColumn(out);
    }

    /**
     * @return the slope of a factor's term: {@code +-w / (max - min)} over a spread of values (negative where lower is
     *     better), 0 when every survivor that has the value shares it, or when the factor has weight 0.
     */
    private static double slope(final double w, final Selection out, final int factor)
    {
        return slope(w, out.boundMin(factor), out.boundMax(factor), factor);
    }

    /** @return the slope of a factor's term under the bounds {@code min} and {@code max}, as above. */
    static double slope(final double w, final double min, final double max, final int factor)
    {
        return w > 0.0 && max > min ? (Factor.lowerIsBetter(factor) ? -w : w) / (max - min) : 0.0;
    }

    /**
     * @return the base of a factor's term: its value at the bound {@code min} ({@code w} where lower is better, else
     *     0), {@code w / 2} when every survivor that has the value shares it, 0 when the factor has weight 0.
     */
    private static double base(final double w, final Selection out, final int factor)
    {
        return base(w, out.boundMin(factor), out.boundMax(factor), factor);
    }

    /** @return the base of a factor's term under the bounds {@code min} and {@code max}, as above. */
    static double base(final double w, final double min, final double max, final int factor)
    {
        if (!(w > 0.0))
        {
            return 0.0;
        }
        return max > min ? (Factor.lowerIsBetter(factor) ? w : 0.0) : 0.5 * w;
    }

}
