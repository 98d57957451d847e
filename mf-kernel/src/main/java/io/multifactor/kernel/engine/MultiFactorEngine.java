package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
import io.multifactor.api.Handles;
import io.multifactor.api.InflightTracker;
import io.multifactor.api.LatencyRecorder;
import io.multifactor.api.Request;
import io.multifactor.api.Selection;
import io.multifactor.kernel.explain.Explanation;
import io.multifactor.kernel.fleet.FleetMember;
import io.multifactor.kernel.fleet.FleetSignals;
import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.FleetCounters;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.RequestResult;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.ServerSignals;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The multi-factor engine: selects a model per request from the current plans and the live signals, and takes those
 * signals (latency samples, in-flight leases, request results, model-server load). A facade whose public methods are
 * one-line delegations: selection is {@code Selector}'s job, reserve on select {@code ReserveOnSelect}'s, the ends of
 * leases and their results {@code LeaseEnder}'s, explain {@code Explainer}'s, samples {@code SampleRecorder}'s, plan
 * installation {@code StateInstaller}'s, plan replacement and its listeners {@code PlansReplacement}'s, publication of
 * signals {@code SignalPublisher}'s and {@code ServerLoadPublisher}'s, the server configuration
 * {@code ServerConfiguration}'s, an operator's ejection {@code EjectionOverride}'s, the refresh duty cycle and lease
 * sweep {@code RefreshCycle}'s, the counters' layout and labels {@code CounterLayout}'s, the fleet
 * {@code FleetBridge}'s, the reads of plans, handles and counts {@code EngineReadout}'s. The engine is composed of
 * these parts, each held in a final field; the hot paths ({@code select}, {@code selectAndBegin}, {@code begin},
 * {@code end}, {@code record*}) read the published state and call their part directly, with no dispatch beyond it.
 * <p>
 * Everything the hot paths read hangs off one published {@code EngineState} (the plans snapshot and the signal arrays
 * sized for it), read with a single volatile load, so a selection always sees one whole plan with signals keyed to its
 * handles and percentile slots; {@link #replacePlans(Plans)} builds the next state and publishes it with one volatile
 * write. In-flight counts and the engine's metrics (labels and type ids in {@link CounterTypes}) live in Agrona counters
 * ({@link CounterBuffers}) in direct memory, copied to a counters file when there is one; requests hold leases from a
 * fixed {@link LeaseTable}; latencies go into one {@link LatencyWindow} per model and metric. Counters of a retired
 * model or decision are freed once {@link #RETIRED_COUNTER_GRACE_NS} has passed and, for an in-flight counter, its
 * leases ended.
 * <p>
 * This class is threadsafe: {@link #select}, {@code record*}, {@link #begin}, {@link #end}, {@link #inflight} and
 * {@link #replacePlans} may be called from any number of threads at once; the hot paths allocate nothing and take no
 * lock; refresh, the fleet exchange and plan replacement serialize on an internal lock.
 */
public final class MultiFactorEngine
    implements LatencyRecorder, InflightTracker, FleetMember, AutoCloseable
{
    /** Default number of lease slots: the most requests in flight counted at once. */
    public static final int DEFAULT_LEASE_CAPACITY = 1 << 16;

    /**
     * Default number of Agrona counters (640 bytes each): enough for about 250 models of 16-candidate decisions. A
     * model takes {@code 6 + DropReason.COUNT + 2 * percentiles} counters, a decision of {@code n} candidates
     * {@code 2n + 3} ({@code n + 3} with {@code on_no_candidates: fail}), the engine 9.
     */
    public static final int DEFAULT_COUNTER_CAPACITY = 8192;

    /** Counters a model with {@code reliability} takes beyond {@link #countersNeeded}'s per-model count. */
    public static final int EJECTION_COUNTERS_PER_MODEL = CounterLayout.EJECTION_COUNTERS;

    /** A retired model's or decision's counters stay allocated at least this long (the engine clock's time). */
    public static final long RETIRED_COUNTER_GRACE_NS = 1_000_000_000L;

    /** Stale leases are swept every {@code inflight_max_age / SWEEPS_PER_MAX_AGE} (at least every refresh period). */
    public static final int SWEEPS_PER_MAX_AGE = 64;

    final StateInstaller installer;
    private final NanoClock clock;
    private final SignalSettings settings;
    private final ReserveOnSelect reserver;
    private final Selector selector;
    private final LeaseEnder leaseEnder;
    private final Explainer explainer;
    private final SampleRecorder samples;
    private final RefreshCycle refreshCycle;
    private final FleetBridge fleet;
    private final EngineReadout readout;
    private final PlansReplacement plansReplacement;
    private final ServerConfiguration serverConfiguration;
    private final EjectionOverride ejectionOverride;
    private final ServerLoadPublisher serverPublisher;
    private final PerThreadCounterBlocks counterBlocksOrNull;
    private final RefreshAgent agent = new RefreshAgent(this);

    MultiFactorEngine(final EngineParts parts)
    {
        installer = parts.installer;
        clock = parts.clock;
        settings = parts.settings;
        reserver = parts.reserver;
        selector = parts.selector;
        leaseEnder = parts.leaseEnder;
        explainer = parts.explainer;
        samples = parts.samples;
        refreshCycle = parts.refreshCycle;
        fleet = parts.fleet;
        readout = parts.readout;
        plansReplacement = parts.plansReplacement;
        serverConfiguration = parts.serverConfiguration;
        ejectionOverride = parts.ejectionOverride;
        serverPublisher = parts.serverPublisher;
        counterBlocksOrNull = parts.counterBlocks;
        installer.installFirst(parts.firstPlans, parts.originNs);
        // The counters file holds the first plans' counters from the start, before the first heartbeat.
        refreshCycle.writeFile();
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
     *     {@code 6 + DropReason.COUNT + 2 * percentiles}, per decision 3 plus 2 per candidate; a model with
     *     {@code reliability} takes {@link #EJECTION_COUNTERS_PER_MODEL} more.
     */
    public static int countersNeeded(final int models, final int decisions, final int candidates, final int percentiles)
    {
        return CounterLayout.countersNeeded(models, decisions, candidates, percentiles);
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

    /**
     * Selects a model for one request of a decision, writing every candidate's observed signals, drops, scores and the
     * outcome into {@code out} (configured values and normalized factors are read through it from the plan and the
     * bounds). An unknown decision gives {@link io.multifactor.api.Outcome#FAILED} with 0 candidates.
     * <p>
     * Reads the published state once (one volatile load), then, in the kernel's first loop over the candidates, the
     * decision's published percentiles and in-flight counters (plain loads after that volatile load, see
     * {@link io.multifactor.kernel.scoring.CandidateSignals}). The kernel makes two loops over the candidates: one that
     * gathers, filters and bounds, one that scores the survivors and keeps the best (on sealed signals, the first reads
     * live only the exclusions, the request's own cost and the in-flight counts and tokens, and the second adds each
     * survivor's live terms to its sealed ones; in a decision of 32 candidates or more, passes of their own copy the
     * sealed latencies, queue and KV-cache use into {@code out} before the first);
     * with counting on, the drops the first loop noted are counted after it, and the selection is counted once, all
     * into the calling thread's own counter block (plain stores; the refresh agent
     * adds the blocks into the shared counters once per period). Allocates nothing (once {@code out} is large enough), takes no lock, never throws for an expected outcome.
     *
     * @param decisionId decision handle.
     * @param exclusionsOrNull models this request leaves out, or null.
     * @param out the caller's reusable result.
     */
    public void select(final int decisionId, final Exclusions exclusionsOrNull, final Selection out)
    {
        selector.select(installer.state, decisionId, exclusionsOrNull, null, out);
    }

    /**
     * Selects as {@link #select(int, Exclusions, Selection)}, with what the request carries: its decision, exclusions,
     * token counts (which price the candidates instead of the decision's {@code cost_mix}) and tie-break generator.
     *
     * @param request the caller's reusable request, its decision set.
     * @param out the caller's reusable result.
     */
    public void select(final Request request, final Selection out)
    {
        selector.select(installer.state, request.decisionId(), request.exclusions(), request, out);
    }

    /**
     * As {@link #selectAndBegin(int, Exclusions, Selection)}, with what the request carries.
     *
     * @param request the caller's reusable request, its decision set.
     * @param out the caller's reusable result: the choice, after any candidate found full, and the lease.
     * @return the lease on the chosen model, or {@link #NO_LEASE} as for the other overload.
     */
    public long selectAndBegin(final Request request, final Selection out)
    {
        return selector.selectAndBegin(installer.state, request.decisionId(), request.exclusions(), request, out);
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
        return selector.selectAndBegin(installer.state, decisionId, exclusionsOrNull, null, out);
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
        return explainer.explain(decisionId, exclusionsOrNull, null);
    }

    /**
     * As {@link #explain(int, Exclusions)} for a request; a {@code tie_break: random} draw advances its generator.
     *
     * @param request the request: decision, exclusions, token counts, generator.
     * @return the explanation.
     * @throws IllegalArgumentException when the request's decision is not one of the current plans.
     */
    public Explanation explain(final Request request)
    {
        return explainer.explain(request.decisionId(), request.exclusions(), request);
    }

    /**
     * As {@link #explain(Request)} for a request whose session entry is stated rather than read from the decision's
     * table (a scenario file's {@code session:}): the same session rules as {@code select} run on it, and the record
     * shows the entry's model and the rule that chose. The table is neither read nor changed.
     *
     * @param request the request: decision, exclusions, token counts, generator.
     * @param previousModelId the entry's model P, or {@link io.multifactor.api.Handles#NONE} when the key has no entry.
     * @param turns the turns P has served, >= 1.
     * @param idleMillis how long ago the entry was last seen, >= 0: {@code idle_timeout} or longer means no live entry.
     * @return the explanation, with its session part.
     * @throws IllegalArgumentException when the request's decision is not one of the current plans.
     */
    public Explanation explain(final Request request, final int previousModelId, final int turns, final long idleMillis)
    {
        return explainer.explainStated(request.decisionId(), request.exclusions(), request, previousModelId, turns,
            idleMillis >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : idleMillis * 1_000_000L);
    }

    /**
     * {@inheritDoc} Lock-free; {@link #NO_LEASE} also when the model is retired or the table full
     * ({@link #leaseTableFullCount}). The lease weighs {@code default_request_tokens} in the model's in-flight tokens.
     */
    @Override
    public long begin(final int modelId)
    {
        return reserver.begin(installer.state, modelId, settings.defaultRequestTokens());
    }

    /**
     * As {@link #begin(int)}, for a lease that weighs {@code tokens} in the model's in-flight tokens (its request's
     * prompt tokens plus its output bound); its {@link #end} takes exactly that weight off again. Lock-free, allocates
     * nothing, never throws.
     *
     * @param modelId model handle.
     * @param tokens the lease's token weight, {@code >= 0} (a negative value counts as 0).
     * @return the lease, or {@link #NO_LEASE}.
     */
    public long begin(final int modelId, final long tokens)
    {
        return reserver.begin(installer.state, modelId, Math.max(0L, tokens));
    }

    /**
     * {@inheritDoc} Reports no result (a request the client cancelled): the run of failures is left as it is, and a
     * half-open model's probe ended so is released, the model still half-open. Lock-free, allocates nothing; a lease
     * of a model retired since ends as usual.
     */
    @Override
    public boolean end(final long lease)
    {
        return leaseEnder.end(lease, RequestResult.NOTHING, RequestResult.NO_RETRY_AFTER);
    }

    /**
     * Ends a lease, once, and reports the request's result for ejection (models with {@code reliability}): a 5xx (but
     * a 503 with Retry-After) or {@link RequestResult#NO_RESPONSE} (0: a connect failure, a reset by the backend or a
     * timeout) is a failure, and a run of {@code consecutive_5xx} of them ejects the model; a 429 is nothing; any other
     * status is a success. A half-open model's probe ending so makes it healthy (success) or ejects it again (failure).
     * Lock-free, allocates nothing; the common case (healthy model, success) costs one plain load beyond
     * {@link #end(long)}'s release, a failure one atomic add.
     *
     * @param lease a value returned by {@link #begin} or {@link #selectAndBegin}.
     * @param status the response's HTTP status, {@link RequestResult#NO_RESPONSE} when there was none.
     * @return whether this call released the lease (false for a second end, a reclaimed lease or a garbage value, which
     *     report nothing).
     */
    public boolean end(final long lease, final int status)
    {
        return leaseEnder.endWithStatus(lease, status, RequestResult.NO_RETRY_AFTER);
    }

    /**
     * As {@link #end(long, int)}, with the response's {@code Retry-After}: a 429 or 503 that carries one is not a
     * failure but ejects the model for that long at once (capped at {@code max_ejection_time}), without raising its
     * ejection count.
     *
     * @param lease a value returned by {@link #begin} or {@link #selectAndBegin}.
     * @param status the response's HTTP status, {@link RequestResult#NO_RESPONSE} when there was none.
     * @param retryAfterMillis its {@code Retry-After} in milliseconds, {@code <= 0} when it carried none.
     * @return whether this call released the lease.
     */
    public boolean end(final long lease, final int status, final long retryAfterMillis)
    {
        return leaseEnder.endWithStatus(lease, status, retryAfterMillis);
    }

    @Override
    public void attachFleet()
    {
        fleet.attach();
    }

    @Override
    public void collectFleet(final FleetSignals local)
    {
        fleet.collect(local);
    }

    @Override
    public void mergeFleet(final FleetSignals remote)
    {
        fleet.merge(remote);
    }

    @Override
    public void detachFleet()
    {
        fleet.detach();
    }

    @Override
    public int recordTtftMicros(final int modelId, final long ttftMicros)
    {
        return samples.record(modelId, EngineState.TTFT, ttftMicros);
    }

    @Override
    public int recordTpotMicros(final int modelId, final long tpotMicros)
    {
        return samples.record(modelId, EngineState.TPOT, tpotMicros);
    }

    /** {@inheritDoc} As the interface's, but a NaN, infinite, zero or negative value is also counted as refused. */
    @Override
    public int recordTtftMs(final int modelId, final double ttftMs)
    {
        return recordTtftMicros(modelId, LatencyRecorder.msToMicros(ttftMs));
    }

    /** {@inheritDoc} As the interface's, but a NaN, infinite, zero or negative value is also counted as refused. */
    @Override
    public int recordTpotMs(final int modelId, final double tpotMs)
    {
        return recordTpotMicros(modelId, LatencyRecorder.msToMicros(tpotMs));
    }

    /**
     * One refresh duty cycle at the clock's time : when {@code latency_refresh} has passed,
     * rotates the windows, republishes the percentiles and, when the sweep is due, reclaims stale leases; otherwise
     * reads the clock and one volatile field and writes nothing. One thread at a time. Allocates nothing in steady state.
     *
     * @return the amount of work done: windows refreshed plus leases reclaimed, 0 when nothing was due.
     */
    public int refresh()
    {
        return refreshCycle.refresh();
    }

    /** Republishes now, due or not (then reclaims stale leases if the sweep is due). For explain, simulators, tests. */
    public void refreshNow()
    {
        refreshCycle.refreshNow();
    }

    /** @return the refresh duty cycle as an Agrona agent, for an {@link org.agrona.concurrent.AgentRunner}. */
    public Agent agent()
    {
        return agent;
    }

    /**
     * Closes the engine: from now on it knows no model and no decision ({@code select} fails, {@code begin} returns
     * {@link #NO_LEASE}, {@code record*} {@link #UNKNOWN_MODEL}, refresh does nothing); open leases end harmlessly.
     * The selections counted so far are added into the counters first; a counters file is then written one last time,
     * marked closed ({@code bin/mf stat} then says so). Memory is left to the garbage collector so that a late call
     * never touches unmapped memory.
     */
    @Override
    public void close()
    {
        refreshCycle.foldCounts();
        installer.close();
        refreshCycle.closeFile();
    }

    /** @return the engine's clock: the time source of windows, refresh, lease ages and ejections. */
    public NanoClock clock()
    {
        return clock;
    }

    /** @return the signal settings the engine was built with. */
    public SignalSettings settings()
    {
        return settings;
    }

    /** @return the current plans snapshot. */
    public Plans plans()
    {
        return readout.plans();
    }

    /**
     * @param name model name.
     * @return its handle in the current plans, or {@link Handles#NONE}.
     */
    public int modelId(final String name)
    {
        return readout.modelId(name);
    }

    /**
     * @param name decision name.
     * @return its handle in the current plans, or {@link Handles#NONE}.
     */
    public int decisionId(final String name)
    {
        return readout.decisionId(name);
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
        return readout.requireDecisionId(name);
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
        return readout.requireModelId(name);
    }

    /**
     * @param modelId model handle.
     * @return its current in-flight count (with a fleet, the other replicas' last published counts included, as
     *     {@code select} and the {@code max_inflight} ceiling read it), or 0 for an unknown model.
     */
    public long inflight(final int modelId)
    {
        return readout.inflight(modelId);
    }

    /**
     * The tokens in flight on a model: the sum of its live leases' token weights ({@code mf.inflight.tokens}), local
     * to this engine (not exchanged with a fleet). A volatile read; allocates nothing.
     *
     * @param modelId model handle.
     * @return its in-flight tokens, 0 for an unknown or retired handle.
     */
    public long inflightTokens(final int modelId)
    {
        return readout.inflightTokens(modelId);
    }

    /**
     * This replica's own in-flight count of a model: with a fleet attached, {@link #inflight(int)} also holds the other
     * replicas' last published counts.
     *
     * @param modelId model handle.
     * @return the count of this engine's open leases, or 0 for an unknown model.
     */
    public long localInflight(final int modelId)
    {
        return readout.localInflight(modelId);
    }

    /**
     * Counts a reload refused before it reached the engine (an invalid file), in {@code mf.reloads{result="refused"}};
     * {@code replacePlans} counts its own. Threadsafe.
     */
    public void countRefusedReload()
    {
        readout.countRefusedReload();
    }

    /** @return reloads applied by {@code replacePlans} so far. */
    public long reloadsApplied()
    {
        return readout.reloadsApplied();
    }

    /** @return reloads refused so far (by {@code replacePlans} or counted with {@link #countRefusedReload()}). */
    public long reloadsRefused()
    {
        return readout.reloadsRefused();
    }

    /** @return the counters a fleet exchange reports into. */
    public FleetCounters fleetCounters()
    {
        return readout.fleetCounters();
    }

    /** @return the number of counters this engine was built with. */
    public int counterCapacity()
    {
        return readout.counterCapacity();
    }

    /**
     * Counters of this engine that a part of the process outside the kernel counts into, so that they are in the
     * counters file {@code bin/mf stat} reads: the serving layer's prefix-cache affinity counts
     * ({@link CounterTypes#PREFIX_CHOICES}, {@link CounterTypes#PREFIX_BLOCKS}). For each label, the counter asked for
     * before under it (its count goes on), else a new one; all of them or none (nothing is allocated when there is no
     * room for every new one). They live as long as the engine, whatever the reloads. Off the request path; any thread
     * (takes the engine's lock). Count into them atomically from any thread; never close them.
     *
     * @param labels their labels ({@link io.multifactor.kernel.metrics.CounterLabel} grammar).
     * @param typeIds their types, one of {@link CounterTypes} each, in the labels' order.
     * @return the counters, in the labels' order.
     * @throws IllegalStateException when the counters left cannot hold the new ones (see
     *     {@link Builder#counterCapacity(int)}).
     * @throws IllegalArgumentException when a label is one of the engine's own counters or was asked for with another
     *     type, or the arrays differ in length.
     */
    public AtomicCounter[] externalCounters(final String[] labels, final int[] typeIds)
    {
        return readout.externalCounters(labels, typeIds);
    }

    /** @return a reader of the engine's counters (labels and live values), in this process. */
    public CountersReader countersReader()
    {
        return readout.countersReader();
    }

    /** @return latency samples refused so far (NaN, infinite, zero or negative). */
    public long refusedSampleCount()
    {
        return readout.refusedSampleCount();
    }

    /** @return latency samples clamped so far to {@link LatencyWindow#MAX_TRACKABLE_MICROS}. */
    public long clampedSampleCount()
    {
        return readout.clampedSampleCount();
    }

    /** @return {@code begin} calls that found the lease table full (and counted nothing). */
    public long leaseTableFullCount()
    {
        return readout.leaseTableFullCount();
    }

    /** @return leases reclaimed as stale so far. */
    public long reclaimedLeaseCount()
    {
        return readout.reclaimedLeaseCount();
    }

    /**
     * Estimated memory of the latency windows of one model (both metrics), in bytes.
     *
     * @param modelId model handle of the current plans.
     * @return bytes, or 0 for an unknown model.
     */
    public long latencyFootprintBytes(final int modelId)
    {
        return readout.latencyFootprintBytes(modelId);
    }

    /**
     * Replaces the plans atomically. Models that keep their name keep their in-flight counter and latency windows
     * (build {@code next} with {@link PlansBuilder#PlansBuilder(Plans)} so they also keep their handles); a retired
     * model's {@code begin} and {@code record*} become no-ops, and its open leases still end normally. Percentiles of
     * the new plans are computed before the swap. Off the hot path: allocates, and waits for a running refresh.
     *
     * @param next the new snapshot.
     * @throws IllegalStateException when a new model name needs a counter and every counter is in use (the running plans
     *     stay), or the engine is closed.
     */
    public void replacePlans(final Plans next)
    {
        plansReplacement.replace(next);
    }

    /**
     * Adds a listener called on the replacing thread after each successful {@link #replacePlans}, once the new plans
     * and their counters are published (the metrics binder follows reloads so). It must not replace plans itself.
     *
     * @param listener called with no lock held.
     */
    public void addPlansListener(final Runnable listener)
    {
        plansReplacement.addListener(listener);
    }

    /** @param listener a listener added with {@link #addPlansListener(Runnable)}. */
    public void removePlansListener(final Runnable listener)
    {
        plansReplacement.removeListener(listener);
    }

    /**
     * @return the engine's model-server signals: the table the scrape agent (module {@code mf-servers}) writes into,
     *     and the settings and backends it scrapes.
     */
    public ServerSignals serverSignals()
    {
        return serverConfiguration.signals();
    }

    /**
     * Replaces what is scraped ({@code signals.server_metrics} and the backends of the models whose {@code server} is
     * set, such as {@code LoadedConfig.serverMetrics()} and {@code serverBackends()} after a reload): a backend that
     * stays keeps its values, freshness and counts, a model that stays keeps its grace period, and the
     * {@code mf.server.*} counters follow (the plans listeners are told, as after {@link #replacePlans}). The scrape
     * agent picks the change up at its next cycle. Off the hot path: allocates, and waits for a running refresh.
     *
     * @param settingsOrNull how the backends are scraped, or {@code null} to stop using server signals.
     * @param backends the backends (ignored without settings).
     * @throws IllegalStateException when a counter cannot be allocated (the previous server configuration is then
     *     back), or the engine is closed.
     */
    public void configureServers(final ServerMetricsSettings settingsOrNull, final List<ServerBackend> backends)
    {
        serverConfiguration.configure(settingsOrNull, backends);
    }

    /**
     * Feeds one backend's load from an ORCA load report on a response ({@code endpoint-load-metrics}): it counts as a
     * good scrape of that backend at the engine clock's time now. Any thread; allocates nothing; never throws for an
     * expected outcome.
     *
     * @param modelId the model's handle.
     * @param backendKey the backend's origin, {@link ServerBackend#key()} ({@code http://host:port}).
     * @param waiting waiting requests, finite and >= 0, or NaN when not reported.
     * @param running running requests, or NaN when not reported.
     * @param kvUse KV-cache use in [0, 1], or NaN when not reported (not both NaN).
     * @return whether the values were taken: {@code false} for a model without server signals, a backend it does not
     *     list, or a value out of range (counted as a refused scrape).
     */
    public boolean reportServerLoad(
        final int modelId, final String backendKey, final double waiting, final double running, final double kvUse)
    {
        return serverConfiguration.report(modelId, backendKey, waiting, running, kvUse);
    }

    /**
     * Ejects a model for {@code millis} from now, whatever its {@code reliability} and without raising its ejection
     * count (an operator's override, and what a scenario's {@code ejected_ms} states). When the time is up it is
     * half-open as after any ejection. Off the hot path; lock-free.
     *
     * @param modelId model handle.
     * @param millis how long, > 0.
     * @return whether the model is one of the current plans (false: nothing happened).
     */
    public boolean ejectForMillis(final int modelId, final long millis)
    {
        return ejectionOverride.ejectForMillis(modelId, millis);
    }

    /**
     * @param modelId model handle.
     * @return the milliseconds its ejection has left now (0 while its probe is out), NaN when it is not ejected or
     *     not one of the current plans. Reads the clock.
     */
    public double ejectedMillisLeft(final int modelId)
    {
        return ejectionOverride.ejectedMillisLeft(modelId);
    }

    /**
     * Label of a model's in-flight counter, as other processes see it.
     *
     * @param modelName the model name.
     * @return {@code mf.inflight{model="NAME"}}.
     */
    public static String inflightLabel(final String modelName)
    {
        return CounterLayout.inflightLabel(modelName);
    }

    /**
     * Label of the counter of a decision's selections won by a model with an outcome.
     *
     * @param decision decision name.
     * @param model model name.
     * @param outcome an {@link io.multifactor.api.Outcome} code other than failed.
     * @return {@code mf.selected{decision="D",model="M",outcome="O"}}.
     */
    public static String selectedLabel(final String decision, final String model, final int outcome)
    {
        return CounterLayout.selectedLabel(decision, model, outcome);
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
        return CounterLayout.latencyLabel(model, metric, percentile);
    }

    /** @return the per-thread counter blocks of the selections (null when not counted), for tests. */
    PerThreadCounterBlocks counterBlocks()
    {
        return counterBlocksOrNull;
    }

    /** @return the publisher of the model-server signals, for tests. */
    ServerLoadPublisher serverPublisher()
    {
        return serverPublisher;
    }

    /**
     * Builds a {@link MultiFactorEngine}: clock, signal settings, counters file, lease and counter capacities, counting.
     * <p>
     * This class is not threadsafe: build on one thread.
     */
    public static final class Builder
    {
        final Plans plans;
        NanoClock clock = SystemNanoClock.INSTANCE;
        SignalSettings settings = SignalSettings.defaults();
        Path countersFile;
        int leaseCapacity = DEFAULT_LEASE_CAPACITY;
        int counterCapacity = DEFAULT_COUNTER_CAPACITY;
        boolean countSelections = true;
        ServerMetricsSettings serverMetrics;
        List<ServerBackend> serverBackends = List.of();

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
         * Copies the counters to a file (replaced if it exists) that another process reads ({@code bin/mf stat},
         * {@link io.multifactor.kernel.metrics.CountersFileReader}): the counters stay in direct memory the engine
         * owns, the file is written whole by {@link #build()} (so its space is reserved: {@code build()} fails with an
         * {@link java.io.UncheckedIOException} that says why when it cannot be) and then kept current, with a
         * heartbeat, by the refresh agent every 250 ms. By default there is no file.
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
         *     default {@link MultiFactorEngine#DEFAULT_LEASE_CAPACITY}.
         * @return this builder.
         */
        public Builder leaseCapacity(final int leaseCapacity)
        {
            this.leaseCapacity = leaseCapacity;
            return this;
        }

        /**
         * @param counterCapacity number of Agrona counters, for the metric and in-flight counters of the current plans
         *     (and those retired less than {@link MultiFactorEngine#RETIRED_COUNTER_GRACE_NS} ago); default
         *     {@link MultiFactorEngine#DEFAULT_COUNTER_CAPACITY}.
         * @return this builder.
         */
        public Builder counterCapacity(final int counterCapacity)
        {
            this.counterCapacity = counterCapacity;
            return this;
        }

        /**
         * @param countSelections whether {@code select} counts selections and drops (default true: into the calling
         *     thread's own counter block, added into the shared counters once per refresh period; false saves the
         *     thread-local lookup and the stores, for measuring what counting costs).
         * @return this builder.
         */
        public Builder countSelections(final boolean countSelections)
        {
            this.countSelections = countSelections;
            return this;
        }

        /**
         * Scrapes model servers from the start ({@code signals.server_metrics} and the backends of the models whose
         * {@code server} is set): the engine's {@link ServerSignals} is configured with them before the first plans are
         * installed, so their counters exist from the start. The scrape agent (module {@code mf-servers}) feeds it;
         * {@link MultiFactorEngine#configureServers} changes it later. By default, none.
         *
         * @param settingsOrNull how the backends are scraped, or {@code null} for none.
         * @param backends the backends (ignored without settings).
         * @return this builder.
         */
        public Builder serverMetrics(final ServerMetricsSettings settingsOrNull, final List<ServerBackend> backends)
        {
            this.serverMetrics = settingsOrNull;
            this.serverBackends = List.copyOf(backends);
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
            return new MultiFactorEngine(new EngineParts(this));
        }
    }
}
