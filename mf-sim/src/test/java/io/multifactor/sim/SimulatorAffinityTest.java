package io.multifactor.sim;

import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.prompt.PromptWorkload;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The simulator's router side with prefix-cache affinity: mf-serving's backend choice with a prompt and a ticket per
 * request, answered at the first token, against the same model's backends chosen by weight.
 */
class SimulatorAffinityTest
{
    private static final int QUESTION_TOKENS = 160;
    private static final int ANSWER_TOKENS = 16;

    private static LoadedConfig config(final boolean affinity) throws Exception
    {
        return ConfigLoader.load("affinity.yaml", "models:\n" +
            "  - name: m\n" +
            "    quality_score: 0.5\n" +
            "    backend_refs: [{name: m-1, endpoint: 127.0.0.1:18001}, {name: m-2, endpoint: 127.0.0.1:18002},\n" +
            "      {name: m-3, endpoint: 127.0.0.1:18003}, {name: m-4, endpoint: 127.0.0.1:18004}]\n" +
            // A second turn holds its first turn's 2 blocks of 256 bytes among its 5: a share of 0.4.
            (affinity ? "    prefix_affinity: {block_bytes: 256, min_match: 0.3, prefill_tokens_per_s: 1000}\n" : "") +
            "decisions:\n" +
            "  - name: d\n" +
            "    modelRefs: [{model: m}]\n" +
            "    algorithm: {type: multi_factor, multi_factor: {weights: {quality: 1.0}, slo: {max_ttft_ms: 1000}}}\n",
            null);
    }

    private static SimulationReport run(final LoadedConfig loaded, final SimulationProfile profile)
    {
        return new Simulator(loaded.plans(), ExampleFixture.settings(30), profile, true,
            BackendChooser.of(loaded, Map.of())).run(SimulationListener.NONE);
    }

    @Test
    void shouldSendASessionsSecondTurnToTheBackendThatServedItsFirstWithAffinityAndByWeightWithout() throws Exception
    {
        // Sessions of 2 turns 0.5 s apart, no system prompt: turn 1 is a question of 160 tokens (10 server blocks of
        // 16), turn 2 resends it with an answer of 16 and a new question of 160. A first turn's first token comes
        // after 10 ms + 160 tokens at 1,000/s, long before its second turn; the servers' caches never evict.
        final SimulationProfile profile = new SimulationProfile(20, 5, 11, 4.0, 500, 1, 0.0, Map.of("d", 1.0),
            Map.of("m", ModelBehaviour.steady("m", 10, 1, 0.0, 1000, 0.0)), false, RequestSizes.NONE,
            new PromptWorkload(0, 1, 0.0, 2, 0.5, QUESTION_TOKENS, ANSWER_TOKENS),
            Map.of("m", new BackendServers(16, 100_000, 1000.0, 16)));

        final ServingFigures sticky = run(config(true), profile).serving();
        final long secondTurns = secondTurns(sticky);
        assertThat(secondTurns).isGreaterThan(20);
        // Every second turn found its whole first turn on its server: it went where the first one was served.
        assertThat(hitTokens(sticky)).isEqualTo(secondTurns * QUESTION_TOKENS);

        final ServingFigures weighted = run(config(false), profile).serving();
        assertThat(secondTurns(weighted)).isEqualTo(secondTurns);
        // By weight (equal weights: the requests split evenly over the 4), a second turn meets its first one's server
        // about 1 time in 4.
        final long requests = requests(weighted);
        for (final ServingFigures.Server server : weighted.servers())
        {
            assertThat((double)server.requests()).isCloseTo(requests / 4.0, within(2.0));
        }
        assertThat(hitTokens(weighted)).isLessThan(secondTurns * QUESTION_TOKENS / 2);
    }

    @Test
    void shouldGiveTheSharedPrefixProfileAHigherHitRateAndALowerP90TtftWithAffinityThanRoundRobin() throws Exception
    {
        // The bundled shared-prefix profile, 60 simulated seconds at round-robin's knee (52 requests/s), seed 1: the
        // direction of the figures the docs publish.
        final SimulationProfile shared = ProfileReader.read(Path.of("..", "examples", "prefix-shared.profile.yaml"))
            .withDurationS(60).withArrivalsPerS(52);
        final SimulationReport roundRobin = run(load("prefix.yaml"), shared);
        final SimulationReport affinity = run(load("prefix-affinity.yaml"), shared);

        assertThat(affinity.requests()).isEqualTo(roundRobin.requests());
        // Seed 1 gives hit rates 0.245 and 0.729, p90 TTFT 1,172 ms and 562 ms, SLO attainment 0.826 and 0.984.
        assertThat(roundRobin.serving().hitRate("m")).isLessThan(0.3);
        assertThat(affinity.serving().hitRate("m")).isGreaterThan(0.6);
        assertThat(affinity.figures().p90TtftMs()).isLessThan(roundRobin.figures().p90TtftMs() * 0.6);
        assertThat(affinity.sloAttainment()).isGreaterThan(roundRobin.sloAttainment());
    }

    @Test
    void shouldRunTheBundledConfigurationWithSessionsAndAffinityOnTheChatProfile() throws Exception
    {
        final LoadedConfig loaded = load("prefix-affinity.yaml");
        assertThat(loaded.plans().decision(loaded.plans().decisionId("chat")).sessionOrNull()).isNotNull();
        final SimulationProfile chat = ProfileReader.read(Path.of("..", "examples", "prefix-chat.profile.yaml"))
            .withDurationS(30);
        final SimulationReport report = run(loaded, chat);
        assertThat(report.requests()).isGreaterThan(40);
        assertThat(report.failed()).isZero();
        // Later turns resend their history to the server that holds it.
        assertThat(report.serving().hitRate("m")).isGreaterThan(0.5);
    }

    private static LoadedConfig load(final String example) throws Exception
    {
        return ConfigLoader.load(Path.of("..", "examples", example));
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

    private static long hitTokens(final ServingFigures figures)
    {
        long hits = 0;
        for (final ServingFigures.Server server : figures.servers())
        {
            hits += server.hitTokens();
        }
        return hits;
    }

    // A first turn queries 160 tokens, a second 336: the second turns are the queried tokens beyond 160 a request.
    private static long secondTurns(final ServingFigures figures)
    {
        long queried = 0;
        for (final ServingFigures.Server server : figures.servers())
        {
            queried += server.queriedTokens();
        }
        final long extra = queried - requests(figures) * QUESTION_TOKENS;
        assertThat(extra % (QUESTION_TOKENS + ANSWER_TOKENS)).isZero();
        return extra / (QUESTION_TOKENS + ANSWER_TOKENS);
    }
}
