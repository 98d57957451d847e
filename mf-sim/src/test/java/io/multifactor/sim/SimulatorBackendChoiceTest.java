package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.prompt.PromptWorkload;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A model's {@code backend_choice} takes effect in the simulator: its servers are chosen by that rule (round robin
 * here, whatever the weights) instead of by weight.
 */
class SimulatorBackendChoiceTest
{
    private static LoadedConfig config(final String backendChoice) throws Exception
    {
        return ConfigLoader.load("choice.yaml", "models:\n" +
            "  - name: m\n" +
            "    quality_score: 0.5\n" +
            "    backend_refs: [{name: m-1, endpoint: 127.0.0.1:18001, weight: 70},\n" +
            "      {name: m-2, endpoint: 127.0.0.1:18002, weight: 10}, {name: m-3, endpoint: 127.0.0.1:18003, weight: 10},\n" +
            "      {name: m-4, endpoint: 127.0.0.1:18004, weight: 10}]\n" +
            backendChoice +
            "decisions:\n" +
            "  - name: d\n" +
            "    modelRefs: [{model: m}]\n", null);
    }

    private static ServingFigures run(final LoadedConfig loaded)
    {
        final SimulationProfile profile = new SimulationProfile(20, 5, 11, 4.0, 500, 1, 0.0, Map.of("d", 1.0),
            Map.of("m", ModelBehaviour.steady("m", 10, 1, 0.0, 1000, 0.0)), false, RequestSizes.NONE,
            new PromptWorkload(0, 1, 0.0, 2, 0.5, 160, 16), Map.of("m", new BackendServers(16, 100_000, 1000.0, 16)));
        return new Simulator(loaded.plans(), ExampleFixture.settings(30), profile, true,
            BackendChooser.of(loaded, Map.of())).run(SimulationListener.NONE).serving();
    }

    @Test
    void shouldSpreadTheRequestsOverTheServersByTheModelsRuleInsteadOfByWeight() throws Exception
    {
        final ServingFigures weighted = run(config(""));
        final ServingFigures turns = run(config("    backend_choice: round_robin\n"));
        final long requests = requests(weighted);
        assertThat(requests).isGreaterThan(50);
        assertThat(requests(turns)).isEqualTo(requests);
        // By weight the first server takes 70%; in turn each takes a quarter.
        assertThat((double)weighted.servers().get(0).requests()).isCloseTo(0.7 * requests, within(3.0));
        for (final ServingFigures.Server server : turns.servers())
        {
            assertThat((double)server.requests()).isCloseTo(requests / 4.0, within(1.0));
        }
    }

    private static long requests(final ServingFigures figures)
    {
        long requests = 0;
        for (final ServingFigures.Server server : figures.servers())
        {
            requests += server.requests();
        }
        return requests;
    }
}
