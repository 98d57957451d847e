package io.multifactor.sim;

import java.util.List;

/**
 * What one run of {@link FleetSimulator} measured: per model the largest fleet-wide in-flight count (the sum of every
 * replica's open requests, what the model's server sees) against its {@code max_inflight}, and the requests it got;
 * per replica the requests and SLO attainment; and the totals.
 * <p>
 * Instances are immutable and threadsafe; the arrays are copies owned by the report.
 *
 * @param fleet whether the replicas shared their signals.
 * @param replicas number of replicas.
 * @param durationS simulated seconds.
 * @param seed the seed of every draw.
 * @param requests requests over all replicas.
 * @param failed requests no model was selected for.
 * @param sloMet requests whose TTFT and TPOT met their decision's ceilings.
 * @param modelNames models, in handle order.
 * @param peakFleetInflight per model: the largest number of requests in flight at once over the whole fleet.
 * @param maxInflight per model: the smallest non-zero {@code max_inflight} of a decision that has it, 0 when none.
 * @param selected per model: requests sent to it.
 * @param replicaRequests per replica: requests it handled.
 * @param replicaSloMet per replica: of those, the ones that met their ceilings.
 * @param figures the figures {@code simulate --compare} prints (fleet-wide).
 * @param serverSignals whether the engines had model-server signals (queue, KV-cache) from simulated scrapes.
 */
public record FleetReport(
    boolean fleet,
    int replicas,
    double durationS,
    long seed,
    long requests,
    long failed,
    long sloMet,
    List<String> modelNames,
    long[] peakFleetInflight,
    long[] maxInflight,
    long[] selected,
    long[] replicaRequests,
    long[] replicaSloMet,
    ComparisonFigures figures,
    boolean serverSignals)
{
    /** Copies every array. */
    public FleetReport
    {
        modelNames = List.copyOf(modelNames);
        peakFleetInflight = peakFleetInflight.clone();
        maxInflight = maxInflight.clone();
        selected = selected.clone();
        replicaRequests = replicaRequests.clone();
        replicaSloMet = replicaSloMet.clone();
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return how far the fleet-wide in-flight count went above {@code max_inflight} (0 when it stayed within, or when
     *     the model has none).
     */
    public long overshoot(final int model)
    {
        return maxInflight[model] == 0 ? 0 : Math.max(0, peakFleetInflight[model] - maxInflight[model]);
    }

    /** @return the share of requests that met their SLO, in [0, 1]. */
    public double sloAttainment()
    {
        return requests == 0 ? 1.0 : (double)sloMet / requests;
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return the model's share of the selected requests, in [0, 1].
     */
    public double trafficShare(final int model)
    {
        long total = 0;
        for (final long count : selected)
        {
            total += count;
        }
        return total == 0 ? 0.0 : (double)selected[model] / total;
    }
}
