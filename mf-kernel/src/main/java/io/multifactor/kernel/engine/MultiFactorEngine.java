package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.fleet.FleetSignals;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.metrics.CounterLabel;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.EngineCounters;
import io.multifactor.kernel.metrics.FleetCounters;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.NoCandidatesPolicy;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.scoring.CandidateSignals;
import io.multifactor.kernel.scoring.ReserveOrder;
import io.multifactor.kernel.scoring.ScoringKernel;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.CountersReader;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntConsumer;

/**
 * The multi-factor engine: selects a model per request from the current plans and the live signals, and takes those
 * signals (latency samples, in-flight leases).
 * <p>
 * Everything the hot paths read hangs off one published {@code EngineState} (the plans snapshot and the signal arrays
 * sized for it): {@link #select}, {@link #begin} and {@code record*} read it with a single volatile load, so a
 * selection always sees one whole plan with signals keyed to its handles and percentile slots.
 * {@link #replacePlans(Plans)} builds the next state (keeping the counters and windows of every model name that stays,
 * with percentiles for the new slots already computed) and publishes it with one volatile write.
 * <p>
 * In-flight counts live in Agrona counters ({@link CounterBuffers}), one per model name, in direct memory or in a
 * memory-mapped file; requests hold leases from a fixed {@link LeaseTable}. Latencies go into one
 * {@link LatencyWindow} per model and metric. The refresh duty cycle ({@link #refresh()}, or {@link #agent()} on an
 * {@link org.agrona.concurrent.AgentRunner}) rotates and drains the windows, republishes percentiles every
 * {@code latency_refresh}, and reclaims leases older than {@code inflight_max_age}, sweeping the lease table once per
 * sweep period P = max({@code latency_refresh}, {@code inflight_max_age / 64}).
 * <p>
 * A lease's age is measured from its own {@code begin}, without a clock read on {@code begin}: it is stamped with the
 * running epoch (one volatile load; a new epoch begins at most once per P, see {@code LeaseEpochs}) and reclaimed only
 * once the epoch after its own began more than {@code inflight_max_age} ago. A lost lease is therefore reclaimed no
 * earlier than {@code inflight_max_age} after its begin, even after the refresh agent stalled, and at most
 * {@code inflight_max_age + 2 * (P + latency_refresh)} after it (10 min 20.75 s with the defaults), later only by as
 * long as the refresh agent stalls.
 * <p>
 * Beside the in-flight counts, the same counters hold the engine's metrics (labels and type ids in
 * {@link CounterTypes}): selections per decision, outcome and chosen model (one atomic add per {@code select}), drops
 * per model and reason, refused and clamped samples per model and metric, leases healed per model, reloads, fleet
 * exchanges, and the published percentiles. Counters of a retired model or decision are marked retired in their key,
 * come back with their values if the name returns soon, and are freed (their ids reused) once
 * {@link #RETIRED_COUNTER_GRACE_NS} has passed and, for an in-flight counter, its leases have ended: the counter capacity
 * bounds the counters of the current plans, not the names seen over the engine's life.
 * <p>
 * This class is threadsafe: {@link #select}, {@code record*}, {@link #begin}, {@link #end}, {@link #inflight} and
 * {@link #replacePlans} may be called from any number of threads at once; the hot paths allocate nothing and take no
 * lock; refresh and plan replacement serialize on an internal lock.
 */
public final class MultiFactorEngine implements LatencyRecorder, InflightTracker, AutoCloseable
{
    /** Default number of lease slots: the most requests in flight counted at once. */
    public static final int DEFAULT_LEASE_CAPACITY = 1 << 16;

    /**
     * Default number of Agrona counters (640 bytes each): enough for about 250 models of 16-candidate decisions. A
     * model takes {@code 5 + DropReason.COUNT + 2 * percentiles} counters, a decision of {@code n} candidates
     * {@code 2n + 1} ({@code n + 1} with {@code on_no_candidates: fail}), the engine 9.
     */
    public static final int DEFAULT_COUNTER_CAPACITY = 8192;

    /** A retired model's or decision's counters stay allocated at least this long (the engine clock's time). */
    public static final long RETIRED_COUNTER_GRACE_NS = 1_000_000_000L;

    private static final int ENGINE_WIDE_COUNTERS = 9;

    /** Stale leases are swept every {@code inflight_max_age / SWEEPS_PER_MAX_AGE} (at least every refresh period). */
    public static final int SWEEPS_PER_MAX_AGE = 64;

    private final NanoClock clock;
    private final SignalSettings settings;
    private final CounterBuffers counters;
    private final EngineCounters registry;
    private final AtomicBuffer values;
    private final LeaseTable leases;
    private final boolean countSelections;
    private final int refusedOffset;
    private final int clampedOffset;
    private final int reloadsAppliedOffset;
    private final int reloadsRefusedOffset;
    private final FleetCounters fleetCounters;
    private final long retiredGraceNs;
    private final IntConsumer onLeaseReclaimed = this::countHealedLease;
    private final CopyOnWriteArrayList<Runnable> plansListeners = new CopyOnWriteArrayList<>();
    private final long originNs;
    private final long sliceNs;
    private final long sweepPeriodNs;
    private final LeaseEpochs leaseEpochs;
    private final RefreshAgent agent;
    private final Object lock = new Object();

    private volatile EngineState state;

    // Guarded by lock.
    private Map<String, ModelSignals> signalsByName = new HashMap<>();
    private int[] healedOffsetByCounterId;
    // Written under lock once per refresh period; read first without the lock, so that a duty cycle with nothing due
    // writes nothing at all (not even the monitor's word, which may share a cache line with what the hot paths read).
    private volatile long nextRefreshNs;
    private boolean closed;
    private boolean fleetAttached;

