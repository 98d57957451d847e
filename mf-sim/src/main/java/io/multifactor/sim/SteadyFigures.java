package io.multifactor.sim;

import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.sim.load.LoadResults;

/**
 * What one run measured after its warm-up, the figures of the policy comparison's tables: every request that arrived
 * at or after {@code measuredFromS} counts, the others are the warm-up. SLO attainment is the share of those requests
 * that got a first token and met their decision's ceilings (the run's own, or those of the SLO's configuration when one
 * is given: a baseline policy is compiled without ceilings, so its run is judged by the scenario's); a request answered with an error (5xx, 429), one for which
 * nothing was selected (failed, ineligible or shed) and one still waiting for a place when the run ends all miss it.
 * TTFT and TPOT percentiles cover the requests that got a place; input tokens are their prompt tokens, over the
 * measured seconds; the prefix hit rate is the simulated servers' own hits / queries (tokens, as vLLM's
 * {@code prefix_cache_hits_total} / {@code prefix_cache_queries_total}), NaN when no model has servers.
 * <p>
 * This class is not threadsafe: the simulator's event loop fills it on one thread, then it is only read.
 */
public final class SteadyFigures
{
    private final long measuredFromNs;
    private final double measuredS;
    private final SampleBuffer ttft = new SampleBuffer();
    private final SampleBuffer tpot = new SampleBuffer();
    private long requests;
    private long sloMet;
    private long errors;
    private long inputTokens;
    private long queriedTokens;
    private long hitTokens;
    private double[] maxTtftMsByDecision;
    private double[] maxTpotMsByDecision;

    /**
     * @param measuredFromS simulated second from which arrivals count, >= 0.
     * @param durationS the run's simulated seconds, > {@code measuredFromS}.
     * @throws IllegalArgumentException when the measured part is empty.
     */
    public SteadyFigures(final double measuredFromS, final double durationS)
    {
        if (!(measuredFromS >= 0.0 && durationS > measuredFromS))
        {
            throw new IllegalArgumentException("warm-up must be >= 0 and shorter than the run: " + measuredFromS +
                " of " + durationS + " s");
        }
        this.measuredFromNs = Math.round(measuredFromS * 1e9);
        this.measuredS = durationS - measuredFromS;
    }

    /**
     * The figures of a load sent through real sockets ({@code bin/mf compare --suite DIR --through-gateway}), read as
     * a simulated run's: the requests sent at or after {@code measuredFromS} count, the earlier ones are the warm-up; a
     * request that did not end with a complete 200 (an error answer, one cut at the end of the drain) is an error and
     * misses the SLO; TTFT and TPOT percentiles and input tokens are those of the complete 200s (a TPOT only where
     * the stream had two content chunks or more); the prefix hit rate is the servers' own counters over the measured
     * part.
     *
     * @param results every request of the run.
     * @param measuredFromS seconds from the start of the run before which arrivals are the warm-up, >= 0.
     * @param durationS seconds of arrivals, > {@code measuredFromS}.
     * @param maxTtftMs the SLO's TTFT ceiling, milliseconds, 0 = none.
     * @param maxTpotMs the SLO's TPOT ceiling, milliseconds, 0 = none.
     * @param queriedTokens prompt tokens the servers looked up in their prefix caches over the measured part (0
     *     without a cache: the hit rate is then NaN).
     * @param hitTokens of them, the tokens found.
     * @return the figures.
     * @throws IllegalArgumentException when the measured part is empty.
     */
    public static SteadyFigures ofLoad(final LoadResults results, final double measuredFromS, final double durationS,
        final double maxTtftMs, final double maxTpotMs, final long queriedTokens, final long hitTokens)
    {
        final SteadyFigures figures = new SteadyFigures(measuredFromS, durationS);
        for (int i = 0; i < results.count(); i++)
        {
            final long arrivalNs = results.startNs(i);
            if (!figures.measured(arrivalNs))
            {
                continue;
            }
            figures.requests++;
            if (!results.ok(i))
            {
                figures.errors++;
                continue;
            }
            figures.sloMet += results.attained(i, maxTtftMs, maxTpotMs) ? 1 : 0;
            figures.inputTokens += results.promptTokens(i);
            if (results.ttftMicros(i) >= 0)
            {
                figures.ttft.add(results.ttftMicros(i));
            }
            if (results.tpotMicros(i) >= 0)
            {
                figures.tpot.add(results.tpotMicros(i));
            }
        }
        figures.queriedTokens = queriedTokens;
        figures.hitTokens = hitTokens;
        return figures;
    }

