package io.multifactor.gateway;

import io.multifactor.serving.DecisionResolver;
import io.multifactor.serving.ServingError;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;

import java.util.function.BooleanSupplier;

/**
 * One event loop's share of the gateway: an HTTP server on the shared port and an HTTP client to the backends, both on
 * this verticle's event loop, so a request and its upstream exchange never change threads.
 * <p>
 * This class is not threadsafe: Vert.x calls it on its own event loop only.
 */
final class GatewayVerticle extends VerticleBase
{
    private final GatewayRoutes routes;
    private final PrometheusMeterRegistry registry;
    private final BooleanSupplier ready;
    private HttpClient client;
    private HttpServer server;
    /** This verticle's event loop's copy buffer for the SSE meter. */
    private final ChunkScratch scratch = new ChunkScratch();

    GatewayVerticle(final GatewayRoutes routes, final PrometheusMeterRegistry registry, final BooleanSupplier ready)
    {
        this.routes = routes;
        this.registry = registry;
        this.ready = ready;
    }

    @Override
    public Future<?> start()
    {
        client = vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true).setVerifyHost(true),
            new PoolOptions().setHttp1MaxSize(routes.options.maxConnectionsPerBackend()).setMaxWaitQueueSize(-1));
        server = vertx.createHttpServer(new HttpServerOptions()
            .setHost(routes.options.host())
            .setPort(routes.options.port())
            .setTcpNoDelay(true)
            // curl and others send "Expect: 100-continue" before a large body: answer at once instead of stalling.
            .setHandle100ContinueAutomatically(true)
            .setCompressionSupported(false));
        server.requestHandler(this::handle);
        return server.listen();
    }

    @Override
    public Future<?> stop()
    {
        return server.close().eventually(() -> client.close());
    }

    private void handle(final HttpServerRequest request)
    {
        final String path = request.path();
        final int route = proxiedRoute(path);
        if (route >= 0)
        {
            if (request.method() != HttpMethod.POST)
            {
                plain(request, ServingError.METHOD_NOT_ALLOWED, "use POST for " + path);
                return;
            }
            new ProxyExchange(routes, vertx, client, request, route,
                GatewayMeters.PROXIED[route].substring(GatewayMeters.PROXIED[route].indexOf('/', 1)), scratch).begin();
            return;
        }
        switch (path)
        {
            case GatewayMeters.MODELS:
                request.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(DecisionResolver.modelsList(routes.engine.plans()));
                return;
            case "/metrics":
                request.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
                    .end(registry.scrape());
                return;
            case "/healthz":
                plain(request, 200, "{\"status\":\"ok\"}");
                return;
            case "/readyz":
                plain(request, ready.getAsBoolean() ? 200 : 503,
                    ready.getAsBoolean() ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\"}");
                return;
            default:
                plain(request, ServingError.NOT_FOUND, "no route for " + request.method() + ' ' + path +
                    ": POST /v1/chat/completions, /v1/completions, /v1/responses or /v1/embeddings, GET /v1/models, " +
                    "/metrics, /healthz, /readyz");
        }
    }

    /** @return the index of a proxied route ({@link GatewayMeters#PROXIED}), -1 for another path. */
    private static int proxiedRoute(final String path)
    {
        for (int i = 0; i < GatewayMeters.PROXIED.length; i++)
        {
            if (GatewayMeters.PROXIED[i].equals(path))
            {
                return i;
            }
        }
        return -1;
    }

    private static void plain(final HttpServerRequest request, final ServingError error, final String message)
    {
        plain(request, error.status(), error.body(message));
    }

    private static void plain(final HttpServerRequest request, final int status, final String json)
    {
        request.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(json);
    }
}
