package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Outcome;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.fleet.FleetSignals;
import io.multifactor.kernel.inflight.InflightCounters;
import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.plan.DecisionPlan;
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
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

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
 * In-flight counts live in Agrona counters ({@link InflightCounters}), one per model name, in direct memory or in a
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
 * Counters of retired model names stay allocated (labelled {@link #RETIRED_SUFFIX}; they read 0 once their leases end)
 * and come back if the name does; the counter capacity bounds the number of distinct model names over the engine's
 * life.
 * <p>
 * This class is threadsafe: {@link #select}, {@code record*}, {@link #begin}, {@link #end}, {@link #inflight} and
 * {@link #replacePlans} may be called from any number of threads at once; the hot paths allocate nothing and take no
 * lock; refresh and plan replacement serialize on an internal lock.
 */
public final class MultiFactorEngine implements LatencyRecorder, InflightTracker, AutoCloseable
{
    /** Default number of lease slots: the most requests in flight counted at once. */
    public static final int DEFAULT_LEASE_CAPACITY = 1 << 16;

    /** Default number of Agrona counters: one per model name ever seen, plus 4 event counters. */
    public static final int DEFAULT_COUNTER_CAPACITY = 1024;

    private static final int ENGINE_WIDE_COUNTERS = 4;

    /** Stale leases are swept every {@code inflight_max_age / SWEEPS_PER_MAX_AGE} (at least every refresh period). */
    public static final int SWEEPS_PER_MAX_AGE = 64;

    /** Appended to the counter label of a model the current plans no longer have. */
    public static final String RETIRED_SUFFIX = " (retired)";

    private final NanoClock clock;
    private final SignalSettings settings;
    private final InflightCounters counters;
    private final AtomicBuffer values;
    private final LeaseTable leases;
    private final int refusedOffset;
    private final int clampedOffset;
    private final long originNs;
    private final long sliceNs;
    private final long sweepPeriodNs;
    private final LeaseEpochs leaseEpochs;
    private final RefreshAgent agent;
    private final Object lock = new Object();

    private volatile EngineState state;

    // Guarded by lock.
    private Map<String, ModelSignals> signalsByName = new HashMap<>();
    private final Map<String, Integer> counterIdsByName = new HashMap<>();
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
            InflightCounters.inMemory(builder.counterCapacity) :
            InflightCounters.mapped(builder.countersFile, builder.counterCapacity);
        values = counters.values();
        refusedOffset = InflightCounters.valueOffset(
            counters.allocate("multi-factor refused latency samples", InflightCounters.EVENT_TYPE_ID));
        clampedOffset = InflightCounters.valueOffset(
            counters.allocate("multi-factor clamped latency samples", InflightCounters.EVENT_TYPE_ID));
        final int fullOffset = InflightCounters.valueOffset(
            counters.allocate("multi-factor lease table full", InflightCounters.EVENT_TYPE_ID));
        final int reclaimedOffset = InflightCounters.valueOffset(
            counters.allocate("multi-factor leases reclaimed", InflightCounters.EVENT_TYPE_ID));
        leases = new LeaseTable(builder.leaseCapacity, values, fullOffset, reclaimedOffset);
        originNs = clock.nanoTime();
        sliceNs = Math.max(1L, settings.latencyWindowNs() / LatencyWindow.SLICE_COUNT);
        nextRefreshNs = originNs + settings.latencyRefreshNs();
        sweepPeriodNs = Math.max(settings.latencyRefreshNs(), settings.inflightMaxAgeNs() / SWEEPS_PER_MAX_AGE);
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
     * @return counters needed by a new engine on those plans (an upper bound): today 4 engine-wide counters plus one
     *     per model.
     */
    public static int countersNeeded(final int models, final int decisions, final int candidates, final int percentiles)
    {
        return ENGINE_WIDE_COUNTERS + models;
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
        selectOn(state, decisionId, exclusionsOrNull, null, out);
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
        selectOn(state, request.decisionId(), request.exclusions(), request, out);
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
     * Explains what {@link #select} would choose now for one request of a decision, and why: every candidate with its
     * signals, drop reason, normalized factors and score, as a readable record. Use it off the hot path (an admin
     * endpoint, a log line on a surprising choice, {@code bin/mf explain}): it allocates a {@link Selection} and the
     * record. Like {@code select}, it reads the published signals; it begins no lease and records nothing.
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
        final ModelSignals signals = state.signals(modelId);
        return signals == null ? UNKNOWN_MODEL : record(signals.ttft, ttftMicros);
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
        final ModelSignals signals = state.signals(modelId);
        return signals == null ? UNKNOWN_MODEL : record(signals.tpot, tpotMicros);
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
            install(next, clock.nanoTime());
        }
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

    private int record(final LatencyWindow window, final long micros)
    {
        if (micros <= 0)
        {
            values.getAndAddLong(refusedOffset, 1);
            return REFUSED;
        }
        final int result = window.record(micros);
        if (result == CLAMPED)
        {
            values.getAndAddLong(clampedOffset, 1);
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
            work += leases.sweep(leaseEpochs.cutoff(nowNs, settings.inflightMaxAgeNs()), 0L);
        }
        return work;
    }

    // Under lock.
    private static void publish(final EngineState s)
    {
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
                s.publishLatencyMs(index, toMs(signals.tpot.percentileMicros(percentile)));
                s.publishLatencyMs(index + EngineState.TTFT, toMs(signals.ttft.percentileMicros(percentile)));
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

    private static double toMs(final long micros)
    {
        return micros == LatencyWindow.NO_OBSERVATION ? Double.NaN : micros / 1000.0;
    }

    // Under lock.
    private void install(final Plans next, final long nowNs)
    {
        final long sliceIndex = sliceIndex(nowNs);
        final ModelSignals[] byModel = new ModelSignals[next.modelCapacity()];
        final Map<String, ModelSignals> nextByName = new HashMap<>();
        for (int modelId = 0; modelId < byModel.length; modelId++)
        {
            final String name = next.modelName(modelId);
            if (name == null)
            {
                continue;
            }
            ModelSignals signals = signalsByName.get(name);
            if (signals == null)
            {
                signals = newSignals(name, sliceIndex);
            }
            byModel[modelId] = signals;
            nextByName.put(name, signals);
        }
        final EngineState nextState = new EngineState(next, byModel, values);
        publish(nextState);
        for (final ModelSignals retired : signalsByName.values())
        {
            if (!nextByName.containsKey(retired.name))
            {
                setRemoteInflight(retired, 0L);
                counters.relabel(retired.counterId, inflightLabel(retired.name) + RETIRED_SUFFIX);
            }
        }
        signalsByName = nextByName;
        state = nextState;
    }

    /**
     * Label of a model's in-flight counter, as other processes see it.
     *
     * @param modelName the model name.
     * @return {@code "inflight " + modelName}; a retired model's label ends with {@link #RETIRED_SUFFIX}.
     */
    public static String inflightLabel(final String modelName)
    {
        return "inflight " + modelName;
    }

    private ModelSignals newSignals(final String name, final long sliceIndex)
    {
        Integer counterId = counterIdsByName.get(name);
        if (counterId == null)
        {
            counterId = counters.allocate(inflightLabel(name), InflightCounters.INFLIGHT_TYPE_ID);
            counterIdsByName.put(name, counterId);
        }
        else
        {
            counters.relabel(counterId, inflightLabel(name));
        }
        final ModelSignals signals =
            new ModelSignals(name, counterId, InflightCounters.valueOffset(counterId), sliceIndex);
        if (fleetAttached)
        {
            signals.ttft.keepUnsent();
            signals.tpot.keepUnsent();
        }
        return signals;
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
         * {@link InflightCounters#openReader(Path)}; by default they live in direct memory.
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
         * @param counterCapacity number of Agrona counters: model names over the engine's life plus 4; default
         *     {@link #DEFAULT_COUNTER_CAPACITY}.
         * @return this builder.
         */
        public Builder counterCapacity(final int counterCapacity)
        {
            this.counterCapacity = counterCapacity;
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
