package io.multifactor.gateway;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.kernel.fleet.FleetExchange;
import io.multifactor.micrometer.MultiFactorMetrics;
import io.multifactor.serving.BackendChooser;
import io.multifactor.serving.EngineHost;
import io.multifactor.serving.PrefixBackends;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A running OpenAI-compatible gateway: the engine built from a configuration file, its refresh agent, Vert.x event
 * loops serving {@code POST /v1/chat/completions}, {@code /v1/completions}, {@code /v1/responses} and
 * {@code /v1/embeddings} (proxied to the chosen model's backends, or to a model named directly), {@code GET /v1/models}
 * (the decisions), {@code /metrics}, {@code /healthz} and {@code /readyz}, and a watcher that reloads the file when it
 * changes (a bad file is refused and the running configuration stays). With {@link OperatingOptions}: client keys, a
 * separate admin port, TLS, an access log, and a {@link #drain()} for a graceful shutdown.
 * <p>
 * This class is threadsafe: {@link #reload()} and {@link #close()} may be called from any thread.
 */
public final class Gateway implements AutoCloseable
{
    private final EngineHost host;
    private final MultiFactorEngine engine;
    private final PrometheusMeterRegistry registry;
    private final MultiFactorMetrics metrics;
    private final GatewayRoutes routes;
    private final GatewayMeters meters;
    private final VertxFront front;
    private final int port;
    private final int adminPort;
    private final OperatingOptions operating;
    private final PrefixBackends prefixBackends;
    private volatile boolean closing;

    private Gateway(final LoadedConfig loaded, final Path configFile, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull, final GatewayOptions options, final OperatingOptions operating,
        final Consumer<ReloadResult> reloadListener) throws IOException
    {
        this.operating = operating;
        this.host = EngineHost.start(loaded, configFile, overlayOrNull, fleetExchangeOrNull);
        this.engine = host.engine();
        this.prefixBackends = host.prefixBackends();
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        GatewayMeters.configure(registry);
        this.metrics = new MultiFactorMetrics(engine);
        metrics.bindTo(registry);
        this.port = options.port() == 0 ? freePort(options.host()) : options.port();
        this.adminPort = operating.adminPort() == 0 ? freePort(options.host()) : operating.adminPort();
        this.meters = new GatewayMeters(registry);
        this.routes = new GatewayRoutes(engine, meters, options.withPort(port), operating,
            BackendChooser.following(loaded, engine, prefixBackends));
        bindPrefixMeters();
        final AccessLog accessLog = operating.accessLogOrNull();
        if (accessLog != null)
        {
            FunctionCounter.builder("mf.gateway.access_log.dropped", accessLog, AccessLog::dropped)
                .description("access log lines dropped because the writer fell behind").register(registry);
        }
        try
        {
            this.front = VertxFront.start(routes, registry, () -> !closing, adminPort);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeEngine();
            throw ex;
        }
        if (configFile != null)
        {
            try
            {
                host.watch(reloadListener, options.reloadDebounceMs(), this::install);
            }
            catch (final IOException | RuntimeException ex)
            {
                closeQuietly();
                throw ex;
            }
        }
    }

    /**
     * Loads the configuration file, builds the engine and starts serving.
     *
     * @param configFile the configuration (the project's format, or a vLLM Semantic Router file); watched for changes.
     * @param options where to listen, timeouts.
     * @param reloadListener told the result of every reload, on the watcher's thread.
     * @return the running gateway.
     * @throws InvalidConfigurationException with every problem of the file.
     * @throws IOException when the port cannot be bound or the file cannot be watched.
     */
    public static Gateway start(final Path configFile, final GatewayOptions options,
        final Consumer<ReloadResult> reloadListener) throws InvalidConfigurationException, IOException
    {
        return start(configFile, null, options, reloadListener);
    }

    /**
     * As {@link #start(Path, GatewayOptions, Consumer)}, with an overlay that completes a vLLM Semantic Router
     * configuration: applied at start and on every reload, and watched like the configuration.
     *
     * @param configFile the configuration (the project's format, or a vLLM Semantic Router file); watched for changes.
     * @param overlayOrNull the overlay file, or {@code null} for none.
     * @param options where to listen, timeouts.
     * @param reloadListener told the result of every reload, on the watcher's thread.
     * @return the running gateway.
     * @throws InvalidConfigurationException with every problem of both files.
     * @throws IOException when the port cannot be bound or a file cannot be watched.
     */
    public static Gateway start(final Path configFile, final Path overlayOrNull, final GatewayOptions options,
        final Consumer<ReloadResult> reloadListener) throws InvalidConfigurationException, IOException
    {
        return start(configFile, overlayOrNull, null, options, reloadListener);
    }

    /**
     * As {@link #start(Path, Path, GatewayOptions, Consumer)}, with the engine sharing its signals with the other
     * replicas of its fleet through an exchange.
     *
     * @param configFile the configuration (the project's format, or a vLLM Semantic Router file); watched for changes.
     * @param overlayOrNull the overlay file, or {@code null} for none.
     * @param fleetExchangeOrNull the fleet's transport (the gateway closes it), or {@code null} for none.
     * @param options where to listen, timeouts.
     * @param reloadListener told the result of every reload, on the watcher's thread.
     * @return the running gateway.
     * @throws InvalidConfigurationException with every problem of both files.
     * @throws IOException when the port cannot be bound or a file cannot be watched.
     */
    public static Gateway start(final Path configFile, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull, final GatewayOptions options,
        final Consumer<ReloadResult> reloadListener) throws InvalidConfigurationException, IOException
    {
        return start(ConfigLoader.load(configFile, overlayOrNull, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY),
            configFile, overlayOrNull, fleetExchangeOrNull, options, reloadListener);
    }

    /**
     * As {@link #start(Path, Path, FleetExchange, GatewayOptions, Consumer)}, for a caller that has loaded the files
     * already (to read their {@code fleet:} block, say): they are not read again at start, only watched.
     *
     * @param loaded the configuration, as loaded from {@code configFile} and {@code overlayOrNull}.
     * @param configFile the configuration file, watched for changes.
     * @param overlayOrNull the overlay file, or {@code null} for none.
     * @param fleetExchangeOrNull the fleet's transport (the gateway closes it), or {@code null} for none.
     * @param options where to listen, timeouts.
     * @param reloadListener told the result of every reload, on the watcher's thread.
     * @return the running gateway.
     * @throws IOException when the port cannot be bound or a file cannot be watched.
     */
    public static Gateway start(final LoadedConfig loaded, final Path configFile, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull, final GatewayOptions options,
        final Consumer<ReloadResult> reloadListener) throws IOException
    {
        return start(loaded, configFile, overlayOrNull, fleetExchangeOrNull, options, OperatingOptions.defaults(),
            reloadListener);
    }

    /**
     * As {@link #start(LoadedConfig, Path, Path, FleetExchange, GatewayOptions, Consumer)}, run as an operator runs
     * it: with client keys, an admin port, TLS, an access log and a drain, as {@code operating} says.
     *
     * @param loaded the configuration, as loaded from {@code configFile} and {@code overlayOrNull}.
     * @param configFile the configuration file, watched for changes, or {@code null} to watch nothing.
     * @param overlayOrNull the overlay file, or {@code null} for none.
     * @param fleetExchangeOrNull the fleet's transport (the gateway closes it), or {@code null} for none.
     * @param options where to listen, timeouts.
     * @param operating keys, admin port, TLS, access log (the gateway closes it) and drain.
     * @param reloadListener told the result of every reload, on the watcher's thread.
     * @return the running gateway.
     * @throws IOException when a port cannot be bound ({@link java.net.BindException} in the cause chain) or a
     *     file cannot be watched.
     */
    public static Gateway start(final LoadedConfig loaded, final Path configFile, final Path overlayOrNull,
        final FleetExchange fleetExchangeOrNull, final GatewayOptions options, final OperatingOptions operating,
        final Consumer<ReloadResult> reloadListener) throws IOException
    {
        return new Gateway(loaded, configFile, overlayOrNull, fleetExchangeOrNull, options, operating, reloadListener);
    }

    /**
     * Starts serving a configuration already loaded, without watching a file.
     *
     * @param loaded the configuration.
     * @param options where to listen, timeouts.
     * @return the running gateway.
     * @throws IOException when the port cannot be bound.
     */
    public static Gateway start(final LoadedConfig loaded, final GatewayOptions options) throws IOException
    {
        return new Gateway(loaded, null, null, null, options, OperatingOptions.defaults(), result -> { });
    }

    /** Before a reloaded configuration's plans are swapped in: its backends (the host follows its scraping). */
    private void install(final LoadedConfig loaded)
    {
        routes.chooser(BackendChooser.following(loaded, engine, prefixBackends));
        bindPrefixMeters();
    }

    /** {@code mf.prefix.choices{backend,result}} and {@code mf.prefix.blocks{backend,kind}} of the backends known. */
    private void bindPrefixMeters()
    {
        prefixBackends.forEachCounter((name, backend, tagKey, tagValue, counted, which) ->
            FunctionCounter.builder(name, counted, b -> PrefixBackends.value(b, which))
                .description(PrefixBackends.help(name)).tags("backend", backend, tagKey, tagValue).register(registry));
    }

    /** @return the prefix-cache affinity state per backend (indexes, waits, counters), kept across reloads. */
    public PrefixBackends prefixBackends()
    {
        return prefixBackends;
    }

    /**
     * Reloads the configuration file now (as the watcher does on a change).
     *
     * @return what the reload did.
     * @throws IllegalStateException when the gateway watches no file.
     */
    public ReloadResult reload()
    {
        return host.reload();
    }

    /** @return the port the gateway listens on. */
    public int port()
    {
        return port;
    }

    /** @return the admin port, or {@link OperatingOptions#NO_ADMIN_PORT} when the main port serves the admin paths. */
    public int adminPort()
    {
        return adminPort;
    }

    /** @return the engine that selects for the gateway. */
    public MultiFactorEngine engine()
    {
        return engine;
    }

    /** @return the registry behind {@code GET /metrics}. */
    public PrometheusMeterRegistry registry()
    {
        return registry;
    }

    /** @return what the running configuration leaves unusable (a model without backends, an unset API key). */
    public List<String> warnings()
    {
        return routes.chooser().problems();
    }

    /** Stops listening (in-flight requests are cut), the watcher, the refresh agent and the engine. */
    @Override
    public void close()
    {
        closing = true;
        closeQuietly();
    }

    /**
     * A graceful shutdown (what {@code bin/mf serve} does on SIGTERM): {@code /readyz} answers 503 at once, new
     * connections are still accepted for the drain delay (load balancers notice meanwhile), then the port stops
     * accepting and open requests may finish within the drain timeout; those still open are then cut (their leases
     * ended, as for a client that hangs up) and the gateway is closed. Blocks the calling thread throughout.
     */
    public void drain()
    {
        closing = true;
        final long delayMs = operating.drainDelayMs();
        if (delayMs > 0)
        {
            try
            {
                Thread.sleep(delayMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        routes.shutdownGraceMs = operating.drainTimeoutMs();
        closeQuietly();
    }

    private void closeQuietly()
    {
        front.close(routes.shutdownGraceMs);
        closeEngine();
    }

    private void closeEngine()
    {
        if (meters != null)
        {
            meters.close();
        }
        metrics.close();
        host.close();
        registry.close();
        final AccessLog accessLog = operating.accessLogOrNull();
        if (accessLog != null)
        {
            accessLog.close();
        }
    }

    private static int freePort(final String host)
    {
        try (ServerSocket socket = new ServerSocket())
        {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free port on " + host, ex);
        }
    }
}
