package io.multifactor.kernel.engine;

import io.multifactor.api.Handles;
import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.FleetCounters;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.CountersReader;

/**
 * What callers, operators and metrics binders read of an engine, and the part of {@link MultiFactorEngine} that
 * answers it: the current plans and the handles of their names, in-flight counts, the event and reload counts, the
 * counters' reader and capacity, the windows' footprint, the clock and settings the engine runs with, and the labels of the counters as other processes see them
 * ({@link CounterLayout}). Every public method here is a public method of {@link MultiFactorEngine}.
 * <p>
 * This class is threadsafe: every read is a volatile load of a counter or of the published state; it allocates nothing
 * (except the labels).
 */
abstract class EngineReadout
{
    final CounterBuffers counters;
    final AtomicBuffer values;
    final CounterLayout layout;
    final LeaseTable leases;
    final StateInstaller installer;
    final NanoClock clock;
    final SignalSettings settings;
    private final PerThreadCounterBlocks counterBlocksOrNull;

    EngineReadout(final EngineParts parts)
    {
        this.counters = parts.counters;
        this.values = parts.values;
        this.layout = parts.layout;
        this.leases = parts.leases;
        this.installer = parts.installer;
        this.clock = parts.clock;
        this.settings = parts.settings;
        this.counterBlocksOrNull = parts.counterBlocks;
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
        return installer.state.plans;
    }

    /**
     * @param name model name.
     * @return its handle in the current plans, or {@link Handles#NONE}.
     */
    public int modelId(final String name)
    {
        return installer.state.plans.modelId(name);
    }

    /**
     * @param name decision name.
     * @return its handle in the current plans, or {@link Handles#NONE}.
     */
    public int decisionId(final String name)
    {
        return installer.state.plans.decisionId(name);
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
        return KnownNames.requireDecision(installer.state.plans, name);
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
        return KnownNames.requireModel(installer.state.plans, name);
    }

    /**
     * @param modelId model handle.
     * @return its current in-flight count (with a fleet, the other replicas' last published counts included, as
     *     {@code select} and the {@code max_inflight} ceiling read it), or 0 for an unknown model.
     */
    public long inflight(final int modelId)
    {
        final int[] counterOffsets = installer.state.counterOffsets;
        if (modelId < 0 || modelId >= counterOffsets.length || counterOffsets[modelId] < 0)
        {
            return 0L;
        }
        return values.getLongVolatile(counterOffsets[modelId]);
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
        final int[] offsets = installer.state.tokenCounterOffsets;
        if (modelId < 0 || modelId >= offsets.length || offsets[modelId] < 0)
        {
            return 0L;
        }
        return values.getLongVolatile(offsets[modelId]);
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
        final ModelSignals signals = installer.state.signals(modelId);
        return signals == null ? 0L : values.getLongVolatile(signals.counterOffset) - signals.remoteInflight;
    }

    /**
     * Counts a reload refused before it reached the engine (an invalid file), in {@code mf.reloads{result="refused"}};
     * {@code replacePlans} counts its own. Threadsafe.
     */
    public void countRefusedReload()
    {
        values.getAndAddLong(layout.reloadsRefusedOffset, 1);
    }

    /** @return reloads applied by {@code replacePlans} so far. */
    public long reloadsApplied()
    {
        return values.getLongVolatile(layout.reloadsAppliedOffset);
    }

    /** @return reloads refused so far (by {@code replacePlans} or counted with {@link #countRefusedReload()}). */
    public long reloadsRefused()
    {
        return values.getLongVolatile(layout.reloadsRefusedOffset);
    }

    /** @return the counters a fleet exchange reports into. */
    public FleetCounters fleetCounters()
    {
        return layout.fleetCounters;
    }

    /** @return the number of counters this engine was built with. */
    public int counterCapacity()
    {
        return counters.capacity();
    }

    /** @return a reader of the engine's counters (labels and live values), in this process. */
    public CountersReader countersReader()
    {
        return counters.reader();
    }

    /** @return latency samples refused so far (NaN, infinite, zero or negative). */
    public long refusedSampleCount()
    {
        return values.getLongVolatile(layout.refusedOffset);
    }

    /** @return latency samples clamped so far to {@link LatencyWindow#MAX_TRACKABLE_MICROS}. */
    public long clampedSampleCount()
    {
        return values.getLongVolatile(layout.clampedOffset);
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
        final ModelSignals signals = installer.state.signals(modelId);
        return signals == null ? 0L : signals.footprintBytes();
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
}
