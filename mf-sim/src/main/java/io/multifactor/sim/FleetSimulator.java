package io.multifactor.sim;

import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.sim.fleet.InMemoryFleet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

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
 * the model's backends; a backend is then fresh for {@code stale_after} from that arrival.
 * <p>
 * Arrivals, routing and latencies come from the profile's seed, split per purpose, so a fleet run and an isolated run
 * of the same seed see the same arrivals; simultaneous events run in a fixed order (completions, refresh, exchange,
 * arrival), so a seed gives the same report every time.
 * <p>
 * This class is not threadsafe: run one simulation per instance, on one thread.
 */
public final class FleetSimulator
{
    private static final long NS_PER_S = 1_000_000_000L;
    private static final long REFRESH_TICK_NS = Simulator.REFRESH_TICK_MS * 1_000_000L;

    private final Plans plans;
    private final SignalSettings settings;
    private final SimulationProfile profile;
    private final int replicas;
    private final boolean fleet;
    private final long exchangeEveryNs;
    private final Simulator shape;
    private ServerMetricsSettings serverMetrics;
    private List<ServerBackend> serverBackends = List.of();

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
        if (replicas < 1 || replicas > 64)
        {
            throw new IllegalArgumentException("--replicas must be in 1..64, got " + replicas);
        }
        this.plans = plans;
        this.settings = settings;
        this.profile = profile;
        this.replicas = replicas;
        this.fleet = fleet;
        this.exchangeEveryNs = exchangeEveryNs;
        // Checks the profile against the plans (behaviour per model, shares) exactly as the one-replica run does.
        this.shape = new Simulator(plans, settings, profile);
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

    /** @return the models of the run, in handle order. */
    public List<String> modelNames()
    {
        return shape.modelNames();
    }

    /** @return the report of one run. */
    public FleetReport run()
    {
        final ManualClock clock = new ManualClock();
        final List<MultiFactorEngine> engines = new ArrayList<>();
        final List<FleetAgent> agents = new ArrayList<>();
        final InMemoryFleet store = new InMemoryFleet(exchangeEveryNs, Math.max(1, plans.modelCapacity()));
        try
        {
            for (int r = 0; r < replicas; r++)
            {
                final MultiFactorEngine engine = MultiFactorEngine.builder(plans).clock(clock).settings(settings)
                    .serverMetrics(serverMetrics, serverBackends).build();
                engines.add(engine);
                if (fleet)
                {
                    agents.add(new FleetAgent(engine, store.join("replica-" + (r + 1)), clock,
                        Math.max(1, plans.modelCapacity())));
                }
            }
            return new Run(clock, engines, agents).run();
        }
        finally
        {
            engines.forEach(MultiFactorEngine::close);
        }
    }

    private record Pending(long timeNs, long sequence, boolean firstToken, int replica, int modelId, long micros,
        long lease)
    {
    }

    /** A scrape's answer on its way: the server's gauges of one model, read at {@code timeNs - SCRAPE_DELAY_NS}. */
    private record ScrapeAnswer(long timeNs, int model, double waiting, double running, double kvUse)
    {
    }

    /** The mutable state of one run. */
    private final class Run
    {
        private final ManualClock clock;
        private final List<MultiFactorEngine> engines;
        private final List<FleetAgent> agents;
        private final List<String> names = shape.modelNames();
        private final int[] modelIndexById = new int[plans.modelCapacity()];
        private final ModelBehaviour[] behaviours;
        private final long[] fleetInflight;
        private final long[] peak;
        private final long[] selected;
        private final long[] replicaRequests = new long[replicas];
        private final long[] replicaSloMet = new long[replicas];
        private final Selection selection = new Selection(Math.max(1, plans.maxCandidateCount()));
        private final PriorityQueue<Pending> pending = new PriorityQueue<>(
            (a, b) -> a.timeNs != b.timeNs ? Long.compare(a.timeNs, b.timeNs) : Long.compare(a.sequence, b.sequence));
        private final ArrayDeque<ScrapeAnswer> answers = new ArrayDeque<>();
        private final int[] scrapedModels;
        private final String[][] backendKeysByModel;
        private final SplittableRandom arrivals;
        private final SplittableRandom routing;
        private final SplittableRandom latencies;
        private final SplittableRandom lengths;
        private final double[] cumulativeShares;
        private final int[] decisionIds;
        private final ComparisonFigures figures;
        private final Request[] replicaRequestsState;
        private long sequence;
        private long requests;
        private long failed;
        private long sloMet;

