package io.multifactor.sim;

import java.util.List;

/**
 * What happened in one report interval of a simulation: requests, failures and fallbacks, and per model its traffic,
 * its SLO drops (selections in which it was a candidate dropped by a ceiling), the 95th percentile of the TTFT and TPOT
 * samples it reported in the interval, and its requests in flight at the end of the interval.
 * <p>
 * Instances are immutable and threadsafe. Model indexes follow {@link #modelNames()}.
 */
public final class IntervalRow
{
    private final double startS;
    private final double endS;
    private final long requests;
    private final long failed;
    private final long fallbacks;
    private final List<String> modelNames;
    private final long[] selected;
    private final long[] sloDrops;
    private final double[] p95TtftMs;
    private final double[] p95TpotMs;
    private final long[] inflight;

    IntervalRow(
        final double startS,
        final double endS,
        final long requests,
        final long failed,
        final long fallbacks,
        final List<String> modelNames,
        final long[] selected,
        final long[] sloDrops,
        final double[] p95TtftMs,
        final double[] p95TpotMs,
        final long[] inflight)
    {
        this.startS = startS;
        this.endS = endS;
        this.requests = requests;
        this.failed = failed;
        this.fallbacks = fallbacks;
        this.modelNames = modelNames;
        this.selected = selected.clone();
        this.sloDrops = sloDrops.clone();
        this.p95TtftMs = p95TtftMs.clone();
        this.p95TpotMs = p95TpotMs.clone();
        this.inflight = inflight.clone();
    }

    /** @return start of the interval in simulated seconds. */
    public double startS()
    {
        return startS;
    }

    /** @return end of the interval in simulated seconds. */
    public double endS()
    {
        return endS;
    }

    /** @return requests that arrived in the interval. */
    public long requests()
    {
        return requests;
    }

    /** @return requests for which nothing was selected (outcome {@code failed}). */
    public long failed()
    {
        return failed;
    }

    /** @return requests whose model came from the {@code on_no_candidates} policy rather than from scoring. */
    public long fallbacks()
    {
        return fallbacks;
    }

    /** @return the models, in handle order; indexes of the per-model accessors. */
    public List<String> modelNames()
    {
        return modelNames;
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return requests sent to that model in the interval.
     */
    public long selected(final int model)
    {
        return selected[model];
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return its share of the interval's requests in [0, 1]; 0 when no request arrived.
     */
    public double share(final int model)
    {
        return requests == 0 ? 0.0 : (double)selected[model] / requests;
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return selections in which that model was a candidate dropped by an SLO ceiling.
     */
    public long sloDrops(final int model)
    {
        return sloDrops[model];
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return 95th percentile of the TTFT samples it reported in the interval, in milliseconds; NaN when none.
     */
    public double p95TtftMs(final int model)
    {
        return p95TtftMs[model];
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return 95th percentile of the TPOT samples it reported in the interval, in milliseconds; NaN when none.
     */
    public double p95TpotMs(final int model)
    {
        return p95TpotMs[model];
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return its requests in flight at the end of the interval.
     */
    public long inflight(final int model)
    {
        return inflight[model];
    }
}
