package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model simulated server by server is scraped backend by backend, and with {@link FleetSimulator#followingServers}
 * the backend choice reads those values as the gateway's does: with a 90/10 weight split over two alike servers, the
 * weighted choice overloads the first, while the scraped queues send the requests to the one with fewer waiting.
 * Were the scrape one model-wide value copied to both backends, both would wait alike and the weighted pick would stay.
 */
class SimulatorServerSignalsTest
{
    private static final String CONFIG = "models:\n" +
        "  - name: m\n" +
        "    server: vllm\n" +
        "    backend_refs: [{name: m-1, endpoint: 127.0.0.1:18001, weight: 90},\n" +
        "      {name: m-2, endpoint: 127.0.0.1:18002, weight: 10}]\n" +
        "decisions:\n" +
        "  - name: d\n" +
        "    modelRefs: [{model: m}]\n" +
        "signals:\n" +
        "  server_metrics: {every: 500ms}\n";

    // Each server runs 4 requests at once, each about 1.1 s (50 ms + prefill + 50 tokens x 20 ms): about 3.6 requests/s
    // a server; 5 arrive a second.
    private static final String PROFILE = "duration_s: 70\n" +
        "interval_s: 10\n" +
        "seed: 3\n" +
        "arrivals_per_s: 5\n" +
        "prompt_tokens: 200\n" +
        "output_tokens: {mean: 50, sigma: 0.2}\n" +
        "models:\n" +
        "  m:\n" +
        "    ttft_ms: 50\n" +
        "    tpot_ms: 20\n" +
        "    servers: {batch: 4, gpu_blocks: 1024, block_tokens: 16, prefill_tokens_per_s: 8000}\n";

    @Test
    void shouldSendTheRequestsToTheBackendWhoseOwnScrapedQueueIsShorter(@TempDir final Path dir) throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("signals.yaml", CONFIG, null);
        final Path profileFile = Files.writeString(dir.resolve("signals.profile.yaml"), PROFILE);
        final SimulationProfile profile = ProfileReader.read(profileFile, loaded.plans());

        final SteadyFigures weighted = simulator(loaded, profile).runMeasured(10.0, null);
        final SteadyFigures following = simulator(loaded, profile).followingServers(loaded).runMeasured(10.0, null);

        assertThat(following.requests()).isGreaterThan(250);
        // By weight, m-1 gets 4.5 requests/s for its 3.6: its queue grows all run long.
        assertThat(weighted.ttftMs(90)).isGreaterThan(5_000.0);
        // By the scraped queues, the two servers share the load: no queue builds beyond a scrape period's arrivals.
        assertThat(following.ttftMs(90)).isLessThan(2_000.0);
        assertThat(following.ttftMs(50)).isLessThan(weighted.ttftMs(50));
    }

    private static FleetSimulator simulator(final LoadedConfig loaded, final SimulationProfile profile)
    {
        return new FleetSimulator(loaded.plans(), loaded.signalSettings(), profile, 1, false, 0L,
            BackendChooser.of(loaded, Map.of())).withServers(loaded.serverMetrics(), loaded.serverBackends());
    }
}