    private MultiFactorEngine(final Builder builder)
    {
        clock = builder.clock;
        settings = builder.settings;
        counters = builder.countersFile == null ?
            CounterBuffers.inMemory(builder.counterCapacity) :
            CounterBuffers.mapped(builder.countersFile, builder.counterCapacity);
        values = counters.values();
        registry = new EngineCounters(counters);
        countSelections = builder.countSelections;
        healedOffsetByCounterId = new int[counters.capacity()];
        Arrays.fill(healedOffsetByCounterId, -1);
        refusedOffset = permanent("mf.engine.samples_refused", CounterTypes.EVENT);
        clampedOffset = permanent("mf.engine.samples_clamped", CounterTypes.EVENT);
        final int fullOffset = permanent("mf.engine.lease_table_full", CounterTypes.EVENT);
        final int reclaimedOffset = permanent("mf.engine.leases_reclaimed", CounterTypes.EVENT);
        reloadsAppliedOffset = permanent(CounterLabel.format("mf.reloads", "result", "applied"), CounterTypes.RELOADS);
        reloadsRefusedOffset = permanent(CounterLabel.format("mf.reloads", "result", "refused"), CounterTypes.RELOADS);
        fleetCounters = new FleetCounters(
            values,
            permanent(CounterLabel.format("mf.fleet.exchanges", "result", "done"), CounterTypes.FLEET_EXCHANGES),
            permanent(CounterLabel.format("mf.fleet.exchanges", "result", "failed"), CounterTypes.FLEET_EXCHANGES),
            permanent("mf.fleet.replicas", CounterTypes.FLEET_REPLICAS));
        leases = new LeaseTable(builder.leaseCapacity, values, fullOffset, reclaimedOffset);
        originNs = clock.nanoTime();
        sliceNs = Math.max(1L, settings.latencyWindowNs() / LatencyWindow.SLICE_COUNT);
        nextRefreshNs = originNs + settings.latencyRefreshNs();
        sweepPeriodNs = Math.max(settings.latencyRefreshNs(), settings.inflightMaxAgeNs() / SWEEPS_PER_MAX_AGE);
        retiredGraceNs = Math.max(RETIRED_COUNTER_GRACE_NS, 2 * settings.latencyRefreshNs());
        leaseEpochs = new LeaseEpochs(originNs, sweepPeriodNs);
        agent = new RefreshAgent(this);
        synchronized (lock)
        {
            install(builder.plans, originNs);
        }
    }

    /**
     * How many counters an engine needs for plans of this size, so that validation can refuse a configuration that
     * the engine could not hold (see {@link Builder#counterCapacity(int)}).
     *
     * @param models models of the plans.
     * @param decisions decisions of the plans.
     * @param candidates candidates of every decision, added up.
     * @param percentiles distinct latency percentiles the decisions read.
     * @return counters needed by a new engine on those plans (an upper bound): 9 engine-wide counters, per model
     *     {@code 5 + DropReason.COUNT + 2 * percentiles} (in-flight, healed leases, drops per reason, refused and clamped
     *     samples per metric, published percentiles per metric), per decision 1 plus 2 per candidate (selections won
     *     by outcome).
     */
    public static int countersNeeded(final int models, final int decisions, final int candidates, final int percentiles)
    {
        final long needed = ENGINE_WIDE_COUNTERS + (long)models * (5 + DropReason.COUNT + 2L * percentiles) +
            decisions + 2L * candidates;
        return (int)Math.min(Integer.MAX_VALUE, needed);
    }

    /** @return the number of counters this engine was built with. */
    public int counterCapacity()
    {
        return counters.capacity();
    }

    /**
     * Starts building an engine.
     *
     * @param plans the first plans snapshot.
     * @return a builder with the system nano clock, default settings and counters in direct memory.
     */
    public static Builder builder(final Plans plans)
    {
        return new Builder(plans);
    }

    /** @return the current plans snapshot. */
    public Plans plans()
    {
        return state.plans;
    }

    /**
     * @param name model name.
     * @return its handle in the current plans, or {@link Handles#NONE}.
     */
    public int modelId(final String name)
    {
        return state.plans.modelId(name);
    }

    /**
     * @param name decision name.
     * @return its handle in the current plans, or {@link Handles#NONE}.
     */
    public int decisionId(final String name)
    {
        return state.plans.decisionId(name);
    }

    /**
     * Resolves a decision name once, at startup, and refuses a name the configuration does not have.
     *
     * @param name decision name.
     * @return its handle in the current plans.
     * @throws IllegalArgumentException naming the unknown name, the nearest known decision and the known decisions.
     */
    public int requireDecisionId(final String name)
    {
        final Plans plans = state.plans;
        final int id = plans.decisionId(name);
        if (id == Handles.NONE)
        {
            throw new IllegalArgumentException(KnownNames.unknown("decision", name, KnownNames.decisions(plans)));
        }
        return id;
    }

    /**
     * Resolves a model name once, at startup, and refuses a name the configuration does not have.
     *
     * @param name model name.
     * @return its handle in the current plans.
     * @throws IllegalArgumentException naming the unknown name, the nearest known model and the known models.
     */
    public int requireModelId(final String name)
    {
        final Plans plans = state.plans;
        final int id = plans.modelId(name);
        if (id == Handles.NONE)
        {
            throw new IllegalArgumentException(KnownNames.unknown("model", name, KnownNames.models(plans)));
        }
        return id;
    }

    /**
     * Selects a model for one request of a decision, writing every candidate's observed signals, drops, scores and the
     * outcome into {@code out} (configured values and normalized factors are read through it from the plan and the
     * bounds). An unknown decision gives {@link io.multifactor.api.Outcome#FAILED} with 0 candidates.
     * <p>
     * Reads the published state once (one volatile load), then, in the kernel's first loop over the candidates, the
     * decision's published percentiles and in-flight counters (plain loads after that volatile load, see
     * {@link CandidateSignals}). Allocates nothing (once
     * {@code out} is large enough), takes no lock, never throws for an expected outcome.
     *
     * @param decisionId decision handle.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param out the caller's reusable result.
     */
    public void select(final int decisionId, final Exclusions exclusionsOrNull, final Selection out)
    {
        final EngineState s = state;
        final DecisionPlan plan = selectOn(s, decisionId, exclusionsOrNull, null, out);
        if (countSelections && plan != null)
        {
            countSelection(s, decisionId, plan.candidateCount(), out);
        }
    }

