package io.multifactor.sim;

import io.multifactor.api.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** On/off arrivals: the profile key, the placement on the wall clock, and what a run's intervals see. */
class ArrivalBurstsTest
{
    private static final String PROFILE = "duration_s: 300\ninterval_s: 5\nseed: 3\narrivals_per_s: 12\n" +
        "bursts: {on_s: 5, off_s: 10}\nmodels:\n  fast-cheap: {ttft_ms: 150, tpot_ms: 15}\n" +
        "  slow-strong: {ttft_ms: 350, tpot_ms: 40}\n";

    @Test
    void shouldPlaceOnTimeInItsCycle()
    {
        final ArrivalBursts bursts = new ArrivalBursts(5.0, 10.0);
        assertThat(bursts.burstRatePerS(12.0)).isEqualTo(36.0);
        assertThat(bursts.wallNs(0L)).isZero();
        assertThat(bursts.wallNs(4_999_999_999L)).isEqualTo(4_999_999_999L);
        assertThat(bursts.wallNs(5_000_000_000L)).isEqualTo(15_000_000_000L);
        assertThat(bursts.wallNs(12_000_000_000L)).isEqualTo(32_000_000_000L);
        assertThat(ArrivalBursts.NONE.wallNs(12_000_000_000L)).isEqualTo(12_000_000_000L);
        assertThat(ArrivalBursts.NONE.burstRatePerS(12.0)).isEqualTo(12.0);
        assertThatThrownBy(() -> new ArrivalBursts(5.0, 0.0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldArriveOnlyInTheOnPhasesAtThreeTimesTheMeanRate() throws Exception
    {
        final SimulationProfile profile = ProfileReader.read("bursts.yaml", PROFILE);
        assertThat(profile.bursts()).isEqualTo(new ArrivalBursts(5.0, 10.0));
        final SimulationReport report = new Simulator(ExampleFixture.plans(0.2, true), ExampleFixture.settings(30),
            profile).run(SimulationListener.NONE);
        long on = 0;
        for (int i = 0; i < report.rows().size(); i++)
        {
            final long requests = report.rows().get(i).requests();
            if (i % 3 == 0)
            {
                // 5 s at 36/s: 180 expected; a Poisson count stays well within 120..240.
                assertThat(requests).as("interval %d", i).isBetween(120L, 240L);
                on += requests;
            }
            else
            {
                assertThat(requests).as("interval %d", i).isZero();
            }
        }
        // The mean over the run stays arrivals_per_s: 300 s x 12/s.
        assertThat((double)on).isBetween(3600 * 0.92, 3600 * 1.08);
        assertThat(report.requests()).isEqualTo(on);
    }

    @Test
    void shouldKeepPlainPoissonArrivalsWithoutBursts() throws Exception
    {
        final SimulationProfile plain = ProfileReader.read("plain.yaml", PROFILE.replace(
            "bursts: {on_s: 5, off_s: 10}\n", ""));
        assertThat(plain.bursts()).isEqualTo(ArrivalBursts.NONE);
        final SimulationReport report = new Simulator(ExampleFixture.plans(0.2, true), ExampleFixture.settings(30),
            plain).run(SimulationListener.NONE);
        for (final IntervalRow row : report.rows())
        {
            assertThat(row.requests()).isBetween(30L, 95L);
        }
    }

    @Test
    void shouldRefuseBurstsWithPromptsAndIncompleteBlocks()
    {
        assertThatThrownBy(() -> ProfileReader.read("p.yaml", PROFILE.replace("bursts: {on_s: 5, off_s: 10}",
            "bursts: {on_s: 5}")))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("p.yaml:5:")
            .hasMessageContaining("bursts.off_s");
        assertThatThrownBy(() -> ProfileReader.read("p.yaml", PROFILE + "prompts: {system_prompts: 2, system_tokens: 1000}\n"))
            .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("bursts")
            .hasMessageContaining("prompts");
    }
}
