package io.multifactor.tools;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateReplicasTest
{
    private static final String FLEET_CONFIG = Path.of("..", "examples", "fleet.yaml").toString();

    @Test
    void shouldCompareAFleetRunWithIsolatedReplicasOfTheSameSeed()
    {
        final CliRun run = CliRun.of("simulate", "--config", FLEET_CONFIG, "--replicas", "4");
        assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).contains("4 replicas", "fleet exchange every 250 ms vs isolated",
            "peak in flight (fleet)", "premium-model", "SLO attainment: fleet ", "per replica");
        // The bundled profile is where sharing shows: the fleet run stays far closer to max_inflight: 20.
        final String premium = run.out().lines().filter(l -> l.startsWith("premium-model")).findFirst().orElseThrow();
        final String[] cells = premium.trim().split("\\s+");
        final long fleetPeak = Long.parseLong(cells[2]);
        final long isolatedPeak = Long.parseLong(cells[4]);
        assertThat(fleetPeak).isLessThan(isolatedPeak);
        assertThat(CliRun.of("simulate", "--config", FLEET_CONFIG, "--replicas", "4").out()).isEqualTo(run.out());
    }

    @Test
    void shouldRunIsolatedReplicasOnlyWithNoFleet()
    {
        final CliRun run = CliRun.of("simulate", "--config", FLEET_CONFIG, "--replicas", "3", "--no-fleet");
        assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).contains("3 replicas", "isolated (no fleet)").doesNotContain("fleet/isol.");
    }

    @Test
    void shouldRefuseAReplicaCountOutOfRange()
    {
        final CliRun run = CliRun.of("simulate", "--config", FLEET_CONFIG, "--replicas", "0");
        assertThat(run.exit()).isEqualTo(ExitCodes.INVALID_INPUT);
        assertThat(run.err()).contains("--replicas must be in 1..64, got 0");
        assertThat(run.out()).isEmpty();
    }
}
