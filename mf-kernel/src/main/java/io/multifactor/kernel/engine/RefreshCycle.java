package io.multifactor.kernel.engine;

import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.inflight.ReclaimedLeaseListener;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.CountersFileLayout;
import io.multifactor.kernel.metrics.CounterTypes;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.reliability.EjectionWord;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.util.function.IntConsumer;

/**
 * The engine's refresh duty cycle: every {@code latency_refresh} it rotates and drains the latency windows,
 * republishes the percentiles ({@link SignalPublisher}), adds every thread's selection and drop counts into the shared
 * counters ({@link PerThreadCounterBlocks#aggregate()}, so readers see them at most one period late) and, once per sweep
 * period P = max({@code latency_refresh},
 * {@code inflight_max_age / 64}), starts a new lease epoch, reclaims the leases older than {@code inflight_max_age}
 * and frees the counters retired long enough ago. Between refreshes it republishes the model-server signals alone
 * ({@link ServerLoadPublisher}) every scrape period of {@code signals.server_metrics} (when shorter), so a scrape's
 * values reach {@code select} within one period, and a backend going stale is seen as promptly.
 * A reclaimed lease that was a half-open model's probe counts as a failed probe ({@link EjectionTable#onReclaimed});
 * every cycle also writes each model's {@code mf.ejected} counter.
 * <p>
 * A lease's age is measured from its own {@code begin}, without a clock read on {@code begin}: it is stamped with the
 * running epoch ({@link LeaseEpochs}) and reclaimed only once the epoch after its own began more than
 * {@code inflight_max_age} ago. A lost lease is therefore reclaimed no earlier than {@code inflight_max_age} after its
 * begin, even after the refresh agent stalled, and at most {@code inflight_max_age + 2 * (P + latency_refresh)} after
 * it (10 min 20.75 s with the defaults), later only by as long as the refresh agent stalls.
 * <p>
 * With a counters file, the duty cycle also writes the file's heartbeat and a copy of the counters every
 * {@link CountersFileLayout#HEARTBEAT_INTERVAL_MS} of wall time (whatever the engine's clock: a simulation on a manual
 * clock keeps its file alive too), {@link #refreshNow()} writes them at once, and {@link #closeFile()} marks the file
 * closed.
 * <p>
 * This class is threadsafe: {@link #refresh()} reads one volatile field first (two with a counters file) and takes the
 * engine's lock only when a cycle or a heartbeat is due, so a duty cycle with nothing due writes nothing; a cycle runs
 * under the engine's lock.
 */
final class RefreshCycle
{
    private final Object lock;
    private final NanoClock clock;
    private final long refreshNs;
    private final long inflightMaxAgeNs;
    private final StateInstaller installer;
    private final SignalPublisher publisher;
    private final ServerLoadPublisher serverPublisher;
    private final CounterLayout layout;
    private final LeaseTable leases;
    private final LeaseEpochs leaseEpochs;
    private final IntConsumer onLeaseReclaimed;
    private final PerThreadCounterBlocks counterBlocksOrNull;
    private final CounterBuffers counters;
    private final EpochClock wallClock;
    private final EjectionTable ejections;
    private final ReclaimedLeaseListener onProbeReclaimed;

    // Written under lock once per refresh period; read first without the lock, so that a duty cycle with nothing due
    // writes nothing at all (not even the monitor's word, which may share a cache line with what the hot paths read).
    private volatile long nextRefreshNs;

    // The engine time of the next publication of the server signals alone (between refreshes, every scrape period
    // of signals.server_metrics); read without the lock like nextRefreshNs, only while server metrics are on.
    private volatile long nextServerNs;

    // The wall time of the next heartbeat of the counters file; Long.MAX_VALUE without a file or once it is closed.
    private volatile long nextHeartbeatMs;

    RefreshCycle(
        final Object lock,
        final NanoClock clock,
        final SignalSettings settings,
        final long originNs,
        final StateInstaller installer,
        final SignalPublisher publisher,
        final ServerLoadPublisher serverPublisher,
        final CounterLayout layout,
        final LeaseTable leases,
        final LeaseEpochs leaseEpochs,
        final PerThreadCounterBlocks counterBlocksOrNull,
        final CounterBuffers counters,
        final EpochClock wallClock,
        final EjectionTable ejections)
    {
        this.ejections = ejections;
        this.onProbeReclaimed = ejections::onReclaimed;
        this.counterBlocksOrNull = counterBlocksOrNull;
        this.lock = lock;
        this.clock = clock;
        this.refreshNs = settings.latencyRefreshNs();
        this.inflightMaxAgeNs = settings.inflightMaxAgeNs();
        this.installer = installer;
        this.publisher = publisher;
        this.serverPublisher = serverPublisher;
        this.nextServerNs = originNs;
        this.layout = layout;
        this.leases = leases;
        this.leaseEpochs = leaseEpochs;
        this.onLeaseReclaimed = layout::countHealedLease;
        this.nextRefreshNs = originNs + refreshNs;
        this.counters = counters;
        this.wallClock = wallClock;
        this.nextHeartbeatMs = counters.hasFile() ? wallClock.time() + CountersFileLayout.HEARTBEAT_INTERVAL_MS :
            Long.MAX_VALUE;
    }

