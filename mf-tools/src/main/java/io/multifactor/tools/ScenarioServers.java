package io.multifactor.tools;

import io.multifactor.config.LoadedConfig;
import io.multifactor.config.PlansCompiler;
import io.multifactor.config.model.BackendRef;
import io.multifactor.config.model.DecisionConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.model.RouterConfig;
import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import io.multifactor.fakes.FakeModelServer;
import io.multifactor.fakes.PrefixCaching;
import io.multifactor.fakes.TimeWindow;
import io.multifactor.sim.BackendServers;
import io.multifactor.sim.FailureBehaviour;
import io.multifactor.sim.ModelBehaviour;
import io.multifactor.sim.RequestSizes;
import io.multifactor.sim.SimulationProfile;
import io.multifactor.sim.load.LoadProfile;
import io.multifactor.sim.suite.Scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fake model servers that stand for a comparison scenario's simulated models when it runs through the gateway
 * ({@code bin/mf compare --suite DIR --through-gateway}), the scenario's configuration pointed at them, and its traffic
 * as a load profile: the one place where a scenario becomes fake servers and a load. Per model of the scenario's
 * configuration, from its entry in the scenario's profile:
 * <ul>
 * <li>one server per entry of its {@code backend_refs} (one for a model without any), each on a free loopback port;
 *     the configuration's {@code backend_refs} are replaced by those servers ({@code MODEL-1} for a model without
 *     any);</li>
 * <li>{@code ttft_ms}, {@code tpot_ms} and {@code sigma} as in the profile; {@code error_rate} as the servers' error
 *     rate;</li>
 * <li>places: {@code servers.batch} when the profile models the model's servers, else its {@code capacity} shared out
 *     over its servers (rounded up); a request beyond them waits for a place, where the simulator instead slows every
 *     request down by {@code slowdown_per_request} (not reproduced);</li>
 * <li>{@code servers:}'s {@code gpu_blocks}, {@code block_tokens} and {@code prefill_tokens_per_s} as the servers'
 *     prefix cache;</li>
 * <li>every request asks for, and every answer has, the profile's mean {@code output_tokens} (rounded), where the
 *     simulator draws lognormal lengths;</li>
 * <li>the {@code degraded}, {@code failing} and {@code rate_limited} windows start at the same share of the run as of
 *     the scenario's {@code duration_s} (a window at t s starts at t x run / {@code duration_s}) and last as many
 *     seconds as written; a 500 or a 429 is answered at once (the simulator answers it after the model's TTFT).</li>
 * </ul>
 * The traffic: the profile's Poisson arrivals (or its sessions) at the given rate for the run's seconds, its
 * {@code prompt_tokens}, streamed chat completions to the configuration's one decision. A scenario with bursts, long
 * prompts ({@code long_prompts}, {@code tokens_per_slot}), several decisions or a fleet is not reproduced
 * ({@link #unsupported}).
 * <p>
 * This class is threadsafe: the servers run on their own Vert.x event loops, and the methods only read what
 * {@link #start} set.
 */
final class ScenarioServers implements AutoCloseable
{
    /** Seconds a run waits for the requests still open after its last arrival before it cuts them. */
    static final double DRAIN_S = 30.0;

    private final List<FakeBackends> layers;
    private final Map<String, List<Integer>> portsByModel;

    private ScenarioServers(final List<FakeBackends> layers, final Map<String, List<Integer>> portsByModel)
    {
        this.layers = layers;
        this.portsByModel = portsByModel;
    }

    /**
     * @param scenario a scenario.
     * @return why it cannot run through the gateway, or null when it can.
     */
    static String unsupported(final Scenario scenario)
    {
        final SimulationProfile profile = scenario.profile();
        if (scenario.replicas() > 1)
        {
            return "its configuration has a fleet: block (router replicas run in the simulator only)";
        }
        if (profile.bursts().active())
        {
            return "its profile has bursts (the load generator sends Poisson arrivals or sessions)";
        }
        if (!profile.sizes().equals(RequestSizes.NONE))
        {
            return "its profile has long_prompts or tokens_per_slot (the load generator sends one prompt size)";
        }
        if (scenario.config().config().decisions().size() != 1)
        {
            return "its configuration has " + scenario.config().config().decisions().size() + " decisions (the load " +
                "generator sends to one)";
        }
        for (final ModelConfig model : scenario.config().config().models())
        {
            if (profile.models().get(model.name()) == null)
            {
                return "its profile does not say how model " + model.name() + " behaves";
            }
        }
        return null;
    }

    /**
     * Starts the scenario's servers on free loopback ports; their windows' clock starts now.
     *
     * @param scenario a scenario {@link #unsupported} accepts.
     * @param runS seconds of arrivals of the run.
     * @param seed seed of the servers' draws.
     * @return the running servers.
     * @throws IllegalStateException when a server cannot listen (the others are stopped).
     */
    static ScenarioServers start(final Scenario scenario, final double runS, final long seed)
    {
        // FakeBackends answers one server per model name, so the k-th server of every model goes to the k-th layer.
        final List<List<FakeModelProfile>> layerProfiles = new ArrayList<>();
        final Map<String, Integer> serversByModel = new LinkedHashMap<>();
        for (final ModelConfig model : scenario.config().config().models())
        {
            final int servers = Math.max(1, model.backendRefs().size());
            serversByModel.put(model.name(), servers);
            final FakeModelProfile server = profile(scenario.profile(), model.name(), servers, runS);
            for (int k = 0; k < servers; k++)
            {
                if (layerProfiles.size() == k)
                {
                    layerProfiles.add(new ArrayList<>());
                }
                layerProfiles.get(k).add(server);
            }
        }
        final List<FakeBackends> layers = new ArrayList<>();
        try
        {
            for (int k = 0; k < layerProfiles.size(); k++)
            {
                layers.add(FakeBackends.start(new BackendsProfile(seed * 1009 + k, layerProfiles.get(k))));
            }
        }
        catch (final RuntimeException ex)
        {
            closeAll(layers);
            throw ex;
        }
        final Map<String, List<Integer>> ports = new LinkedHashMap<>();
        for (final Map.Entry<String, Integer> model : serversByModel.entrySet())
        {
            final List<Integer> mine = new ArrayList<>();
            for (int k = 0; k < model.getValue(); k++)
            {
                mine.add(layers.get(k).port(model.getKey()));
            }
            ports.put(model.getKey(), List.copyOf(mine));
        }
        return new ScenarioServers(layers, ports);
    }

    /**
     * One model's fake server.
     *
     * @param profile the scenario's profile.
     * @param model the model.
     * @param servers how many servers stand for it.
     * @param runS seconds of arrivals of the run.
     * @return the profile of each of its servers.
     */
    static FakeModelProfile profile(final SimulationProfile profile, final String model, final int servers,
        final double runS)
    {
        final ModelBehaviour behaviour = profile.models().get(model);
        final BackendServers shape = profile.servers().get(model);
        final int batch = shape != null ? shape.batch() : (behaviour.capacity() + servers - 1) / servers;
        final FailureBehaviour failures = behaviour.failures();
        final List<TimeWindow> degraded = behaviour.degrades() ? List.of(new TimeWindow(
            startS(behaviour.degradedFromS(), runS, profile), startS(behaviour.degradedFromS(), runS, profile) +
            behaviour.degradedUntilS() - behaviour.degradedFromS(), behaviour.degradedTtftFactor(),
            behaviour.degradedTpotFactor(), 0L, 1.0)) : List.of();
        final List<TimeWindow> limited = Double.isNaN(failures.rateLimitedFromS()) ? List.of() : List.of(new TimeWindow(
            startS(failures.rateLimitedFromS(), runS, profile), startS(failures.rateLimitedFromS(), runS, profile) +
            failures.rateLimitedUntilS() - failures.rateLimitedFromS(), 1.0, 1.0,
            Math.max(1L, Math.round(failures.retryAfterS())), 1.0));
        final List<TimeWindow> failing = Double.isNaN(failures.failingFromS()) ? List.of() : List.of(new TimeWindow(
            startS(failures.failingFromS(), runS, profile), startS(failures.failingFromS(), runS, profile) +
            failures.failingUntilS() - failures.failingFromS(), 1.0, 1.0, 0L, 1.0));
        final PrefixCaching caching = shape == null ? null :
            new PrefixCaching(shape.blockTokens(), shape.gpuBlocks(), shape.prefillTokensPerS());
        return new FakeModelProfile(model, 0, behaviour.ttftMs(), behaviour.tpotMs(), behaviour.sigma(), batch,
            outputTokens(profile), failures.errorRate(), 1.0 / batch, degraded, limited, caching, failing);
    }

    /**
     * @param scenarioS a second of the scenario's timeline.
     * @param runS seconds of arrivals of the run.
     * @param profile the scenario's profile.
     * @return the second of the run at the same share of it.
     */
    static double startS(final double scenarioS, final double runS, final SimulationProfile profile)
    {
        return scenarioS * runS / profile.durationS();
    }

    private static int outputTokens(final SimulationProfile profile)
    {
        return (int)Math.max(1L, Math.round(profile.outputTokensMean()));
    }

    /**
     * The scenario's traffic as a load.
     *
     * @param scenario a scenario {@link #unsupported} accepts.
     * @param ratePerS arrivals per second.
     * @param runS seconds of arrivals.
     * @param seed seed of the arrivals.
     * @param intervalS seconds between progress lines.
     * @return the load, judged by the ceilings of the scenario's decision.
     */
    static LoadProfile load(final Scenario scenario, final double ratePerS, final double runS, final long seed,
        final double intervalS)
    {
        final SimulationProfile profile = scenario.profile();
        final DecisionConfig decision = scenario.config().config().decisions().get(0);
        return new LoadProfile(seed, ratePerS, runS, Integer.MAX_VALUE, DRAIN_S, decision.name(), null, true, true,
            Math.max(1, profile.promptTokens()), outputTokens(profile), decision.multiFactor().slo().maxTtftMs(),
            decision.multiFactor().slo().maxTpotMs(), intervalS, 0, profile.prompts());
    }

    /**
     * @param config a configuration of the scenario (its own, a policy's, or the recommended one).
     * @return it with every model's {@code backend_refs} replaced by its servers, compiled.
     */
    LoadedConfig pointAt(final LoadedConfig config)
    {
        final RouterConfig router = config.config();
        final List<ModelConfig> models = new ArrayList<>();
        for (final ModelConfig model : router.models())
        {
            final List<Integer> ports = portsByModel.get(model.name());
            if (ports == null)
            {
                models.add(model);
                continue;
            }
            final List<BackendRef> refs = new ArrayList<>();
            for (int k = 0; k < ports.size(); k++)
            {
                final BackendRef written = k < model.backendRefs().size() ? model.backendRefs().get(k) : null;
                refs.add(new BackendRef(written != null ? written.name() : model.name() + '-' + (k + 1), false,
                    "127.0.0.1", ports.get(k), BackendRef.ENDPOINT_BASE_PATH, written != null ? written.weight() : 1.0,
                    null));
            }
            models.add(model.withOverlay(null, null, refs));
        }
        final RouterConfig pointed = new RouterConfig(models, router.decisions(), router.signals(), router.fleet());
        return new LoadedConfig(config.file(), pointed, PlansCompiler.compile(pointed, null), config.warnings(),
            config.outline());
    }

    /** @return every server's port, model by model in configuration order. */
    List<Integer> ports()
    {
        final List<Integer> all = new ArrayList<>();
        for (final List<Integer> ports : portsByModel.values())
        {
            all.addAll(ports);
        }
        return all;
    }

    /** @return whether the servers cache prompt prefixes (then {@link #prefixTokens} counts). */
    boolean cachesPrefixes()
    {
        for (final FakeBackends layer : layers)
        {
            for (final FakeModelServer server : layer.servers().values())
            {
                if (server.profile().prefixCachingOrNull() != null)
                {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @return {@code {queried, hits}}: prompt tokens looked up in the servers' prefix caches so far, and found, summed
     *     over the servers.
     */
    long[] prefixTokens()
    {
        long queried = 0;
        long hits = 0;
        for (final FakeBackends layer : layers)
        {
            for (final FakeModelServer server : layer.servers().values())
            {
                queried += server.prefixQueriedTokens();
                hits += server.prefixHitTokens();
            }
        }
        return new long[] {queried, hits};
    }

    /** @return responses the servers completed so far, summed over the servers. */
    long completed()
    {
        long completed = 0;
        for (final FakeBackends layer : layers)
        {
            for (final FakeModelServer server : layer.servers().values())
            {
                completed += server.completed();
            }
        }
        return completed;
    }

    /** Stops every server and waits until their ports are closed. */
    @Override
    public void close()
    {
        closeAll(layers);
    }

    private static void closeAll(final List<FakeBackends> layers)
    {
        RuntimeException failed = null;
        for (final FakeBackends layer : layers)
        {
            try
            {
                layer.close();
            }
            catch (final RuntimeException ex)
            {
                failed = failed == null ? ex : failed;
            }
        }
        if (failed != null)
        {
            throw failed;
        }
    }
}
