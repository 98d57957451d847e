package io.multifactor.sim;

import io.multifactor.api.DropReason;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.config.RecipeDecisionNames;
import io.multifactor.kernel.clock.ManualClock;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.engine.SignalSettings;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A discrete-event simulation that drives the real {@link MultiFactorEngine} on a simulated clock.
 * <p>
 * Requests arrive as a Poisson process and are spread over the decisions by the profile's shares. Each request is
 * selected by the engine, begins a lease on the chosen model, and draws its TTFT, TPOT (lognormal, slower under load
 * beyond the model's capacity and inside its degraded window) and output length. At its first token the TTFT is
 * recorded; at its completion the TPOT is recorded and the lease ends with status 200. A model that fails (its
 * {@link FailureBehaviour}) answers a request with a 500 or a 429 with Retry-After after its time to first token
 * instead, and the lease ends with that status, which the engine's ejection reads. The engine's {@code refresh()} runs every
 * {@value #REFRESH_TICK_MS} simulated milliseconds, as its agent would. A simulated minute takes well under a second.
 * <p>
 * Every draw comes from one seeded {@link SplittableRandom} split per purpose, and simultaneous events run in a fixed
 * order, so the same plans, settings and profile give the same report, byte for byte.
 * <p>
 * This class is not threadsafe: run one simulation per instance, on one thread.
 */
public final class Simulator
{
    /** Simulated milliseconds between two calls of the engine's refresh. */
    public static final long REFRESH_TICK_MS = 100;

    private static final long REFRESH_TICK_NS = REFRESH_TICK_MS * 1_000_000L;
    private static final long NS_PER_S = 1_000_000_000L;
    private static final int FIRST_TOKEN = 0;
    private static final int COMPLETION = 1;
    private static final int ERROR_ANSWER = 2;

    private final Plans plans;
    private final Plans enginePlans;
    private final SignalSettings settings;
    private final SimulationProfile profile;
    private final boolean ceilingsEnforced;

    private final List<String> modelNames;
    private final int[] modelIndexById;
    private final ModelBehaviour[] behaviours;
    private final int[] decisionIds;
    private final double[] cumulativeShares;

    /**
     * A simulation whose engine applies the configured ceilings.
     *
     * @param plans the compiled configuration.
     * @param settings the engine's signal settings (window, refresh, in-flight age).
     * @param profile the traffic.
     * @throws IllegalArgumentException when the profile does not fit the plans (a model without behaviour, a share of
     *     an unknown decision, no decision with a positive share).
     */
    public Simulator(final Plans plans, final SignalSettings settings, final SimulationProfile profile)
    {
        this(plans, settings, profile, true);
    }

    /**
     * @param plans the compiled configuration; its ceilings are the SLO targets of the report.
     * @param settings the engine's signal settings (window, refresh, in-flight age).
     * @param profile the traffic.
     * @param ceilingsEnforced whether the engine gets the configured ceilings; false runs it with every ceiling off
     *     (for comparison), still measuring attainment against the configured ones.
     * @throws IllegalArgumentException when the profile does not fit the plans.
     */
    public Simulator(
        final Plans plans,
        final SignalSettings settings,
        final SimulationProfile profile,
        final boolean ceilingsEnforced)
    {
        this.plans = plans;
        this.enginePlans = ceilingsEnforced ? plans : PlanEdits.withoutCeilings(plans);
        this.settings = settings;
        this.profile = profile;
        this.ceilingsEnforced = ceilingsEnforced;

        final List<String> names = new ArrayList<>();
        modelIndexById = new int[plans.modelCapacity()];
        Arrays.fill(modelIndexById, -1);
        final List<ModelBehaviour> found = new ArrayList<>();
        for (int id = 0; id < plans.modelCapacity(); id++)
        {
            final String name = plans.modelName(id);
            if (name == null)
            {
                continue;
            }
            final ModelBehaviour behaviour = profile.models().get(name);
            if (behaviour == null)
            {
                throw new IllegalArgumentException("the profile has no behaviour for model " + name +
                    " (add models." + name + " with ttft_ms and tpot_ms)");
            }
            modelIndexById[id] = names.size();
            names.add(name);
            found.add(behaviour);
        }
        modelNames = Collections.unmodifiableList(names);
        behaviours = found.toArray(new ModelBehaviour[0]);

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
            for (final Map.Entry<String, Double> share : profile.decisionShares().entrySet())
            {
                final int id = plans.decisionId(share.getKey());
                if (id == Handles.NONE)
                {
                    throw new IllegalArgumentException("the profile gives a share to unknown decision " + share.getKey() +
                        RecipeDecisionNames.hint(plans, share.getKey()));
                }
                if (share.getValue() > 0.0)
                {
                    ids.add(id);
                    shares.add(share.getValue());
                }
            }
        }
        if (ids.isEmpty())
        {
            throw new IllegalArgumentException("no decision gets any traffic: give at least one a positive share");
        }
        decisionIds = new int[ids.size()];
        cumulativeShares = new double[ids.size()];
        double total = 0.0;
        for (final double share : shares)
        {
            total += share;
        }
        double sum = 0.0;
        for (int i = 0; i < decisionIds.length; i++)
        {
            decisionIds[i] = ids.get(i);
            sum += shares.get(i);
            cumulativeShares[i] = sum / total;
        }
        cumulativeShares[cumulativeShares.length - 1] = 1.0;
    }

    /** @return the models of the run, in handle order: the indexes of the report's per-model values. */
    public List<String> modelNames()
    {
        return modelNames;
    }

    /**
     * Runs the simulation from simulated time 0 to the profile's duration.
     *
     * @param listener told about each interval and about progress; {@link SimulationListener#NONE} for nothing.
     * @return the report.
     */
    public SimulationReport run(final SimulationListener listener)
    {
        return run(listener, null);
    }

    /**
     * Runs the simulation from simulated time 0 to the profile's duration, with the engine's counters copied to a
     * counters file that {@code bin/mf stat} can read while it runs.
     *
     * @param listener told about each interval and about progress; {@link SimulationListener#NONE} for nothing.
     * @param countersFileOrNull the counters file (replaced if it exists), or null for counters in memory.
     * @return the report.
     */
    public SimulationReport run(final SimulationListener listener, final java.nio.file.Path countersFileOrNull)
    {
        final ManualClock clock = new ManualClock();
        try (MultiFactorEngine engine = MultiFactorEngine.builder(enginePlans).clock(clock).settings(settings)
            .countersFile(countersFileOrNull).build())
        {
            return new Run(engine, clock, listener).run();
        }
    }

    /** One request's pending event: its first token or its completion. */
    private static final class Pending
    {
        final long timeNs;
        final long sequence;
        final int kind;
        final int modelId;
        final long micros;
        final long lease;
        final long tokens;
        final int status;
        final long retryAfterMs;

        Pending(final long timeNs, final long sequence, final int kind, final int modelId, final long micros, final long lease,
            final long tokens)
        {
            this(timeNs, sequence, kind, modelId, micros, lease, tokens, FailureBehaviour.OK, 0L);
        }

        Pending(
            final long timeNs,
            final long sequence,
            final int kind,
            final int modelId,
            final long micros,
            final long lease,
            final long tokens,
            final int status,
            final long retryAfterMs)
        {
            this.tokens = tokens;
            this.status = status;
            this.retryAfterMs = retryAfterMs;
            this.timeNs = timeNs;
            this.sequence = sequence;
            this.kind = kind;
            this.modelId = modelId;
            this.micros = micros;
            this.lease = lease;
        }
    }

    /** The mutable state of one run. */
    private final class Run
    {
        private final MultiFactorEngine engine;
        private final ManualClock clock;
        private final SimulationListener listener;
        private final Selection selection;
        private final Request request;
        private final PriorityQueue<Pending> pending = new PriorityQueue<>(
            (a, b) -> a.timeNs != b.timeNs ? Long.compare(a.timeNs, b.timeNs) : Long.compare(a.sequence, b.sequence));
        private final SplittableRandom arrivals;
        private final SplittableRandom routing;
        private final SplittableRandom latencies;
        private final SplittableRandom lengths;
        private final SplittableRandom sizes;
        private final SplittableRandom errors;
        private final long[] tokensInFlight = new long[modelNames.size()];
        private long sequence;
        private long backendErrors;
        private final double[] recoveryToTrafficS = new double[modelNames.size()];

        private final int models = modelNames.size();
        private long requests;
        private long failed;
        private long fallbacks;
        private long sloMet;
        private double costUsd;
        private final long[] selected = new long[models];
        private final long[] sloDrops = new long[models];
        private final long[] peakInflight = new long[models];

        private long intervalRequests;
        private long intervalFailed;
        private long intervalFallbacks;
        private final long[] intervalSelected = new long[models];
        private final long[] intervalDrops = new long[models];
        private final SampleBuffer[] intervalTtft = new SampleBuffer[models];
        private final SampleBuffer[] intervalTpot = new SampleBuffer[models];
        private final List<IntervalRow> rows = new ArrayList<>();
        private final ComparisonFigures figures = new ComparisonFigures(modelNames, behaviours, settings.latencyRefreshNs());

        Run(final MultiFactorEngine engine, final ManualClock clock, final SimulationListener listener)
        {
            this.engine = engine;
            this.clock = clock;
            this.listener = listener;
            this.selection = new Selection(Math.max(1, plans.maxCandidateCount()));
            // Seeded from the run's seed: a decision with tie_break: random draws the same ties on every run.
            this.request = new Request().seed(profile.seed());
            final SplittableRandom root = new SplittableRandom(profile.seed());
            this.arrivals = root.split();
            this.routing = root.split();
            this.latencies = root.split();
            this.lengths = root.split();
            // Split last: the draws of a profile without long prompts stay as they were.
            this.sizes = root.split();
            // After it: a profile without failures draws exactly what it drew before failures existed.
            this.errors = root.split();
            Arrays.fill(recoveryToTrafficS, Double.NaN);
            for (int i = 0; i < models; i++)
            {
                intervalTtft[i] = new SampleBuffer();
                intervalTpot[i] = new SampleBuffer();
            }
        }

        SimulationReport run()
        {
            final long endNs = Math.round(profile.durationS() * NS_PER_S);
            final long intervalNs = Math.max(1L, Math.round(profile.intervalS() * NS_PER_S));
            long intervalStartNs = 0;
            long nextIntervalNs = Math.min(intervalNs, endNs);
            long nextRefreshNs = 0;
            long nextProgressNs = NS_PER_S;
            long nextArrivalNs = Draws.exponentialGapNs(arrivals, profile.arrivalsPerS());

            while (true)
            {
                final long pendingNs = pending.isEmpty() ? Long.MAX_VALUE : pending.peek().timeNs;
                final long nextNs = Math.min(Math.min(pendingNs, nextRefreshNs), Math.min(nextIntervalNs, nextArrivalNs));
                if (nextNs > endNs)
                {
                    break;
                }
                clock.timeNs(nextNs);
                // Fixed order at equal times: signals land, then refresh publishes them, then the interval closes,
                // then a new request selects.
                if (pendingNs == nextNs)
                {
                    complete(pending.poll());
                }
                else if (nextRefreshNs == nextNs)
                {
                    engine.refresh();
                    nextRefreshNs += REFRESH_TICK_NS;
                    if (nextNs >= nextProgressNs)
                    {
                        listener.onProgress(nextNs / 1e9, profile.durationS(), requests);
                        nextProgressNs += NS_PER_S;
                    }
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
                    nextArrivalNs = nextNs + Draws.exponentialGapNs(arrivals, profile.arrivalsPerS());
                }
            }
            listener.onProgress(profile.durationS(), profile.durationS(), requests);
            figures.finish();
            return new SimulationReport(profile.durationS(), profile.seed(), ceilingsEnforced, requests, failed, fallbacks,
                sloMet, costUsd, modelNames, selected, sloDrops, peakInflight, rows, backendErrors, recoveryToTrafficS,
                figures);
        }

        private void arrive(final long nowNs)
        {
            requests++;
            intervalRequests++;
            final int decisionId = pickDecision(routing.nextDouble());
            // Reserve on select: the lease is taken within max_inflight, or on the next candidate in ranking order.
            // A request that carries its token counts is priced by its own mix; its length is drawn before it is routed.
            final int drawnOutputTokens = profile.tokensInRequest() ? outputTokens() : 0;
            final RequestSizes requestSizes = profile.sizes();
            final int promptTokens = requestSizes.longPromptShare() > 0.0 &&
                sizes.nextDouble() < requestSizes.longPromptShare() ? requestSizes.longPromptTokens() :
                profile.promptTokens();
            if (profile.tokensInRequest())
            {
                request.promptTokens(promptTokens).maxOutputTokens(drawnOutputTokens);
            }
            final long lease = engine.selectAndBegin(request.decision(decisionId), selection);
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
            if (outcome == Outcome.FAILED)
            {
                failed++;
                intervalFailed++;
                figures.request(false);
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
            final long inflight = engine.inflight(modelId);
            peakInflight[model] = Math.max(peakInflight[model], inflight);
            final int outputTokens = profile.tokensInRequest() ? drawnOutputTokens : outputTokens();
            final long requestTokens = (long)promptTokens + outputTokens;
            tokensInFlight[model] += requestTokens;
            final long load = requestSizes.load(inflight, tokensInFlight[model]);
            final double ttftMs = Draws.lognormal(latencies, behaviour.meanTtftMs(nowNs, load), behaviour.sigma());
            final double tpotMs = Draws.lognormal(latencies, behaviour.meanTpotMs(nowNs, load), behaviour.sigma());

            final long ttftMicros = Math.max(1L, Math.round(ttftMs * 1000.0));
            final long tpotMicros = Math.max(1L, Math.round(tpotMs * 1000.0));
            final FailureBehaviour failures = behaviour.failures();
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
                    pending.add(new Pending(nowNs + ttftMicros * 1000L, sequence++, ERROR_ANSWER, modelId, 0L, lease,
                        requestTokens, status, status == FailureBehaviour.TOO_MANY_REQUESTS ? failures.retryAfterMs() : 0L));
                    return;
                }
            }
            final long firstTokenNs = nowNs + ttftMicros * 1000L;
            final long completionNs = firstTokenNs + tpotMicros * 1000L * outputTokens;
            pending.add(new Pending(firstTokenNs, sequence++, FIRST_TOKEN, modelId, ttftMicros, InflightTracker.NO_LEASE, 0L));
            pending.add(new Pending(completionNs, sequence++, COMPLETION, modelId, tpotMicros, lease, requestTokens));

            final boolean met = meets(target.maxTtftMs(), ttftMicros) && meets(target.maxTpotMs(), tpotMicros);
            if (met)
            {
                sloMet++;
            }
            figures.request(met);
            figures.ttftMicros(ttftMicros);
            costUsd += price(plans.modelPromptPer1M(modelId)) * promptTokens / 1e6 +
                price(plans.modelCompletionPer1M(modelId)) * outputTokens / 1e6;
        }

        private int outputTokens()
        {
            return (int)Math.max(1L, Math.round(
                Draws.lognormal(lengths, profile.outputTokensMean(), profile.outputTokensSigma())));
        }

        private void complete(final Pending event)
        {
            final int model = modelIndexById[event.modelId];
            if (event.kind == ERROR_ANSWER)
            {
                engine.end(event.lease, event.status, event.retryAfterMs);
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
                tokensInFlight[model] -= event.tokens;
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
                    inflight[model] = engine.inflight(id);
                    p95TtftMs[model] = intervalTtft[model].percentileMicros(95) / 1000.0;
                    p95TpotMs[model] = intervalTpot[model].percentileMicros(95) / 1000.0;
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

        private int pickDecision(final double u)
        {
            for (int i = 0; i < cumulativeShares.length; i++)
            {
                if (u < cumulativeShares[i])
                {
                    return decisionIds[i];
                }
            }
            return decisionIds[decisionIds.length - 1];
        }
    }

    private static boolean meets(final double ceilingMs, final long actualMicros)
    {
        return ceilingMs == 0.0 || actualMicros <= ceilingMs * 1000.0;
    }

    private static double price(final double per1M)
    {
        return Double.isNaN(per1M) ? 0.0 : per1M;
    }
}