    /** @return the work done: windows refreshed plus leases reclaimed, 0 when nothing was due. */
    int refresh()
    {
        if (nextHeartbeatMs != Long.MAX_VALUE)
        {
            heartbeat();
        }
        final long nowNs = clock.nanoTime();
        if (nowNs - nextRefreshNs < 0)
        {
            return nowNs - nextServerNs < 0 ? 0 : serverCycle(nowNs);
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
        writeFile();
    }

    /** Writes the counters file now, with a heartbeat (when the engine has one and is open). */
    void writeFile()
    {
        synchronized (lock)
        {
            if (nextHeartbeatMs != Long.MAX_VALUE && !installer.closed())
            {
                final long nowMs = wallClock.time();
                counters.writeFile(nowMs);
                nextHeartbeatMs = nowMs + CountersFileLayout.HEARTBEAT_INTERVAL_MS;
            }
        }
    }

    /** Writes the counters file one last time, marked closed (after the engine closed): no heartbeat follows. */
    void closeFile()
    {
        synchronized (lock)
        {
            if (nextHeartbeatMs != Long.MAX_VALUE)
            {
                nextHeartbeatMs = Long.MAX_VALUE;
                counters.closeFile(wallClock.time());
            }
        }
    }

    private void heartbeat()
    {
        final long nowMs = wallClock.time();
        if (nowMs - nextHeartbeatMs < 0)
        {
            return;
        }
        synchronized (lock)
        {
            if (nextHeartbeatMs != Long.MAX_VALUE && nowMs - nextHeartbeatMs >= 0 && !installer.closed())
            {
                nextHeartbeatMs = nowMs + CountersFileLayout.HEARTBEAT_INTERVAL_MS;
                counters.writeFile(nowMs);
            }
        }
    }

    // The server signals alone, once per scrape period between refreshes (the scrapes come faster than latency_refresh).
    private int serverCycle(final long nowNs)
    {
        if (serverPublisher.signals().settings() == null)
        {
            // Off: look again at the next refresh rather than on every duty cycle.
            nextServerNs = nextRefreshNs;
            return 0;
        }
        synchronized (lock)
        {
            if (installer.closed() || nowNs - nextServerNs < 0)
            {
                return 0;
            }
            publishServerSignals(installer.state, nowNs);
            return 1;
        }
    }

    // Under lock.
    private void publishServerSignals(final EngineState s, final long nowNs)
    {
        serverPublisher.publish(s, nowNs);
        final ServerMetricsSettings serverSettings = serverPublisher.signals().settings();
        nextServerNs = nowNs + (serverSettings == null ? refreshNs : Math.min(serverSettings.everyNs(), refreshNs));
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
                signals.refresh(sliceIndex, nowNs);
                work++;
            }
        }
        publisher.publish(s, nowNs);
        publishServerSignals(s, nowNs);
        if (counterBlocksOrNull != null)
        {
            // Every thread's selection and drop counts since the previous cycle, into the shared counters.
            counterBlocksOrNull.aggregate();
        }
        if (leaseEpochs.advance(nowNs))
        {
            // Leases are stamped with epochs, not times: one stamped below the cutoff began more than the max age ago.
            work += leases.sweep(leaseEpochs.cutoff(nowNs, inflightMaxAgeNs), onLeaseReclaimed, onProbeReclaimed);
            // After this cycle's fold above: a retired counter is freed only once its last counts are in.
            layout.reclaim(nowNs);
        }
        // After the sweep: a probe it found lost is already ejected again.
        publishEjected(s);
        SessionTables.publishLive(s, nowNs, counters.values());
        return work;
    }

    // Under lock: each model's mf.ejected counter from its word (for bin/mf stat and the meters; one cycle old).
    private void publishEjected(final EngineState s)
    {
        final long nowMs = ejections.nowMs();
        for (final ModelSignals signals : s.byModel)
        {
            if (signals != null && signals.ejectedOffset >= 0)
            {
                final long word = signals.ejection.word();
                final int phase = EjectionWord.phase(word);
                final long value = phase == EjectionWord.PROBING ? CounterTypes.EJECTED_PROBING :
                    phase == EjectionWord.EJECTED ? Math.max(0, EjectionWord.timeMs(word) - nowMs) : 0;
                counters.values().putLongRelease(signals.ejectedOffset, value);
            }
        }
    }
}
