package io.multifactor.envoy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.multifactor.api.InvalidConfigurationException;
import io.multifactor.config.ConfigLoader;
import io.multifactor.config.LoadedConfig;
import io.multifactor.config.reload.ReloadResult;
import io.multifactor.kernel.engine.MultiFactorEngine;
import io.multifactor.micrometer.MultiFactorMetrics;
import io.multifactor.serving.EngineHost;
import io.multifactor.serving.PrefixBackends;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * The whole ext_proc service as {@code bin/mf envoy} runs it: the engine built from the configuration (hot-reloaded
 * from its file, provider model ids and backends included), the gRPC server with its health service, and the meters
 * (the engine's, through {@link MultiFactorMetrics}, and the service's own {@code mf.envoy.*}) bound to a registry.
 * {@link #close()} shuts down gracefully: open streams finish within the grace period or are cancelled, every lease
 * still open is ended, then the engine closes.
 * <p>
 * This class is threadsafe.
 */
public final class ExtProcApp implements AutoCloseable
{
    private final EngineHost host;
    private final ExtProcContext context;
    private final ExtProcServer server;
    private final MultiFactorMetrics metrics;

    private ExtProcApp(final EngineHost host, final ExtProcContext context, final ExtProcServer server,
        final MultiFactorMetrics metrics)
    {
        this.host = host;
        this.context = context;
        this.server = server;
        this.metrics = metrics;
    }

    /**
     * Loads the configuration, starts the engine, watches the file, binds the meters and starts serving.
     *
     * @param config the configuration file.
     * @param mode what the answers name ({@code vsr} or {@code endpoint}).
     * @param address where to listen: an {@link InetSocketAddress}, or a {@link UnixDomainSocketAddress} (Linux).
     * @param graceMs how long shutdown lets open streams finish.
     * @param registry where the meters go.
     * @param onReload told every reload's result (on the watcher thread), after the service has taken it in.
     * @return the running service.
     * @throws InvalidConfigurationException when the file is not valid (nothing is started).
     * @throws IOException when the address cannot be bound or the file cannot be watched (nothing is left running).
     */
    public static ExtProcApp start(final Path config, final EnvoyMode mode, final SocketAddress address,
        final long graceMs, final MeterRegistry registry, final Consumer<ReloadResult> onReload)
        throws InvalidConfigurationException, IOException
    {
        return start(config, null, mode, address, graceMs, registry, onReload);
    }

    /**
     * As {@link #start(Path, EnvoyMode, SocketAddress, long, MeterRegistry, Consumer)}, with an overlay that
     * completes a vLLM Semantic Router configuration: applied at start and on every reload, and watched like the
     * configuration.
     *
     * @param config the configuration file.
     * @param overlayOrNull the overlay file, or {@code null} for none.
     * @param mode what the answers name ({@code vsr} or {@code endpoint}).
     * @param address where to listen: an {@link InetSocketAddress}, or a {@link UnixDomainSocketAddress} (Linux).
     * @param graceMs how long shutdown lets open streams finish.
     * @param registry where the meters go.
     * @param onReload told every reload's result (on the watcher thread), after the service has taken it in.
     * @return the running service.
     * @throws InvalidConfigurationException when a file is not valid (nothing is started).
     * @throws IOException when the address cannot be bound or a file cannot be watched (nothing is left running).
     */
    public static ExtProcApp start(final Path config, final Path overlayOrNull, final EnvoyMode mode,
        final SocketAddress address, final long graceMs, final MeterRegistry registry,
        final Consumer<ReloadResult> onReload) throws InvalidConfigurationException, IOException
    {
        final LoadedConfig loaded =
            ConfigLoader.load(config, overlayOrNull, null, MultiFactorEngine.DEFAULT_COUNTER_CAPACITY);
        return start(EngineHost.start(loaded, config, overlayOrNull, null), mode, address, graceMs, registry, onReload);
    }

    /**
     * Serves a running engine host (the caller built it, with the fleet exchange or clock it needs): watches its file,
     * binds the meters and starts serving. The service owns the host from then on and closes it.
     *
     * @param host the running engine and its configuration (started with its file, which is watched).
     * @param mode what the answers name ({@code vsr} or {@code endpoint}).
     * @param address where to listen: an {@link InetSocketAddress}, or a {@link UnixDomainSocketAddress} (Linux).
     * @param graceMs how long shutdown lets open streams finish.
     * @param registry where the meters go.
     * @param onReload told every reload's result (on the watcher thread), after the service has taken it in.
     * @return the running service.
     * @throws IOException when the address cannot be bound or the file cannot be watched (the host is closed).
     */
    public static ExtProcApp start(final EngineHost host, final EnvoyMode mode, final SocketAddress address,
        final long graceMs, final MeterRegistry registry, final Consumer<ReloadResult> onReload) throws IOException
    {
        try
        {
            final ExtProcContext context = new ExtProcContext(host.engine(), mode, host.loaded(), host.prefixBackends());
            // Before the swap: the provider model ids and backends of the file whose plans come in.
            host.watch(onReload == null ? result -> { } : onReload, EngineHost.RELOAD_DEBOUNCE_MS, loaded ->
            {
                context.reloaded(loaded);
                bindPrefixMeters(registry, context);
            });
            final MultiFactorMetrics metrics = new MultiFactorMetrics(host.engine());
            metrics.bindTo(registry);
            bindServiceMeters(registry, context);
            bindPrefixMeters(registry, context);
            final ExtProcServer server = ExtProcServer.start(new ExtProcService(context), address, graceMs);
            Gauge.builder("mf.envoy.streams.open", server.service(), ExtProcService::openStreams)
                .description("ext_proc streams open now").register(registry);
            return new ExtProcApp(host, context, server, metrics);
        }
        catch (final IOException | RuntimeException ex)
        {
            host.close();
            throw ex;
        }
    }

    private static void bindServiceMeters(final MeterRegistry registry, final ExtProcContext context)
    {
        counter(registry, "mf.envoy.streams", "ext_proc streams opened", null, null, ExtProcContext::streams, context);
        counter(registry, "mf.envoy.requests", "requests answered with a route", "result", "routed",
            ExtProcContext::routed, context);
        counter(registry, "mf.envoy.requests", "requests answered with an immediate 4xx", "result", "bad_request",
            ExtProcContext::badRequests, context);
        counter(registry, "mf.envoy.requests", "requests answered with an immediate 503", "result", "unavailable",
            ExtProcContext::unavailable, context);
        counter(registry, "mf.envoy.leases", "leases ended at the response's end", "result", "completed",
            ExtProcContext::completed, context);
        counter(registry, "mf.envoy.leases", "leases ended by a cancelled, reset or refused stream", "result",
            "cancelled",
            ExtProcContext::cancelled, context);
        counter(registry, "mf.envoy.errors", "streams closed for a message out of order", "kind", "protocol",
            ExtProcContext::protocolErrors, context);
        counter(registry, "mf.envoy.errors", "messages whose handling failed", "kind", "internal",
            ExtProcContext::internalErrors, context);
        counter(registry, "mf.envoy.requests", "requests shed with an immediate 429 (outcome shed)", "result", "shed",
            ExtProcContext::shed, context);
    }

    /** {@code mf.prefix.choices{backend,result}} and {@code mf.prefix.blocks{backend,kind}} of the backends known. */
    private static void bindPrefixMeters(final MeterRegistry registry, final ExtProcContext context)
    {
        context.prefixBackends().forEachCounter((name, backend, tagKey, tagValue, counted, which) ->
            FunctionCounter.builder(name, counted, b -> PrefixBackends.value(b, which))
                .description(PrefixBackends.help(name)).tags("backend", backend, tagKey, tagValue).register(registry));
    }

    private static void counter(final MeterRegistry registry, final String name, final String description,
        final String tagKey, final String tagValue, final ToDoubleFunction<ExtProcContext> count, final ExtProcContext context)
    {
        final FunctionCounter.Builder<ExtProcContext> builder =
            FunctionCounter.builder(name, context, count).description(description);
        if (tagKey != null)
        {
            builder.tag(tagKey, tagValue);
        }
        builder.register(registry);
    }

    /** @return the TCP port the gRPC server listens on; -1 on a Unix domain socket. */
    public int port()
    {
        return server.port();
    }

    /** @return where the gRPC server listens (with the port it bound, when it was asked for a free one). */
    public SocketAddress address()
    {
        return server.address();
    }

    /** @return the running engine and its configuration. */
    public EngineHost host()
    {
        return host;
    }

    /** @return what the streams share, with the service's counters. */
    public ExtProcContext context()
    {
        return context;
    }

    /** @return the gRPC server. */
    public ExtProcServer server()
    {
        return server;
    }

    /**
     * A drain ({@code bin/mf envoy} on SIGTERM): health {@code NOT_SERVING} at once, new streams accepted for
     * {@code delayMs}, then the graceful {@link #close()}. Blocks the calling thread throughout.
     *
     * @param delayMs how long new streams are still accepted once health says {@code NOT_SERVING}.
     */
    public void drain(final long delayMs)
    {
        server.drain(delayMs);
        close();
    }

    /** Graceful shutdown: the server (open leases ended), then the meters, the watcher and the engine. */
    @Override
    public void close()
    {
        server.close();
        metrics.close();
        host.close();
    }
}
