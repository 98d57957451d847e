package io.multifactor.sim;

import java.util.Arrays;
import java.util.List;

/**
 * The figures that {@code bin/mf simulate --compare} prints side by side for runs of one profile and seed: SLO
 * attainment, the p99 TTFT over every request, the largest share one model got in any refresh period (herding), and
 * per model that degrades, the seconds from its recovery to its first traffic after it.
 * <p>
 * A refresh period is the engine's {@code latency_refresh}; only periods with at least {@link #MIN_PERIOD_SELECTIONS}
 * selections count for the share, so that a quiet period of one request does not read as 100%.
 * <p>
 * This class is not threadsafe: one simulation run fills it, on one thread, then it is only read.
 */
public final class ComparisonFigures
{
    /** Fewest selections a refresh period needs for its largest share to count. */
    public static final int MIN_PERIOD_SELECTIONS = 10;

    private final List<String> modelNames;
    private final long periodNs;
    private final long[] recoveryNs;
    private final long[] firstAfterRecoveryNs;
    private final long[] periodSelected;
    private final SampleBuffer ttft = new SampleBuffer();
    private long period = Long.MIN_VALUE;
    private double maxPeriodShare;
    private long requests;
    private long sloMet;

    /**
     * @param modelNames the run's models, by index.
     * @param behaviours their behaviours, by index (the end of a degraded window is a recovery).
     * @param periodNs the engine's refresh period.
     */
    ComparisonFigures(final List<String> modelNames, final ModelBehaviour[] behaviours, final long periodNs)
    {
        this.modelNames = List.copyOf(modelNames);
        this.periodNs = Math.max(1L, periodNs);
        recoveryNs = new long[modelNames.size()];
        firstAfterRecoveryNs = new long[modelNames.size()];
        periodSelected = new long[modelNames.size()];
        Arrays.fill(firstAfterRecoveryNs, Long.MIN_VALUE);
        for (int i = 0; i < behaviours.length; i++)
        {
            recoveryNs[i] = behaviours[i].degrades() ? Math.round(behaviours[i].degradedUntilS() * 1e9) : Long.MIN_VALUE;
        }
    }

    void request(final boolean metSlo)
    {
        requests++;
        if (metSlo)
        {
            sloMet++;
        }
    }

    void selected(final long nowNs, final int model)
    {
        final long p = Math.floorDiv(nowNs, periodNs);
        if (p != period)
        {
            closePeriod();
            period = p;
        }
        periodSelected[model]++;
        if (recoveryNs[model] != Long.MIN_VALUE && nowNs >= recoveryNs[model] &&
            firstAfterRecoveryNs[model] == Long.MIN_VALUE)
        {
            firstAfterRecoveryNs[model] = nowNs;
        }
    }

    void ttftMicros(final long micros)
    {
        ttft.add(micros);
    }

    /** Ends the run: the last period counts too. */
    void finish()
    {
        closePeriod();
    }

    private void closePeriod()
    {
        long total = 0;
        long most = 0;
        for (final long count : periodSelected)
        {
            total += count;
            most = Math.max(most, count);
        }
        if (total >= MIN_PERIOD_SELECTIONS)
        {
            maxPeriodShare = Math.max(maxPeriodShare, (double)most / total);
        }
        Arrays.fill(periodSelected, 0L);
    }

    /** @return the models, by index. */
    public List<String> modelNames()
    {
        return modelNames;
    }

    /** @return the share of requests that met their decision's ceilings, 1 when there were none. */
    public double sloAttainment()
    {
        return requests == 0 ? 1.0 : (double)sloMet / requests;
    }

    /** @return the 90th percentile of every request's TTFT (nearest rank), in milliseconds; NaN without requests. */
    public double p90TtftMs()
    {
        return ttft.percentileMicros(90) / 1000.0;
    }

    /** @return the 99th percentile of every request's TTFT (nearest rank), in milliseconds; NaN without requests. */
    public double p99TtftMs()
    {
        return ttft.percentileMicros(99) / 1000.0;
    }

    /** @return the largest share of a refresh period's selections that one model got, over the counted periods. */
    public double maxPeriodShare()
    {
        return maxPeriodShare;
    }

    /**
     * @param model a model index.
     * @return whether that model has a degraded window, whose end is a recovery.
     */
    public boolean recovers(final int model)
    {
        return recoveryNs[model] != Long.MIN_VALUE;
    }

    /**
     * @param model a model index that {@link #recovers}.
     * @return seconds from its recovery to its first selection at or after it; NaN when it got none.
     */
    public double recoveryToTrafficS(final int model)
    {
        return firstAfterRecoveryNs[model] == Long.MIN_VALUE ? Double.NaN :
            (firstAfterRecoveryNs[model] - recoveryNs[model]) / 1e9;
    }
}
