package io.multifactor.envoy;

import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.reload.ConfigReloader;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A running engine built from a configuration file: the engine itself, its refresh agent on its own thread, and a
 * watcher that hot-reloads the file (a refused file keeps the running plans).
 * <p>
 * This class is threadsafe: the engine is, reloads serialize in the reloader, and {@link #close()} may be called from
 * any thread (once is enough; later calls do nothing).
 */
public final class EngineHost implements AutoCloseable
{
    /** Quiet period that ends a burst of file events before a reload, milliseconds. */
    public static final long RELOAD_DEBOUNCE_MS = 100;

    private final LoadedConfig loaded;
    private final MultiFactorEngine engine;
    private final AgentRunner refresh;
    private final ConfigReloader reloader;
    private final AtomicLong refreshErrors;
    private volatile boolean closed;

    private EngineHost(final LoadedConfig loaded, final MultiFactorEngine engine, final AgentRunner refresh,
        final ConfigReloader reloader, final AtomicLong refreshErrors)
    {
        this.refreshErrors = refreshErrors;
        this.loaded = loaded;
        this.engine = engine;
        this.refresh = refresh;
        this.reloader = reloader;
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
        return start(config, onReload, null);
    }

    /**
     * As {@link #start(Path, Consumer)}, and tells {@code beforeApplyOrNull} each valid configuration the watcher
     * reads, just before its plans are swapped in (so what is kept beside the plans follows the same file).
     *
     * @param config the configuration file.
     * @param onReload told the result of every reload, on the watcher thread; {@code null} for no watching.
     * @param beforeApplyOrNull told each valid reloaded configuration before the swap, on the watcher thread; or
     *     {@code null}.
     * @return the running host.
     * @throws InvalidConfigurationException when the file is not valid (nothing is started).
     * @throws IOException when the file's directory cannot be watched (nothing is left running).
     */
    public static EngineHost start(final Path config, final Consumer<ReloadResult> onReload,
        final Consumer<LoadedConfig> beforeApplyOrNull) throws InvalidConfigurationException, IOException
    {
        return start(config, null, onReload, beforeApplyOrNull);
    }

    /**
     * As {@link #start(Path, Consumer, Consumer)}, with an overlay that completes a vLLM Semantic Router configuration:
     * applied at start and on every reload, and watched like the configuration.
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
        final MultiFactorEngine engine = MultiFactorEngine.builder(loaded.plans())
            .settings(loaded.signalSettings())
            .countersFile(loaded.countersFile())
            .build();
        final AtomicLong errors = new AtomicLong();
        final ErrorHandler countErrors = throwable -> errors.incrementAndGet();
        final AgentRunner refresh =
            new AgentRunner(new SleepingMillisIdleStrategy(1), countErrors, null, engine.agent());
        final ConfigReloader reloader = new ConfigReloader(engine, overlayOrNull);
        final EngineHost host = new EngineHost(loaded, engine, refresh, reloader, errors);
        AgentRunner.startOnThread(refresh);
        if (onReload != null)
        {
            try
            {
                reloader.watch(config, onReload, RELOAD_DEBOUNCE_MS, beforeApplyOrNull);
            }
            catch (final IOException | RuntimeException ex)
            {
                host.close();
                throw ex;
            }
        }
        return host;
    }

    /** @return the engine. */
    public MultiFactorEngine engine()
    {
        return engine;
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

    /** Stops watching, stops the refresh agent and closes the engine. */
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
        refresh.close();
        engine.close();
    }
}
