package io.multifactor.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's own meters, beside the engine's: {@code http.server.requests{method,uri,status}} (a timer per route
 * and status class; a client that hung up before the end is {@code aborted}, whatever status was sent),
 * {@code mf.gateway.retries} (attempts made on another candidate), {@code mf.gateway.upstream.errors{cause}},
 * {@code mf.gateway.active} (requests being served), {@code mf.gateway.auth.refused{code}} (client-key refusals), and
 * Micrometer's JVM and process binders (memory, GC, threads,
 * classes, CPU, uptime, file descriptors; but {@code process.cpu.time} and {@code system.cpu.count}, whose names
 * {@code promtool check metrics} rejects). Every meter has a description (Prometheus's HELP). Tags are bounded: routes
 * and status classes, never request data.
 * <p>
 * This class is threadsafe: meters are Micrometer's, updated from any event loop.
 */
final class GatewayMeters implements AutoCloseable
{
    static final String CHAT = "/v1/chat/completions";
    static final String COMPLETIONS = "/v1/completions";
    static final String RESPONSES = "/v1/responses";
    static final String EMBEDDINGS = "/v1/embeddings";
    static final String MODELS = "/v1/models";
    /** The proxied routes, in the order of their index ({@link #record}). */
    static final String[] PROXIED = {CHAT, COMPLETIONS, RESPONSES, EMBEDDINGS};
    private static final String[] URIS = {CHAT, COMPLETIONS, RESPONSES, EMBEDDINGS, "other"};
    private static final String[] STATUSES = {"1xx", "2xx", "3xx", "4xx", "5xx", "aborted"};

    private final Timer[][] requests = new Timer[URIS.length][STATUSES.length];
    final Counter retries;
    final Counter connectErrors;
    final Counter statusErrors;
    final Counter rateLimited;
    final Counter timeouts;
    final Counter resets;
    final AtomicLong active = new AtomicLong();
    /** Requests refused for a missing or unknown client key (401). */
    final Counter unauthorized;
    /** Requests refused because their key may not use their decision (403). */
    final Counter forbidden;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    /**
     * Configures a registry before any meter is registered on it: two of Micrometer's processor meters break
     * promtool's naming lint (an abbreviated unit, a {@code _count} suffix on a gauge) and are left out, so that
     * {@code promtool check metrics} passes on the page.
     *
     * @param registry a registry with no meter yet.
     */
    static void configure(final MeterRegistry registry)
    {
        registry.config().meterFilter(MeterFilter.deny(id ->
            "process.cpu.time".equals(id.getName()) || "system.cpu.count".equals(id.getName())));
    }

    GatewayMeters(final MeterRegistry registry)
    {
        for (int u = 0; u < URIS.length; u++)
        {
            for (int s = 0; s < STATUSES.length; s++)
            {
                requests[u][s] = Timer.builder("http.server.requests")
                    .description("requests the gateway answered, by route and status class")
                    .tag("method", "POST").tag("uri", URIS[u]).tag("status", STATUSES[s]).register(registry);
            }
        }
        retries = Counter.builder("mf.gateway.retries")
            .description("attempts made after a failed one, on another candidate (or another backend of a model named)")
            .register(registry);
        connectErrors = error(registry, "connect");
        statusErrors = error(registry, "status_5xx");
        rateLimited = error(registry, "status_429");
        timeouts = error(registry, "timeout");
        resets = error(registry, "reset");
        Gauge.builder("mf.gateway.active", active, AtomicLong::get)
            .description("requests the gateway is serving now").register(registry);
        unauthorized = refused(registry, "invalid_api_key");
        forbidden = refused(registry, "decision_not_allowed");
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    private static Counter refused(final MeterRegistry registry, final String code)
    {
        return Counter.builder("mf.gateway.auth.refused").description("requests refused by the client-key check, by code")
            .tag("code", code).register(registry);
    }

    /** Stops the GC binder's notifications. */
    @Override
    public void close()
    {
        gc.close();
    }

    private static Counter error(final MeterRegistry registry, final String cause)
    {
        return Counter.builder("mf.gateway.upstream.errors").description("failed attempts at a backend, by cause")
            .tag("cause", cause).register(registry);
    }

    /**
     * @param uri the route's index: 0 chat, 1 completions, 2 responses, 3 embeddings, 4 anything else.
     * @param status the status sent, 0 when the response was aborted.
     * @param nanos how long the request took.
     */
    void record(final int uri, final int status, final long nanos)
    {
        final int s = status < 100 || status > 599 ? 5 : status / 100 - 1;
        requests[uri][s].record(nanos, TimeUnit.NANOSECONDS);
    }
}
