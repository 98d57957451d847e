package io.multifactor.sim;

import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.plan.TieBreak;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static io.multifactor.sim.ExampleFixture.FAST;
import static io.multifactor.sim.ExampleFixture.STRONG;
import static org.assertj.core.api.Assertions.assertThat;

/** Simulated requests that carry their token counts, and the random tie-break, in the simulator. */
class SimulatorTokensTest
{
    /**
     * By prompt price, "fast-cheap" (0.5 here against 1.0) is cheaper; its completions cost 20 per 1M against 1.5,
     * so a request of 500 prompt and about 150 output tokens is cheaper at "slow-strong".
     */
    private static Plans costOnly()
    {
        return new PlansBuilder()
            .model(FAST, 0.6, 0.5, 20.0)
            .model(STRONG, 0.95, 1.0, 1.5)
            .decision("by_cost").candidates(FAST, STRONG).weights(0, 0, 1, 0).add()
            .build();
    }

    private static SimulationProfile profile(final boolean tokensInRequest)
    {
        final Map<String, ModelBehaviour> models = new LinkedHashMap<>();
        models.put(FAST, ModelBehaviour.steady(FAST, 150, 15, 0.25, 400, 0.02));
        models.put(STRONG, ModelBehaviour.steady(STRONG, 350, 40, 0.25, 400, 0.03));
        return new SimulationProfile(20, 5, 42, 12, 500, 150, 0.5, Map.of("by_cost", 1.0), models, tokensInRequest);
    }

    private static SimulationReport run(final Plans plans, final SimulationProfile profile)
    {
        return new Simulator(plans, ExampleFixture.settings(30), profile).run(SimulationListener.NONE);
    }

    @Test
    void shouldPriceEachRequestByItsOwnTokensWhenTheProfileSaysSo()
    {
        final SimulationReport byPrompt = run(costOnly(), profile(false));
        final SimulationReport byTokens = run(costOnly(), profile(true));
        assertThat(byPrompt.share(byPrompt.modelNames().indexOf(FAST))).isEqualTo(1.0);
        assertThat(byTokens.share(byTokens.modelNames().indexOf(STRONG))).isEqualTo(1.0);
        assertThat(byTokens.costUsd()).isLessThan(byPrompt.costUsd());
    }

    @Test
    void shouldSpreadExactTiesAndRepeatTheSameRunForTheSameSeed()
    {
        final Plans plans = new PlansBuilder()
            .model(FAST, 0.6, 1.0, 1.0).model(STRONG, 0.6, 1.0, 1.0)
            .decision("by_cost").candidates(FAST, STRONG).weights(0, 0, 1, 0).tieBreak(TieBreak.RANDOM).add()
            .build();
        final SimulationReport first = run(plans, profile(false));
        final double fastShare = first.share(first.modelNames().indexOf(FAST));
        assertThat(fastShare).isBetween(0.35, 0.65);
        final SimulationReport again = run(plans, profile(false));
        assertThat(again.selected(again.modelNames().indexOf(FAST)))
            .isEqualTo(first.selected(first.modelNames().indexOf(FAST)));
    }
}