    /**
     * Selects a model for one request, as {@link #select(int, Exclusions, Selection)}, with what the request carries:
     * its decision, its exclusions, its token counts (which price the candidates instead of the decision's
     * {@code cost_mix}) and its tie-break generator. Allocates nothing, takes no lock, never throws for an expected
     * outcome.
     *
     * @param request the caller's reusable request, its decision set.
     * @param out the caller's reusable result.
     */
    public void select(final Request request, final Selection out)
    {
        final EngineState s = state;
        final int decisionId = request.decisionId();
        final DecisionPlan plan = selectOn(s, decisionId, request.exclusions(), request, out);
        if (countSelections && plan != null)
        {
            countSelection(s, decisionId, plan.candidateCount(), out);
        }
    }

    /**
     * Selects a model for one request and takes an in-flight lease on it in the same step, as
     * {@link #selectAndBegin(int, Exclusions, Selection)}, with what the request carries (decision, exclusions, token
     * counts, tie-break generator).
     *
     * @param request the caller's reusable request, its decision set.
     * @param out the caller's reusable result: the choice, after any candidate found full, and the lease.
     * @return the lease on the chosen model, or {@link #NO_LEASE} as for the other overload.
     */
    public long selectAndBegin(final Request request, final Selection out)
    {
        return selectAndBegin(request.decisionId(), request.exclusions(), request, out);
    }

    /**
     * Selects a model for one request of a decision, as {@link #select}, and takes an in-flight lease on it in the same
     * step (reserve on select). When the decision has {@code max_inflight}, the lease is taken only if it keeps the
     * chosen model's count at or below it (an atomic check-and-increment on its counter); otherwise that candidate is
     * dropped ({@link io.multifactor.api.DropReason#INFLIGHT}) and the next survivor in ranking order (score descending,
     * then {@code modelRefs} order) is tried. When no survivor can be reserved, {@code on_no_candidates} applies as when
     * the SLO filter leaves none, and a fallback pick is leased without the check. So with {@code on_no_candidates:
     * fail}, no model ever holds more than {@code max_inflight} leases of this engine, whatever the number of threads.
     * <p>
     * The lease is also left in {@code out} ({@link Selection#lease()}); end it with {@link #end(long)} when the request
     * completes. Reads the published state once; lock-free, allocates nothing, never throws for an expected outcome.
     *
     * @param decisionId decision handle.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param out the caller's reusable result: the choice, after any candidate found full, and the lease.
     * @return the lease on the chosen model; {@link #NO_LEASE} when nothing was chosen (outcome
     *     {@link io.multifactor.api.Outcome#FAILED}) or the lease table is full (the choice stands, uncounted, as with
     *     {@link #begin}).
     */
    public long selectAndBegin(final int decisionId, final Exclusions exclusionsOrNull, final Selection out)
    {
        return selectAndBegin(decisionId, exclusionsOrNull, null, out);
    }

    private long selectAndBegin(
        final int decisionId, final Exclusions exclusionsOrNull, final Request requestOrNull, final Selection out)
    {
        final EngineState s = state;
        final DecisionPlan plan = selectOn(s, decisionId, exclusionsOrNull, requestOrNull, out);
        final long lease = plan == null || !out.hasSelection() ? NO_LEASE : reserve(s, plan, out);
        out.lease(lease);
        if (countSelections && plan != null)
        {
            // Counted once the choice is final: reserve may have dropped a full candidate and chosen the next.
            countSelection(s, decisionId, plan.candidateCount(), out);
        }
        return lease;
    }

    // Selects on one published state; returns the decision's plan, or null for an unknown decision.
    private DecisionPlan selectOn(
        final EngineState s,
        final int decisionId,
        final Exclusions exclusionsOrNull,
        final Request requestOrNull,
        final Selection out)
    {
        final DecisionPlan plan = s.plans.decision(decisionId);
        if (plan == null)
        {
            out.reset(decisionId, 0);
            return null;
        }
        ScoringKernel.select(plan, s.byDecision[decisionId], exclusionsOrNull, requestOrNull, out);
        return plan;
    }

    // The selection has a choice: lease it, within max_inflight when the choice was scored.
    private long reserve(final EngineState s, final DecisionPlan plan, final Selection out)
    {
        final long stamp = leaseEpochs.current();
        final long maxInflight = plan.maxInflight();
        if (maxInflight <= 0 || out.outcome() != Outcome.SCORED)
        {
            return leaseUnchecked(s.counterOffsets, out.selectedModel(), stamp);
        }
        return reserveWithinSlowPath(s.counterOffsets, plan, out, maxInflight, stamp);
    }

    private long reserveWithinSlowPath(
        final int[] counterOffsets, final DecisionPlan plan, final Selection out, final long maxInflight, final long stamp)
    {
        int index = out.selectedIndex();
        while (index >= 0)
        {
            final int counterOffset = counterOffsets[out.modelId(index)];
            // A model retired by a concurrent reload has no counter (-1): it cannot be reserved.
            final long lease = counterOffset < 0 ? LeaseTable.AT_LIMIT :
                leases.acquireWithin(counterOffset, maxInflight, stamp);
            if (lease != LeaseTable.AT_LIMIT)
            {
                return lease;
            }
            index = ReserveOrder.dropFullAndChooseNext(plan, out, index);
        }
        return ReserveOrder.fallback(plan, out) < 0 ? NO_LEASE : leaseUnchecked(counterOffsets, out.selectedModel(), stamp);
    }

    private long leaseUnchecked(final int[] counterOffsets, final int modelId, final long stamp)
    {
        final int counterOffset = counterOffsets[modelId];
        return counterOffset < 0 ? NO_LEASE : leases.acquire(counterOffset, stamp);
    }

    /**
     * Counts one selection: one atomic add on the counter of (decision, chosen candidate, outcome), or (decision,
     * failed); then, only when candidates were dropped, one per dropped candidate on (model, reason). Each counter is a
     * 128-byte Agrona record of its own, so threads counting different decisions touch different cache lines.
     */
    private void countSelection(final EngineState s, final int decisionId, final int n, final Selection out)
    {
        final int best = out.selectedIndex();
        final int index = best < 0 ? n << 1 : out.outcome() == Outcome.SCORED ? best : n + best;
        values.getAndAddLong(s.selectionOffsets[decisionId][index], 1);
        if (out.droppedCount() != 0)
        {
            countDropsSlowPath(s, n, out);
        }
    }

