package io.multifactor.kernel.engine;

import io.multifactor.api.Exclusions;
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
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.reliability.RequestResult;
import org.agrona.concurrent.Agent;

/**
 * The multi-factor engine: selects a model per request from the current plans and the live signals, and takes those
 * signals (latency samples, in-flight leases, request results, model-server load). A facade whose public methods are
 * one-line delegations: selection is {@code Selector}'s job, reserve on select {@code ReserveOnSelect}'s, the ends of
 * leases and their results {@code LeaseEnder}'s, explain {@code Explainer}'s, samples {@code SampleRecorder}'s, plan
 * installation {@code StateInstaller}'s, plan replacement and its listeners {@code PlansReplacement}'s, publication of
 * signals {@code SignalPublisher}'s and {@code ServerLoadPublisher}'s, the server configuration
 * {@code ServerConfiguration}'s, an operator's ejection {@code EjectionOverride}'s, the refresh duty cycle and lease
 * sweep {@code RefreshCycle}'s, the counters' layout and labels {@code CounterLayout}'s, the fleet
 * {@code FleetBridge}'s; the reads are declared in {@code EngineReadout}, the changes off the hot path (plans, servers,
 * ejection) in {@code EngineControl}.
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
public final class MultiFactorEngine extends EngineControl
    implements LatencyRecorder, InflightTracker, FleetMember, AutoCloseable
{
    /** Default number of lease slots: the most requests in flight counted at once. */
    public static final int DEFAULT_LEASE_CAPACITY = 1 << 16;

    /**
     * Default number of Agrona counters (640 bytes each): enough for about 250 models of 16-candidate decisions. A
     * model takes {@code 6 + DropReason.COUNT + 2 * percentiles} counters, a decision of {@code n} candidates
     * {@code 2n + 1} ({@code n + 1} with {@code on_no_candidates: fail}), the engine 9.
     */
    public static final int DEFAULT_COUNTER_CAPACITY = 8192;

    /** Counters a model with {@code reliability} takes beyond {@link #countersNeeded}'s per-model count. */
    public static final int EJECTION_COUNTERS_PER_MODEL = CounterLayout.EJECTION_COUNTERS;

    /** A retired model's or decision's counters stay allocated at least this long (the engine clock's time). */
    public static final long RETIRED_COUNTER_GRACE_NS = 1_000_000_000L;

    /** Stale leases are swept every {@code inflight_max_age / SWEEPS_PER_MAX_AGE} (at least every refresh period). */
    public static final int SWEEPS_PER_MAX_AGE = 64;

    private final ReserveOnSelect reserver;
    private final Selector selector;
    private final LeaseEnder leaseEnder;
    private final Explainer explainer;
    private final SampleRecorder samples;
    private final RefreshCycle refreshCycle;
    private final FleetBridge fleet;
    private final RefreshAgent agent = new RefreshAgent(this);

    MultiFactorEngine(final EngineParts parts)
    {
        super(parts);
        reserver = parts.reserver;
        selector = parts.selector;
        leaseEnder = parts.leaseEnder;
        explainer = parts.explainer;
        samples = parts.samples;
        refreshCycle = parts.refreshCycle;
        fleet = parts.fleet;
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
     *     {@code 6 + DropReason.COUNT + 2 * percentiles}, per decision 1 plus 2 per candidate; a model with
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

    /**
     * Builds a {@link MultiFactorEngine}: clock, signal settings, counters file, lease and counter capacities, counting.
     * <p>
     * This class is not threadsafe: build on one thread.
     */
    public static final class Builder extends EngineBuilder<Builder>
    {
        private Builder(final Plans plans)
        {
            super(plans);
        }

        @Override
        Builder self()
        {
            return this;
        }
    }
}