        Run(final ManualClock clock, final List<MultiFactorEngine> engines, final List<FleetAgent> agents)
        {
            this.clock = clock;
            this.engines = engines;
            this.agents = agents;
            Arrays.fill(modelIndexById, -1);
            behaviours = new ModelBehaviour[names.size()];
            for (int i = 0; i < names.size(); i++)
            {
                modelIndexById[plans.modelId(names.get(i))] = i;
                behaviours[i] = profile.models().get(names.get(i));
            }
            final List<Integer> scraped = new ArrayList<>();
            backendKeysByModel = new String[names.size()][];
            for (int i = 0; i < names.size(); i++)
            {
                final List<String> keys = new ArrayList<>();
                for (final ServerBackend backend : serverBackends)
                {
                    if (backend.model().equals(names.get(i)) && !keys.contains(backend.key()))
                    {
                        keys.add(backend.key());
                    }
                }
                backendKeysByModel[i] = keys.toArray(new String[0]);
                if (!keys.isEmpty())
                {
                    scraped.add(i);
                }
            }
            scrapedModels = scraped.stream().mapToInt(Integer::intValue).toArray();
            figures = new ComparisonFigures(names, behaviours, settings.latencyRefreshNs());
            // One request object per replica, seeded from the run's seed: tie_break random and p2c draw reproducibly.
            replicaRequestsState = new Request[replicas];
            for (int r = 0; r < replicas; r++)
            {
                replicaRequestsState[r] = new Request().seed(profile.seed() + r);
            }
            fleetInflight = new long[names.size()];
            peak = new long[names.size()];
            selected = new long[names.size()];
            final SplittableRandom root = new SplittableRandom(profile.seed());
            arrivals = root.split();
            routing = root.split();
            latencies = root.split();
            lengths = root.split();
            final List<Integer> ids = new ArrayList<>();
            final List<Double> shares = new ArrayList<>();
            if (profile.decisionShares().isEmpty())
            {
                for (int id = 0; id < plans.decisionCapacity(); id++)
                {
                    if (plans.decision(id) != null)
                    {
                        ids.add(id);
                        shares.add(1.0);
                    }
                }
            }
            else
            {
                profile.decisionShares().forEach((name, share) ->
                {
                    if (share > 0.0)
                    {
                        ids.add(plans.decisionId(name));
                        shares.add(share);
                    }
                });
            }
            decisionIds = new int[ids.size()];
            cumulativeShares = new double[ids.size()];
            final double total = shares.stream().mapToDouble(Double::doubleValue).sum();
            double sum = 0;
            for (int i = 0; i < ids.size(); i++)
            {
                decisionIds[i] = ids.get(i);
                sum += shares.get(i);
                cumulativeShares[i] = sum / total;
            }
            cumulativeShares[cumulativeShares.length - 1] = 1.0;
        }