    private void countDropsSlowPath(final EngineState s, final int n, final Selection out)
    {
        final int[] dropOffsets = s.dropOffsets;
        for (int i = 0; i < n; i++)
        {
            final int reason = out.dropReason(i);
            if (reason != DropReason.NONE)
            {
                values.getAndAddLong(dropOffsets[out.modelId(i) * DropReason.COUNT + reason], 1);
            }
        }
    }

    /**
     * Explains what {@link #select} would choose now for one request of a decision, and why: every candidate with its
     * signals, drop reason, normalized factors and score, as a readable record. Use it off the hot path (an admin
     * endpoint, a log line on a surprising choice, {@code bin/mf explain}): it allocates a {@link Selection} and the
     * record. Like {@code select}, it reads the published signals; it begins no lease, records nothing and is not
     * counted in the selection metrics.
     *
     * @param decisionId decision handle, from {@link #decisionId(String)}.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @return the explanation, built against the plans snapshot the selection ran on.
     * @throws IllegalArgumentException when the handle names no decision of the current plans.
     */
    public Explanation explain(final int decisionId, final Exclusions exclusionsOrNull)
    {
        return explain(decisionId, exclusionsOrNull, null);
    }

    /**
     * Explains what {@link #select(Request, Selection)} would choose now for a request, as
     * {@link #explain(int, Exclusions)}. A {@code tie_break: random} draw advances the request's generator, as a
     * selection would: seed it for a reproducible explanation.
     *
     * @param request the request: decision, exclusions, token counts, generator.
     * @return the explanation.
     * @throws IllegalArgumentException when the request's decision is not one of the current plans.
     */
    public Explanation explain(final Request request)
    {
        return explain(request.decisionId(), request.exclusions(), request);
    }

    private Explanation explain(final int decisionId, final Exclusions exclusionsOrNull, final Request requestOrNull)
    {
        while (true)
        {
            // select reads the state once; selecting between two reads of the same snapshot guarantees that the names,
            // ceilings and percentile of the record are those the selection ran on, even across a concurrent reload.
            final EngineState before = state;
            final DecisionPlan plan = before.plans.decision(decisionId);
            if (plan == null)
            {
                throw new IllegalArgumentException("no decision with handle " + decisionId + " in the current plans");
            }
            final Selection selection = new Selection(plan.candidateCount());
            selectOn(before, decisionId, exclusionsOrNull, requestOrNull, selection);
            if (state == before)
            {
                return Explanation.of(before.plans, plan, selection);
            }
        }
    }

    /**
     * Counts one more request in flight to a model. Lock-free, allocates nothing, never throws.
     *
     * @param modelId model handle.
     * @return the lease, or {@link #NO_LEASE} for an unknown or retired model, or when the lease table is full (counted
     *     in {@link #leaseTableFullCount()}, the request is then not counted in flight).
     */
    @Override
    public long begin(final int modelId)
    {
        final int[] counterOffsets = state.counterOffsets;
        if (modelId < 0 || modelId >= counterOffsets.length)
        {
            return NO_LEASE;
        }
        final int counterOffset = counterOffsets[modelId];
        if (counterOffset < 0)
        {
            return NO_LEASE;
        }
        return leases.acquire(counterOffset, leaseEpochs.current());
    }

    /**
     * Counts one request less, once per lease. Lock-free, allocates nothing, never throws. A lease of a model retired
     * since is ended as usual (its counter stays).
     *
     * @param lease a value returned by {@link #begin(int)}.
     * @return whether this call released the lease.
     */
    @Override
    public boolean end(final long lease)
    {
        return leases.release(lease);
    }

    /**
     * @param modelId model handle.
     * @return its current in-flight count, or 0 for an unknown model.
     */
    public long inflight(final int modelId)
    {
        final int[] counterOffsets = state.counterOffsets;
        if (modelId < 0 || modelId >= counterOffsets.length || counterOffsets[modelId] < 0)
        {
            return 0L;
        }
        return values.getLongVolatile(counterOffsets[modelId]);
    }

    /**
     * This replica's own in-flight count of a model: with a fleet attached, {@link #inflight(int)} (what
     * {@link #select} and the {@code max_inflight} ceiling read) also holds the other replicas' last published counts.
     *
     * @param modelId model handle.
     * @return the count of this engine's open leases, or 0 for an unknown model.
     */
    public long localInflight(final int modelId)
    {
        final ModelSignals signals = state.signals(modelId);
        return signals == null ? 0L : values.getLongVolatile(signals.counterOffset) - signals.remoteInflight;
    }

    /**
     * Makes the windows keep every sample they drain from now on for {@link #collectFleet}, so that nothing recorded
     * after this call misses the fleet (the {@link FleetAgent} calls it when it is created). Idempotent; allocates one
     * histogram per window the first time.
     */
    public void attachFleet()
    {
        synchronized (lock)
        {
            if (!fleetAttached && !closed)
            {
                for (final ModelSignals signals : signalsByName.values())
                {
                    signals.ttft.keepUnsent();
                    signals.tpot.keepUnsent();
                }
                fleetAttached = true;
            }
        }
    }

    /**
     * Fleet agent, first half of an exchange: drains every window and adds, per model name of the current plans, this
     * engine's own in-flight count and the latency samples drained since the previous call (or since
     * {@link #attachFleet()}) into {@code local}. Off the hot path: takes the engine's lock; allocates only on the first
     * call and for new models.
     *
     * @param local cleared by the caller; models beyond its capacity are left out.
     */
    public void collectFleet(final FleetSignals local)
    {
        synchronized (lock)
        {
            if (closed)
            {
                return;
            }
            attachFleet();
            final long sliceIndex = sliceIndex(clock.nanoTime());
            for (final ModelSignals signals : state.byModel)
            {
                if (signals == null)
                {
                    continue;
                }
                signals.ttft.advance(sliceIndex);
                signals.tpot.advance(sliceIndex);
                final int index = local.add(signals.name);
                if (index != FleetSignals.NONE)
                {
                    local.inflight(index, values.getLongVolatile(signals.counterOffset) - signals.remoteInflight);
                    signals.ttft.takeUnsent(local.ttft(index));
                    signals.tpot.takeUnsent(local.tpot(index));
                }
            }
        }
    }

