package io.multifactor.sim;

import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;

import java.util.LinkedHashMap;
import java.util.Map;

/** Plans and profiles built in code, shaped like the bundled examples/router.yaml and its profile. */
final class ExampleFixture
{
    static final String FAST = "fast-cheap";
    static final String STRONG = "slow-strong";

    private ExampleFixture()
    {
    }

    static Plans plans(final double loadWeight, final boolean ceilings)
    {
        final PlansBuilder builder = new PlansBuilder()
            .model(FAST, 0.6, 0.5, 1.5)
            .model(STRONG, 0.95, 5.0, 15.0);
        builder.decision("quality_answers").candidates(STRONG, FAST)
            .weights(0.4, 0.2, 0.2, loadWeight)
            .slo(ceilings ? 200 : 0, ceilings ? 800 : 0, ceilings ? 5.0 : 0, ceilings ? 50 : 0)
            .percentile(95).policy(NoCandidatesPolicy.CHEAPEST).add();
        builder.decision("fast_chat").candidates(FAST, STRONG)
            .weights(0.2, 0.4, 0.2, 0.2)
            .slo(ceilings ? 100 : 0, ceilings ? 1000 : 0, 0, 0)
            .percentile(95).policy(NoCandidatesPolicy.FIRST).add();
        return builder.build();
    }

    static SignalSettings settings(final long windowS)
    {
        return new SignalSettings(windowS * 1_000_000_000L, 1_000_000_000L, 600_000_000_000L);
    }

    static SimulationProfile profile()
    {
        final Map<String, Double> shares = new LinkedHashMap<>();
        shares.put("fast_chat", 0.6);
        shares.put("quality_answers", 0.4);
        final Map<String, ModelBehaviour> models = new LinkedHashMap<>();
        models.put(FAST, ModelBehaviour.steady(FAST, 150, 15, 0.25, 40, 0.02));
        models.put(STRONG, ModelBehaviour.steady(STRONG, 350, 40, 0.25, 16, 0.03).degraded(30, 50, 6.0, 2.5));
        return new SimulationProfile(120, 5, 42, 12, 500, 150, 0.5, shares, models);
    }
}