        FleetReport run()
        {
            final long endNs = Math.round(profile.durationS() * NS_PER_S);
            long nextRefreshNs = 0;
            long nextExchangeNs = fleet ? 0 : Long.MAX_VALUE;
            long nextScrapeNs = scrapedModels.length == 0 ? Long.MAX_VALUE : 0;
            long nextArrivalNs = Draws.exponentialGapNs(arrivals, profile.arrivalsPerS());
            while (true)
            {
                final long pendingNs = pending.isEmpty() ? Long.MAX_VALUE : pending.peek().timeNs;
                final long answerNs = answers.isEmpty() ? Long.MAX_VALUE : answers.peekFirst().timeNs;
                final long nextNs = Math.min(Math.min(Math.min(pendingNs, nextRefreshNs), Math.min(nextExchangeNs,
                    nextArrivalNs)), Math.min(answerNs, nextScrapeNs));
                if (nextNs > endNs)
                {
                    break;
                }
                clock.timeNs(nextNs);
                if (pendingNs == nextNs)
                {
                    complete(pending.poll());
                }
                else if (answerNs == nextNs)
                {
                    deliver(answers.pollFirst());
                }
                else if (nextScrapeNs == nextNs)
                {
                    scrape(nextNs);
                    nextScrapeNs += serverMetrics.everyNs();
                }
                else if (nextRefreshNs == nextNs)
                {
                    engines.forEach(MultiFactorEngine::refresh);
                    nextRefreshNs += REFRESH_TICK_NS;
                }
                else if (nextExchangeNs == nextNs)
                {
                    for (final FleetAgent agent : agents)
                    {
                        agent.exchangeNow(nextNs);
                    }
                    nextExchangeNs += exchangeEveryNs;
                }
                else
                {
                    arrive(nextNs);
                    nextArrivalNs = nextNs + Draws.exponentialGapNs(arrivals, profile.arrivalsPerS());
                }
            }
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
                    final int model = modelIndexById[plan.candidateModelId(c)];
                    if (maxInflight[model] == 0 || plan.maxInflight() < maxInflight[model])
                    {
                        maxInflight[model] = plan.maxInflight();
                    }
                }
            }
            figures.finish();
            return new FleetReport(fleet, replicas, profile.durationS(), profile.seed(), requests, failed, sloMet, names,
                peak, maxInflight, selected, replicaRequests, replicaSloMet, figures, scrapedModels.length > 0);
        }

        // Reads every scraped server's gauges now; the answers reach the engines SCRAPE_DELAY_NS later.
        private void scrape(final long nowNs)
        {
            for (final int model : scrapedModels)
            {
                final long inflight = fleetInflight[model];
                final int capacity = behaviours[model].capacity();
                answers.addLast(new ScrapeAnswer(nowNs + SCRAPE_DELAY_NS, model, Math.max(0L, inflight - capacity),
                    Math.min(inflight, capacity), Math.min(1.0, inflight / (capacity * KV_HEADROOM))));
            }
        }

        private void deliver(final ScrapeAnswer answer)
        {
            final int modelId = plans.modelId(names.get(answer.model));
            for (final MultiFactorEngine engine : engines)
            {
                for (final String key : backendKeysByModel[answer.model])
                {
                    engine.reportServerLoad(modelId, key, answer.waiting, answer.running, answer.kvUse);
                }
            }
        }

        private void arrive(final long nowNs)
        {
            final int replica = (int)(requests % replicas);
            requests++;
            replicaRequests[replica]++;
            final double u = routing.nextDouble();
            int decisionId = decisionIds[decisionIds.length - 1];
            for (int i = 0; i < cumulativeShares.length; i++)
            {
                if (u < cumulativeShares[i])
                {
                    decisionId = decisionIds[i];
                    break;
                }
            }
            final long lease =
                engines.get(replica).selectAndBegin(replicaRequestsState[replica].decision(decisionId), selection);
            if (selection.outcome() == Outcome.FAILED)
            {
                failed++;
                figures.request(false);
                return;
            }
            final int modelId = selection.selectedModel();
            final int model = modelIndexById[modelId];
            selected[model]++;
            figures.selected(nowNs, model);
            fleetInflight[model]++;
            peak[model] = Math.max(peak[model], fleetInflight[model]);
            final ModelBehaviour behaviour = behaviours[model];
            final double ttftMs = Draws.lognormal(latencies, behaviour.meanTtftMs(nowNs, fleetInflight[model]),
                behaviour.sigma());
            final double tpotMs = Draws.lognormal(latencies, behaviour.meanTpotMs(nowNs, fleetInflight[model]),
                behaviour.sigma());
            final int outputTokens = (int)Math.max(1L, Math.round(
                Draws.lognormal(lengths, profile.outputTokensMean(), profile.outputTokensSigma())));
            final long ttftMicros = Math.max(1L, Math.round(ttftMs * 1000.0));
            final long tpotMicros = Math.max(1L, Math.round(tpotMs * 1000.0));
            final long firstTokenNs = nowNs + ttftMicros * 1000L;
            final long completionNs = firstTokenNs + tpotMicros * 1000L * outputTokens;
            pending.add(new Pending(firstTokenNs, sequence++, true, replica, modelId, ttftMicros, 0));
            pending.add(new Pending(completionNs, sequence++, false, replica, modelId, tpotMicros, lease));
            final DecisionPlan target = plans.decision(decisionId);
            final boolean met = meets(target.maxTtftMs(), ttftMicros) && meets(target.maxTpotMs(), tpotMicros);
            if (met)
            {
                sloMet++;
                replicaSloMet[replica]++;
            }
            figures.request(met);
            figures.ttftMicros(ttftMicros);
        }

        private void complete(final Pending event)
        {
            final MultiFactorEngine engine = engines.get(event.replica);
            if (event.firstToken)
            {
                engine.recordTtftMicros(event.modelId, event.micros);
            }
            else
            {
                engine.recordTpotMicros(event.modelId, event.micros);
                engine.end(event.lease);
                fleetInflight[modelIndexById[event.modelId]]--;
            }
        }
    }

    private static boolean meets(final double ceilingMs, final long actualMicros)
    {
        return ceilingMs == 0.0 || actualMicros <= ceilingMs * 1000.0;
    }
}
