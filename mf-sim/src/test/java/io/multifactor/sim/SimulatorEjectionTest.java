package io.multifactor.sim;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.EjectionPolicy;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The simulator's failing models: a window of 500s and a window of 429s with Retry-After end their leases with that
 * status, which the real engine's ejection reads; without reliability the failing model keeps its traffic and its
 * requests fail, with it the other model takes the traffic until a probe succeeds.
 */
class SimulatorEjectionTest
{
    private static final String PROFILE = String.join("\n",
        "duration_s: 90",
        "interval_s: 5",
        "seed: 3",
        "arrivals_per_s: 10",
        "models:",
        "  strong: {ttft_ms: 200, tpot_ms: 20, sigma: 0.1, failing: {from_s: 20, until_s: 40},",
        "           rate_limited: {from_s: 60, until_s: 65, retry_after_s: 8}}",
        "  backup: {ttft_ms: 200, tpot_ms: 20, sigma: 0.1, error_rate: 0.0}",
        "");

    private static Plans plans(final boolean reliability)
    {
        final PlansBuilder builder = new PlansBuilder().model("strong", 0.9, 1.0).model("backup", 0.5, 1.0);
        if (reliability)
        {
            builder.reliability("strong", new EjectionPolicy(3, 5_000, 30_000, 50));
        }
        return builder.decision("d").candidates("strong", "backup").weights(1.0, 0.0, 0.0, 0.0).add().build();
    }

    private static SimulationReport run(final Plans plans) throws InvalidConfigurationException
    {
        final SimulationProfile profile = ProfileReader.read("p.yaml", PROFILE);
        return new Simulator(plans, SignalSettings.defaults(), profile).run(SimulationListener.NONE);
    }

    @Test
    void shouldFailFewerRequestsWithEjectionAndTakeTimeToSendTrafficBackAfterRecovery()
        throws InvalidConfigurationException
    {
        final SimulationReport without = run(plans(true).withoutEjectionPolicies());
        final SimulationReport with = run(plans(true));
        assertThat(with.requests()).isEqualTo(without.requests());
        // Without ejection every request of the 20 s window and of the 5 s of 429s goes to strong and fails.
        assertThat(without.backendErrors()).isGreaterThan(200);
        assertThat(without.recoveryToTrafficS(0)).isLessThan(0.5);
        // With it: 3 failures eject strong, each failed probe ejects it again; the 429s eject it for 8 s at once.
        assertThat(with.backendErrors()).isLessThan(without.backendErrors() / 5);
        assertThat(with.sloAttainment()).isGreaterThan(without.sloAttainment());
        assertThat(with.recoveryToTrafficS(0)).isGreaterThan(0.5).isLessThan(30.0);
        System.out.println("SimulatorEjectionTest: failed requests without ejection " + without.backendErrors() +
            ", with " + with.backendErrors() + "; recovery to traffic " + without.recoveryToTrafficS(0) + " s vs " +
            with.recoveryToTrafficS(0) + " s");
    }

    @Test
    void shouldDrawTheSameRunForTheSameSeed() throws InvalidConfigurationException
    {
        final SimulationReport first = run(plans(true));
        final SimulationReport second = run(plans(true));
        assertThat(second.backendErrors()).isEqualTo(first.backendErrors());
        assertThat(second.selected(0)).isEqualTo(first.selected(0));
    }

    @Test
    void shouldRefuseAWindowThatEndsBeforeItStartsAndAnErrorRateAboveOne()
    {
        assertThatExceptionOfType(InvalidConfigurationException.class).isThrownBy(() -> ProfileReader.read("p.yaml",
            PROFILE.replace("until_s: 40", "until_s: 10").replace("error_rate: 0.0", "error_rate: 1.5")))
            .satisfies(ex -> assertThat(ex.getMessage())
                .contains("p.yaml:6:", "models.strong.failing.until_s: must be after from_s (20), got 10")
                .contains("models.backup.error_rate: must be in [0, 1], got 1.5"));
    }
}
