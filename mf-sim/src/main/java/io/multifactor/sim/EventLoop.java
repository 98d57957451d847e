package io.multifactor.sim;

import io.multifactor.api.DropReason;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.config.LoadedConfig;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.serving.Backend;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.PrefixBackends;
import io.multifactor.serving.PrefixTicket;
import io.multifactor.serving.PromptBlocks;
import io.multifactor.serving.RequestLifecycle;
import io.multifactor.sim.fleet.InMemoryFleet;
import io.multifactor.sim.prompt.PromptSchedule;
import io.multifactor.sim.prompt.PromptTurn;
import io.multifactor.sim.prompt.PromptWorkload;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * The one event loop of the simulator, for one router replica ({@link Simulator}) and for a fleet
 * ({@link FleetSimulator}): N replicas, each with its own engine, behind a round-robin load balancer, on one simulated
 * clock, in front of simulated model servers that see the whole fleet. A fleet of one is one replica.
 * <p>
 * Requests arrive as a Poisson process and are spread over the decisions by the profile's shares. Each request is
 * selected by its replica's engine, begins a lease on the chosen model, and draws its TTFT, TPOT (lognormal, slower
 * under the server's load beyond the model's capacity and inside its degraded window) and output length. At its first
 * token the TTFT is recorded; at its completion the TPOT is recorded and the lease ends with status 200. A model that
 * fails (its {@link FailureBehaviour}) answers a request with a 500 or a 429 with Retry-After after its time to first
 * token instead, and the lease ends with that status, which the engine's ejection reads. Every engine's
 * {@code refresh()} runs every {@value Simulator#REFRESH_TICK_MS} simulated milliseconds, as its agent would; with a
 * fleet, the replicas exchange their signals through an {@link InMemoryFleet} every exchange period; with model-server
 * signals, the servers' gauges are scraped as {@link FleetSimulator} describes.
 * <p>
 * A server's load is the number of requests in flight on its model over every replica (sent to it and not yet
 * answered), or their tokens with {@code tokens_per_slot}.
 * <p>
 * A model with {@link BackendServers} (and a backend choice, {@link Simulator}) is simulated server by server instead:
 * each request goes to the backend that mf-serving's {@link io.multifactor.serving.BackendChooser} picks, takes one of that server's places or
 * waits for one in arrival order, and when it starts looks its prompt's blocks up in that server's LRU
 * ({@link SimulatedServer}); its first token comes after the drawn TTFT (at the model's base mean, the queue standing
 * for load) plus its uncached prompt tokens / the prefill rate, its TTFT counted from its arrival. With a
 * {@link PromptWorkload}, arrivals follow its sessions ({@link PromptSchedule}) and each request's prompt is its turn's.
 * For a model with {@code prefix_affinity}, the router side is the gateway's: the turn's chat bytes
 * ({@link PromptTurn#appendChatBytes}) go to {@code choose(modelId, prompt, promptTokens, ticket)} with a ticket per
 * request, answered at its first token and abandoned on an error answer, and a decision with several candidates gets
 * each one's P(m) ({@link io.multifactor.serving.BackendChooser#prefixMatches}); the router's blocks are its own cut
 * of {@code block_bytes}, the servers' their own of {@code block_tokens}.
 * <p>
 * Every draw comes from one seeded {@link SplittableRandom} split per purpose, and simultaneous events run in a fixed
 * order (completions, scrape answers, scrapes, refresh, exchange, interval, arrival), so the same plans, settings and
 * profile give the same figures, byte for byte.
 * <p>
 * This class is not threadsafe: one run per instance, on one thread.
 */
final class EventLoop
{
    private static final long REFRESH_TICK_NS = Simulator.REFRESH_TICK_MS * 1_000_000L;
    private static final long NS_PER_S = 1_000_000_000L;
    private static final int FIRST_TOKEN = 0;
    private static final int COMPLETION = 1;
    private static final int ERROR_ANSWER = 2;

    // The prompt of a request without one, for a backend_choice rule's choice (it reads no bytes).
    private final PromptBlocks noPrompt = new PromptBlocks();

    /** One request's pending event: its first token, its completion or its error answer. */
    private record Pending(long timeNs, long sequence, int kind, int replica, int modelId, long micros, long lease,
        long tokens, int status, long retryAfterMs, SimulatedServer serverOrNull, PrefixTicket ticketOrNull)
    {
        Pending(final long timeNs, final long sequence, final int kind, final int replica, final int modelId,
            final long micros, final long lease, final long tokens, final int status, final long retryAfterMs)
        {
            this(timeNs, sequence, kind, replica, modelId, micros, lease, tokens, status, retryAfterMs, null, null);
        }
    }

    /** A request sent to a simulated server, waiting for a place or about to take one. */
    record Queued(long arrivalNs, int replica, int modelId, long lease, long requestTokens, long promptTokens,
        int outputTokens, long[] blockHashes, double baseTtftMs, long tpotMicros, DecisionPlan target,
        PrefixTicket ticketOrNull)
    {
    }

    /**
     * A scrape's answer on its way: the gauges of one model's server, read at {@code timeNs - SCRAPE_DELAY_NS}, for
     * the backend {@code keyOrNull} (a model simulated server by server) or for every backend of the model (null).
     */
    private record ScrapeAnswer(long timeNs, int model, String keyOrNull, double waiting, double running,
        double kvUse)
    {
    }

    private final Simulator shape;
    private final Plans plans;
    private final SimulationProfile profile;
    private final List<String> modelNames;
    private final int[] modelIndexById;
    private final ModelBehaviour[] behaviours;
    private final int replicas;
    private final boolean fleet;
    private final long exchangeEveryNs;
    private final ServerMetricsSettings serverMetrics;
    private final List<ServerBackend> serverBackends;
    private final Path countersFileOrNull;
    private final SimulationListener listener;
    /** The configuration whose backend choice follows the scraped servers' signals, or null for the shape's. */
    LoadedConfig followingOrNull;
    private BackendChooser chooser;

    private final ManualClock clock = new ManualClock();
    private final List<MultiFactorEngine> engines = new ArrayList<>();
    private final List<FleetAgent> agents = new ArrayList<>();
    private final Selection selection;
    private final Request[] replicaRequestState;
    private final PriorityQueue<Pending> pending = new PriorityQueue<>(
        (a, b) -> a.timeNs != b.timeNs ? Long.compare(a.timeNs, b.timeNs) : Long.compare(a.sequence, b.sequence));
    private final ArrayDeque<ScrapeAnswer> answers = new ArrayDeque<>();
    private final int[] scrapedModels;
    private final String[][] backendKeysByModel;
    private final SplittableRandom arrivals;
    private final SplittableRandom routing;
    private final SplittableRandom latencies;
    private final SplittableRandom lengths;
    private final SplittableRandom sizes;
    private final SplittableRandom errors;
    private final int models;
    private final long[] serverInflight;
    private final long[] tokensInFlight;
    private final SimulatedServer[][] servers;
    private final PromptSchedule scheduleOrNull;
    private final StringBuilder promptText = new StringBuilder();
    private long sequence;

    // What the run measured, read by the reports once it has ended.
    long requests;
    long failed;
    long fallbacks;
    long sloMet;
    double costUsd;
    long backendErrors;
    final long[] selected;
    final long[] sloDrops;
    final long[] peakInflight;
    final double[] recoveryToTrafficS;
    final long[] replicaRequests;
    final long[] replicaSloMet;
    final List<IntervalRow> rows = new ArrayList<>();
    final ComparisonFigures figures;
    /** The figures after the warm-up; by default every arrival counts. */
    SteadyFigures steady;
    private long onTimeArrivalNs;

    private long intervalRequests;
    private long intervalFailed;
    private long intervalFallbacks;
    private final long[] intervalSelected;
    private final long[] intervalDrops;
    private final SampleBuffer[] intervalTtft;
    private final SampleBuffer[] intervalTpot;

    /**
     * @param shape the checked plans, profile and models of the run.
     * @param replicas number of replicas, at least 1.
     * @param fleet whether the replicas share signals.
     * @param exchangeEveryNs the exchange period, with {@code fleet}.
     * @param serverMetricsOrNull the scrape settings of simulated model servers, or null for none.
     * @param serverBackends the backends to scrape (empty without scrapes).
     * @param countersFileOrNull the first engine's counters file, or null for counters in memory.
     * @param listener told about each interval and about progress.
     */
    EventLoop(final Simulator shape, final int replicas, final boolean fleet, final long exchangeEveryNs,
        final ServerMetricsSettings serverMetricsOrNull, final List<ServerBackend> serverBackends,
        final Path countersFileOrNull, final SimulationListener listener)
    {
        this.shape = shape;
        this.plans = shape.plans;
        this.profile = shape.profile;
        this.modelNames = shape.modelNames();
        this.modelIndexById = shape.modelIndexById;
        this.behaviours = shape.behaviours;
        this.replicas = replicas;
        this.fleet = fleet;
        this.exchangeEveryNs = exchangeEveryNs;
        this.serverMetrics = serverMetricsOrNull;
        this.serverBackends = serverMetricsOrNull == null ? List.of() : List.copyOf(serverBackends);
        this.countersFileOrNull = countersFileOrNull;
        this.listener = listener;
        this.chooser = shape.chooserOrNull;

        models = modelNames.size();
        selection = new Selection(Math.max(1, plans.maxCandidateCount()));
        // One request object per replica, seeded from the run's seed: tie_break random and p2c draw reproducibly.
        replicaRequestState = new Request[replicas];
        for (int r = 0; r < replicas; r++)
        {
            replicaRequestState[r] = new Request().seed(profile.seed() + r);
        }
        final List<Integer> scraped = new ArrayList<>();
        backendKeysByModel = new String[models][];
        for (int i = 0; i < models; i++)
        {
            final List<String> keys = new ArrayList<>();
            for (final ServerBackend backend : this.serverBackends)
            {
                if (backend.model().equals(modelNames.get(i)) && !keys.contains(backend.key()))
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
        scrapedModels = new int[scraped.size()];
        for (int i = 0; i < scrapedModels.length; i++)
        {
            scrapedModels[i] = scraped.get(i);
        }
        final SplittableRandom root = new SplittableRandom(profile.seed());
        arrivals = root.split();
        routing = root.split();
        latencies = root.split();
        lengths = root.split();
        // Split last: the draws of a profile without long prompts stay as they were.
        sizes = root.split();
        // After it: a profile without failures draws exactly what it drew before failures existed.
        errors = root.split();
        // Last: a profile without prompts draws exactly what it drew before.
        final SplittableRandom prompts = root.split();
        scheduleOrNull = profile.prompts().active() ?
            new PromptSchedule(profile.prompts(), profile.arrivalsPerS(), profile.durationS(), prompts.nextLong()) : null;
        servers = new SimulatedServer[models][];
        for (int i = 0; i < models; i++)
        {
            final BackendServers shapeOfServers = profile.servers().get(modelNames.get(i));
            if (shapeOfServers != null && shape.chooserOrNull != null)
            {
                final List<Backend> backends = shape.chooserOrNull.backends(plans.modelId(modelNames.get(i)));
                servers[i] = new SimulatedServer[backends.size()];
                for (int b = 0; b < backends.size(); b++)
                {
                    servers[i][b] = new SimulatedServer(backends.get(b).name(),
                        RequestLifecycle.backendKey(backends.get(b)), shapeOfServers);
                }
            }
        }

        serverInflight = new long[models];
        tokensInFlight = new long[models];
        selected = new long[models];
        sloDrops = new long[models];
        peakInflight = new long[models];
        recoveryToTrafficS = new double[models];
        Arrays.fill(recoveryToTrafficS, Double.NaN);
        replicaRequests = new long[replicas];
        replicaSloMet = new long[replicas];
        figures = new ComparisonFigures(modelNames, behaviours, shape.settings.latencyRefreshNs());
        steady = new SteadyFigures(0.0, profile.durationS());
        intervalSelected = new long[models];
        intervalDrops = new long[models];
        intervalTtft = new SampleBuffer[models];
        intervalTpot = new SampleBuffer[models];
        for (int i = 0; i < models; i++)
        {
            intervalTtft[i] = new SampleBuffer();
            intervalTpot[i] = new SampleBuffer();
        }
    }

    /** @return whether the engines had model-server signals from simulated scrapes. */
    boolean scrapes()
    {
        return scrapedModels.length > 0;
    }

    /** Runs from simulated time 0 to the profile's duration, then closes the engines. */
    void run()
    {
        final int modelCapacity = Math.max(1, plans.modelCapacity());
        final InMemoryFleet store = fleet ? new InMemoryFleet(exchangeEveryNs, modelCapacity) : null;
        try
        {
            for (int r = 0; r < replicas; r++)
            {
                final MultiFactorEngine engine = MultiFactorEngine.builder(shape.enginePlans).clock(clock)
                    .settings(shape.settings).countersFile(r == 0 ? countersFileOrNull : null)
                    .serverMetrics(serverMetrics, serverBackends).build();
                engines.add(engine);
                if (store != null)
                {
                    agents.add(new FleetAgent(engine, store.join("replica-" + (r + 1)), clock, modelCapacity));
                }
            }
            if (followingOrNull != null && scrapedModels.length > 0 && chooser != null)
            {
                // Every replica's engine gets the same scrapes: the backend choice reads the first one's.
                chooser = BackendChooser.following(followingOrNull, Map.of(), engines.get(0), new PrefixBackends());
            }
            loop();
        }
        finally
        {
            for (final MultiFactorEngine engine : engines)
            {
                engine.close();
            }
        }
    }

    private void loop()
    {
        final long endNs = Math.round(profile.durationS() * NS_PER_S);
        final long intervalNs = Math.max(1L, Math.round(profile.intervalS() * NS_PER_S));
        long intervalStartNs = 0;
        long nextIntervalNs = Math.min(intervalNs, endNs);
        long nextRefreshNs = 0;
        long nextExchangeNs = fleet ? 0 : Long.MAX_VALUE;
        long nextScrapeNs = scrapedModels.length == 0 ? Long.MAX_VALUE : 0;
        long nextProgressNs = NS_PER_S;
        long nextArrivalNs = scheduleOrNull != null ? scheduleOrNull.nextTimeNs() : nextPoissonArrivalNs(0L);

        while (true)
        {
            final long pendingNs = pending.isEmpty() ? Long.MAX_VALUE : pending.peek().timeNs;
            final long answerNs = answers.isEmpty() ? Long.MAX_VALUE : answers.peekFirst().timeNs;
            final long nextNs = Math.min(Math.min(Math.min(pendingNs, answerNs), Math.min(nextScrapeNs, nextRefreshNs)),
                Math.min(Math.min(nextExchangeNs, nextIntervalNs), nextArrivalNs));
            if (nextNs > endNs)
            {
                break;
            }
            clock.timeNs(nextNs);
            // Fixed order at equal times: signals land, then refresh publishes them, then the replicas exchange, then
            // the interval closes, then a new request selects.
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
                for (final MultiFactorEngine engine : engines)
                {
                    engine.refresh();
                }
                nextRefreshNs += REFRESH_TICK_NS;
                if (nextNs >= nextProgressNs)
                {
                    listener.onProgress(nextNs / 1e9, profile.durationS(), requests);
                    nextProgressNs += NS_PER_S;
                }
            }
            else if (nextExchangeNs == nextNs)
            {
                for (final FleetAgent agent : agents)
                {
                    agent.exchangeNow(nextNs);
                }
                nextExchangeNs += exchangeEveryNs;
            }
            else if (nextIntervalNs == nextNs)
            {
                closeInterval(intervalStartNs, nextNs);
                intervalStartNs = nextNs;
                nextIntervalNs = nextNs >= endNs ? Long.MAX_VALUE : Math.min(nextNs + intervalNs, endNs);
            }
            else
            {
                arrive(nextNs);
                nextArrivalNs = scheduleOrNull != null ? scheduleOrNull.nextTimeNs() : nextPoissonArrivalNs(nextNs);
            }
        }
        listener.onProgress(profile.durationS(), profile.durationS(), requests);
        figures.finish();
    }

    // The next Poisson arrival after one at nowNs; with bursts, drawn on the "on" time line at the burst rate.
    private long nextPoissonArrivalNs(final long nowNs)
    {
        final ArrivalBursts bursts = profile.bursts();
        if (!bursts.active())
        {
            return nowNs + Draws.exponentialGapNs(arrivals, profile.arrivalsPerS());
        }
        onTimeArrivalNs += Draws.exponentialGapNs(arrivals, bursts.burstRatePerS(profile.arrivalsPerS()));
        return bursts.wallNs(onTimeArrivalNs);
    }

    // Reads every scraped server's gauges now; the answers reach the engines SCRAPE_DELAY_NS later. A model simulated
    // server by server has each backend's own gauges; otherwise its one shared server's go to all its backends.
    private void scrape(final long nowNs)
    {
        final long answerNs = nowNs + FleetSimulator.SCRAPE_DELAY_NS;
        for (final int model : scrapedModels)
        {
            if (servers[model] == null)
            {
                final long inflight = serverInflight[model];
                final int capacity = behaviours[model].capacity();
                answers.addLast(new ScrapeAnswer(answerNs, model, null, Math.max(0L, inflight - capacity),
                    Math.min(inflight, capacity), Math.min(1.0, inflight / (capacity * FleetSimulator.KV_HEADROOM))));
                continue;
            }
            for (final SimulatedServer server : servers[model])
            {
                if (Arrays.asList(backendKeysByModel[model]).contains(server.key))
                {
                    final int waiting = server.waiting.size();
                    answers.addLast(new ScrapeAnswer(answerNs, model, server.key, waiting, server.running,
                        Math.min(1.0, (waiting + server.running) / (server.shape.batch() * FleetSimulator.KV_HEADROOM))));
                }
            }
        }
    }

    private void deliver(final ScrapeAnswer answer)
    {
        final int modelId = plans.modelId(modelNames.get(answer.model));
        for (final MultiFactorEngine engine : engines)
        {
            if (answer.keyOrNull != null)
            {
                engine.reportServerLoad(modelId, answer.keyOrNull, answer.waiting, answer.running, answer.kvUse);
                continue;
            }
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
        intervalRequests++;
        replicaRequests[replica]++;
        steady.arrived(nowNs);
        final int decisionId = shape.pickDecision(routing.nextDouble());
        // Reserve on select: the lease is taken within max_inflight, or on the next candidate in ranking order.
        // A request that carries its token counts is priced by its own mix; its length is drawn before it is routed.
        final int drawnOutputTokens = profile.tokensInRequest() ? outputTokens() : 0;
        final RequestSizes requestSizes = profile.sizes();
        final PromptTurn turn = scheduleOrNull == null ? null : scheduleOrNull.next();
        final int promptTokens = turn != null ? (int)Math.min(Integer.MAX_VALUE, turn.promptTokens()) :
            requestSizes.longPromptShare() > 0.0 && sizes.nextDouble() < requestSizes.longPromptShare() ?
            requestSizes.longPromptTokens() : profile.promptTokens();
        final Request request = replicaRequestState[replica].clear();
        if (turn != null && profile.prompts().turns() > 1)
        {
            request.session(turn.sessionId());
        }
        else
        {
            request.noSession();
        }
        if (profile.tokensInRequest())
        {
            request.promptTokens(promptTokens).maxOutputTokens(drawnOutputTokens);
        }
        // Prefix-cache affinity (4.7), as the gateway: the prompt's bytes once per request, and each candidate's P(m).
        final PromptBlocks prompt = turn != null && chooser != null && chooser.followsPrefixes() ?
            turn.appendChatBytes(new PromptBlocks(), promptText) : null;
        if (prompt != null && plans.decision(decisionId).candidateCount() > 1)
        {
            chooser.prefixMatches(plans.decision(decisionId), prompt, request);
        }
        final long lease = engines.get(replica).selectAndBegin(request.decision(decisionId), selection);
        final DecisionPlan target = plans.decision(decisionId);
        for (int i = 0; i < selection.candidateCount(); i++)
        {
            final int reason = selection.dropReason(i);
            if (reason != DropReason.NONE && reason != DropReason.EXCLUDED)
            {
                final int model = modelIndexById[selection.modelId(i)];
                sloDrops[model]++;
                intervalDrops[model]++;
            }
        }
        final int outcome = selection.outcome();
        // Nothing selected: failed, or (4.8) no eligible candidate, or shed; each misses its SLO.
        if (outcome == Outcome.FAILED || outcome == Outcome.INELIGIBLE || outcome == Outcome.SHED)
        {
            failed++;
            intervalFailed++;
            figures.request(false);
            steady.error(nowNs);
            return;
        }
        if (outcome != Outcome.SCORED)
        {
            fallbacks++;
            intervalFallbacks++;
        }
        final int modelId = selection.selectedModel();
        final int model = modelIndexById[modelId];
        selected[model]++;
        intervalSelected[model]++;
        figures.selected(nowNs, model);

        final ModelBehaviour behaviour = behaviours[model];
        final long inflight = ++serverInflight[model];
        peakInflight[model] = Math.max(peakInflight[model], inflight);
        final int outputTokens = profile.tokensInRequest() ? drawnOutputTokens : outputTokens();
        final long requestTokens = (long)promptTokens + outputTokens;
        tokensInFlight[model] += requestTokens;
        final SimulatedServer[] pool = servers[model];
        // Simulated server by server: the queue stands for load, so the base means apply.
        final long load = pool != null ? 1L : requestSizes.load(inflight, tokensInFlight[model]);
        final double ttftMs = Draws.lognormal(latencies, behaviour.meanTtftMs(nowNs, load), behaviour.sigma());
        final double tpotMs = Draws.lognormal(latencies, behaviour.meanTpotMs(nowNs, load), behaviour.sigma());

        final long ttftMicros = Math.max(1L, Math.round(ttftMs * 1000.0));
        final long tpotMicros = Math.max(1L, Math.round(tpotMs * 1000.0));
        final FailureBehaviour failures = behaviour.failures();
        final boolean affinity = pool != null && prompt != null && chooser.followsPrefixes(modelId);
        // A backend_choice rule counts its backends' attempts, TTFTs and sessions through the attempt's ticket.
        final boolean rule = pool != null && chooser.followsRule(modelId);
        final PrefixTicket ticket = affinity || rule ? new PrefixTicket() : null;
        if (rule)
        {
            ticket.session(request.hasSession(), request.sessionKey());
        }
        final PromptBlocks promptOrEmpty = prompt != null ? prompt : noPrompt;
        if (failures.fails())
        {
            final double recoveredS = failures.failingUntilS();
            if (nowNs / 1e9 >= recoveredS && Double.isNaN(recoveryToTrafficS[model]))
            {
                recoveryToTrafficS[model] = nowNs / 1e9 - recoveredS;
            }
            final int status = failures.statusAt(nowNs, errors.nextDouble());
            if (status != FailureBehaviour.OK)
            {
                // Answered with an error after its time to first token: no token, no sample, SLO not met.
                backendErrors++;
                steady.error(nowNs);
                if (affinity || rule)
                {
                    // The backend chosen answers with an error: its ticket is abandoned then, nothing enters its index.
                    chooser.choose(modelId, promptOrEmpty, promptTokens, ticket);
                }
                pending.add(new Pending(nowNs + ttftMicros * 1000L, sequence++, ERROR_ANSWER, replica, modelId, 0L,
                    lease, requestTokens, status,
                    status == FailureBehaviour.TOO_MANY_REQUESTS ? failures.retryAfterMs() : 0L, null, ticket));
                return;
            }
        }
        if (pool != null)
        {
            // mf-serving's backend choice picks the server; the prompt's block hashes are at hand for it here.
            // With prefix_affinity, the ticket's prompt enters the backend's index at the request's first token.
            final Backend backend = affinity || rule ? chooser.choose(modelId, promptOrEmpty, promptTokens, ticket) :
                chooser.choose(modelId);
            final long[] hashes = turn == null ? new long[0] : turn.blockHashes(pool[0].shape.blockTokens());
            final SimulatedServer server = pool[indexOf(pool, backend)];
            final Queued queued = new Queued(nowNs, replica, modelId, lease, requestTokens, promptTokens, outputTokens,
                hashes, ttftMs, tpotMicros, target, ticket);
            if (server.running < server.shape.batch())
            {
                start(server, queued, nowNs);
            }
            else
            {
                server.waiting.addLast(queued);
            }
            return;
        }
        final long firstTokenNs = nowNs + ttftMicros * 1000L;
        final long completionNs = firstTokenNs + tpotMicros * 1000L * outputTokens;
        pending.add(new Pending(firstTokenNs, sequence++, FIRST_TOKEN, replica, modelId, ttftMicros,
            InflightTracker.NO_LEASE, 0L, FailureBehaviour.OK, 0L));
        pending.add(new Pending(completionNs, sequence++, COMPLETION, replica, modelId, tpotMicros, lease,
            requestTokens, FailureBehaviour.OK, 0L));

        final boolean met = meets(target.maxTtftMs(), ttftMicros) && meets(target.maxTpotMs(), tpotMicros);
        if (met)
        {
            sloMet++;
            replicaSloMet[replica]++;
        }
        figures.request(met);
        figures.ttftMicros(ttftMicros);
        steady.started(nowNs, decisionId, ttftMicros, tpotMicros, met, promptTokens);
        costUsd += price(plans.modelPromptPer1M(modelId)) * promptTokens / 1e6 +
            price(plans.modelCompletionPer1M(modelId)) * outputTokens / 1e6;
    }

    private static int indexOf(final SimulatedServer[] pool, final Backend backend)
    {
        for (int b = 0; b < pool.length; b++)
        {
            if (pool[b].name.equals(backend.name()))
            {
                return b;
            }
        }
        return 0;
    }

    // A request takes a place on its server: its cache lookup decides its prefill, its TTFT counts from its arrival.
    private void start(final SimulatedServer server, final Queued queued, final long nowNs)
    {
        server.running++;
        final long hit = server.admit(queued.blockHashes(), queued.promptTokens());
        final double prefillMs = (queued.promptTokens() - hit) * 1000.0 / server.shape.prefillTokensPerS();
        final long firstTokenNs = nowNs + Math.max(1L, Math.round((queued.baseTtftMs() + prefillMs) * 1e6));
        final long ttftMicros = Math.max(1L, (firstTokenNs - queued.arrivalNs()) / 1000L);
        final long completionNs = firstTokenNs + queued.tpotMicros() * 1000L * queued.outputTokens();
        server.ttft(ttftMicros);
        pending.add(new Pending(firstTokenNs, sequence++, FIRST_TOKEN, queued.replica(), queued.modelId(), ttftMicros,
            InflightTracker.NO_LEASE, 0L, FailureBehaviour.OK, 0L, null, queued.ticketOrNull()));
        pending.add(new Pending(completionNs, sequence++, COMPLETION, queued.replica(), queued.modelId(),
            queued.tpotMicros(), queued.lease(), queued.requestTokens(), FailureBehaviour.OK, 0L, server,
            queued.ticketOrNull()));
        final DecisionPlan target = queued.target();
        final boolean met = meets(target.maxTtftMs(), ttftMicros) && meets(target.maxTpotMs(), queued.tpotMicros());
        if (met)
        {
            sloMet++;
            replicaSloMet[queued.replica()]++;
        }
        figures.request(met);
        figures.ttftMicros(ttftMicros);
        steady.started(queued.arrivalNs(), target.id(), ttftMicros, queued.tpotMicros(), met,
            queued.promptTokens());
        steady.cacheLookup(queued.arrivalNs(), queued.promptTokens(), hit);
        costUsd += price(plans.modelPromptPer1M(queued.modelId())) * queued.promptTokens() / 1e6 +
            price(plans.modelCompletionPer1M(queued.modelId())) * queued.outputTokens() / 1e6;
    }

    /** @return what the simulated servers measured, once the run has ended. */
    ServingFigures servingFigures()
    {
        final List<ServingFigures.Server> rows = new ArrayList<>();
        for (int m = 0; m < models; m++)
        {
            if (servers[m] != null)
            {
                for (final SimulatedServer server : servers[m])
                {
                    rows.add(new ServingFigures.Server(modelNames.get(m), server.name, server.requests,
                        server.queriedTokens, server.hitTokens, percentileMs(server.ttft, 50),
                        percentileMs(server.ttft, 90), server.intervalHitRates(), server.intervalTtftP90Ms()));
                }
            }
        }
        return rows.isEmpty() ? ServingFigures.NONE : new ServingFigures(profile.durationS(), rows);
    }

    private static double percentileMs(final SampleBuffer samples, final int percentile)
    {
        return samples.size() == 0 ? Double.NaN : samples.percentileMicros(percentile) / 1000.0;
    }

    private int outputTokens()
    {
        return (int)Math.max(1L, Math.round(
            Draws.lognormal(lengths, profile.outputTokensMean(), profile.outputTokensSigma())));
    }

    private void complete(final Pending event)
    {
        final MultiFactorEngine engine = engines.get(event.replica);
        final int model = modelIndexById[event.modelId];
        if (event.ticketOrNull != null)
        {
            // As RequestLifecycle: the first token answers the ticket (the blocks enter the index, the TTFT joins a
            // rule's samples), an error abandons it; an error or the completion ends the attempt on its backend.
            if (event.kind == FIRST_TOKEN)
            {
                event.ticketOrNull.firstTokenMicros(event.micros);
                event.ticketOrNull.answered();
            }
            else
            {
                event.ticketOrNull.abandoned();
                event.ticketOrNull.ended();
            }
        }
        if (event.kind == ERROR_ANSWER)
        {
            engine.end(event.lease, event.status, event.retryAfterMs);
            serverInflight[model]--;
            tokensInFlight[model] -= event.tokens;
            return;
        }
        if (event.kind == FIRST_TOKEN)
        {
            engine.recordTtftMicros(event.modelId, event.micros);
            intervalTtft[model].add(event.micros);
        }
        else
        {
            engine.recordTpotMicros(event.modelId, event.micros);
            intervalTpot[model].add(event.micros);
            engine.end(event.lease, FailureBehaviour.OK);
            serverInflight[model]--;
            tokensInFlight[model] -= event.tokens;
            final SimulatedServer server = event.serverOrNull;
            if (server != null)
            {
                server.running--;
                final Queued next = server.waiting.pollFirst();
                if (next != null)
                {
                    start(server, next, event.timeNs);
                }
            }
        }
    }

    private void closeInterval(final long startNs, final long endNs)
    {
        final double[] p95TtftMs = new double[models];
        final double[] p95TpotMs = new double[models];
        final long[] inflight = new long[models];
        for (int id = 0; id < modelIndexById.length; id++)
        {
            final int model = modelIndexById[id];
            if (model >= 0)
            {
                inflight[model] = serverInflight[model];
                p95TtftMs[model] = intervalTtft[model].percentileMicros(95) / 1000.0;
                p95TpotMs[model] = intervalTpot[model].percentileMicros(95) / 1000.0;
            }
        }
        for (final SimulatedServer[] pool : servers)
        {
            for (int b = 0; pool != null && b < pool.length; b++)
            {
                pool[b].closeInterval();
            }
        }
        final IntervalRow row = new IntervalRow(startNs / 1e9, endNs / 1e9, intervalRequests, intervalFailed,
            intervalFallbacks, modelNames, intervalSelected, intervalDrops, p95TtftMs, p95TpotMs, inflight);
        rows.add(row);
        intervalRequests = 0;
        intervalFailed = 0;
        intervalFallbacks = 0;
        Arrays.fill(intervalSelected, 0L);
        Arrays.fill(intervalDrops, 0L);
        for (int i = 0; i < models; i++)
        {
            intervalTtft[i].clear();
            intervalTpot[i].clear();
        }
        listener.onInterval(row);
    }

    /** Whether a request's latency meets a ceiling (0: none): the one test of the simulator's SLO. */
    static boolean meets(final double ceilingMs, final long actualMicros)
    {
        return ceilingMs == 0.0 || actualMicros <= ceilingMs * 1000.0;
    }

    private static double price(final double per1M)
    {
        return Double.isNaN(per1M) ? 0.0 : per1M;
    }
}
