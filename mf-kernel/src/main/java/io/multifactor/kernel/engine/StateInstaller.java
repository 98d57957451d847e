package io.multifactor.kernel.engine;

import io.multifactor.api.DropReason;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.plan.DecisionPlan;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.ModelEjection;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Builds the {@link EngineState} of each plans snapshot and publishes it with one volatile write: the signals of every
 * model name that stays are kept (found by name, whatever its handle), a new name gets a new in-flight counter and new
 * windows, every counter the plans need is allocated through the {@link CounterLayout} in one generation (none of them
 * is changed when one cannot be allocated), and the percentiles of the new slots are published before the swap.
 * <p>
 * This class is threadsafe under the engine's contract: {@link #state} may be read from any thread (one volatile
 * load); {@link #replace} and {@link #close} take the engine's lock; everything else runs under it.
 */
final class StateInstaller
{
    /** The published state; written under the engine's lock, read with one volatile load by every hot path. */
    volatile EngineState state;

    private final Object lock;
    private final CounterLayout layout;
    private final SignalPublisher publisher;
    private final ServerLoadPublisher serverPublisher;
    private final AtomicBuffer values;
    private final long originNs;
    private final long sliceNs;
    private final PerThreadCounterBlocks counterBlocksOrNull;
    private final SignalSettings settings;
    private final NanoClock clock;
    private final EjectionTable ejections;
    private static final int[] NO_EJECTION_COUNTERS = { -1, -1, -1 };

    // Guarded by the engine's lock.
    private Map<String, ModelSignals> signalsByName = new HashMap<>();
    private boolean closed;
    private boolean fleetAttached;
    private final SessionTables sessions = new SessionTables();
    private SessionTables.Prepared pendingSessions;

    StateInstaller(
        final Object lock,
        final CounterLayout layout,
        final SignalPublisher publisher,
        final ServerLoadPublisher serverPublisher,
        final long originNs,
        final long sliceNs,
        final PerThreadCounterBlocks counterBlocksOrNull,
        final SignalSettings settings,
        final NanoClock clock,
        final EjectionTable ejections)
    {
        this.settings = settings;
        this.clock = clock;
        this.ejections = ejections;
        this.counterBlocksOrNull = counterBlocksOrNull;
        this.lock = lock;
        this.layout = layout;
        this.publisher = publisher;
        this.serverPublisher = serverPublisher;
        this.values = layout.values;
        this.originNs = originNs;
        this.sliceNs = sliceNs;
    }

    /**
     * @param nowNs the engine clock's time.
     * @return the index of the windows' slice that holds that time.
     */
    long sliceIndex(final long nowNs)
    {
        return Math.floorDiv(nowNs - originNs, sliceNs);
    }

    /** @return whether the engine is closed (takes the lock). */
    boolean isClosed()
    {
        synchronized (lock)
        {
            return closed;
        }
    }

    // Under lock.
    boolean closed()
    {
        return closed;
    }

    // Under lock: the signals of every model name of the current plans.
    Iterable<ModelSignals> signalsByName()
    {
        return signalsByName.values();
    }

    // Under lock: the windows of every model, current and future, keep what they drain for the fleet from now on.
    void keepUnsentForFleet()
    {
        if (!fleetAttached)
        {
            for (final ModelSignals signals : signalsByName.values())
            {
                signals.ttft.keepUnsent();
                signals.tpot.keepUnsent();
            }
            fleetAttached = true;
        }
    }

    /**
     * Takes the lock and installs the next plans, counting the reload as applied or refused.
     *
     * @param next the new snapshot.
     * @param clock the engine's clock, read under the lock.
     * @throws IllegalStateException when a counter cannot be allocated (the running plans stay), or after close.
     */
    void replace(final Plans next, final NanoClock clock)
    {
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
                values.getAndAddLong(layout.reloadsRefusedOffset, 1);
                throw ex;
            }
            values.getAndAddLong(layout.reloadsAppliedOffset, 1);
        }
    }

    /**
     * Takes the lock and installs the current plans again, so that the counters of a new server configuration are
     * allocated and its signals published (the engine's {@code configureServers}).
     *
     * @param clock the engine's clock, read under the lock.
     * @param configure what changes the server configuration, run under the lock before the installation.
     * @throws IllegalStateException when a counter cannot be allocated, or after close.
     */
    void reinstall(final NanoClock clock, final Runnable configure)
    {
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException("engine is closed");
            }
            configure.run();
            install(state.plans, clock.nanoTime());
        }
    }

    /** Takes the lock; from now on the engine knows no model and no decision. Idempotent. */
    void close()
    {
        synchronized (lock)
        {
            if (!closed)
            {
                closed = true;
                state = new EngineState(new PlansBuilder().build(), new ModelSignals[0], values);
                ejections.models(new ModelEjection[0]);
                signalsByName = new HashMap<>();
                sessions.clear();
            }
        }
    }

    /**
     * Takes the lock and installs the engine's first plans (counted as no reload).
     *
     * @param first the first snapshot.
     * @param nowNs the engine clock's time at its start.
     * @throws IllegalStateException when a counter cannot be allocated.
     */
    void installFirst(final Plans first, final long nowNs)
    {
        synchronized (lock)
        {
            install(first, nowNs);
        }
    }

    // Under lock.
    void install(final Plans next, final long nowNs)
    {
        layout.beginGeneration();
        final EngineState nextState;
        final Map<String, ModelSignals> nextByName = new HashMap<>();
        final int[] nextHealed = layout.newHealedOffsetByCounterId();
        final int[][] ejectionOffsets = new int[next.modelCapacity()][];
        try
        {
            nextState = build(next, nowNs, nextByName, nextHealed, ejectionOffsets);
        }
        catch (final IllegalStateException ex)
        {
            layout.abortGeneration();
            serverPublisher.abortCounters();
            throw ex;
        }
        layout.commitGeneration(nowNs, nextHealed);
        serverPublisher.commitCounters();
        installEjection(next, nextState, ejectionOffsets);
        publisher.publish(nextState, nowNs);
        serverPublisher.publish(nextState, nowNs);
        for (final ModelSignals retired : signalsByName.values())
        {
            if (!nextByName.containsKey(retired.name))
            {
                // The other replicas' count leaves with the model, so its counter drains to its own leases (and 0).
                retired.remoteInflight(values, 0L);
            }
        }
        signalsByName = nextByName;
        state = nextState;
        sessions.commit(pendingSessions);
        if (counterBlocksOrNull != null)
        {
            // Before the reclaim: a retired counter is freed only once every thread's last counts of it are in.
            counterBlocksOrNull.aggregate();
        }
        layout.reclaim(nowNs);
    }

    // Under lock, after the generation committed: each model's ejection policy and counters, then the models by slot
    // (a lease of a model that left the plans ends with no ejection state to report to).
    private void installEjection(final Plans next, final EngineState nextState, final int[][] ejectionOffsets)
    {
        final ModelEjection[] bySlot = new ModelEjection[ejections.capacity()];
        for (int modelId = 0; modelId < nextState.byModel.length; modelId++)
        {
            final ModelSignals signals = nextState.byModel[modelId];
            if (signals != null)
            {
                final ModelEjection ejection = signals.ejection;
                ejection.policy(next.ejectionPolicy(modelId));
                final int[] offsets = ejectionOffsets[modelId];
                ejection.counters(values, offsets[0], offsets[1]);
                signals.ejectedOffset = offsets[2];
                bySlot[signals.counterId] = ejection;
            }
        }
        ejections.models(bySlot);
    }

    // Under lock, inside a counters generation: allocates (or finds) every counter the plans need.
    private EngineState build(
        final Plans next,
        final long nowNs,
        final Map<String, ModelSignals> nextByName,
        final int[] nextHealed,
        final int[][] ejectionOffsets)
    {
        final long sliceIndex = sliceIndex(nowNs);
        final int modelCapacity = next.modelCapacity();
        final int slotCount = next.percentileSlotCount();
        final ModelSignals[] byModel = new ModelSignals[modelCapacity];
        final int[] latencyCounterOffsets = new int[EngineState.latencyLength(modelCapacity, slotCount)];
        final int[] dropCounterIds = new int[modelCapacity * DropReason.COUNT];
        final int[] sampleOffsets = new int[modelCapacity * 4];
        Arrays.fill(latencyCounterOffsets, -1);
        Arrays.fill(dropCounterIds, -1);
        Arrays.fill(sampleOffsets, -1);
        for (int modelId = 0; modelId < modelCapacity; modelId++)
        {
            final String name = next.modelName(modelId);
            if (name == null)
            {
                continue;
            }
            final int inflightId = layout.inflightCounterId(name);
            final int tokensId = layout.inflightTokensCounterId(name);
            ModelSignals signals = signalsByName.get(name);
            if (signals == null || signals.counterId != inflightId || signals.tokenCounterId != tokensId)
            {
                signals = new ModelSignals(name, inflightId, CounterBuffers.valueOffset(inflightId), tokensId,
                    CounterBuffers.valueOffset(tokensId), sliceIndex, settings, clock, originNs);
                signals.ejection = new ModelEjection(ejections, inflightId, null);
                if (fleetAttached)
                {
                    signals.ttft.keepUnsent();
                    signals.tpot.keepUnsent();
                }
            }
            byModel[modelId] = signals;
            nextByName.put(name, signals);
            layout.modelCounters(
                modelId, name, inflightId, next, nextHealed, dropCounterIds, sampleOffsets, latencyCounterOffsets);
            // Only a model with reliability has ejection counters (a scenario's ejection of another is not counted).
            ejectionOffsets[modelId] = next.ejectionPolicy(modelId) == null ? NO_EJECTION_COUNTERS :
                layout.ejectionCounterOffsets(name);
        }
        serverPublisher.allocateCounters(layout);
        final int[][] selectionCounterIds = new int[next.decisionCapacity()][];
        int countedIdLimit = 0;
        for (final int id : dropCounterIds)
        {
            countedIdLimit = Math.max(countedIdLimit, id + 1);
        }
        for (int decisionId = 0; decisionId < selectionCounterIds.length; decisionId++)
        {
            final DecisionPlan plan = next.decision(decisionId);
            if (plan != null)
            {
                selectionCounterIds[decisionId] = layout.selectionCounterIds(next, plan);
                for (final int id : selectionCounterIds[decisionId])
                {
                    countedIdLimit = Math.max(countedIdLimit, id + 1);
                }
            }
        }
        pendingSessions = sessions.prepare(next, layout);
        countedIdLimit = Math.max(countedIdLimit, pendingSessions.idLimit);
        if (counterBlocksOrNull != null)
        {
            // New threads' blocks hold every id of these plans without growing on their first selections.
            counterBlocksOrNull.idLimit(countedIdLimit);
        }
        final EngineState built = new EngineState(
            next, byModel, values, latencyCounterOffsets, dropCounterIds, sampleOffsets, selectionCounterIds, ejections,
            clock);
        pendingSessions.attachTo(built);
        return built;
    }
}
