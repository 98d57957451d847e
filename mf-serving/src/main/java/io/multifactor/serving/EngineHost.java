package io.multifactor.serving;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.model.ModelConfig;
import io.multifactor.config.reload.ConfigReloader;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetAgent;
import io.multifactor.kernel.fleet.FleetExchange;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The one place a serving process (the gateway, the ext_proc service, a framework integration) starts and reloads its
 * engine: the engine built from a loaded configuration, its refresh agent on its own thread, the model servers'
 * scrape agent when the configuration asks ({@link ServerScraping}), optionally a fleet exchange run by a
 * {@link FleetAgent} on its own thread, and a watcher that hot-reloads the file (a refused file keeps the running
 * plans). Errors of the agents are counted, never logged.
 * <p>
 * This class is threadsafe: the engine is, reloads serialize in the reloader, and {@link #close()} may be called from
 * any thread (once is enough; later calls do nothing).
 */
public final class EngineHost implements AutoCloseable
{
    /** Quiet period that ends a burst of file events before a reload, milliseconds. */
    public static final long RELOAD_DEBOUNCE_MS = 100;

    private final LoadedConfig loaded;
    private final Path configOrNull;
    private final MultiFactorEngine engine;
    private final AgentRunner refresh;
    private final AgentRunner fleetOrNull;
    private final FleetExchange fleetExchangeOrNull;
    private final ConfigReloader reloader;
    private final AtomicLong refreshErrors = new AtomicLong();
    private final AtomicLong fleetErrors = new AtomicLong();
    private final ServerScraping scraping;
    private final PrefixBackends prefixBackends;
    private volatile Consumer<LoadedConfig> beforeApply;
    private volatile LoadedConfig current;
    private boolean closed;

    private EngineHost(final LoadedConfig loaded, final Path configOrNull, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull, final NanoClock clockOrNull)
    {
        this.loaded = loaded;
        this.current = loaded;
        this.configOrNull = configOrNull;
        final MultiFactorEngine.Builder builder = MultiFactorEngine.builder(loaded.plans())
            .settings(loaded.signalSettings())
            .countersFile(loaded.countersFile())
            .serverMetrics(loaded.serverMetrics(), loaded.serverBackends());
        if (clockOrNull != null)
        {
            builder.clock(clockOrNull);
        }
        this.engine = builder.build();
        // The prefix counters are the engine's: in its counters file, for bin/mf stat.
        this.prefixBackends = new PrefixBackends(engine);
        this.scraping = new ServerScraping(engine, prefixBackends);
        this.beforeApply = scraping::follow;
        final ErrorHandler countRefreshErrors = throwable -> refreshErrors.incrementAndGet();
        this.refresh = new AgentRunner(new SleepingMillisIdleStrategy(1), countRefreshErrors, null, engine.agent());
        final ErrorHandler countFleetErrors = throwable -> fleetErrors.incrementAndGet();
        this.fleetExchangeOrNull = fleetExchangeOrNull;
        this.fleetOrNull = fleetExchangeOrNull == null ? null : new AgentRunner(new SleepingMillisIdleStrategy(1),
            countFleetErrors, null, FleetAgent.of(engine, fleetExchangeOrNull));
        this.reloader = new ConfigReloader(engine, overlayOrNull);
    }

    /**
     * Builds the engine the configuration's {@code signals:} block asks for and starts its agents (refresh, the scrape
     * agent when the file scrapes model servers, the fleet agent when an exchange is given). Nothing is watched until
     * {@link #watch}.
     *
     * @param loaded the configuration.
     * @param configOrNull the file it was loaded from, which {@link #watch} and {@link #reload()} read; or {@code null}.
     * @param overlayOrNull the overlay that completes a vLLM Semantic Router file on every reload, or {@code null}.
     * @param fleetExchangeOrNull the transport that shares signals with the other replicas, or {@code null} for none;
     *     the host closes it.
     * @return the running host.
     */
    public static EngineHost start(final LoadedConfig loaded, final Path configOrNull, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull)
    {
        return start(loaded, configOrNull, overlayOrNull, fleetExchangeOrNull, null);
    }

    /**
     * As {@link #start(LoadedConfig, Path, Path, FleetExchange)}, with the engine on a given clock (the time of its
     * windows, leases and refresh, and of every TTFT and TPOT the request flow measures): a test that advances a
     * manual clock measures them without sleeping.
     *
     * @param loaded the configuration.
     * @param configOrNull the file it was loaded from, which {@link #watch} and {@link #reload()} read; or {@code null}.
     * @param overlayOrNull the overlay that completes a vLLM Semantic Router file on every reload, or {@code null}.
     * @param fleetExchangeOrNull the transport that shares signals with the other replicas, or {@code null} for none;
     *     the host closes it.
     * @param clockOrNull the engine's clock, or {@code null} for the system's.
     * @return the running host.
     */
    public static EngineHost start(final LoadedConfig loaded, final Path configOrNull, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull, final NanoClock clockOrNull)
    {
        final EngineHost host = new EngineHost(loaded, configOrNull, overlayOrNull, fleetExchangeOrNull, clockOrNull);
        AgentRunner.startOnThread(host.refresh);
        if (host.fleetOrNull != null)
        {
            AgentRunner.startOnThread(host.fleetOrNull);
        }
        // The model servers' metrics are scraped when the file asks (now, or from a reload that does).
        host.scraping.follow(loaded);
        return host;
    }

    /**
     * Loads and validates {@code config}, builds the engine its {@code signals:} block asks for, starts the refresh
     * agent and, when {@code onReload} is not null, watches the file.
     *
     * @param config the configuration file.
     * @param onReload told the result of every reload, on the watcher thread; {@code null} for no watching.
     * @return the running host.
     * @throws InvalidConfigurationException when the file is not valid (nothing is started).
     * @throws IOException when the file's directory cannot be watched (nothing is left running).
     */
    public static EngineHost start(final Path config, final Consumer<ReloadResult> onReload)
        throws InvalidConfigurationException, IOException
    {
        return start(config, null, onReload, null);
    }

    /**
     * As {@link #start(Path, Consumer)}, with an overlay that completes a vLLM Semantic Router configuration (applied
     * at start and on every reload, and watched like the configuration), and told each valid configuration the watcher
     * reads just before its plans are swapped in (so what is kept beside the plans follows the same file).
     *
     * @param config the configuration file.
     * @param overlayOrNull the overlay file, or {@code null} for none.
     * @param onReload told the result of every reload, on the watcher thread; {@code null} for no watching.
     * @param beforeApplyOrNull told each valid reloaded configuration before the swap, on the watcher thread; or
     *     {@code null}.
     * @return the running host.
     * @throws InvalidConfigurationException when a file is not valid (nothing is started).
     * @throws IOException when a file's directory cannot be watched (nothing is left running).
     */
    public static EngineHost start(final Path config, final Path overlayOrNull, final Consumer<ReloadResult> onReload,
        final Consumer<LoadedConfig> beforeApplyOrNull) throws InvalidConfigurationException, IOException
    {
        final LoadedConfig loaded =
            ConfigLoader.load(config, overlayOrNull, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
        final EngineHost host = start(loaded, config, overlayOrNull, null);
        if (onReload != null)
        {
            try
            {
                host.watch(onReload, RELOAD_DEBOUNCE_MS, beforeApplyOrNull);
            }
            catch (final IOException | RuntimeException ex)
            {
                host.close();
                throw ex;
            }
        }
        return host;
    }

    /**
     * Watches the configuration file (and the overlay) and reloads it when it changes.
     *
     * @param onReload told the result of every reload, on the watcher thread.
     * @param debounceMs quiet period after a change before the reload.
     * @param beforeApplyOrNull told each valid reloaded configuration before the swap (also on {@link #reload()}); or
     *     {@code null}.
     * @throws IOException when the file's directory cannot be watched.
     * @throws IllegalStateException when the host was started without a file.
     */
    public void watch(final Consumer<ReloadResult> onReload, final long debounceMs,
        final Consumer<LoadedConfig> beforeApplyOrNull) throws IOException
    {
        follow(beforeApplyOrNull);
        reloader.watch(requireFile(), onReload, debounceMs, this::beforeApply);
    }

    /**
     * Reloads the configuration file now (as the watcher does on a change).
     *
     * @return what the reload did.
     * @throws IllegalStateException when the host was started without a file.
     */
    public ReloadResult reload()
    {
        return reloader.reload(requireFile(), this::beforeApply);
    }

    private void follow(final Consumer<LoadedConfig> beforeApplyOrNull)
    {
        beforeApply = beforeApplyOrNull == null ? scraping::follow : next ->
        {
            scraping.follow(next);
            beforeApplyOrNull.accept(next);
        };
    }

    private void beforeApply(final LoadedConfig next)
    {
        beforeApply.accept(next);
        current = next;
    }

    /**
     * The id a model is sent to its provider as ({@code provider_model_id}, default its name), in the configuration last
     * applied (at start or by a reload): what a framework integration puts in the delegate's {@code model} option.
     * Allocates nothing; a scan of the models.
     *
     * @param modelName a model's name.
     * @return its {@code provider_model_id}, or {@code null} when the configuration has no such model.
     */
    public String providerModelId(final String modelName)
    {
        final List<ModelConfig> models = current.config().models();
        for (int i = 0, n = models.size(); i < n; i++)
        {
            final ModelConfig model = models.get(i);
            if (model.name().equals(modelName))
            {
                return model.providerModelId();
            }
        }
        return null;
    }

    /** @return whether the refresh agent's thread is running (false once it died or the host closed). */
    public boolean refreshAgentAlive()
    {
        final Thread thread = refresh.thread();
        return !refresh.isClosed() && thread != null && thread.isAlive();
    }

    /** @return whether the host runs a fleet exchange. */
    public boolean hasFleet()
    {
        return fleetOrNull != null;
    }

    private Path requireFile()
    {
        if (configOrNull == null)
        {
            throw new IllegalStateException("this engine was started without a configuration file");
        }
        return configOrNull;
    }

    /** @return the engine. */
    public MultiFactorEngine engine()
    {
        return engine;
    }

    /**
     * @return the process's prefix-cache affinity state per backend (give it to {@link BackendChooser#following(
     *     LoadedConfig, MultiFactorEngine, PrefixBackends)}): kept across reloads, its indexes sized from the servers'
     *     {@code vllm:cache_config_info} when they are scraped.
     */
    public PrefixBackends prefixBackends()
    {
        return prefixBackends;
    }

    /** @return the configuration as it was loaded at start (reloads change the engine's plans, not this). */
    public LoadedConfig loaded()
    {
        return loaded;
    }

    /** @return the reloader, to reload on demand (a signal, a test). */
    public ConfigReloader reloader()
    {
        return reloader;
    }

    /** @return how many refresh cycles threw, since start. */
    public long refreshErrorCount()
    {
        return refreshErrors.get();
    }

    /** @return how many fleet exchange cycles threw, since start (0 without a fleet). */
    public long fleetErrorCount()
    {
        return fleetErrors.get();
    }

    /** Stops watching, the scrape agent, the fleet agent (and closes its exchange), the refresh agent and the engine. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        reloader.close();
        scraping.close();
        if (fleetOrNull != null)
        {
            fleetOrNull.close();
            fleetExchangeOrNull.close();
        }
        refresh.close();
        engine.close();
    }
}
