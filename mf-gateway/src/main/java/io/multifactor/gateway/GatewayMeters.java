package io.multifactor.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's own meters, beside the engine's: {@code http.server.requests{method,uri,status}} (a timer per route
 * and status class), {@code mf.gateway.retries}, {@code mf.gateway.upstream.errors{cause}} and
 * {@code mf.gateway.active} (requests being served), {@code mf.gateway.auth.refused{code}} (client-key refusals).
 * Tags are bounded: routes and status classes, never request data.
 * <p>
 * This class is threadsafe: meters are Micrometer's, updated from any event loop.
 */
final class GatewayMeters
{
    static final String CHAT = "/v1/chat/completions";
    static final String COMPLETIONS = "/v1/completions";
    private static final String[] URIS = {CHAT, COMPLETIONS, "other"};
    private static final String[] STATUSES = {"1xx", "2xx", "3xx", "4xx", "5xx", "aborted"};

    private final Timer[][] requests = new Timer[URIS.length][STATUSES.length];
    final Counter retries;
    final Counter connectErrors;
    final Counter statusErrors;
    final Counter timeouts;
    final Counter resets;
    final AtomicLong active = new AtomicLong();
    /** Requests refused for a missing or unknown client key (401). */
    final Counter unauthorized;
    /** Requests refused because their key may not use their decision (403). */
    final Counter forbidden;

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
        retries = Counter.builder("mf.gateway.retries").description("requests sent again to another model")
            .register(registry);
        connectErrors = error(registry, "connect");
        statusErrors = error(registry, "status_5xx");
        timeouts = error(registry, "timeout");
        resets = error(registry, "reset");
        registry.gauge("mf.gateway.active", active);
        unauthorized = refused(registry, "invalid_api_key");
        forbidden = refused(registry, "decision_not_allowed");
    }

    private static Counter refused(final MeterRegistry registry, final String code)
    {
        return Counter.builder("mf.gateway.auth.refused").description("requests refused by the client-key check, by code")
            .tag("code", code).register(registry);
    }

    private static Counter error(final MeterRegistry registry, final String cause)
    {
        return Counter.builder("mf.gateway.upstream.errors").description("failed attempts at a backend, by cause")
            .tag("cause", cause).register(registry);
    }

    /**
     * @param uri the route's index: 0 chat, 1 completions, 2 anything else.
     * @param status the status sent, 0 when the response was aborted.
     * @param nanos how long the request took.
     */
    void record(final int uri, final int status, final long nanos)
    {
        final int s = status < 100 || status > 599 ? 5 : status / 100 - 1;
        requests[uri][s].record(nanos, TimeUnit.NANOSECONDS);
    }
}
