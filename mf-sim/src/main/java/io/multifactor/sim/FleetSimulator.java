package io.multifactor.sim;

import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.serving.BackendChooser;
import io.multifactor.sim.fleet.InMemoryFleet;

import java.util.List;

/**
 * N router replicas behind a round-robin load balancer, each with its own engine, on one simulated clock: with
 * {@code fleet} they share their signals through an {@link InMemoryFleet} every {@code exchangeEveryNs} (the Redis
 * exchange's semantics), without it each sees only its own requests. The models' servers see the whole fleet: a
 * model's latency follows the fleet-wide number of requests in flight ({@link ModelBehaviour}), which is also what the
 * report compares with {@code max_inflight}.
 * <p>
 * With model-server signals ({@link #withServers}), each model with backends to scrape is one simulated server shared
 * by the whole fleet: of its fleet-wide requests in flight, up to its {@code capacity} run and the rest wait in its
 * queue, and its KV-cache use is {@code min(1, in flight / (capacity * }{@value #KV_HEADROOM}{@code ))}. Every scrape
 * period ({@code signals.server_metrics.every}) its gauges are read and reach every replica's engine
 * {@link #SCRAPE_DELAY_NS} later (a scrape's answer trails the server, as vLLM's gauges do), as a scrape of each of
 * the model's backends; a backend is then fresh for {@code stale_after} from that arrival. A model the profile simulates
 * server by server ({@link BackendServers}) is scraped backend by backend instead: each backend's own waiting and
 * running requests, and its KV-cache use {@code min(1, (waiting + running) / (batch * }{@value #KV_HEADROOM}{@code ))};
 * with {@link #followingServers}, the backend choice reads these values as the gateway's does (a model's fewest
 * waiting, {@code llmd_weighted}'s queue and KV-cache scorers).
 * <p>
 * The run is the simulator's one event loop (the one {@link Simulator} runs with one replica): arrivals, routing and
 * latencies come from the profile's seed, split per purpose, so a fleet run and an isolated run of the same seed see
 * the same arrivals; simultaneous events run in a fixed order (completions, scrape answers, scrapes, refresh,
 * exchange, arrival), so a seed gives the same report every time.
 * <p>
 * This class is not threadsafe: run one simulation per instance, on one thread.
 */
public final class FleetSimulator
{
    private final Plans plans;
    private final SimulationProfile profile;
    private final int replicas;
    private final boolean fleet;
    private final long exchangeEveryNs;
    private final Simulator shape;
    private ServerMetricsSettings serverMetrics;
    private List<ServerBackend> serverBackends = List.of();
    private LoadedConfig followingOrNull;

    /** How long a simulated scrape's answer takes to reach the engines after the server's gauges were read: 100 ms. */
    public static final long SCRAPE_DELAY_NS = 100_000_000L;

    /** A simulated server's KV cache is full at this many times its capacity in flight. */
    public static final double KV_HEADROOM = 1.25;

    /**
     * @param plans the compiled configuration.
     * @param settings the engines' signal settings.
     * @param profile the traffic of the whole fleet.
     * @param replicas number of replicas, 1..64.
     * @param fleet whether the replicas share signals.
     * @param exchangeEveryNs the exchange period (the configuration's {@code fleet.exchange_every}).
     * @throws IllegalArgumentException when the profile does not fit the plans or a value is out of range.
     */
    public FleetSimulator(final Plans plans, final SignalSettings settings, final SimulationProfile profile,
        final int replicas, final boolean fleet, final long exchangeEveryNs)
    {
        this(plans, settings, profile, replicas, fleet, exchangeEveryNs, null);
    }

    /**
     * A fleet in front of the servers of the models the profile gives {@code servers}, one by one, as
     * {@link Simulator} simulates them; every replica sends through the same backend choice (with
     * {@code prefix_affinity}, one index for the whole fleet, where each real replica keeps its own).
     *
     * @param plans the compiled configuration.
     * @param settings the engines' signal settings.
     * @param profile the traffic of the whole fleet.
     * @param replicas number of replicas, 1..64.
     * @param fleet whether the replicas share signals.
     * @param exchangeEveryNs the exchange period (the configuration's {@code fleet.exchange_every}).
     * @param chooserOrNull the backend choice built from the same configuration, or null when no model has servers.
     * @throws IllegalArgumentException when the profile does not fit the plans or a value is out of range.
     */
    public FleetSimulator(final Plans plans, final SignalSettings settings, final SimulationProfile profile,
        final int replicas, final boolean fleet, final long exchangeEveryNs, final BackendChooser chooserOrNull)
    {
        if (replicas < 1 || replicas > 64)
        {
            throw new IllegalArgumentException("--replicas must be in 1..64, got " + replicas);
        }
        this.plans = plans;
        this.profile = profile;
        this.replicas = replicas;
        this.fleet = fleet;
        this.exchangeEveryNs = exchangeEveryNs;
        // Checks the profile against the plans (behaviour per model, shares) exactly as the one-replica run does.
        this.shape = new Simulator(plans, settings, profile, true, chooserOrNull);
    }

