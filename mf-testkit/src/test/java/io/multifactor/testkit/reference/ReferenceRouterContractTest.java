package io.multifactor.testkit.reference;

import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;

import java.util.List;
import java.util.Set;

/** The signal contract, run against the reference router. */
class ReferenceRouterContractTest extends SignalContractTest
{
    private ReferenceRouter router;

    @Override
    void create()
    {
        router = new ReferenceRouter(MODELS, List.of(LATENCY_ONLY), clock, WINDOW_NS);
    }

    @Override
    LatencyRecorder recorder()
    {
        return router;
    }

    @Override
    InflightTracker tracker()
    {
        return router;
    }

    @Override
    int modelId(final String name)
    {
        return router.modelId(name);
    }

    @Override
    long inflight(final String name)
    {
        return router.inflight(name);
    }

    @Override
    ReferenceResult select(final String decision, final Set<String> excluded)
    {
        return router.select(decision, excluded);
    }

    @Override
    void tick()
    {
    }

    @Override
    void close()
    {
    }
}
