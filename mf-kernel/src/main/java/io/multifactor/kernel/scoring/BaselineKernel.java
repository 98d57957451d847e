package io.multifactor.kernel.scoring;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.LatencyMetric;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.plan.AlgorithmType;
import io.multifactor.kernel.plan.DecisionPlan;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Selects one candidate of a decision whose {@code algorithm.type} is a baseline policy, the yardsticks a policy
 * comparison measures {@code multi_factor} against. Every baseline ignores weights and ceilings: the only candidates it
 * leaves out are those the request excludes (every candidate excluded: {@link Outcome#FAILED}). Among the others:
 * <ul>
 *   <li>{@code round_robin}: the next one in turn, from a counter per decision that every thread shares (one atomic
 *       add per selection, no lock; {@link CandidateSignals#nextTurn()});</li>
 *   <li>{@code random}: one drawn uniformly from the request's generator (per request, so per thread), or from the
 *       thread's {@link ThreadLocalRandom} without a request;</li>
 *   <li>{@code least_inflight}: the fewest in-flight leases, ties to the earlier in {@code modelRefs};</li>
 *   <li>{@code lowest_latency}: the lowest latency signal (TPOT percentile, else TTFT, under the decision's
 *       {@code latency_metric}), an unobserved candidate first, ties to the earlier.</li>
 * </ul>
 * and the peers' policies: {@code litellm_simple_shuffle} draws as {@code random} does, {@code litellm_least_busy}
 * chooses as {@code least_inflight} does (both rules are the same at model level, see {@link AlgorithmType}),
 * {@code aibrix_least_request} takes the fewest in-flight leases with ties drawn at random
 * ({@link AibrixLeastRequest}), {@code litellm_latency} keeps the candidates whose mean of their last latency samples is
 * within {@code lowest_latency_buffer} of the lowest and draws one ({@link LiteLlmLatency}; the means are written in the
 * latency column), and {@code prodstack_session} hashes the request's session key over the candidates, or without a key
 * takes the lowest QPS ({@link ProdstackSession}; the QPS is written in the load column); those two read the
 * decision's {@link PeerSignals}, and without them every candidate is unobserved. {@code llmd_weighted} and
 * {@code llmd_sticky} run llm-d's profiles over the queue, KV-cache, prefix and token signals ({@link LlmdRules}; their
 * survivors score the profile's sums, not 1 and 0).
 * The selection records every candidate's observed signals and the bounds as {@link ScoringKernel} does, so that
 * {@code explain} reads the same fields; the chosen candidate scores 1 and the other candidates 0, and the outcome is
 * {@link Outcome#SCORED}.
 * <p>
 * This class is stateless and threadsafe. {@link #select} allocates nothing and never throws for an expected outcome.
 */
public final class BaselineKernel
{
    private static final long[] NO_NODE_HASHES = new long[0];

    private BaselineKernel()
    {
    }

    /**
     * Chooses a candidate of {@code plan}, a baseline, for one request, writing what was observed and the outcome into
     * {@code out}.
     *
     * @param plan the decision's plan; its {@link DecisionPlan#algorithmType()} is a baseline.
     * @param signals the live signals of the same decision's candidates, in candidate order.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param requestOrNull the request (its generator serves {@code random}), or null.
     * @param out the caller's reusable result.
     */
    public static void select(
        final DecisionPlan plan,
        final CandidateSignals signals,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out)
    {
        final int n = plan.candidateCount();
        SelectionWriter.start(out, plan);
        final int latencyMetric = plan.latencyMetric();
        final boolean anyExcluded = exclusionsOrNull != null && !exclusionsOrNull.isEmpty();
        final double[] latencyColumn = SelectionWriter.ownColumn(out, Factor.LATENCY);
        final double[] loadColumn = SelectionWriter.ownColumn(out, Factor.LOAD);

        double qMin = Double.POSITIVE_INFINITY;
        double qMax = Double.NEGATIVE_INFINITY;
        double lMin = Double.POSITIVE_INFINITY;
        double lMax = Double.NEGATIVE_INFINITY;
        double cMin = Double.POSITIVE_INFINITY;
        double cMax = Double.NEGATIVE_INFINITY;
        double nMin = Double.POSITIVE_INFINITY;
        double nMax = Double.NEGATIVE_INFINITY;
        int survivors = 0;
        int fewestIndex = -1;
        int fastestIndex = -1;
        int unobservedIndex = -1;
        final int type = plan.algorithmType();
        final PeerSignals peersOrNull = signals.peersOrNull();
        // The peers' stateful policies read their own signals: the latency column holds litellm_latency's mean of the
        // last samples, the load column prodstack_session's QPS; a candidate left out holds NaN there.
        final boolean readsMeans = type == AlgorithmType.LITELLM_LATENCY;
        final boolean readsQps = type == AlgorithmType.PRODSTACK_SESSION;
        final long peerNowNs = (readsMeans || readsQps) && peersOrNull != null ? peersOrNull.nowNs() : 0L;
        final long ttlNs = plan.peerParameters().ttlNs();
        for (int i = 0; i < n; i++)
        {
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final long inflight = signals.inflight(i);
            final double quality = plan.quality(i);
            final double cost = plan.costPer1M(i);
            final double latency = readsMeans ? recentMeanMs(peersOrNull, i, latencyMetric, peerNowNs, ttlNs) :
                LatencyMetric.select(latencyMetric, tpot, ttft);
            final double load = readsQps ? qps(peersOrNull, i, peerNowNs) : inflight;
            SelectionWriter.publishedValues(out, i, tpot, ttft);
            latencyColumn[i] = latency;
            loadColumn[i] = load;
            if (anyExcluded && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                SelectionWriter.liveValues(out, i, DropReason.EXCLUDED, inflight);
                latencyColumn[i] = readsMeans ? Double.NaN : latency;
                loadColumn[i] = readsQps ? Double.NaN : load;
                continue;
            }
            SelectionWriter.liveValues(out, i, DropReason.NONE, inflight);
            SelectionWriter.score(out, i, 0.0);
            survivors++;
            // Strict comparisons keep the earlier of equal values; a NaN latency never moves a bound.
            if (fewestIndex < 0 || load < nMin)
            {
                fewestIndex = i;
            }
            if (latency != latency)
            {
                unobservedIndex = unobservedIndex < 0 ? i : unobservedIndex;
            }
            else if (latency < lMin)
            {
                fastestIndex = i;
            }
            qMin = quality < qMin ? quality : qMin;
            qMax = quality > qMax ? quality : qMax;
            lMin = latency < lMin ? latency : lMin;
            lMax = latency > lMax ? latency : lMax;
            cMin = cost < cMin ? cost : cMin;
            cMax = cost > cMax ? cost : cMax;
            nMin = load < nMin ? load : nMin;
            nMax = load > nMax ? load : nMax;
        }
        // A baseline reads no server signals: their columns are missing, so no survivor has them.
        SelectionWriter.bounds(out, Factor.QUALITY, qMin, qMax);
        SelectionWriter.bounds(out, Factor.LATENCY, lMin, lMax);
        SelectionWriter.bounds(out, Factor.COST, cMin, cMax);
        SelectionWriter.bounds(out, Factor.LOAD, nMin, nMax);
        SelectionWriter.noBounds(out, Factor.SEED_COUNT);
        if (survivors == 0)
        {
            SelectionWriter.outcome(out, Outcome.FAILED, -1);
            return;
        }
        final int chosen;
        switch (type)
        {
            case AlgorithmType.ROUND_ROBIN:
                chosen = nthSurvivor(out, n, (int)Long.remainderUnsigned(signals.nextTurn(), survivors));
                break;
            case AlgorithmType.RANDOM:
            case AlgorithmType.LITELLM_SIMPLE_SHUFFLE:
                chosen = nthSurvivor(out, n, requestOrNull != null ? requestOrNull.nextIndex(survivors) :
                    ThreadLocalRandom.current().nextInt(survivors));
                break;
            case AlgorithmType.LEAST_INFLIGHT:
            case AlgorithmType.LITELLM_LEAST_BUSY:
                chosen = fewestIndex;
                break;
            case AlgorithmType.AIBRIX_LEAST_REQUEST:
                chosen = AibrixLeastRequest.choose(out, loadColumn, n, nMin, requestOrNull);
                break;
            case AlgorithmType.LITELLM_LATENCY:
                chosen = LiteLlmLatency.choose(latencyColumn, n, plan.peerParameters().lowestLatencyBuffer(),
                    requestOrNull != null ? requestOrNull.nextBits() : ThreadLocalRandom.current().nextLong());
                break;
            case AlgorithmType.PRODSTACK_SESSION:
                chosen = ProdstackSession.choose(
                    requestOrNull != null && requestOrNull.hasSession() && peersOrNull != null,
                    requestOrNull != null ? requestOrNull.sessionKey() : 0L, nodeHashes(peersOrNull), loadColumn, n);
                break;
            case AlgorithmType.LLMD_WEIGHTED:
            case AlgorithmType.LLMD_STICKY:
                // The survivors keep the profile's sums as their scores.
                chosen = LlmdRules.select(plan, signals, requestOrNull, out);
                SelectionWriter.outcome(out, Outcome.SCORED, chosen);
                return;
            default:
                chosen = unobservedIndex >= 0 ? unobservedIndex : fastestIndex;
                break;
        }
        SelectionWriter.score(out, chosen, 1.0);
        SelectionWriter.outcome(out, Outcome.SCORED, chosen);
    }

    // litellm_latency: the mean of the candidate's last samples of the decision's metric (TTFT unless tpot), 0 when
    // it has none (also without peer signals: every candidate is then unobserved).
    private static double recentMeanMs(
        final PeerSignals peersOrNull, final int i, final int latencyMetric, final long nowNs, final long ttlNs)
    {
        if (peersOrNull == null)
        {
            return 0.0;
        }
        return (latencyMetric == LatencyMetric.TPOT ? peersOrNull.tpot(i) : peersOrNull.ttft(i)).meanMs(nowNs, ttlNs);
    }

    // prodstack_session: the candidate's QPS in this decision, NEVER_ROUTED before its first request.
    private static double qps(final PeerSignals peersOrNull, final int i, final long nowNs)
    {
        if (peersOrNull == null || !peersOrNull.routed(i).everRouted())
        {
            return ProdstackSession.NEVER_ROUTED;
        }
        return peersOrNull.routed(i).qps(nowNs);
    }

    // Without peer signals no key is hashed (every candidate is unobserved: the first survivor is chosen).
    private static long[] nodeHashes(final PeerSignals peersOrNull)
    {
        return peersOrNull == null ? NO_NODE_HASHES : peersOrNull.nodeHashes();
    }

    // The position of the nth survivor (0-based), -1 when there are fewer; also p2c's single survivor.
    static int nthSurvivor(final Selection out, final int n, final int nth)
    {
        int left = nth;
        for (int i = 0; i < n; i++)
        {
            if (out.dropReason(i) == DropReason.NONE && left-- == 0)
            {
                return i;
            }
        }
        return -1;
    }
}
