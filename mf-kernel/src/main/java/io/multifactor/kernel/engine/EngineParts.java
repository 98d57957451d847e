package io.multifactor.kernel.engine;

import io.multifactor.kernel.inflight.LeaseTable;
import io.multifactor.kernel.latency.LatencyEstimatorType;
import io.multifactor.kernel.latency.LatencyWindow;
import io.multifactor.kernel.metrics.CounterBuffers;
import io.multifactor.kernel.metrics.PerThreadCounterBlocks;
import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.reliability.EjectionTable;
import io.multifactor.kernel.signal.ServerSignals;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;

/**
 * Assembles the parts of one engine from its builder's settings, in the order their counters are allocated: the
 * counter buffers and their layout (engine-wide counters first), the lease table, then selection, reserve, explain,
 * samples, plan installation, publication (latency and model-server signals), refresh, the fleet bridge, the ends of
 * leases, the ejection override, plan replacement and the server configuration, all sharing the engine's one lock,
 * and the readout of plans, handles and counts.
 * <p>
 * This class is not threadsafe: it is built and read once, on the thread that builds the engine.
 */
final class EngineParts
{
    final Object lock = new Object();
    final Plans firstPlans;
    final NanoClock clock;
    final SignalSettings settings;
    final CounterBuffers counters;
    final AtomicBuffer values;
    final CounterLayout layout;
    final LeaseTable leases;
    final PerThreadCounterBlocks counterBlocks;
    final EjectionTable ejections;
    final long originNs;
    final StateInstaller installer;
    final ReserveOnSelect reserver;
    final Selector selector;
    final Explainer explainer;
    final SampleRecorder samples;
    final RefreshCycle refreshCycle;
    final FleetBridge fleet;
    final ServerLoadPublisher serverPublisher;
    final LeaseEnder leaseEnder;
    final EjectionOverride ejectionOverride;
    final PlansReplacement plansReplacement;
    final ServerConfiguration serverConfiguration;
    final EngineReadout readout;

    EngineParts(final MultiFactorEngine.Builder builder)
    {
        firstPlans = builder.plans;
        clock = builder.clock;
        settings = builder.settings;
        counters = builder.countersFile == null ? CounterBuffers.inMemory(builder.counterCapacity) :
            CounterBuffers.mirroredTo(builder.countersFile, builder.counterCapacity);
        values = counters.values();
        layout = new CounterLayout(
            counters, Math.max(MultiFactorEngine.RETIRED_COUNTER_GRACE_NS, 2 * settings.latencyRefreshNs()));
        leases = new LeaseTable(builder.leaseCapacity, values, layout.leaseTableFullOffset, layout.leasesReclaimedOffset);
        originNs = clock.nanoTime();
        ejections = new EjectionTable(counters.capacity(), clock, originNs);
        final long sliceNs = Math.max(1L, settings.latencyWindowNs() / LatencyWindow.SLICE_COUNT);
        final long sweepPeriodNs = Math.max(
            settings.latencyRefreshNs(), settings.inflightMaxAgeNs() / MultiFactorEngine.SWEEPS_PER_MAX_AGE);
        final LeaseEpochs leaseEpochs = new LeaseEpochs(originNs, sweepPeriodNs);
        final SignalPublisher publisher = new SignalPublisher(values);
        final ServerSignals serverSignals = new ServerSignals(originNs);
        if (builder.serverMetrics != null)
        {
            serverSignals.configure(builder.serverMetrics, builder.serverBackends, originNs);
        }
        serverPublisher = new ServerLoadPublisher(serverSignals, values);
        counterBlocks = builder.countSelections ? new PerThreadCounterBlocks(values) : null;
        installer = new StateInstaller(lock, layout, publisher, serverPublisher, originNs, sliceNs, counterBlocks,
            settings, clock, ejections);
        reserver = new ReserveOnSelect(leases, leaseEpochs, settings.defaultRequestTokens());
        selector = new Selector(reserver, counterBlocks, clock);
        explainer = new Explainer(installer, settings.latencyEstimator() == LatencyEstimatorType.PEAK_EWMA, clock);
        samples = new SampleRecorder(installer, layout, clock);
        refreshCycle = new RefreshCycle(
            lock, clock, settings, originNs, installer, publisher, serverPublisher, layout, leases, leaseEpochs,
            counterBlocks, counters,
            SystemEpochClock.INSTANCE, ejections);
        fleet = new FleetBridge(lock, clock, installer, values);
        leaseEnder = new LeaseEnder(leases, ejections);
        ejectionOverride = new EjectionOverride(installer, ejections);
        plansReplacement = new PlansReplacement(installer, clock);
        serverConfiguration = new ServerConfiguration(serverSignals, installer, plansReplacement, clock);
        readout = new EngineReadout(installer, counters, layout, leases, lock);
    }
}
