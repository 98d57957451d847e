package io.multifactor.gateway;

import io.multifactor.serving.JsonText;
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
        if (GatewayMeters.CHAT.equals(path) || GatewayMeters.COMPLETIONS.equals(path))
        {
            if (request.method() != HttpMethod.POST)
            {
                plain(request, 405, JsonText.error("invalid_request_error", "use POST for " + path));
                return;
            }
            final boolean chat = GatewayMeters.CHAT.equals(path);
            new ProxyExchange(routes, vertx, client, request, chat ? 0 : 1, chat ? "/chat/completions" : "/completions",
                scratch).begin();
            return;
        }
        switch (path)
        {
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
                plain(request, 404, JsonText.error("invalid_request_error", "no route for " + request.method() + ' ' +
                    path + ": POST /v1/chat/completions or /v1/completions, GET /metrics, /healthz, /readyz"));
        }
    }

    private static void plain(final HttpServerRequest request, final int status, final String json)
    {
        request.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(json);
    }
}
