package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.prompt.PromptWorkload;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Models simulated server by server: each backend's own prefix cache, its places and queue, the hit rate and input
 * tokens per second in the report, and mf-serving's backend choice deciding where each request goes.
 */
class SimulatorServersTest
{
    private static LoadedConfig config(final int backends) throws Exception
    {
        final StringBuilder refs = new StringBuilder();
        for (int b = 1; b <= backends; b++)
        {
            refs.append(b == 1 ? "" : ", ").append("{name: m-").append(b).append(", endpoint: 127.0.0.1:").append(18_000 + b)
                .append('}');
        }
        return ConfigLoader.load("servers.yaml", "models:\n" +
            "  - name: m\n" +
            "    quality_score: 0.5\n" +
            "    backend_refs: [" + refs + "]\n" +
            "decisions:\n" +
            "  - name: d\n" +
            "    modelRefs: [{model: m}]\n" +
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}, slo: {max_ttft_ms: 100}}}\n",
            null);
    }

    private static SimulationProfile profile(final double rate, final PromptWorkload prompts,
        final BackendServers servers)
    {
        // sigma 0: every TTFT is 10 ms + its prefill; one output token of 1 ms.
        return new SimulationProfile(20, 5, 7, rate, 500, 1, 0.0, Map.of("d", 1.0),
            Map.of("m", ModelBehaviour.steady("m", 10, 1, 0.0, 1000, 0.0)), false, RequestSizes.NONE, prompts,
            Map.of("m", servers));
    }

    private static SimulationReport run(final LoadedConfig loaded, final SimulationProfile profile)
    {
        return new Simulator(loaded.plans(), ExampleFixture.settings(30), profile, true,
            BackendChooser.of(loaded, Map.of())).run(SimulationListener.NONE);
    }

    @Test
    void shouldMissOnlyEachServersFirstSightOfASharedSystemPrompt() throws Exception
    {
        // One system prompt of 320 tokens (20 blocks of 16) and a question of 16: 336 tokens, 21 blocks, the last one
        // each request's own. Each of the 2 servers misses it once, then hits its 320 tokens on every request.
        final SimulationReport report = run(config(2), profile(2.0, new PromptWorkload(1, 320, 0.0, 1, 0.0, 16, 0),
            new BackendServers(16, 1000, 1000.0, 4)));
        final ServingFigures serving = report.serving();
        assertThat(serving.servers()).hasSize(2);
        long requests = 0;
        for (final ServingFigures.Server server : serving.servers())
        {
            assertThat(server.requests()).isGreaterThan(5);
            assertThat(server.queriedTokens()).isEqualTo(server.requests() * 336);
            assertThat(server.hitTokens()).isEqualTo((server.requests() - 1) * 320);
            // Warm: 10 ms + 16 tokens at 1,000/s = 26 ms; no queue at this rate with 4 places.
            assertThat(server.ttftP50Ms()).isEqualTo(26.0);
            requests += server.requests();
        }
        assertThat(requests).isEqualTo(report.requests());
        assertThat(serving.hitRate("m")).isEqualTo((requests - 2) * 320.0 / (requests * 336.0));
        assertThat(serving.hitRate(null)).isEqualTo(serving.hitRate("m"));
        assertThat(serving.inputTokensPerS(null)).isEqualTo(requests * 336 / 20.0);
        // The two cold requests (10 + 336 ms) miss the 100 ms ceiling; every other one meets it.
        assertThat(report.sloMet()).isEqualTo(requests - 2);
    }

    @Test
    void shouldEvictAtTheServersCapacity() throws Exception
    {
        // 4 system prompts of 20 blocks, each server holding 30 blocks: at most one prompt stays cached, so a server
        // that alternates between prompts keeps missing.
        final PromptWorkload four = new PromptWorkload(4, 320, 0.0, 1, 0.0, 16, 0);
        final SimulationReport small = run(config(1), profile(2.0, four, new BackendServers(16, 30, 1000.0, 4)));
        final SimulationReport large = run(config(1), profile(2.0, four, new BackendServers(16, 1000, 1000.0, 4)));
        final long requests = large.serving().servers().get(0).requests();
        // Large enough: only the first sight of each of the 4 prompts misses.
        assertThat(large.serving().servers().get(0).hitTokens()).isEqualTo((requests - 4) * 320);
        assertThat(small.serving().hitRate("m")).isLessThan(large.serving().hitRate("m") / 2);
    }

    @Test
    void shouldQueueBeyondTheBatchAndCountTheWaitInTtft() throws Exception
    {
        // Without prompts, each request has the profile's 500 prompt tokens and nothing to share: 10 ms + 50 ms of
        // prefill at 10,000/s. One place at 20 requests/s (60 ms each): the queue grows the TTFT.
        final PromptWorkload distinct = PromptWorkload.NONE;
        final SimulationReport oneSlot = run(config(1), profile(20.0, distinct, new BackendServers(16, 1000, 10_000.0, 1)));
        final SimulationReport manySlots = run(config(1), profile(20.0, distinct,
            new BackendServers(16, 1000, 10_000.0, 64)));
        assertThat(manySlots.serving().servers().get(0).ttftP90Ms()).isEqualTo(60.0);
        assertThat(oneSlot.serving().servers().get(0).ttftP90Ms()).isGreaterThan(120.0);
        assertThat(oneSlot.serving().hitRate("m")).isZero();
    }

    @Test
    void shouldKeepSessionsWarmOnOneServerAndLessSoWhenTheChoiceScattersThem() throws Exception
    {
        final PromptWorkload chat = new PromptWorkload(0, 1, 0.0, 8, 1.0, 64, 64);
        final BackendServers servers = new BackendServers(16, 100_000, 10_000.0, 64);
        final SimulationReport one = run(config(1), profile(8.0, chat, servers));
        final SimulationReport eight = run(config(8), profile(8.0, chat, servers));
        assertThat(eight.serving().servers()).hasSize(8);
        // One server sees every turn's history: turn k hits all of turn k - 1's full blocks.
        assertThat(one.serving().hitRate("m")).isGreaterThan(0.6);
        // Today's weighted choice spreads a session's turns over 8 servers.
        assertThat(eight.serving().hitRate("m")).isLessThan(one.serving().hitRate("m") - 0.2);
        assertThat(eight.requests()).isEqualTo(one.requests());
    }

    @Test
    void shouldRefuseServersForAModelWithoutBackends() throws Exception
    {
        final LoadedConfig loaded = ConfigLoader.load("bare.yaml", "models:\n  - name: m\n    quality_score: 0.5\n" +
            "decisions:\n  - name: d\n    modelRefs: [{model: m}]\n" +
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}}}\n", null);
        final SimulationProfile profile = profile(1.0, PromptWorkload.NONE, new BackendServers(16, 10, 1.0, 1));
        assertThatThrownBy(() -> run(loaded, profile)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("model m, which has no backend_refs");
        assertThatThrownBy(() -> new Simulator(loaded.plans(), ExampleFixture.settings(30), profile))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs the configuration's backends");
    }
}
