package io.multifactor.kernel.engine;

import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import org.agrona.concurrent.NanoClock;

import java.util.function.IntConsumer;

/**
 * The engine's refresh duty cycle: every {@code latency_refresh} it rotates and drains the latency windows,
 * republishes the percentiles ({@link SignalPublisher}), adds every thread's selection and drop counts into the shared
 * counters ({@link PerThreadCounterBlocks#aggregate()}, so readers see them at most one period late) and, once per sweep
 * period P = max({@code latency_refresh},
 * {@code inflight_max_age / 64}), starts a new lease epoch, reclaims the leases older than {@code inflight_max_age}
 * and frees the counters retired long enough ago.
 * <p>
 * A lease's age is measured from its own {@code begin}, without a clock read on {@code begin}: it is stamped with the
 * running epoch ({@link LeaseEpochs}) and reclaimed only once the epoch after its own began more than
 * {@code inflight_max_age} ago. A lost lease is therefore reclaimed no earlier than {@code inflight_max_age} after its
 * begin, even after the refresh agent stalled, and at most {@code inflight_max_age + 2 * (P + latency_refresh)} after
 * it (10 min 20.75 s with the defaults), later only by as long as the refresh agent stalls.
 * <p>
 * This class is threadsafe: {@link #refresh()} reads one volatile field first and takes the engine's lock only when a
 * cycle is due, so a duty cycle with nothing due writes nothing; a cycle runs under the engine's lock.
 */
final class RefreshCycle
{
    private final Object lock;
    private final NanoClock clock;
    private final long refreshNs;
    private final long inflightMaxAgeNs;
    private final StateInstaller installer;
    private final SignalPublisher publisher;
    private final CounterLayout layout;
    private final LeaseTable leases;
    private final LeaseEpochs leaseEpochs;
    private final IntConsumer onLeaseReclaimed;
    private final PerThreadCounterBlocks counterBlocksOrNull;

    // Written under lock once per refresh period; read first without the lock, so that a duty cycle with nothing due
    // writes nothing at all (not even the monitor's word, which may share a cache line with what the hot paths read).
    private volatile long nextRefreshNs;

    RefreshCycle(
        final Object lock,
        final NanoClock clock,
        final SignalSettings settings,
        final long originNs,
        final StateInstaller installer,
        final SignalPublisher publisher,
        final CounterLayout layout,
        final LeaseTable leases,
        final LeaseEpochs leaseEpochs,
        final PerThreadCounterBlocks counterBlocksOrNull)
    {
        this.counterBlocksOrNull = counterBlocksOrNull;
        this.lock = lock;
        this.clock = clock;
        this.refreshNs = settings.latencyRefreshNs();
        this.inflightMaxAgeNs = settings.inflightMaxAgeNs();
        this.installer = installer;
        this.publisher = publisher;
        this.layout = layout;
        this.leases = leases;
        this.leaseEpochs = leaseEpochs;
        this.onLeaseReclaimed = layout::countHealedLease;
        this.nextRefreshNs = originNs + refreshNs;
    }

    /** @return the work done: windows refreshed plus leases reclaimed, 0 when nothing was due. */
    int refresh()
    {
        final long nowNs = clock.nanoTime();
        if (nowNs - nextRefreshNs < 0)
        {
            return 0;
        }
        synchronized (lock)
        {
            if (installer.closed() || nowNs - nextRefreshNs < 0)
            {
                return 0;
            }
            nextRefreshNs = nowNs + refreshNs;
            return cycle(nowNs);
        }
    }

    /** Adds every thread's selection and drop counts into the shared counters now (when the engine closes). */
    void foldCounts()
    {
        synchronized (lock)
        {
            if (counterBlocksOrNull != null)
            {
                counterBlocksOrNull.aggregate();
            }
        }
    }

    /** Runs one cycle now, due or not. */
    void refreshNow()
    {
        final long nowNs = clock.nanoTime();
        synchronized (lock)
        {
            if (!installer.closed())
            {
                nextRefreshNs = nowNs + refreshNs;
                cycle(nowNs);
            }
        }
    }

    // Under lock.
    private int cycle(final long nowNs)
    {
        final EngineState s = installer.state;
        final long sliceIndex = installer.sliceIndex(nowNs);
        int work = 0;
        for (final ModelSignals signals : s.byModel)
        {
            if (signals != null)
            {
                signals.ttft.advance(sliceIndex);
                signals.tpot.advance(sliceIndex);
                work++;
            }
        }
        publisher.publish(s);
        if (counterBlocksOrNull != null)
        {
            // Every thread's selection and drop counts since the previous cycle, into the shared counters.
            counterBlocksOrNull.aggregate();
        }
        if (leaseEpochs.advance(nowNs))
        {
            // Leases are stamped with epochs, not times: one stamped below the cutoff began more than the max age ago.
            work += leases.sweep(leaseEpochs.cutoff(nowNs, inflightMaxAgeNs), onLeaseReclaimed);
            // After this cycle's fold above: a retired counter is freed only once its last counts are in.
            layout.reclaim(nowNs);
        }
        return work;
    }
}