    /**
     * Judges the runs' requests by another configuration's ceilings, decision by decision name.
     *
     * @param runPlans the plans the run selects with.
     * @param sloPlans the plans whose decisions' TTFT and TPOT ceilings are the SLO; a decision they do not have keeps
     *     the run's.
     */
    void judgeBy(final Plans runPlans, final Plans sloPlans)
    {
        maxTtftMsByDecision = new double[runPlans.decisionCapacity()];
        maxTpotMsByDecision = new double[runPlans.decisionCapacity()];
        for (int id = 0; id < runPlans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = runPlans.decision(id);
            if (plan == null)
            {
                continue;
            }
            final int sloId = sloPlans.decisionId(plan.name());
            final DecisionPlan slo = sloId < 0 ? plan : sloPlans.decision(sloId);
            maxTtftMsByDecision[id] = (slo == null ? plan : slo).maxTtftMs();
            maxTpotMsByDecision[id] = (slo == null ? plan : slo).maxTpotMs();
        }
    }

    private boolean measured(final long arrivalNs)
    {
        return arrivalNs >= measuredFromNs;
    }

    void arrived(final long arrivalNs)
    {
        if (measured(arrivalNs))
        {
            requests++;
        }
    }

    void error(final long arrivalNs)
    {
        if (measured(arrivalNs))
        {
            errors++;
        }
    }

    void started(final long arrivalNs, final int decisionId, final long ttftMicros, final long tpotMicros,
        final boolean runMet, final long promptTokens)
    {
        if (measured(arrivalNs))
        {
            final boolean met = maxTtftMsByDecision == null ? runMet :
                EventLoop.meets(maxTtftMsByDecision[decisionId], ttftMicros) &&
                EventLoop.meets(maxTpotMsByDecision[decisionId], tpotMicros);
            ttft.add(ttftMicros);
            tpot.add(tpotMicros);
            inputTokens += promptTokens;
            if (met)
            {
                sloMet++;
            }
        }
    }

    void cacheLookup(final long arrivalNs, final long queried, final long hit)
    {
        if (measured(arrivalNs))
        {
            queriedTokens += queried;
            hitTokens += hit;
        }
    }

    /** @return requests that arrived after the warm-up. */
    public long requests()
    {
        return requests;
    }

    /** @return the share of them that met their ceilings, 1 without requests. */
    public double sloAttainment()
    {
        return requests == 0 ? 1.0 : (double)sloMet / requests;
    }

    /** @return of them, the ones answered with an error or for which nothing was selected. */
    public long errors()
    {
        return errors;
    }

    /**
     * @param percentile 1..100.
     * @return that percentile of the measured TTFTs (nearest rank), milliseconds; NaN without one.
     */
    public double ttftMs(final int percentile)
    {
        return ttft.percentileMicros(percentile) / 1000.0;
    }

    /**
     * @param percentile 1..100.
     * @return that percentile of the measured TPOTs (nearest rank), milliseconds; NaN without one.
     */
    public double tpotMs(final int percentile)
    {
        return tpot.percentileMicros(percentile) / 1000.0;
    }

    /** @return prompt tokens of the measured requests that got a place, per measured second. */
    public double inputTokensPerS()
    {
        return inputTokens / measuredS;
    }

    /** @return the simulated servers' prefix hits / queries over the measured requests, NaN without a query. */
    public double prefixHitRate()
    {
        return queriedTokens == 0 ? Double.NaN : (double)hitTokens / queriedTokens;
    }
}
