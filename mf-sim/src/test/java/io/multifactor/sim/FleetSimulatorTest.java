package io.multifactor.sim;

import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FleetSimulatorTest
{
    private static final Plans PLANS = new PlansBuilder()
        .model("premium", 0.9, 10.0)
        .model("economy", 0.6, 0.5)
        .decision("answers").candidates("premium", "economy").weights(0.7, 0.0, 0.0, 0.3)
        .slo(0.0, 1_200.0, 0.0, 20).add()
        .build();

    private static SimulationProfile profile()
    {
        final Map<String, ModelBehaviour> models = new LinkedHashMap<>();
        models.put("premium", ModelBehaviour.steady("premium", 400, 20, 0.2, 20, 0.08));
        models.put("economy", ModelBehaviour.steady("economy", 250, 12, 0.2, 200, 0.01));
        return new SimulationProfile(30, 10, 7, 15, 400, 100, 0.4, Map.of(), models);
    }

    private static FleetReport run(final boolean fleet)
    {
        return new FleetSimulator(PLANS, new SignalSettings(30_000_000_000L, 1_000_000_000L, 600_000_000_000L),
            profile(), 4, fleet, 250_000_000L).run();
    }

    @Test
    void shouldKeepTheFleetWideInflightNearMaxInflightOnlyWhenReplicasShareSignals()
    {
        final FleetReport shared = run(true);
        final FleetReport isolated = run(false);
        assertThat(shared.requests()).isEqualTo(isolated.requests());
        final int premium = shared.modelNames().indexOf("premium");
        assertThat(shared.maxInflight()[premium]).isEqualTo(20);
        // Four isolated replicas allow 20 each; shared signals hold the fleet near 20 (what begins within a period).
        assertThat(isolated.overshoot(premium)).isGreaterThan(20);
        assertThat(shared.overshoot(premium)).isLessThan(isolated.overshoot(premium) / 2);
        assertThat(shared.sloAttainment()).isGreaterThan(isolated.sloAttainment());
    }

    @Test
    void shouldGiveTheSameReportForTheSameSeed()
    {
        final FleetReport one = run(true);
        final FleetReport two = run(true);
        assertThat(two.peakFleetInflight()).containsExactly(one.peakFleetInflight());
        assertThat(two.selected()).containsExactly(one.selected());
        assertThat(two.sloMet()).isEqualTo(one.sloMet());
    }
}
