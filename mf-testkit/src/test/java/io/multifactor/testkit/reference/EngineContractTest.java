package io.multifactor.testkit.reference;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Factor;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Selection;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** The signal contract, run against the engine, with its results read back as reference results. */
class EngineContractTest extends SignalContractTest
{
    private MultiFactorEngine engine;
    private Plans plans;

    @Override
    void create()
    {
        plans = KernelAdapter.plans(LATENCY_ONLY);
        engine = MultiFactorEngine.builder(plans)
            .clock(clock)
            .settings(new SignalSettings(WINDOW_NS, SECOND_NS, 600 * SECOND_NS))
            .build();
    }

    @Override
    LatencyRecorder recorder()
    {
        return engine;
    }

    @Override
    InflightTracker tracker()
    {
        return engine;
    }

    @Override
    int modelId(final String name)
    {
        return engine.modelId(name);
    }

    @Override
    long inflight(final String name)
    {
        return engine.inflight(engine.modelId(name));
    }

    @Override
    ReferenceResult select(final String decision, final Set<String> excluded)
    {
        engine.refreshNow();
        final int decisionId = engine.decisionId(decision);
        final Exclusions exclusions = new Exclusions();
        for (final String model : excluded)
        {
            exclusions.add(engine.modelId(model));
        }
        final Selection out = new Selection();
        engine.select(decisionId, exclusions, out);
        if (out.candidateCount() == 0)
        {
            return new ReferenceResult(decision, out.outcome(), -1, null, Map.of(), List.of());
        }
        return KernelAdapter.toResult(plans, plans.decision(decisionId), out, Factor.SEED_COUNT);
    }

    @Override
    void tick()
    {
        engine.refresh();
    }

    @Override
    void close()
    {
        engine.close();
    }
}
