package io.multifactor.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;

import java.util.function.BooleanSupplier;

/**
 * The operator's endpoints, never behind client keys: {@code GET /metrics} (Prometheus text), {@code /healthz} and
 * {@code /readyz} (503 once the gateway drains). Served on the main port, or on {@code --admin-port} alone.
 * <p>
 * This class is stateless and threadsafe.
 */
final class AdminEndpoints
{
    static final String METRICS = "/metrics";
    static final String HEALTH = "/healthz";
    static final String READY = "/readyz";

    private AdminEndpoints()
    {
    }

    /**
     * @param path a request's path.
     * @return whether it names one of the admin endpoints.
     */
    static boolean isAdminPath(final String path)
    {
        return METRICS.equals(path) || HEALTH.equals(path) || READY.equals(path);
    }

    /**
     * Answers an admin request.
     *
     * @param request a request whose path {@link #isAdminPath} accepted.
     * @param registry the registry behind {@code /metrics}.
     * @param ready whether {@code /readyz} answers ready.
     */
    static void serve(final HttpServerRequest request, final PrometheusMeterRegistry registry,
        final BooleanSupplier ready)
    {
        switch (request.path())
        {
            case METRICS:
                request.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
                    .end(registry.scrape());
                return;
            case HEALTH:
                json(request, 200, "{\"status\":\"ok\"}");
                return;
            default:
                final boolean isReady = ready.getAsBoolean();
                json(request, isReady ? 200 : 503, isReady ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}");
        }
    }

    static void json(final HttpServerRequest request, final int status, final String json)
    {
        request.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(json);
    }
}
