package io.multifactor.kernel.engine;

import io.multifactor.kernel.fleet.FleetSignals;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

/**
 * The engine's side of a fleet exchange: hands the fleet agent this replica's own in-flight counts and the latency
 * samples drained since the previous exchange, and takes in the other replicas' counts (added into each model's
 * in-flight counter, so that {@code select} and {@code max_inflight} read the fleet-wide count) and their intervals
 * (merged into the current slice of the windows, where they age like local samples).
 * <p>
 * This class is threadsafe: every method takes the engine's lock; none is on a hot path. It allocates only on the
 * first collection and for new models.
 */
final class FleetBridge
{
    private final Object lock;
    private final NanoClock clock;
    private final StateInstaller installer;
    private final AtomicBuffer values;

    FleetBridge(final Object lock, final NanoClock clock, final StateInstaller installer, final AtomicBuffer values)
    {
        this.lock = lock;
        this.clock = clock;
        this.installer = installer;
        this.values = values;
    }

    void attach()
    {
        synchronized (lock)
        {
            if (!installer.closed())
            {
                installer.keepUnsentForFleet();
            }
        }
    }

    void collect(final FleetSignals local)
    {
        synchronized (lock)
        {
            if (installer.closed())
            {
                return;
            }
            installer.keepUnsentForFleet();
            final long sliceIndex = installer.sliceIndex(clock.nanoTime());
            for (final ModelSignals signals : installer.state.byModel)
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

    void merge(final FleetSignals remote)
    {
        synchronized (lock)
        {
            if (installer.closed())
            {
                return;
            }
            for (final ModelSignals signals : installer.state.byModel)
            {
                if (signals == null)
                {
                    continue;
                }
                final int index = remote.indexOf(signals.name);
                signals.remoteInflight(values, index == FleetSignals.NONE ? 0L : Math.max(0L, remote.inflight(index)));
                if (index != FleetSignals.NONE)
                {
                    signals.ttft.merge(remote.ttft(index));
                    signals.tpot.merge(remote.tpot(index));
                }
            }
        }
    }

    void detach()
    {
        synchronized (lock)
        {
            for (final ModelSignals signals : installer.signalsByName())
            {
                signals.remoteInflight(values, 0L);
            }
        }
    }
}