    /**
     * Fleet agent, second half of an exchange: per model name of the current plans, replaces the other replicas'
     * in-flight count held in its counter by the count in {@code remote} (0 when absent), so that {@link #select},
     * {@code selectAndBegin} and the {@code max_inflight} ceiling read the fleet-wide count, and merges the other
     * replicas' intervals into the current slice of its windows, where they age like local samples. Models of
     * {@code remote} that the plans do not have are ignored. Off the hot path: takes the engine's lock, allocates
     * nothing.
     *
     * @param remote the other replicas' counts and new intervals; histograms within the windows' range.
     */
    public void mergeFleet(final FleetSignals remote)
    {
        synchronized (lock)
        {
            if (closed)
            {
                return;
            }
            for (final ModelSignals signals : state.byModel)
            {
                if (signals == null)
                {
                    continue;
                }
                final int index = remote.indexOf(signals.name);
                setRemoteInflight(signals, index == FleetSignals.NONE ? 0L : Math.max(0L, remote.inflight(index)));
                if (index != FleetSignals.NONE)
                {
                    signals.ttft.merge(remote.ttft(index));
                    signals.tpot.merge(remote.tpot(index));
                }
            }
        }
    }

    /** Removes the other replicas' in-flight counts from every counter (when the fleet agent stops). */
    public void detachFleet()
    {
        synchronized (lock)
        {
            for (final ModelSignals signals : signalsByName.values())
            {
                setRemoteInflight(signals, 0L);
            }
        }
    }

    // Under lock: the fleet thread is the only writer of remoteInflight, so the delta keeps local leases intact.
    private void setRemoteInflight(final ModelSignals signals, final long remoteInflight)
    {
        final long delta = remoteInflight - signals.remoteInflight;
        if (delta != 0)
        {
            values.getAndAddLong(signals.counterOffset, delta);
            signals.remoteInflight = remoteInflight;
        }
    }

    /**
     * Records a TTFT sample. Wait-free, allocates nothing, never throws.
     *
     * @param modelId model handle.
     * @param ttftMicros time to first token in microseconds.
     * @return {@link #RECORDED}, {@link #CLAMPED}, {@link #REFUSED} (zero or negative, counted) or
     *     {@link #UNKNOWN_MODEL} (unknown or retired).
     */
    @Override
    public int recordTtftMicros(final int modelId, final long ttftMicros)
    {
        final EngineState s = state;
        final ModelSignals signals = s.signals(modelId);
        return signals == null ? UNKNOWN_MODEL : record(s, modelId, EngineState.TTFT, signals.ttft, ttftMicros);
    }

    /**
     * Records a TPOT sample. Wait-free, allocates nothing, never throws.
     *
     * @param modelId model handle.
     * @param tpotMicros time per output token in microseconds.
     * @return {@link #RECORDED}, {@link #CLAMPED}, {@link #REFUSED} (zero or negative, counted) or
     *     {@link #UNKNOWN_MODEL} (unknown or retired).
     */
    @Override
    public int recordTpotMicros(final int modelId, final long tpotMicros)
    {
        final EngineState s = state;
        final ModelSignals signals = s.signals(modelId);
        return signals == null ? UNKNOWN_MODEL : record(s, modelId, EngineState.TPOT, signals.tpot, tpotMicros);
    }

    /**
     * Records a TTFT sample in milliseconds; NaN, infinite, zero and negative values are refused and counted.
     *
     * @param modelId model handle.
     * @param ttftMs time to first token in milliseconds.
     * @return as {@link #recordTtftMicros(int, long)}.
     */
    @Override
    public int recordTtftMs(final int modelId, final double ttftMs)
    {
        return recordTtftMicros(modelId, LatencyRecorder.msToMicros(ttftMs));
    }

    /**
     * Records a TPOT sample in milliseconds; NaN, infinite, zero and negative values are refused and counted.
     *
     * @param modelId model handle.
     * @param tpotMs time per output token in milliseconds.
     * @return as {@link #recordTpotMicros(int, long)}.
     */
    @Override
    public int recordTpotMs(final int modelId, final double tpotMs)
    {
        return recordTpotMicros(modelId, LatencyRecorder.msToMicros(tpotMs));
    }

