package io.multifactor.testkit.scenario;

import io.multifactor.api.Exclusions;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Request;
import io.multifactor.kernel.engine.MultiFactorEngine;

/**
 * Feeds a {@link Scenario} into a real engine through its public recording API: every latency sample with
 * {@code recordTpotMs}/{@code recordTtftMs}, every in-flight request with {@code begin}, an ejection with
 * {@code ejectForMillis}; then the caller refreshes and
 * selects with the scenario's exclusions.
 * <p>
 * This class is stateless and threadsafe; the engine it feeds is.
 */
public final class ScenarioReplay
{
    private ScenarioReplay()
    {
    }

    /**
     * @param scenario a scenario.
     * @param minimum the engine's default lease capacity.
     * @return a power-of-two lease capacity large enough for every in-flight request of the scenario.
     */
    public static int leaseCapacityFor(final Scenario scenario, final int minimum)
    {
        long total = 1;
        for (final ModelObservations model : scenario.models())
        {
            total += model.inflight();
        }
        long capacity = Math.max(1, minimum);
        while (capacity < total && capacity < (1 << 30))
        {
            capacity <<= 1;
        }
        return (int)capacity;
    }

    /**
     * Records the scenario's samples and begins its in-flight requests (their leases stay open).
     *
     * @param scenario a scenario checked against the engine's plans.
     * @param engine the engine to feed.
     * @param exclusions filled with the models the scenario excludes.
     * @return the number of samples the engine clamped to its trackable maximum.
     * @throws IllegalStateException when the engine refuses a sample or a lease (a scenario it was not sized for).
     */
    public static int apply(final Scenario scenario, final MultiFactorEngine engine, final Exclusions exclusions)
    {
        int clamped = 0;
        for (final ModelObservations model : scenario.models())
        {
            final int modelId = engine.modelId(model.model().name());
            for (final double tpotMs : model.tpotMs())
            {
                clamped += check(engine.recordTpotMs(modelId, tpotMs), model, tpotMs);
            }
            for (final double ttftMs : model.ttftMs())
            {
                clamped += check(engine.recordTtftMs(modelId, ttftMs), model, ttftMs);
            }
            if (model.ejectedMs() > 0)
            {
                // As given, whatever the model's reliability: ejected for this long from the engine's now.
                engine.ejectForMillis(modelId, (long)Math.ceil(model.ejectedMs()));
            }
            for (long i = 0; i < model.inflight(); i++)
            {
                if (engine.begin(modelId) == InflightTracker.NO_LEASE)
                {
                    throw new IllegalStateException("the engine refused an in-flight lease for " + model.model().name());
                }
            }
        }
        exclusions.clear();
        for (final LocatedName excluded : scenario.exclude())
        {
            exclusions.add(engine.modelId(excluded.name()));
        }
        return clamped;
    }

    /**
     * Records the scenario's samples and begins its in-flight requests, and fills a request with the scenario's
     * decision, exclusions, token counts and seed.
     *
     * @param scenario a scenario checked against the engine's plans.
     * @param engine the engine to feed.
     * @param request cleared, then filled.
     * @return the number of samples the engine clamped to its trackable maximum.
     * @throws IllegalStateException when the engine refuses a sample or a lease.
     */
    public static int apply(final Scenario scenario, final MultiFactorEngine engine, final Request request)
    {
        final int clamped = apply(scenario, engine, request.clear().exclusions());
        request.decision(engine.decisionId(scenario.decision().name()));
        if (scenario.promptTokens() != null)
        {
            request.promptTokens(scenario.promptTokens());
        }
        if (scenario.maxOutputTokens() != null)
        {
            request.maxOutputTokens(scenario.maxOutputTokens());
        }
        if (scenario.seed() != null)
        {
            request.seed(scenario.seed());
        }
        return clamped;
    }

    private static int check(final int code, final ModelObservations model, final double sampleMs)
    {
        if (code == LatencyRecorder.CLAMPED)
        {
            return 1;
        }
        if (code != LatencyRecorder.RECORDED)
        {
            throw new IllegalStateException("the engine refused sample " + sampleMs + " ms of " + model.model().name() +
                " (code " + code + ')');
        }
        return 0;
    }
}
