package io.multifactor.kernel.engine;

import io.multifactor.kernel.plan.Plans;
import io.multifactor.kernel.plan.PlansBuilder;
import io.multifactor.kernel.signal.ServerBackend;
import io.multifactor.kernel.signal.ServerMetricsSettings;
import io.multifactor.kernel.signal.ServerSignals;

import java.util.List;

/**
 * What operators and integrations change in a running engine, off the hot path, and the part of
 * {@link MultiFactorEngine} that answers it: the plans ({@link PlansReplacement}: replacement and the listeners that
 * follow it), the model-server configuration and the load reports that arrive on responses
 * ({@link ServerConfiguration}), and an operator's ejection of a model ({@link EjectionOverride}). Every public
 * method here is a public method of {@link MultiFactorEngine}, a one-line delegation.
 * <p>
 * This class is threadsafe: plan replacement and server configuration take the engine's lock (and tell the listeners
 * with no lock held); the load reports, the ejection override and its readout are lock-free from any thread.
 */
abstract class EngineControl extends EngineReadout
{
    private final PlansReplacement plansReplacement;
    private final ServerConfiguration serverConfiguration;
    private final EjectionOverride ejectionOverride;
    private final ServerLoadPublisher serverPublisher;

    EngineControl(final EngineParts parts)
    {
        super(parts);
        plansReplacement = parts.plansReplacement;
        serverConfiguration = parts.serverConfiguration;
        ejectionOverride = parts.ejectionOverride;
        serverPublisher = parts.serverPublisher;
    }

    /**
     * Replaces the plans atomically. Models that keep their name keep their in-flight counter and latency windows
     * (build {@code next} with {@link PlansBuilder#PlansBuilder(Plans)} so they also keep their handles); a retired
     * model's {@code begin} and {@code record*} become no-ops, and its open leases still end normally. Percentiles of
     * the new plans are computed before the swap. Off the hot path: allocates, and waits for a running refresh.
     *
     * @param next the new snapshot.
     * @throws IllegalStateException when a new model name needs a counter and every counter is in use (the running plans
     *     stay), or the engine is closed.
     */
    public void replacePlans(final Plans next)
    {
        plansReplacement.replace(next);
    }

    /**
     * Adds a listener called on the replacing thread after each successful {@link #replacePlans}, once the new plans
     * and their counters are published (the metrics binder follows reloads so). It must not replace plans itself.
     *
     * @param listener called with no lock held.
     */
    public void addPlansListener(final Runnable listener)
    {
        plansReplacement.addListener(listener);
    }

    /** @param listener a listener added with {@link #addPlansListener(Runnable)}. */
    public void removePlansListener(final Runnable listener)
    {
        plansReplacement.removeListener(listener);
    }

    /**
     * @return the engine's model-server signals: the table the scrape agent (module {@code mf-servers}) writes into,
     *     and the settings and backends it scrapes.
     */
    public ServerSignals serverSignals()
    {
        return serverConfiguration.signals();
    }

    /**
     * Replaces what is scraped ({@code signals.server_metrics} and the backends of the models whose {@code server} is
     * set, such as {@code LoadedConfig.serverMetrics()} and {@code serverBackends()} after a reload): a backend that
     * stays keeps its values, freshness and counts, a model that stays keeps its grace period, and the
     * {@code mf.server.*} counters follow (the plans listeners are told, as after {@link #replacePlans}). The scrape
     * agent picks the change up at its next cycle. Off the hot path: allocates, and waits for a running refresh.
     *
     * @param settingsOrNull how the backends are scraped, or {@code null} to stop using server signals.
     * @param backends the backends (ignored without settings).
     * @throws IllegalStateException when a counter cannot be allocated (the previous server configuration is then
     *     back), or the engine is closed.
     */
    public void configureServers(final ServerMetricsSettings settingsOrNull, final List<ServerBackend> backends)
    {
        serverConfiguration.configure(settingsOrNull, backends);
    }

    /**
     * Feeds one backend's load from an ORCA load report on a response ({@code endpoint-load-metrics}): it counts as a
     * good scrape of that backend at the engine clock's time now. Any thread; allocates nothing; never throws for an
     * expected outcome.
     *
     * @param modelId the model's handle.
     * @param backendKey the backend's origin, {@link ServerBackend#key()} ({@code http://host:port}).
     * @param waiting waiting requests, finite and >= 0, or NaN when not reported.
     * @param running running requests, or NaN when not reported.
     * @param kvUse KV-cache use in [0, 1], or NaN when not reported (not both NaN).
     * @return whether the values were taken: {@code false} for a model without server signals, a backend it does not
     *     list, or a value out of range (counted as a refused scrape).
     */
    public boolean reportServerLoad(
        final int modelId, final String backendKey, final double waiting, final double running, final double kvUse)
    {
        return serverConfiguration.report(modelId, backendKey, waiting, running, kvUse);
    }

    /**
     * Ejects a model for {@code millis} from now, whatever its {@code reliability} and without raising its ejection
     * count (an operator's override, and what a scenario's {@code ejected_ms} states). When the time is up it is
     * half-open as after any ejection. Off the hot path; lock-free.
     *
     * @param modelId model handle.
     * @param millis how long, > 0.
     * @return whether the model is one of the current plans (false: nothing happened).
     */
    public boolean ejectForMillis(final int modelId, final long millis)
    {
        return ejectionOverride.ejectForMillis(modelId, millis);
    }

    /**
     * @param modelId model handle.
     * @return the milliseconds its ejection has left now (0 while its probe is out), NaN when it is not ejected or
     *     not one of the current plans. Reads the clock.
     */
    public double ejectedMillisLeft(final int modelId)
    {
        return ejectionOverride.ejectedMillisLeft(modelId);
    }

    /** @return the publisher of the model-server signals, for tests. */
    ServerLoadPublisher serverPublisher()
    {
        return serverPublisher;
    }
}
