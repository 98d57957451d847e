package io.multifactor.tools;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    void theServersQueueShouldKeepIsolatedReplicasFromOverloadingOneServer()
    {
        final String config = Path.of("..", "examples", "servers.yaml").toString();
        final CliRun run = CliRun.of("simulate", "--config", config, "--replicas", "3", "--no-fleet");
        assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.OK);
        assertThat(run.out()).contains("model-server signals, isolated replicas (scrape every 250 ms, answers 100 ms " +
            "late, stale after 1000 ms): without / with", "traffic without/with");
        // Without the queue, each replica sees a third of small-fast's load and overloads it; with it, they do not.
        final String small = run.out().lines().filter(l -> l.startsWith("small-fast")).findFirst().orElseThrow();
        final String[] peaks = small.trim().split("\\s+");
        assertThat(Long.parseLong(peaks[6])).isLessThan(Long.parseLong(peaks[4]) / 2);
        final Matcher p99 = Pattern.compile("p99 TTFT: without (\\d+) ms, with (\\d+) ms").matcher(run.out());
        assertThat(p99.find()).as(run.out()).isTrue();
        assertThat(Long.parseLong(p99.group(2))).isLessThan(Long.parseLong(p99.group(1)));
        final Matcher slo = Pattern.compile("SLO attainment: without ([\\d.]+)%, with ([\\d.]+)%").matcher(run.out());
        assertThat(slo.find()).isTrue();
        assertThat(Double.parseDouble(slo.group(2))).isGreaterThan(Double.parseDouble(slo.group(1)));
        // The same seed prints the same report.
        assertThat(CliRun.of("simulate", "--config", config, "--replicas", "3", "--no-fleet").out()).isEqualTo(run.out());
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
