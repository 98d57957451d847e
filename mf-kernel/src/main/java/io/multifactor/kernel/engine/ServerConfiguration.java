package io.multifactor.kernel.engine;

import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.ServerSignals;
import org.agrona.concurrent.NanoClock;

import java.util.List;

/**
 * Owns the engine's model-server configuration: the {@link ServerSignals} the scrape agent writes into, its
 * replacement ({@code signals.server_metrics} and the backends; the current plans are installed again so the
 * {@code mf.server.*} counters follow, and the previous configuration comes back when they cannot be allocated), and
 * the load reports that arrive on responses (ORCA), taken as good scrapes at the engine clock's time.
 * <p>
 * This class is threadsafe: {@link #configure} takes the engine's lock (through {@link StateInstaller#reinstall}) and
 * then tells the plans listeners with no lock held; {@link #report} is lock-free and allocates nothing, from any
 * thread.
 */
final class ServerConfiguration
{
    private final ServerSignals signals;
    private final StateInstaller installer;
    private final PlansReplacement plansReplacement;
    private final NanoClock clock;

    ServerConfiguration(
        final ServerSignals signals,
        final StateInstaller installer,
        final PlansReplacement plansReplacement,
        final NanoClock clock)
    {
        this.signals = signals;
        this.installer = installer;
        this.plansReplacement = plansReplacement;
        this.clock = clock;
    }

    /** @return the engine's model-server signals. */
    ServerSignals signals()
    {
        return signals;
    }

    /**
     * @param settingsOrNull how the backends are scraped, or {@code null} to stop using server signals.
     * @param backends the backends (ignored without settings), copied.
     * @throws IllegalStateException when a counter cannot be allocated (the previous configuration is then back), or
     *     the engine is closed.
     */
    void configure(final ServerMetricsSettings settingsOrNull, final List<ServerBackend> backends)
    {
        final List<ServerBackend> next = List.copyOf(backends);
        final ServerMetricsSettings previousSettings = signals.settings();
        final List<ServerBackend> previousBackends = signals.backends();
        try
        {
            installer.reinstall(clock, () -> signals.configure(settingsOrNull, next, clock.nanoTime()));
        }
        catch (final IllegalStateException ex)
        {
            if (!installer.isClosed())
            {
                installer.reinstall(clock, () -> signals.configure(previousSettings, previousBackends, clock.nanoTime()));
            }
            throw ex;
        }
        plansReplacement.tellListeners();
    }

    /**
     * @param modelId the model's handle in the current plans.
     * @param backendKey the backend's origin ({@code http://host:port}), or null.
     * @param waiting waiting requests, or NaN when not reported.
     * @param running running requests, or NaN when not reported.
     * @param kvUse KV-cache use in [0, 1], or NaN when not reported.
     * @return whether the values were taken.
     */
    boolean report(
        final int modelId, final String backendKey, final double waiting, final double running, final double kvUse)
    {
        final String model = installer.state.plans.modelName(modelId);
        return model != null && backendKey != null &&
            signals.report(model, backendKey, waiting, running, kvUse, clock.nanoTime());
    }
}
