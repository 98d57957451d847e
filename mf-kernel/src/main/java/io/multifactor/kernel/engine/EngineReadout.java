package io.multifactor.kernel.engine;

import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.FleetCounters;
import io.multifactor.kernel.plan.Plans;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

/**
 * The readout of a running engine, one part of {@link MultiFactorEngine}: the current plans and the handles of their
 * names, published in-flight counts and tokens (and this replica's own count), the engine's event counts (reloads,
 * refused and clamped samples, full lease table, reclaimed leases), the counters' reader and capacity, the windows'
 * footprint; and the counters that a part of the process outside the kernel counts into. The engine's read methods,
 * whose Javadoc states each contract, are one-line delegations to these.
 * <p>
 * This class is threadsafe: every read is a volatile load of a counter or of the published state and allocates
 * nothing; {@link #externalCounters} allocates under the engine's lock.
 */
final class EngineReadout
{
    private final StateInstaller installer;
    private final CounterBuffers counters;
    private final AtomicBuffer values;
    private final CounterLayout layout;
    private final LeaseTable leases;
    private final Object lock;

    EngineReadout(final StateInstaller installer, final CounterBuffers counters, final CounterLayout layout,
        final LeaseTable leases, final Object lock)
    {
        this.lock = lock;
        this.installer = installer;
        this.counters = counters;
        this.values = counters.values();
        this.layout = layout;
        this.leases = leases;
    }

    Plans plans()
    {
        return installer.state.plans;
    }

    int modelId(final String name)
    {
        return installer.state.plans.modelId(name);
    }

    int decisionId(final String name)
    {
        return installer.state.plans.decisionId(name);
    }

    int requireDecisionId(final String name)
    {
        return KnownNames.requireDecision(installer.state.plans, name);
    }

    int requireModelId(final String name)
    {
        return KnownNames.requireModel(installer.state.plans, name);
    }

    long inflight(final int modelId)
    {
        final int[] counterOffsets = installer.state.counterOffsets;
        if (modelId < 0 || modelId >= counterOffsets.length || counterOffsets[modelId] < 0)
        {
            return 0L;
        }
        return values.getLongVolatile(counterOffsets[modelId]);
    }

    long inflightTokens(final int modelId)
    {
        final int[] offsets = installer.state.tokenCounterOffsets;
        if (modelId < 0 || modelId >= offsets.length || offsets[modelId] < 0)
        {
            return 0L;
        }
        return values.getLongVolatile(offsets[modelId]);
    }

    long localInflight(final int modelId)
    {
        final ModelSignals signals = installer.state.signals(modelId);
        return signals == null ? 0L : values.getLongVolatile(signals.counterOffset) - signals.remoteInflight;
    }

    AtomicCounter[] externalCounters(final String[] labels, final int[] typeIds)
    {
        if (labels.length != typeIds.length)
        {
            throw new IllegalArgumentException(labels.length + " labels, " + typeIds.length + " types");
        }
        synchronized (lock)
        {
            // All or nothing (a refused label or too little room allocates none): a caller never holds some of its
            // counters in the engine and the others elsewhere.
            int missing = 0;
            for (int i = 0; i < labels.length; i++)
            {
                missing += layout.hasExternalCounter(labels[i], typeIds[i]) ? 0 : 1;
            }
            if (missing > counters.available())
            {
                throw new IllegalStateException("all " + counters.capacity() + " counters are in use; raise the " +
                    "counter capacity");
            }
            final AtomicCounter[] out = new AtomicCounter[labels.length];
            for (int i = 0; i < labels.length; i++)
            {
                out[i] = new AtomicCounter(values, layout.externalCounterId(labels[i], typeIds[i]));
            }
            return out;
        }
    }

    void countRefusedReload()
    {
        values.getAndAddLong(layout.reloadsRefusedOffset, 1);
    }

    long reloadsApplied()
    {
        return values.getLongVolatile(layout.reloadsAppliedOffset);
    }

    long reloadsRefused()
    {
        return values.getLongVolatile(layout.reloadsRefusedOffset);
    }

    FleetCounters fleetCounters()
    {
        return layout.fleetCounters;
    }

    int counterCapacity()
    {
        return counters.capacity();
    }

    CountersReader countersReader()
    {
        return counters.reader();
    }

    long refusedSampleCount()
    {
        return values.getLongVolatile(layout.refusedOffset);
    }

    long clampedSampleCount()
    {
        return values.getLongVolatile(layout.clampedOffset);
    }

    long leaseTableFullCount()
    {
        return leases.fullCount();
    }

    long reclaimedLeaseCount()
    {
        return leases.reclaimedCount();
    }

    long latencyFootprintBytes(final int modelId)
    {
        final ModelSignals signals = installer.state.signals(modelId);
        return signals == null ? 0L : signals.footprintBytes();
    }
}
