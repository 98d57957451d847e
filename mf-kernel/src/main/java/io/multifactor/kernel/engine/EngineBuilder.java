package io.multifactor.kernel.engine;

import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@link MultiFactorEngine.Builder} sets, and its methods: the engine's clock, signal settings, counters file,
 * lease and counter capacities, and whether selections are counted. Typed by the builder that extends it, so every
 * method returns {@link MultiFactorEngine.Builder}.
 * <p>
 * This class is not threadsafe: build on one thread.
 *
 * @param <B> the concrete builder.
 */
abstract class EngineBuilder<B extends EngineBuilder<B>>
{
    final Plans plans;
    NanoClock clock = SystemNanoClock.INSTANCE;
    SignalSettings settings = SignalSettings.defaults();
    Path countersFile;
    int leaseCapacity = MultiFactorEngine.DEFAULT_LEASE_CAPACITY;
    int counterCapacity = MultiFactorEngine.DEFAULT_COUNTER_CAPACITY;
    boolean countSelections = true;
    ServerMetricsSettings serverMetrics;
    List<ServerBackend> serverBackends = List.of();

    EngineBuilder(final Plans plans)
    {
        this.plans = Objects.requireNonNull(plans, "plans");
    }

    abstract B self();

    /**
     * @param clock the time source of windows, refresh and lease ages ({@code CachedNanoClock} in tests).
     * @return this builder.
     */
    public B clock(final NanoClock clock)
    {
        this.clock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /**
     * @param settings window, refresh period and lease max age.
     * @return this builder.
     */
    public B settings(final SignalSettings settings)
    {
        this.settings = Objects.requireNonNull(settings, "settings");
        return self();
    }

    /**
     * Copies the counters to a file (replaced if it exists) that another process reads ({@code bin/mf stat},
     * {@link io.multifactor.kernel.metrics.CountersFileReader}): the counters stay in direct memory the engine owns,
     * the file is written whole by {@link #build()} (so its space is reserved: {@code build()} fails with an
     * {@link java.io.UncheckedIOException} that says why when it cannot be) and then kept current, with a heartbeat,
     * by the refresh agent every 250 ms. By default there is no file.
     *
     * @param countersFile path of the file, or null for direct memory.
     * @return this builder.
     */
    public B countersFile(final Path countersFile)
    {
        this.countersFile = countersFile;
        return self();
    }

    /**
     * @param leaseCapacity number of lease slots (the most requests in flight counted at once), a power of two;
     *     default {@link MultiFactorEngine#DEFAULT_LEASE_CAPACITY}.
     * @return this builder.
     */
    public B leaseCapacity(final int leaseCapacity)
    {
        this.leaseCapacity = leaseCapacity;
        return self();
    }

    /**
     * @param counterCapacity number of Agrona counters, for the metric and in-flight counters of the current plans
     *     (and those retired less than {@link MultiFactorEngine#RETIRED_COUNTER_GRACE_NS} ago); default
     *     {@link MultiFactorEngine#DEFAULT_COUNTER_CAPACITY}.
     * @return this builder.
     */
    public B counterCapacity(final int counterCapacity)
    {
        this.counterCapacity = counterCapacity;
        return self();
    }

    /**
     * @param countSelections whether {@code select} counts selections and drops (default true: into the calling
     *     thread's own counter block, added into the shared counters once per refresh period; false saves the
     *     thread-local lookup and the stores, for measuring what counting costs).
     * @return this builder.
     */
    public B countSelections(final boolean countSelections)
    {
        this.countSelections = countSelections;
        return self();
    }

    /**
     * Scrapes model servers from the start ({@code signals.server_metrics} and the backends of the models whose
     * {@code server} is set): the engine's {@link io.multifactor.kernel.signal.ServerSignals} is configured with them
     * before the first plans are installed, so their counters exist from the start. The scrape agent (module
     * {@code mf-servers}) feeds it; {@link MultiFactorEngine#configureServers} changes it later. By default, none.
     *
     * @param settingsOrNull how the backends are scraped, or {@code null} for none.
     * @param backends the backends (ignored without settings).
     * @return this builder.
     */
    public B serverMetrics(final ServerMetricsSettings settingsOrNull, final List<ServerBackend> backends)
    {
        this.serverMetrics = settingsOrNull;
        this.serverBackends = List.copyOf(backends);
        return self();
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