    /**
     * Replaces the plans atomically. Models that keep their name keep their in-flight counter and latency windows
     * (build {@code next} with {@link PlansBuilder#PlansBuilder(Plans)} so they also keep their handles); a retired
     * model's {@code begin} and {@code record*} become no-ops, and its open leases still end normally. Percentiles for
     * the new plans' slots are computed before the swap, so the first selection on the new plans already sees them.
     * Off the hot path: allocates, and waits for a running refresh.
     *
     * @param next the new snapshot.
     * @throws IllegalStateException when a new model name needs a counter and every counter is in use (the running plans
     *     stay), or the engine is closed.
     */
    public void replacePlans(final Plans next)
    {
        Objects.requireNonNull(next, "next");
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException("engine is closed");
            }
            try
            {
                install(next, clock.nanoTime());
            }
            catch (final IllegalStateException ex)
            {
                values.getAndAddLong(reloadsRefusedOffset, 1);
                throw ex;
            }
            values.getAndAddLong(reloadsAppliedOffset, 1);
        }
        for (final Runnable listener : plansListeners)
        {
            listener.run();
        }
    }

    /**
     * Counts a reload refused before it reached the engine (an invalid file), in {@code mf.reloads{result="refused"}};
     * {@link #replacePlans} counts its own. Threadsafe.
     */
    public void countRefusedReload()
    {
        values.getAndAddLong(reloadsRefusedOffset, 1);
    }

    /** @return reloads applied by {@link #replacePlans} so far. */
    public long reloadsApplied()
    {
        return values.getLongVolatile(reloadsAppliedOffset);
    }

    /** @return reloads refused so far (by {@link #replacePlans} or counted with {@link #countRefusedReload()}). */
    public long reloadsRefused()
    {
        return values.getLongVolatile(reloadsRefusedOffset);
    }

    /** @return the counters a fleet exchange reports into. */
    public FleetCounters fleetCounters()
    {
        return fleetCounters;
    }

    /**
     * Adds a listener called after each successful {@link #replacePlans}, on the replacing thread, once the new plans
     * and their counters are published (the metrics binder uses it to follow reloads). The listener must not replace
     * plans itself.
     *
     * @param listener called with no lock held.
     */
    public void addPlansListener(final Runnable listener)
    {
        plansListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * @param listener a listener added with {@link #addPlansListener(Runnable)}.
     */
    public void removePlansListener(final Runnable listener)
    {
        plansListeners.remove(listener);
    }

    /**
     * One duty cycle at the clock's current time: when {@code latency_refresh} has passed since the last republication
     * (checked first without taking the lock: a duty cycle with nothing due reads the clock and one volatile field and
     * writes nothing), rotates and drains every window, republishes the percentiles and, when
     * the sweep period has passed, reclaims stale leases. Call from one thread at a time (an {@link org.agrona.concurrent.AgentRunner} through
     * {@link #agent()}, a simulator, a test). Allocates nothing in steady state.
     *
     * @return the amount of work done: windows refreshed plus leases reclaimed, 0 when nothing was due.
     */
    public int refresh()
    {
        final long nowNs = clock.nanoTime();
        if (nowNs - nextRefreshNs < 0)
        {
            return 0;
        }
        synchronized (lock)
        {
            if (closed || nowNs - nextRefreshNs < 0)
            {
                return 0;
            }
            nextRefreshNs = nowNs + settings.latencyRefreshNs();
            return cycle(nowNs);
        }
    }

    /**
     * Republishes now, due or not: rotates and drains every window and republishes the percentiles (then reclaims stale
     * leases if the sweep is due). For {@code explain}, simulators and tests.
     */
    public void refreshNow()
    {
        final long nowNs = clock.nanoTime();
        synchronized (lock)
        {
            if (!closed)
            {
                nextRefreshNs = nowNs + settings.latencyRefreshNs();
                cycle(nowNs);
            }
        }
    }

    /** @return the refresh duty cycle as an Agrona agent, for an {@link org.agrona.concurrent.AgentRunner}. */
    public Agent agent()
    {
        return agent;
    }

    /** @return the engine's clock. */
    public NanoClock clock()
    {
        return clock;
    }

    /** @return the signal settings. */
    public SignalSettings settings()
    {
        return settings;
    }

    /** @return a reader of the engine's counters (labels and live values), in this process. */
    public CountersReader countersReader()
    {
        return counters.reader();
    }

    /** @return latency samples refused so far (NaN, infinite, zero or negative). */
    public long refusedSampleCount()
    {
        return values.getLongVolatile(refusedOffset);
    }

    /** @return latency samples clamped so far to {@link LatencyWindow#MAX_TRACKABLE_MICROS}. */
    public long clampedSampleCount()
    {
        return values.getLongVolatile(clampedOffset);
    }

    /** @return {@code begin} calls that found the lease table full (and counted nothing). */
    public long leaseTableFullCount()
    {
        return leases.fullCount();
    }

    /** @return leases reclaimed as stale so far. */
    public long reclaimedLeaseCount()
    {
        return leases.reclaimedCount();
    }

    /**
     * Estimated memory of the latency windows of one model (both metrics), in bytes.
     *
     * @param modelId model handle of the current plans.
     * @return bytes, or 0 for an unknown model.
     */
    public long latencyFootprintBytes(final int modelId)
    {
        final ModelSignals signals = state.signals(modelId);
        return signals == null ? 0L : signals.ttft.footprintBytes() + signals.tpot.footprintBytes();
    }

    /**
     * Closes the engine: from now on it knows no model and no decision ({@code select} fails, {@code begin} returns
     * {@link #NO_LEASE}, {@code record*} returns {@link #UNKNOWN_MODEL}, refresh does nothing); leases still open end
     * harmlessly. Memory is left to the garbage collector so that a late call never touches unmapped memory.
     */
    @Override
    public void close()
    {
        synchronized (lock)
        {
            if (!closed)
            {
                closed = true;
                state = new EngineState(new PlansBuilder().build(), new ModelSignals[0], values);
                signalsByName = new HashMap<>();
            }
        }
    }

    private int record(
        final EngineState s, final int modelId, final int metric, final LatencyWindow window, final long micros)
    {
        if (micros <= 0)
        {
            values.getAndAddLong(refusedOffset, 1);
            values.getAndAddLong(s.sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.REFUSED)], 1);
            return REFUSED;
        }
        final int result = window.record(micros);
        if (result == CLAMPED)
        {
            values.getAndAddLong(clampedOffset, 1);
            values.getAndAddLong(s.sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.CLAMPED)], 1);
        }
        return result;
    }

    private long sliceIndex(final long nowNs)
    {
        return Math.floorDiv(nowNs - originNs, sliceNs);
    }

    // Under lock.
    private int cycle(final long nowNs)
    {
        final EngineState s = state;
        final long sliceIndex = sliceIndex(nowNs);
        int work = 0;
        final ModelSignals[] byModel = s.byModel;
        for (final ModelSignals signals : byModel)
        {
            if (signals != null)
            {
                signals.ttft.advance(sliceIndex);
                signals.tpot.advance(sliceIndex);
                work++;
            }
        }
        publish(s);
        if (leaseEpochs.advance(nowNs))
        {
            // Leases are stamped with epochs, not times: one stamped below the cutoff began more than the max age ago.
            work += leases.sweep(leaseEpochs.cutoff(nowNs, settings.inflightMaxAgeNs()), 0L, onLeaseReclaimed);
            registry.reclaim(nowNs, retiredGraceNs);
        }
        return work;
    }

    // Under lock, from the sweep: one lease of the model counting into counterOffset was reclaimed.
    private void countHealedLease(final int counterOffset)
    {
        final int healedOffset = healedOffsetByCounterId[counterOffset / CountersReader.COUNTER_LENGTH];
        if (healedOffset >= 0)
        {
            values.getAndAddLong(healedOffset, 1);
        }
    }

    // Under lock.
    private void publish(final EngineState s)
    {
        final int[] latencyCounterOffsets = s.latencyCounterOffsets;
        final Plans plans = s.plans;
        final int slotCount = s.slotCount;
        final ModelSignals[] byModel = s.byModel;
        for (int modelId = 0; modelId < byModel.length; modelId++)
        {
            final ModelSignals signals = byModel[modelId];
            if (signals == null)
            {
                continue;
            }
            for (int slot = 0; slot < slotCount; slot++)
            {
                final int percentile = plans.percentile(slot);
                final int index = EngineState.index(modelId, slotCount, slot, EngineState.TPOT);
                final long tpotMicros = signals.tpot.percentileMicros(percentile);
                final long ttftMicros = signals.ttft.percentileMicros(percentile);
                s.publishLatencyMs(index, toMs(tpotMicros));
                s.publishLatencyMs(index + EngineState.TTFT, toMs(ttftMicros));
                publishCounter(latencyCounterOffsets[index], tpotMicros);
                publishCounter(latencyCounterOffsets[index + EngineState.TTFT], ttftMicros);
            }
        }
        // The same values per decision, in candidate order: what select reads.
        final CandidateSignals[] byDecision = s.byDecision;
        for (int decisionId = 0; decisionId < byDecision.length; decisionId++)
        {
            final CandidateSignals candidates = byDecision[decisionId];
            if (candidates == null)
            {
                continue;
            }
            final DecisionPlan plan = plans.decision(decisionId);
            final int slot = plan.percentileSlot();
            for (int i = 0; i < candidates.candidateCount(); i++)
            {
                final int index = EngineState.index(plan.candidateModelId(i), slotCount, slot, EngineState.TPOT);
                candidates.publishLatencyMs(i, s.latencyMs(index), s.latencyMs(index + EngineState.TTFT));
            }
        }
    }

    private void publishCounter(final int offset, final long micros)
    {
        if (offset >= 0)
        {
            values.putLongRelease(offset, micros == LatencyWindow.NO_OBSERVATION ? CounterTypes.NO_OBSERVATION : micros);
        }
    }

    private static double toMs(final long micros)
    {
        return micros == LatencyWindow.NO_OBSERVATION ? Double.NaN : micros / 1000.0;
    }

    // Under lock.
    private void install(final Plans next, final long nowNs)
    {
        registry.beginGeneration();
        final EngineState nextState;
        final Map<String, ModelSignals> nextByName = new HashMap<>();
        final int[] nextHealed = new int[healedOffsetByCounterId.length];
        try
        {
            nextState = buildState(next, nowNs, nextByName, nextHealed);
        }
        catch (final IllegalStateException ex)
        {
            registry.abortGeneration();
            throw ex;
        }
        registry.commitGeneration(nowNs);
        publish(nextState);
        for (final ModelSignals retired : signalsByName.values())
        {
            if (!nextByName.containsKey(retired.name))
            {
                // The other replicas' count leaves with the model, so its counter drains to its own leases (and 0).
                setRemoteInflight(retired, 0L);
            }
        }
        signalsByName = nextByName;
        healedOffsetByCounterId = nextHealed;
        state = nextState;
        registry.reclaim(nowNs, retiredGraceNs);
    }

    // Under lock, inside a counters generation: allocates (or finds) every counter the plans need.
    private EngineState buildState(
        final Plans next, final long nowNs, final Map<String, ModelSignals> nextByName, final int[] nextHealed)
    {
        final long sliceIndex = sliceIndex(nowNs);
        final int modelCapacity = next.modelCapacity();
        final int slotCount = next.percentileSlotCount();
        final ModelSignals[] byModel = new ModelSignals[modelCapacity];
        final int[] latencyCounterOffsets = new int[EngineState.latencyLength(modelCapacity, slotCount)];
        final int[] dropOffsets = new int[modelCapacity * DropReason.COUNT];
        final int[] sampleOffsets = new int[modelCapacity * 4];
        Arrays.fill(latencyCounterOffsets, -1);
        Arrays.fill(dropOffsets, -1);
        Arrays.fill(sampleOffsets, -1);
        Arrays.fill(nextHealed, -1);
        for (int modelId = 0; modelId < modelCapacity; modelId++)
        {
            final String name = next.modelName(modelId);
            if (name == null)
            {
                continue;
            }
            final int inflightId = registry.use(inflightLabel(name), CounterTypes.INFLIGHT);
            ModelSignals signals = signalsByName.get(name);
            if (signals == null || signals.counterId != inflightId)
            {
                signals = new ModelSignals(name, inflightId, CounterBuffers.valueOffset(inflightId), sliceIndex);
                if (fleetAttached)
                {
                    signals.ttft.keepUnsent();
                    signals.tpot.keepUnsent();
                }
            }
            byModel[modelId] = signals;
            nextByName.put(name, signals);
            nextHealed[inflightId] = use(CounterLabel.format("mf.leases.healed", "model", name), CounterTypes.LEASES_HEALED);
            for (int reason = DropReason.NONE + 1; reason < DropReason.COUNT; reason++)
            {
                dropOffsets[modelId * DropReason.COUNT + reason] = use(
                    CounterLabel.format("mf.drops", "model", name, "reason", DropReason.label(reason)), CounterTypes.DROPS);
            }
            for (int metric = EngineState.TPOT; metric <= EngineState.TTFT; metric++)
            {
                final String metricName = metricName(metric);
                sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.REFUSED)] = use(
                    CounterLabel.format("mf.samples.refused", "model", name, "metric", metricName),
                    CounterTypes.SAMPLES_REFUSED);
                sampleOffsets[EngineState.sampleIndex(modelId, metric, EngineState.CLAMPED)] = use(
                    CounterLabel.format("mf.samples.clamped", "model", name, "metric", metricName),
                    CounterTypes.SAMPLES_CLAMPED);
                for (int slot = 0; slot < slotCount; slot++)
                {
                    latencyCounterOffsets[EngineState.index(modelId, slotCount, slot, metric)] = use(
                        latencyLabel(name, metricName, next.percentile(slot)), CounterTypes.LATENCY);
                }
            }
        }
        final int[][] selectionOffsets = new int[next.decisionCapacity()][];
        for (int decisionId = 0; decisionId < selectionOffsets.length; decisionId++)
        {
            final DecisionPlan plan = next.decision(decisionId);
            if (plan != null)
            {
                selectionOffsets[decisionId] = selectionOffsets(next, plan);
            }
        }
        return new EngineState(
            next, byModel, values, latencyCounterOffsets, dropOffsets, sampleOffsets, selectionOffsets);
    }

    // Under lock: n "scored" offsets, n fallback offsets (the failed one with the fail policy), the "failed" offset.
    private int[] selectionOffsets(final Plans plans, final DecisionPlan plan)
    {
        final int n = plan.candidateCount();
        final String decision = plan.name();
        final int[] offsets = new int[2 * n + 1];
        final int failed = use(
            CounterLabel.format("mf.selections", "decision", decision, "outcome", Outcome.label(Outcome.FAILED)),
            CounterTypes.SELECTIONS);
        offsets[2 * n] = failed;
        final int fallback = plan.policy() == NoCandidatesPolicy.FIRST ? Outcome.FALLBACK_FIRST :
            plan.policy() == NoCandidatesPolicy.FAIL ? Outcome.FAILED : Outcome.FALLBACK_CHEAPEST;
        for (int i = 0; i < n; i++)
        {
            final String model = plans.modelName(plan.candidateModelId(i));
            offsets[i] = use(selectedLabel(decision, model, Outcome.SCORED), CounterTypes.SELECTED);
            offsets[n + i] = fallback == Outcome.FAILED ? failed :
                use(selectedLabel(decision, model, fallback), CounterTypes.SELECTED);
        }
        return offsets;
    }

    private int permanent(final String label, final int typeId)
    {
        return CounterBuffers.valueOffset(registry.permanent(label, typeId));
    }

    private int use(final String label, final int typeId)
    {
        return CounterBuffers.valueOffset(registry.use(label, typeId));
    }

    private static String metricName(final int metric)
    {
        return metric == EngineState.TPOT ? "tpot" : "ttft";
    }

    /**
     * Label of a model's in-flight counter, as other processes see it.
     *
     * @param modelName the model name.
     * @return {@code mf.inflight{model="NAME"}}.
     */
    public static String inflightLabel(final String modelName)
    {
        return CounterLabel.format("mf.inflight", "model", modelName);
    }

    /**
     * Label of the counter of a decision's selections won by a model with an outcome.
     *
     * @param decision decision name.
     * @param model model name.
     * @param outcome an {@link Outcome} code other than failed.
     * @return {@code mf.selected{decision="D",model="M",outcome="O"}}.
     */
    public static String selectedLabel(final String decision, final String model, final int outcome)
    {
        return CounterLabel.format("mf.selected", "decision", decision, "model", model, "outcome", Outcome.label(outcome));
    }

    /**
     * Label of the counter of a published percentile (microseconds, {@link CounterTypes#NO_OBSERVATION} when none).
     *
     * @param model model name.
     * @param metric {@code "tpot"} or {@code "ttft"}.
     * @param percentile the percentile, such as 95.
     * @return {@code mf.latency{model="M",metric="tpot",percentile="95"}}.
     */
    public static String latencyLabel(final String model, final String metric, final int percentile)
    {
        return CounterLabel.format("mf.latency", "model", model, "metric", metric, "percentile", Integer.toString(percentile));
    }

    /**
     * Builds a {@link MultiFactorEngine}.
     * <p>
     * This class is not threadsafe: build on one thread.
     */
    public static final class Builder
    {
        private final Plans plans;
        private NanoClock clock = SystemNanoClock.INSTANCE;
        private SignalSettings settings = SignalSettings.defaults();
        private Path countersFile;
        private int leaseCapacity = DEFAULT_LEASE_CAPACITY;
        private int counterCapacity = DEFAULT_COUNTER_CAPACITY;
        private boolean countSelections = true;

        private Builder(final Plans plans)
        {
            this.plans = Objects.requireNonNull(plans, "plans");
        }

        /**
         * @param clock the time source of windows, refresh and lease ages ({@code CachedNanoClock} in tests).
         * @return this builder.
         */
        public Builder clock(final NanoClock clock)
        {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param settings window, refresh period and lease max age.
         * @return this builder.
         */
        public Builder settings(final SignalSettings settings)
        {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Puts the counters in a memory-mapped file (replaced if it exists) that another process can read with
         * {@link CounterBuffers#openReader(Path)}; by default they live in direct memory.
         *
         * @param countersFile path of the file, or null for direct memory.
         * @return this builder.
         */
        public Builder countersFile(final Path countersFile)
        {
            this.countersFile = countersFile;
            return this;
        }

        /**
         * @param leaseCapacity number of lease slots (the most requests in flight counted at once), a power of two;
         *     default {@link #DEFAULT_LEASE_CAPACITY}.
         * @return this builder.
         */
        public Builder leaseCapacity(final int leaseCapacity)
        {
            this.leaseCapacity = leaseCapacity;
            return this;
        }

        /**
         * @param counterCapacity number of Agrona counters, for the metric and in-flight counters of the current plans
         *     (and those retired less than {@link #RETIRED_COUNTER_GRACE_NS} ago); default
         *     {@link #DEFAULT_COUNTER_CAPACITY}.
         * @return this builder.
         */
        public Builder counterCapacity(final int counterCapacity)
        {
            this.counterCapacity = counterCapacity;
            return this;
        }

        /**
         * @param countSelections whether {@code select} counts selections and drops (default true; false saves one
         *     atomic add per selection, for measuring what counting costs).
         * @return this builder.
         */
        public Builder countSelections(final boolean countSelections)
        {
            this.countSelections = countSelections;
            return this;
        }

        /**
         * @return the engine.
         * @throws IllegalArgumentException when a capacity is out of range.
         * @throws IllegalStateException when the plans have more models than counters, or when the JVM lacks the flag
         *     {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED} that Agrona needs (the message names it).
         */
        public MultiFactorEngine build()
        {
            AgronaAccess.check();
            return new MultiFactorEngine(this);
        }
    }
}
