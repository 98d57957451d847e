package io.multifactor.sim;

import java.util.List;

/**
 * The outcome of one simulation run: every interval row and the totals of the summary (requests, SLO attainment, cost,
 * share per model).
 * <p>
 * A request meets its SLO when the TTFT and TPOT it actually got are at or below its decision's configured ceilings
 * (a ceiling that is off is always met); a request for which nothing was selected does not meet it. Attainment is
 * always measured against the configuration's ceilings, also in a run where the engine was given none.
 * <p>
 * Instances are immutable and threadsafe. Model indexes follow {@link #modelNames()}.
 */
public final class SimulationReport
{
    private final double durationS;
    private final long seed;
    private final boolean ceilingsEnforced;
    private final long requests;
    private final long failed;
    private final long fallbacks;
    private final long sloMet;
    private final double costUsd;
    private final List<String> modelNames;
    private final long[] selected;
    private final long[] sloDrops;
    private final long[] peakInflight;
    private final List<IntervalRow> rows;
    private final long backendErrors;
    private final double[] recoveryToTrafficS;
    private final ComparisonFigures figures;
    private final ServingFigures serving;

    SimulationReport(
        final double durationS,
        final long seed,
        final boolean ceilingsEnforced,
        final long requests,
        final long failed,
        final long fallbacks,
        final long sloMet,
        final double costUsd,
        final List<String> modelNames,
        final long[] selected,
        final long[] sloDrops,
        final long[] peakInflight,
        final List<IntervalRow> rows,
        final ComparisonFigures figures)
    {
        this(durationS, seed, ceilingsEnforced, requests, failed, fallbacks, sloMet, costUsd, modelNames, selected,
            sloDrops, peakInflight, rows, 0, new double[selected.length], figures);
    }

    SimulationReport(
        final double durationS,
        final long seed,
        final boolean ceilingsEnforced,
        final long requests,
        final long failed,
        final long fallbacks,
        final long sloMet,
        final double costUsd,
        final List<String> modelNames,
        final long[] selected,
        final long[] sloDrops,
        final long[] peakInflight,
        final List<IntervalRow> rows,
        final long backendErrors,
        final double[] recoveryToTrafficS,
        final ComparisonFigures figures)
    {
        this(durationS, seed, ceilingsEnforced, requests, failed, fallbacks, sloMet, costUsd, modelNames, selected,
            sloDrops, peakInflight, rows, backendErrors, recoveryToTrafficS, figures, ServingFigures.NONE);
    }

    SimulationReport(
        final double durationS,
        final long seed,
        final boolean ceilingsEnforced,
        final long requests,
        final long failed,
        final long fallbacks,
        final long sloMet,
        final double costUsd,
        final List<String> modelNames,
        final long[] selected,
        final long[] sloDrops,
        final long[] peakInflight,
        final List<IntervalRow> rows,
        final long backendErrors,
        final double[] recoveryToTrafficS,
        final ComparisonFigures figures,
        final ServingFigures serving)
    {
        this.serving = serving;
        this.backendErrors = backendErrors;
        this.recoveryToTrafficS = recoveryToTrafficS.clone();
        this.durationS = durationS;
        this.seed = seed;
        this.ceilingsEnforced = ceilingsEnforced;
        this.requests = requests;
        this.failed = failed;
        this.fallbacks = fallbacks;
        this.sloMet = sloMet;
        this.costUsd = costUsd;
        this.modelNames = modelNames;
        this.selected = selected.clone();
        this.sloDrops = sloDrops.clone();
        this.peakInflight = peakInflight.clone();
        this.rows = List.copyOf(rows);
        this.figures = figures;
    }

    /** @return simulated duration in seconds. */
    public double durationS()
    {
        return durationS;
    }

    /** @return the seed of the run. */
    public long seed()
    {
        return seed;
    }

    /** @return whether the engine applied the configured SLO ceilings (false for a run with ceilings off). */
    public boolean ceilingsEnforced()
    {
        return ceilingsEnforced;
    }

    /** @return requests that arrived. */
    public long requests()
    {
        return requests;
    }

    /** @return requests for which nothing was selected. */
    public long failed()
    {
        return failed;
    }

    /** @return requests whose model came from the {@code on_no_candidates} policy. */
    public long fallbacks()
    {
        return fallbacks;
    }

    /** @return requests whose actual TTFT and TPOT met their decision's ceilings. */
    public long sloMet()
    {
        return sloMet;
    }

    /** @return share of requests that met their SLO, in [0, 1]; 0 when no request arrived. */
    public double sloAttainment()
    {
        return requests == 0 ? 0.0 : (double)sloMet / requests;
    }

    /** @return total cost of the requests in USD (prompt and completion tokens at the configured prices). */
    public double costUsd()
    {
        return costUsd;
    }

    /** @return cost per 1,000 requests in USD; 0 when no request arrived. */
    public double costPer1kRequestsUsd()
    {
        return requests == 0 ? 0.0 : costUsd * 1000.0 / requests;
    }

    /** @return the models, in handle order. */
    public List<String> modelNames()
    {
        return modelNames;
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return requests sent to that model.
     */
    public long selected(final int model)
    {
        return selected[model];
    }

    /**
     * @param model index in {@link #modelNames()}.
     * @return its share of all requests, in [0, 1].
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
     * @param model a model index.
     * @return the largest in-flight count the model had right after one of this run's leases on it (with a
     *     {@code max_inflight} and reserve-on-select, at most that ceiling unless a fallback policy picked it).
     */
    public long peakInflight(final int model)
    {
        return peakInflight[model];
    }

    /** @return every interval, in time order. */
    public List<IntervalRow> rows()
    {
        return rows;
    }

    /** @return requests the chosen model answered with an error (a 5xx or a 429): failed requests. */
    public long backendErrors()
    {
        return backendErrors;
    }

    /**
     * @param model a model index.
     * @return for a model with a window of failures, the simulated seconds from the window's end (its recovery) to the
     *     first request sent to it again; NaN when it has no such window or got no request after it.
     */
    public double recoveryToTrafficS(final int model)
    {
        return recoveryToTrafficS[model];
    }

    /** @return the figures {@code simulate --compare} prints for this run. */
    public ComparisonFigures figures()
    {
        return figures;
    }

    /** @return what the servers of the models simulated server by server measured ({@link ServingFigures#NONE}). */
    public ServingFigures serving()
    {
        return serving;
    }
}
