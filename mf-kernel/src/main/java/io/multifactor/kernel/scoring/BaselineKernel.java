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
 * chooses as {@code least_inflight} does (both rules are the same at model level, see {@link AlgorithmType}), and
 * {@code aibrix_least_request} takes the fewest in-flight leases with ties drawn at random
 * ({@link AibrixLeastRequest}), and {@code llmd_weighted} and {@code llmd_sticky} run llm-d's profiles over the queue,
 * KV-cache, prefix and token signals ({@link LlmdRules}; their survivors score the profile's sums, not 1 and 0).
 * The selection records every candidate's observed signals and the bounds as {@link ScoringKernel} does, so that
 * {@code explain} reads the same fields; the chosen candidate scores 1 and the other candidates 0, and the outcome is
 * {@link Outcome#SCORED}.
 * <p>
 * This class is stateless and threadsafe. {@link #select} allocates nothing and never throws for an expected outcome.
 */
public final class BaselineKernel
{
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
        for (int i = 0; i < n; i++)
        {
            final double tpot = signals.tpotMs(i);
            final double ttft = signals.ttftMs(i);
            final long inflight = signals.inflight(i);
            final double quality = plan.quality(i);
            final double cost = plan.costPer1M(i);
            final double latency = LatencyMetric.select(latencyMetric, tpot, ttft);
            final double load = inflight;
            SelectionWriter.publishedValues(out, i, tpot, ttft);
            latencyColumn[i] = latency;
            loadColumn[i] = load;
            if (anyExcluded && exclusionsOrNull.contains(plan.candidateModelId(i)))
            {
                SelectionWriter.liveValues(out, i, DropReason.EXCLUDED, inflight);
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
        switch (plan.algorithmType())
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
