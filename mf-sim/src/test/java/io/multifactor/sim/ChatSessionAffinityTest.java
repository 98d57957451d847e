package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.BackendPrefix;
import io.multifactor.serving.PrefixBackends;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chat-session profile at round-robin's knee (38.6 requests/s, seed 1, 120 simulated seconds): with the bundled
 * {@code examples/prefix-affinity.yaml}, whose index is the size of the servers' cache, affinity's p90 TTFT is below
 * round-robin's; with an index 128 times that size it matches far more than the servers still hold, and loses.
 */
class ChatSessionAffinityTest
{
    private static final double KNEE = 38.6;

    @TempDir
    Path dir;

    @Test
    void shouldBeatRoundRobinAtTheKneeOnlyWithAnIndexTheSizeOfTheServersCache() throws Exception
    {
        final SimulationProfile chat = ProfileReader.read(Path.of("..", "examples", "prefix-chat.profile.yaml"))
            .withArrivalsPerS(KNEE).withSeed(1);
        final String bundled = Files.readString(Path.of("..", "examples", "prefix-affinity.yaml"));
        assertThat(bundled).contains("capacity_blocks: 512");
        final Path oversized = dir.resolve("oversized.yaml");
        Files.writeString(oversized, bundled.replace("capacity_blocks: 512", "capacity_blocks: 65536"));

        final Run roundRobin = run(ConfigLoader.load(Path.of("..", "examples", "prefix.yaml")), chat);
        final Run sized = run(ConfigLoader.load(Path.of("..", "examples", "prefix-affinity.yaml")), chat);
        final Run stale = run(ConfigLoader.load(oversized), chat);

        // Seed 1 gives p90 TTFT 1,153 ms (round-robin), 855 ms (sized) and 5,807 ms (oversized).
        assertThat(sized.report.figures().p90TtftMs()).isLessThan(roundRobin.report.figures().p90TtftMs() * 0.9);
        assertThat(sized.report.sloAttainment()).isGreaterThan(roundRobin.report.sloAttainment());
        assertThat(stale.report.figures().p90TtftMs()).isGreaterThan(roundRobin.report.figures().p90TtftMs() * 2);
        // The sized index believes about what the servers hold (0.38 against 0.39); the oversized one, 0.81.
        final double servers = sized.report.serving().hitRate("m");
        assertThat(sized.indexShare()).isBetween(servers - 0.05, servers + 0.05);
        assertThat(stale.indexShare()).isGreaterThan(stale.report.serving().hitRate("m") + 0.3);
    }

    private static Run run(final LoadedConfig loaded, final SimulationProfile profile)
    {
        final PrefixBackends prefixes = new PrefixBackends();
        final SimulationReport report = new Simulator(loaded.plans(), ExampleFixture.settings(60), profile, true,
            BackendChooser.of(loaded, Map.of(), prefixes)).run(SimulationListener.NONE);
        long lookedUp = 0;
        long matched = 0;
        for (final BackendPrefix backend : prefixes.backends())
        {
            lookedUp += backend.blocksLookedUp();
            matched += backend.blocksMatched();
        }
        return new Run(report, lookedUp == 0 ? 0.0 : (double)matched / lookedUp);
    }

    /** A run's report and the share of the prompts' blocks its router's index matched. */
    private record Run(SimulationReport report, double indexShare)
    {
    }
}