    /**
     * Scrapes simulated model servers ({@code signals.server_metrics} and the backends of the models whose
     * {@code server} is set): the engines get these server signals, fed as the class description says.
     *
     * @param settingsOrNull the scrape settings, or {@code null} for none (the default).
     * @param backends the backends to scrape, of models of the plans.
     * @return this simulator.
     */
    public FleetSimulator withServers(final ServerMetricsSettings settingsOrNull, final List<ServerBackend> backends)
    {
        this.serverMetrics = settingsOrNull;
        this.serverBackends = settingsOrNull == null ? List.of() : List.copyOf(backends);
        return this;
    }

    /**
     * Makes the backend choice read the scraped servers' signals ({@link BackendChooser#following}), as a gateway
     * that scrapes its servers chooses: built at the start of each run from this configuration, over the first
     * replica's engine (every replica's engine gets the same scrapes), in place of the chooser given to the
     * constructor. Without scrapes ({@link #withServers}) it changes nothing.
     *
     * @param config the configuration of the plans and chooser this simulator was built with.
     * @return this simulator.
     */
    public FleetSimulator followingServers(final LoadedConfig config)
    {
        this.followingOrNull = config;
        return this;
    }

    /** @return the models of the run, in handle order. */
    public List<String> modelNames()
    {
        return shape.modelNames();
    }

    /**
     * Runs the fleet and keeps what the arrivals after a warm-up measured, fleet-wide (the policy comparison's
     * figures).
     *
     * @param warmupS simulated seconds whose arrivals do not count, >= 0 and shorter than the profile's duration.
     * @param sloPlansOrNull the configuration whose decisions' TTFT and TPOT ceilings judge the requests (by decision
     *     name), or null for the run's own.
     * @return the figures of the arrivals after the warm-up.
     * @throws IllegalArgumentException when the warm-up is not shorter than the run.
     */
    public SteadyFigures runMeasured(final double warmupS, final Plans sloPlansOrNull)
    {
        final EventLoop loop = new EventLoop(shape, replicas, fleet, exchangeEveryNs, serverMetrics, serverBackends, null,
            SimulationListener.NONE);
        loop.followingOrNull = followingOrNull;
        loop.steady = new SteadyFigures(warmupS, profile.durationS());
        if (sloPlansOrNull != null)
        {
            loop.steady.judgeBy(plans, sloPlansOrNull);
        }
        loop.run();
        return loop.steady;
    }

    /** @return the report of one run. */
    public FleetReport run()
    {
        final EventLoop loop = new EventLoop(shape, replicas, fleet, exchangeEveryNs, serverMetrics, serverBackends, null,
            SimulationListener.NONE);
        loop.followingOrNull = followingOrNull;
        loop.run();
        final List<String> names = shape.modelNames();
        final long[] maxInflight = new long[names.size()];
        for (int id = 0; id < plans.decisionCapacity(); id++)
        {
            final DecisionPlan plan = plans.decision(id);
            if (plan == null || plan.maxInflight() <= 0)
            {
                continue;
            }
            for (int c = 0; c < plan.candidateCount(); c++)
            {
                final int model = shape.modelIndexById[plan.candidateModelId(c)];
                if (maxInflight[model] == 0 || plan.maxInflight() < maxInflight[model])
                {
                    maxInflight[model] = plan.maxInflight();
                }
            }
        }
        return new FleetReport(fleet, replicas, profile.durationS(), profile.seed(), loop.requests, loop.failed,
            loop.sloMet, names, loop.peakInflight, maxInflight, loop.selected, loop.replicaRequests, loop.replicaSloMet,
            loop.figures, loop.scrapes());
    }
}
